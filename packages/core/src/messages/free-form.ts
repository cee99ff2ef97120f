import type {
  GraphInteractive,
  GraphInteractiveHeader,
  GraphInteractivePayload,
  GraphLocationPayload,
  GraphMediaContent,
  GraphMediaKind,
  GraphMediaPayload,
  GraphMediaSource,
  GraphReactionPayload,
} from "@gw/meta";
import { graphRecipient } from "../contacts/recipient.ts";

/*
 * The free-form kinds beyond text (issue 27): what the send service takes (camelCase, built by the API's route from
 * the validated body; every Meta limit was checked there) and the Graph JSON each becomes (meta-messages.md §1–3).
 */

export type MediaType = GraphMediaKind;

/** A media named by exactly one of an upload of the account (`mediaId`) or a public link. */
export interface MediaSource {
  mediaId: string | null;
  link: string | null;
}

export type InteractiveHeader =
  { type: "text"; text: string } | ({ type: "image" | "video" | "document"; filename: string | null } & MediaSource);

export interface InteractiveButton {
  id: string;
  title: string;
}

export interface ListRow {
  id: string;
  title: string;
  description: string | null;
}

export interface ListSection {
  title: string;
  rows: ListRow[];
}

export type Interactive =
  | {
      type: "button";
      header: InteractiveHeader | null;
      body: string;
      footer: string | null;
      buttons: InteractiveButton[];
    }
  | {
      type: "list";
      header: { type: "text"; text: string } | null;
      body: string;
      footer: string | null;
      button: string;
      sections: ListSection[];
    }
  | {
      type: "cta_url";
      header: InteractiveHeader | null;
      body: string;
      footer: string | null;
      displayText: string;
      url: string;
    }
  | { type: "location_request"; body: string }
  | { type: "request_contact_info"; body: string };

export interface Media extends MediaSource {
  type: MediaType;
  caption: string | null;
  filename: string | null;
  voice: boolean;
}

export interface Reaction {
  /** The contact's message reacted to (its wamid). */
  messageId: string;
  /** One emoji, or "" to remove the reaction sent before. */
  emoji: string;
}

export interface Location {
  latitude: number;
  longitude: number;
  name: string | null;
  address: string | null;
}

/** The free-form contents of a send beyond text, as `MessageContent` carries them. */
export type FreeFormContent =
  | { kind: "interactive"; interactive: Interactive }
  | { kind: "media"; media: Media }
  | { kind: "reaction"; reaction: Reaction }
  | { kind: "location"; location: Location };

function source(media: MediaSource): GraphMediaSource {
  if (media.mediaId !== null) return { id: media.mediaId };
  if (media.link !== null) return { link: media.link };
  // The edge refuses a media without either (422); reaching here is a caller's bug.
  throw new Error("media without media_id nor link");
}

function graphHeader(header: InteractiveHeader): GraphInteractiveHeader {
  switch (header.type) {
    case "text":
      return { type: "text", text: header.text };
    case "image":
      return { type: "image", image: source(header) };
    case "video":
      return { type: "video", video: source(header) };
    case "document":
      return {
        type: "document",
        document: { ...source(header), ...(header.filename === null ? {} : { filename: header.filename }) },
      };
  }
}

const footerOf = (text: string | null) => (text === null ? {} : { footer: { text } });

function graphInteractive(interactive: Interactive): GraphInteractive {
  switch (interactive.type) {
    case "button":
      return {
        type: "button",
        ...(interactive.header ? { header: graphHeader(interactive.header) } : {}),
        body: { text: interactive.body },
        ...footerOf(interactive.footer),
        action: {
          buttons: interactive.buttons.map((b) => ({ type: "reply" as const, reply: { id: b.id, title: b.title } })),
        },
      };
    case "list":
      return {
        type: "list",
        ...(interactive.header ? { header: { type: "text" as const, text: interactive.header.text } } : {}),
        body: { text: interactive.body },
        ...footerOf(interactive.footer),
        action: {
          button: interactive.button,
          sections: interactive.sections.map((section) => ({
            title: section.title,
            rows: section.rows.map((row) => ({
              id: row.id,
              title: row.title,
              ...(row.description === null ? {} : { description: row.description }),
            })),
          })),
        },
      };
    case "cta_url":
      return {
        type: "cta_url",
        ...(interactive.header ? { header: graphHeader(interactive.header) } : {}),
        body: { text: interactive.body },
        ...footerOf(interactive.footer),
        action: { name: "cta_url", parameters: { display_text: interactive.displayText, url: interactive.url } },
      };
    case "location_request":
      return {
        type: "location_request_message",
        body: { text: interactive.body },
        action: { name: "send_location" },
      };
    case "request_contact_info":
      return {
        type: "request_contact_info",
        body: { text: interactive.body },
        action: { name: "request_contact_info" },
      };
  }
}

function graphMedia(media: Media): GraphMediaContent {
  return {
    ...source(media),
    ...(media.caption === null ? {} : { caption: media.caption }),
    ...(media.filename === null ? {} : { filename: media.filename }),
    ...(media.voice ? { voice: true } : {}),
  };
}

/**
 * A coordinate in decimal degrees, as Meta documents it (a string): never in exponent notation (`1e-7`), which
 * `String()` writes for tiny values.
 */
export function decimalDegrees(value: number): string {
  const plain = String(value);
  if (!/e/i.test(plain)) return plain;
  return value.toFixed(20).replace(/\.?0+$/, "");
}

type FreeFormPayload = GraphInteractivePayload | GraphMediaPayload | GraphReactionPayload | GraphLocationPayload;

/**
 * The Graph JSON of a free-form send (meta-messages.md: §1.2–1.5 interactive, §2.2 media, §3.1 reaction, §3.2
 * location), with the recipient (a phone in `to`, a BSUID in `recipient`) and the quoted message as `context` for
 * every kind but a reaction (which cannot quote: the edge refuses it).
 */
export function freeFormPayload(
  input: { to: string; replyToMessageId?: string | null | undefined },
  content: FreeFormContent,
): FreeFormPayload {
  const base = {
    messaging_product: "whatsapp" as const,
    recipient_type: "individual" as const,
    ...graphRecipient(input.to),
  };
  const context = input.replyToMessageId ? { context: { message_id: input.replyToMessageId } } : {};
  switch (content.kind) {
    case "interactive":
      return { ...base, ...context, type: "interactive", interactive: graphInteractive(content.interactive) };
    case "media": {
      const media = graphMedia(content.media);
      // One object per media type, named by it (`"image": {...}`).
      return { ...base, ...context, type: content.media.type, [content.media.type]: media } as GraphMediaPayload;
    }
    case "reaction":
      return {
        ...base,
        type: "reaction",
        reaction: { message_id: content.reaction.messageId, emoji: content.reaction.emoji },
      };
    case "location":
      return {
        ...base,
        ...context,
        type: "location",
        location: {
          latitude: decimalDegrees(content.location.latitude),
          longitude: decimalDegrees(content.location.longitude),
          ...(content.location.name === null ? {} : { name: content.location.name }),
          ...(content.location.address === null ? {} : { address: content.location.address }),
        },
      };
  }
}
