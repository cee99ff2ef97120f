// What the panel shows of a send beyond its kind, and of a received message beyond today's columns (issue 27).

/**
 * What a send carried beyond its kind, as `messages.content` keeps it (the send service's OutboundSummary, issue
 * 27): the structure of buttons, lists, media, reactions and locations, never a body text, footer or caption. Read
 * defensively: a row this release does not understand shows as its kind alone.
 */
export type OutboundContentView =
  | { kind: "text"; body: string }
  | {
      kind: "interactive";
      type: "button";
      header_type: string | null;
      buttons: { id: string; title: string }[];
    }
  | {
      kind: "interactive";
      type: "list";
      button: string | null;
      sections: { title: string | null; rows: { id: string; title: string; description: string | null }[] }[];
    }
  | { kind: "interactive"; type: "cta_url"; display_text: string | null; url_host: string | null }
  | { kind: "interactive"; type: "location_request" }
  | { kind: "interactive"; type: "request_contact_info" }
  | {
      kind: "media";
      type: string;
      media_id: string | null;
      link_host: string | null;
      filename: string | null;
      voice: boolean;
    }
  | { kind: "reaction"; message_id: string | null; emoji: string }
  | { kind: "location"; latitude: number; longitude: number; name: string | null; address: string | null };

/** A contact card the contact shared: its names and phones (the rest stays in the webhook). */
export interface SharedContactView {
  name: string | null;
  phones: string[];
}

/**
 * What a received message carried beyond today's columns (`inbound_messages.details`, the version-2 members of
 * `message.received`): the option tapped, a template button, a location, contact cards, a reaction, an ad, the
 * forwarded flags. Read defensively, like OutboundContentView.
 */
export interface InboundDetailsView {
  interactive: { type: string; id: string; title: string | null; description: string | null } | null;
  button: { payload: string | null; text: string | null } | null;
  location: {
    latitude: number;
    longitude: number;
    name: string | null;
    address: string | null;
    url: string | null;
  } | null;
  contacts: SharedContactView[];
  /** `emoji` null: the contact removed its reaction. */
  reaction: { message_id: string | null; emoji: string | null } | null;
  referral: {
    headline: string | null;
    body: string | null;
    source_url: string | null;
    source_type: string | null;
  } | null;
  forwarded: boolean;
  frequently_forwarded: boolean;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function coordinate(value: unknown, limit: number): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function locationOf(value: unknown) {
  const raw = record(value);
  if (!raw) return null;
  const latitude = coordinate(raw.latitude, 90);
  const longitude = coordinate(raw.longitude, 180);
  if (latitude === null || longitude === null) return null;
  return { latitude, longitude, name: text(raw.name), address: text(raw.address) };
}

/** `messages.content` as the panel shows it; null for a template send, a text sent before issue 39, or a shape it does not know. */
export function outboundContentOf(value: unknown): OutboundContentView | null {
  const raw = record(value);
  if (!raw) return null;
  if (raw.kind === "text") {
    const body = text(raw.body);
    return body === null ? null : { kind: "text", body };
  }
  if (raw.kind === "interactive") {
    if (raw.type === "button")
      return {
        kind: "interactive",
        type: "button",
        header_type: text(raw.header_type),
        buttons: list(raw.buttons).flatMap((item) => {
          const button = record(item);
          const id = text(button?.id);
          const title = text(button?.title);
          return id !== null && title !== null ? [{ id, title }] : [];
        }),
      };
    if (raw.type === "list")
      return {
        kind: "interactive",
        type: "list",
        button: text(raw.button),
        sections: list(raw.sections).flatMap((item) => {
          const section = record(item);
          if (!section) return [];
          const rows = list(section.rows).flatMap((entry) => {
            const row = record(entry);
            const id = text(row?.id);
            const title = text(row?.title);
            return id !== null && title !== null ? [{ id, title, description: text(row?.description) }] : [];
          });
          return [{ title: text(section.title), rows }];
        }),
      };
    if (raw.type === "cta_url")
      return {
        kind: "interactive",
        type: "cta_url",
        display_text: text(raw.display_text),
        url_host: text(raw.url_host),
      };
    if (raw.type === "location_request") return { kind: "interactive", type: "location_request" };
    if (raw.type === "request_contact_info") return { kind: "interactive", type: "request_contact_info" };
    return null;
  }
  if (raw.kind === "media") {
    const type = text(raw.type);
    if (type === null) return null;
    return {
      kind: "media",
      type,
      media_id: text(raw.media_id),
      link_host: text(raw.link_host),
      filename: text(raw.filename),
      voice: raw.voice === true,
    };
  }
  if (raw.kind === "reaction")
    return {
      kind: "reaction",
      message_id: text(raw.message_id),
      emoji: typeof raw.emoji === "string" ? raw.emoji : "",
    };
  if (raw.kind === "location") {
    const location = locationOf(raw);
    return location ? { kind: "location", ...location } : null;
  }
  return null;
}

/** `inbound_messages.details` as the panel shows it; null when there is none. */
export function inboundDetailsOf(value: unknown): InboundDetailsView | null {
  const raw = record(value);
  if (!raw) return null;
  const interactive = record(raw.interactive);
  const interactiveId = text(interactive?.id);
  const button = record(raw.button);
  const location = locationOf(raw.location);
  const reaction = record(raw.reaction);
  const referral = record(raw.referral);
  return {
    interactive:
      interactive && interactiveId !== null
        ? {
            type: text(interactive.type) ?? "button_reply",
            id: interactiveId,
            title: text(interactive.title),
            description: text(interactive.description),
          }
        : null,
    button: button ? { payload: text(button.payload), text: text(button.text) } : null,
    location: location ? { ...location, url: text(record(raw.location)?.url) } : null,
    contacts: list(raw.contacts).flatMap((item) => {
      const card = record(item);
      if (!card) return [];
      const name =
        text(card.formatted_name) ?? ([text(card.first_name), text(card.last_name)].filter(Boolean).join(" ") || null);
      const phones = list(card.phones).flatMap((entry) => {
        const phone = text(record(entry)?.phone) ?? text(record(entry)?.wa_id);
        return phone === null ? [] : [phone];
      });
      return [{ name, phones }];
    }),
    reaction: reaction ? { message_id: text(reaction.message_id), emoji: text(reaction.emoji) } : null,
    referral: referral
      ? {
          headline: text(referral.headline),
          body: text(referral.body),
          source_url: text(referral.source_url),
          source_type: text(referral.source_type),
        }
      : null,
    forwarded: raw.forwarded === true || raw.frequently_forwarded === true,
    frequently_forwarded: raw.frequently_forwarded === true,
  };
}
