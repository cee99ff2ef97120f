import { charLength, isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import type { SandboxState } from "../state.ts";
import { MetaError } from "./errors.ts";
import { checkMediaSource, type MediaOutcome } from "./media-send.ts";
import { checkOrderStatus } from "./order-status.ts";

/*
 * Interactive messages (meta-messages.md §1): reply buttons, lists, URL buttons, location and contact-info requests.
 * Limits are refused with 131009 and Meta's observed `details` ("Button title length invalid. Min length: 1, Max
 * length: 20"); the unobserved ones follow the same pattern (U#4). A missing required member is 131008.
 */

/** `<Field> length invalid. Min length: X, Max length: Y` unless `text` is a string within [min, max] code points. */
function checkLength(text: unknown, field: string, min: number, max: number): void {
  if (typeof text !== "string" || charLength(text) < min || charLength(text) > max)
    throw new MetaError(131009, `${field} length invalid. Min length: ${min}, Max length: ${max}`);
}

function required(value: unknown, name: string): asserts value is JsonRecord {
  if (!isRecord(value)) throw new MetaError(131008, `${name} is required`);
}

function checkBody(interactive: JsonRecord, max: number): void {
  required(interactive.body, "interactive['body']");
  if (interactive.body.text === undefined) throw new MetaError(131008, "interactive['body']['text'] is required");
  checkLength(interactive.body.text, "Body text", 1, max);
}

function checkFooter(interactive: JsonRecord): void {
  if (interactive.footer === undefined) return;
  required(interactive.footer, "interactive['footer']");
  checkLength(interactive.footer.text, "Footer text", 0, 60);
}

const HEADER_MEDIA = ["image", "video", "document"] as const;

function checkHeader(
  state: SandboxState,
  phoneNumberId: string,
  interactive: JsonRecord,
  textOnly: boolean,
): MediaOutcome {
  const header = interactive.header;
  if (header === undefined) return { fails: false };
  required(header, "interactive['header']");
  if (header.type === "text") {
    checkLength(header.text, "Header text", 1, 60);
    return { fails: false };
  }
  const type = HEADER_MEDIA.find((t) => t === header.type);
  if (textOnly || type === undefined)
    throw new MetaError(
      131009,
      `Header type invalid. Allowed types: ${textOnly ? "text" : "text, image, video, document"}; got ${shown(header.type)}`,
    );
  const media = header[type];
  if (!isRecord(media)) throw new MetaError(131008, `interactive['header']['${type}'] is required`);
  return checkMediaSource(state, phoneNumberId, type, `header['${type}']`, media);
}

function checkButtons(interactive: JsonRecord): void {
  required(interactive.action, "interactive['action']");
  const buttons = interactive.action.buttons;
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3)
    throw new MetaError(131009, "Invalid buttons count. Min allowed buttons: 1, Max allowed buttons: 3");
  const ids = new Set<string>();
  const titles = new Set<string>();
  for (const button of buttons) {
    if (!isRecord(button) || button.type !== "reply" || !isRecord(button.reply))
      throw new MetaError(131008, "interactive['action']['buttons'][]['reply'] is required");
    checkLength(button.reply.title, "Button title", 1, 20);
    checkLength(button.reply.id, "Button id", 1, 256);
    const { id, title } = button.reply as { id: string; title: string };
    if (ids.has(id)) throw new MetaError(131009, "Button id must be unique");
    if (titles.has(title)) throw new MetaError(131009, "Button title must be unique");
    ids.add(id);
    titles.add(title);
  }
}

function checkList(interactive: JsonRecord): void {
  required(interactive.action, "interactive['action']");
  const { button, sections } = interactive.action;
  if (button === undefined) throw new MetaError(131008, "interactive['action']['button'] is required");
  checkLength(button, "Button text", 1, 20);
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
    throw new MetaError(131009, "Invalid sections count. Min allowed sections: 1, Max allowed sections: 10");
  let rows = 0;
  const ids = new Set<string>();
  for (const section of sections) {
    if (!isRecord(section) || !Array.isArray(section.rows) || section.rows.length < 1)
      throw new MetaError(131008, "interactive['action']['sections'][]['rows'] is required");
    checkLength(section.title, "Section title", 1, 24);
    rows += section.rows.length;
    for (const row of section.rows) {
      if (!isRecord(row)) throw new MetaError(131008, "interactive['action']['sections'][]['rows'][] is required");
      checkLength(row.id, "Row id", 1, 200);
      checkLength(row.title, "Row title", 1, 24);
      if (row.description !== undefined) checkLength(row.description, "Row description", 0, 72);
      const id = row.id as string;
      if (ids.has(id)) throw new MetaError(131009, "Row id must be unique");
      ids.add(id);
    }
  }
  if (rows > 10) throw new MetaError(131009, "Total row count exceed max allowed count: 10");
}

