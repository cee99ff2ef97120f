import type { FreeFormContent, Interactive, InteractiveHeader, MediaType } from "./free-form.ts";

/*
 * What the gateway keeps of a free-form send (`messages.content`, jsonb), for the panel's Conversas: a text send's
 * body (issue 39: the inbox shows both sides), and of the other kinds the structure the contact saw — buttons, list
 * rows, where a URL button leads, which media, the reaction, the pin — but not their body texts, footers or captions
 * (docs/decisions.md, "Outbound summaries, not texts", and "The inbox keeps what was sent"). Retention clears it with
 * the contact's other content, as it clears the inbound texts. snake_case: it is stored and read as JSON.
 */

type HeaderType = InteractiveHeader["type"] | null;

export type OutboundSummary =
  | { kind: "text"; body: string }
  | {
      kind: "interactive";
      type: "button";
      header_type: HeaderType;
      buttons: { id: string; title: string }[];
    }
  | {
      kind: "interactive";
      type: "list";
      header_type: HeaderType;
      button: string;
      sections: { title: string; rows: { id: string; title: string; description: string | null }[] }[];
    }
  | { kind: "interactive"; type: "cta_url"; header_type: HeaderType; display_text: string; url_host: string }
  | { kind: "interactive"; type: "location_request" }
  | { kind: "interactive"; type: "request_contact_info" }
  | {
      kind: "media";
      type: MediaType;
      /** The upload sent, when sent by id (the panel links to it). */
      media_id: string | null;
      /** The host of the public link, when sent by link (never the whole URL: it may carry a token). */
      link_host: string | null;
      filename: string | null;
      voice: boolean;
    }
  | { kind: "reaction"; message_id: string; emoji: string }
  | { kind: "location"; latitude: number; longitude: number; name: string | null; address: string | null };

/** The host of an http(s) URL (the edge accepted it as one); null if it cannot be read. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

function interactiveSummary(interactive: Interactive): OutboundSummary {
  switch (interactive.type) {
    case "button":
      return {
        kind: "interactive",
        type: "button",
        header_type: interactive.header?.type ?? null,
        buttons: interactive.buttons.map((b) => ({ id: b.id, title: b.title })),
      };
    case "list":
      return {
        kind: "interactive",
        type: "list",
        header_type: interactive.header?.type ?? null,
        button: interactive.button,
        sections: interactive.sections.map((section) => ({
          title: section.title,
          rows: section.rows.map((row) => ({ id: row.id, title: row.title, description: row.description })),
        })),
      };
    case "cta_url":
      return {
        kind: "interactive",
        type: "cta_url",
        header_type: interactive.header?.type ?? null,
        display_text: interactive.displayText,
        url_host: hostOf(interactive.url) ?? "",
      };
    case "location_request":
      return { kind: "interactive", type: "location_request" };
    case "request_contact_info":
      return { kind: "interactive", type: "request_contact_info" };
  }
}

/** The summary of a free-form send, as `messages.content` stores it. */
export function outboundSummary(content: FreeFormContent): OutboundSummary {
  switch (content.kind) {
    case "interactive":
      return interactiveSummary(content.interactive);
    case "media":
      return {
        kind: "media",
        type: content.media.type,
        media_id: content.media.mediaId,
        link_host: content.media.link === null ? null : hostOf(content.media.link),
        filename: content.media.filename,
        voice: content.media.voice,
      };
    case "reaction":
      return { kind: "reaction", message_id: content.reaction.messageId, emoji: content.reaction.emoji };
    case "location":
      return {
        kind: "location",
        latitude: content.location.latitude,
        longitude: content.location.longitude,
        name: content.location.name,
        address: content.location.address,
      };
  }
}