function checkCtaUrl(interactive: JsonRecord): void {
  required(interactive.action, "interactive['action']");
  const { name, parameters } = interactive.action;
  if (name !== "cta_url") throw new MetaError(131009, `Action name invalid. Expected: cta_url; got ${shown(name)}`);
  required(parameters, "interactive['action']['parameters']");
  checkLength(parameters.display_text, "Display text", 1, 20);
  if (!nonEmptyString(parameters.url) || !/^https?:\/\/\S+$/i.test(parameters.url))
    throw new MetaError(131009, "URL invalid. Expected an http or https URL");
}

function checkLocationRequest(interactive: JsonRecord): void {
  for (const key of ["header", "footer"])
    if (interactive[key] !== undefined)
      throw new MetaError(100, `Param interactive['${key}'] is not allowed for location_request_message.`);
  required(interactive.action, "interactive['action']");
  if (interactive.action.name !== "send_location")
    throw new MetaError(131009, `Action name invalid. Expected: send_location; got ${shown(interactive.action.name)}`);
}

/*
 * `request_contact_info` asks a username user for its phone (meta-late-2026 §3). The shape is the partners' (Kapso,
 * Gupshup): Meta's own page was not seen, so it is UNVERIFIED. Checked like location_request_message: body text,
 * the fixed action name, nothing else (the partners show no header, footer or other member).
 */
/** 100, as for a header on location_request_message, for any member of `value` beyond `allowed`. */
function onlyMembers(value: JsonRecord, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(value))
    if (!allowed.includes(key))
      throw new MetaError(100, `Param ${path}['${key}'] is not allowed for request_contact_info.`);
}

function checkContactRequest(interactive: JsonRecord): void {
  onlyMembers(interactive, "interactive", ["type", "body", "action"]);
  required(interactive.body, "interactive['body']");
  onlyMembers(interactive.body, "interactive['body']", ["text"]);
  checkBody(interactive, 1024);
  required(interactive.action, "interactive['action']");
  onlyMembers(interactive.action, "interactive['action']", ["name"]);
  const { name } = interactive.action;
  if (name === undefined) throw new MetaError(131008, "interactive['action']['name'] is required");
  if (name !== "request_contact_info")
    throw new MetaError(131009, `Action name invalid. Expected: request_contact_info; got ${shown(name)}`);
}

export const INTERACTIVE_TYPES = [
  "button",
  "list",
  "cta_url",
  "location_request_message",
  "request_contact_info",
  "order_details",
  "order_status",
] as const;

/**
 * `interactive` of a send other than `order_details` (checked apart; `order_status` in `order-status.ts`): each limit of meta-messages.md §1.1. Returns
 * what the later statuses report about a media header (a link Meta cannot download fails with 131053).
 */
export function checkInteractiveMessage(
  state: SandboxState,
  phoneNumberId: string,
  interactive: JsonRecord,
): MediaOutcome {
  switch (interactive.type) {
    case "button": {
      const outcome = checkHeader(state, phoneNumberId, interactive, false);
      checkBody(interactive, 1024);
      checkFooter(interactive);
      checkButtons(interactive);
      return outcome;
    }
    case "list":
      checkHeader(state, phoneNumberId, interactive, true);
      checkBody(interactive, 4096);
      checkFooter(interactive);
      checkList(interactive);
      return { fails: false };
    case "cta_url": {
      const outcome = checkHeader(state, phoneNumberId, interactive, false);
      checkBody(interactive, 1024);
      checkFooter(interactive);
      checkCtaUrl(interactive);
      return outcome;
    }
    case "location_request_message":
      checkLocationRequest(interactive);
      checkBody(interactive, 1024);
      return { fails: false };
    case "request_contact_info":
      checkContactRequest(interactive);
      return { fails: false };
    case "order_status":
      // Its shape here; the order it names in `orders.ts` (checkOrderMessage).
      checkOrderStatus(interactive);
      return { fails: false };
    default:
      throw new MetaError(
        100,
        `Param interactive['type'] must be one of {${INTERACTIVE_TYPES.map((t) => t.toUpperCase()).join(", ")}} - got "${shown(interactive.type)}".`,
      );
  }
}
