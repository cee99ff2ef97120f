import { createHash, randomBytes } from "node:crypto";
import type { MessageReceivedEvent } from "@gw/contracts";
import { z } from "zod";
import { inboundField } from "./conversation-owners.ts";
import { deliver } from "./deliveries.ts";
import { registerMedia } from "./graph/media.ts";
import { displayPhoneNumber, newMediaId, newWamid } from "./ids.ts";
import { recordContactMessage, type SandboxState, type SandboxUser } from "./state.ts";
import {
  BSUID_PATTERN,
  findUser,
  identityOf,
  PARENT_BSUID_PATTERN,
  PHONE_PATTERN,
  portfolioOf,
  recordPhoneExchange,
  refOf,
  USERNAME_PATTERN,
  webhookContact,
} from "./users.ts";
import { webhookPayload, type WebhookContact, type WebhookPayload } from "./webhooks.ts";

/** The types of the gateway's `message.received` (its contract), which Meta's message types are read into. */
type ReceivedType = MessageReceivedEvent["data"]["type"];

/** The gateway's contract's message types: the control API can send each of them. */
const CONTRACT_TYPES = [
  "text",
  "image",
  "document",
  "audio",
  "video",
  "sticker",
  "location",
  "contacts",
  "button",
  "interactive",
  "unsupported",
] as const satisfies readonly ReceivedType[];
// None of the contract's types is missing: a new one does not compile until the sandbox can send it.
const _everyType: readonly (typeof CONTRACT_TYPES)[number][] = [] as ReceivedType[];
/** Message types a contact can send through the control API: the contract's, and Meta's `reaction`. */
const INBOUND_TYPES = [...CONTRACT_TYPES, "reaction"] as const;
const MEDIA_TYPES = new Set(["image", "document", "audio", "video", "sticker"]);
const DEFAULT_MIME: Record<string, string> = {
  image: "image/jpeg",
  document: "application/pdf",
  audio: "audio/ogg; codecs=opus",
  video: "video/mp4",
  sticker: "image/webp",
};

const unixSeconds = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/**
 * Body of POST /_sandbox/inbound: a message from a contact, in the sandbox's own short form. The sender is named by
 * exactly one of `from` (its phone), `user_id` (its BSUID or parent BSUID) or `username` (a registered user's).
 */
export const inboundSchema = z
  .object({
    phone_number_id: z.string().min(1),
    from: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    user_id: z
      .string()
      .refine((id) => BSUID_PATTERN.test(id) || PARENT_BSUID_PATTERN.test(id), "deve ser um BSUID")
      .optional(),
    username: z.string().regex(USERNAME_PATTERN, "deve ser um nome de usuário do WhatsApp").optional(),
    name: z.string().optional(),
    type: z.enum(INBOUND_TYPES),
    text: z.string().optional(),
    media: z
      .object({
        id: z.string().min(1),
        mime_type: z.string().min(1),
        filename: z.string().min(1),
        caption: z.string(),
        sha256: z.string().min(1),
        voice: z.boolean(),
        animated: z.boolean(),
        /** The media's bytes in base64, served by GET /{media-id}'s URL; default: a sample file of its type. */
        data: z.base64().max(4_000_000),
      })
      .partial()
      .optional(),
    button: z.object({ text: z.string(), payload: z.string().optional() }).optional(),
    interactive: z
      .object({
        title: z.string(),
        id: z.string().optional(),
        description: z.string().optional(),
        /** Meta's name for what was tapped (its webhook's `interactive.type`); `kind` is the older name, same meaning. */
        type: z.enum(["button_reply", "list_reply"]).optional(),
        kind: z.enum(["button_reply", "list_reply"]).optional(),
      })
      .refine((reply) => reply.type === undefined || reply.kind === undefined || reply.type === reply.kind, {
        message: "type e kind dizem o mesmo: informe só um deles, ou os dois iguais",
        path: ["type"],
      })
      .optional(),
    location: z
      .object({
        latitude: z.number(),
        longitude: z.number(),
        name: z.string().optional(),
        address: z.string().optional(),
        url: z.string().optional(),
      })
      .optional(),
    contacts: z.array(z.record(z.string(), z.unknown())).optional(),
    /** `type: reaction`: the business message reacted to; without `emoji` the reaction is removed (Meta's shape). */
    reaction: z.object({ message_id: z.string().min(1), emoji: z.string().optional() }).optional(),
    /**
     * The click-to-WhatsApp ad the message came from (any type): the fields given, over an image ad's defaults; a
     * field set to null is left out (`ctwa_clid: null`, as Meta does for WhatsApp Status placements).
     */
    referral: z
      .object({
        source_url: z.string().nullable(),
        source_id: z.string().nullable(),
        source_type: z.string().nullable(),
        body: z.string().nullable(),
        headline: z.string().nullable(),
        media_type: z.string().nullable(),
        image_url: z.string().nullable(),
        video_url: z.string().nullable(),
        thumbnail_url: z.string().nullable(),
        ctwa_clid: z.string().nullable(),
        welcome_message: z.object({ text: z.string() }).nullable(),
      })
      .partial()
      .optional(),
    /** A reply (`id`: the quoted message), and/or a forwarded message (`forwarded` or `frequently_forwarded`). */
    context: z
      .object({
        id: z.string().min(1).optional(),
        from: z.string().optional(),
        forwarded: z.boolean().optional(),
        frequently_forwarded: z.boolean().optional(),
      })
      .refine(
        (context) => context.id !== undefined || context.forwarded === true || context.frequently_forwarded === true,
        "informe id, forwarded ou frequently_forwarded",
      )
      .optional(),
    timestamp: unixSeconds.optional(),
    id: z.string().min(1).optional(),
    waba_id: z.string().min(1).optional(),
  })
  .superRefine((input, ctx) => {
    const senders = [input.from, input.user_id, input.username].filter((v) => v !== undefined).length;
    if (senders !== 1) {
      ctx.addIssue({ code: "custom", path: ["from"], message: "informe exatamente um de from, user_id ou username" });
    }
    const need = (field: "text" | "button" | "interactive" | "reaction", when: string) => {
      if (input.type === when && input[field] === undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: `obrigatório quando type é ${when}` });
      }
    };
    need("text", "text");
    need("button", "button");
    need("interactive", "interactive");
    need("reaction", "reaction");
  });

export type InboundInput = z.infer<typeof inboundSchema>;

/** The sender a control-API input names; undefined for a BSUID or username the sandbox does not know. */
export function inboundSender(state: SandboxState, input: InboundInput): SandboxUser | undefined {
  const query = { phone: input.from, user_id: input.user_id, username: input.username };
  return findUser(state, query, portfolioOf(state, input.phone_number_id));
}

/**
 * The `contacts[0]` and `messages[0]` objects of Meta's inbound webhook for a control-API input (meta-2026 §1.4):
 * `user_id`/`from_user_id` always, the parent BSUID when enabled, `profile.username` when adopted, the phone
 * (`wa_id`, `from`) only when this number may see it. Records the sender's window, the inbound message (for
 * mark-as-read) and, when the phone showed, the phone exchange. Media messages get their bytes registered, so
 * GET /{media-id} and its download URL serve them.
 */
export function inboundMessage(
  state: SandboxState,
  input: InboundInput,
  user: SandboxUser,
): { message: Record<string, unknown>; contact: WebhookContact } {
  if (input.name !== undefined) {
    // The profile name the user shows from now on (a phone user's is kept aside: it is not stored).
    if (user.registered) user.name = input.name;
    else state.profileNames.set(user.key, input.name);
  }
  const identity = { ...identityOf(state, user, input.phone_number_id), ...(input.name ? { name: input.name } : {}) };
  const seconds = input.timestamp ?? Math.floor(state.now() / 1000);
  const message: Record<string, unknown> = {};
  if (identity.phone !== undefined) message.from = identity.phone;
  message.from_user_id = identity.userId;
  if (identity.parentUserId !== undefined) message.from_parent_user_id = identity.parentUserId;
  message.id = input.id ?? newWamid(identity.phone ?? identity.userId);
  message.timestamp = String(seconds);
  message.type = input.type;
  if (input.context) {
    const { id, from, forwarded, frequently_forwarded: frequently } = input.context;
    message.context = {
      ...(id === undefined ? {} : { from: from ?? displayPhoneNumber(input.phone_number_id), id }),
      ...(forwarded === undefined ? {} : { forwarded }),
      ...(frequently === undefined ? {} : { frequently_forwarded: frequently }),
    };
  }
  Object.assign(message, content(state, input));
  if (input.referral) message.referral = referral(input.referral);

  const atMs = seconds * 1000;
  // Meta opens the window when the contact writes, whether or not the gateway gets the webhook.
  recordContactMessage(state, input.phone_number_id, user.key, atMs);
  if (identity.phone !== undefined) recordPhoneExchange(state, user, input.phone_number_id, atMs);
  state.inboundMessages.set(String(message.id), { phoneNumberId: input.phone_number_id, user: refOf(user), atMs });
  for (const oldest of state.inboundMessages.keys()) {
    if (state.inboundMessages.size <= state.config.historyLimit) break;
    state.inboundMessages.delete(oldest);
  }
  return { message, contact: webhookContact(identity, { username: true }) };
}

function content(state: SandboxState, input: InboundInput): Record<string, unknown> {
  if (MEDIA_TYPES.has(input.type)) return { [input.type]: media(state, input) };
  switch (input.type) {
    case "text":
      return { text: { body: input.text ?? "" } };
    case "button":
      // Quick-reply button of a template: Meta sends the payload (the button text when none was set).
      return { button: { payload: input.button?.payload ?? input.button?.text ?? "", text: input.button?.text ?? "" } };
    case "interactive": {
      const kind = input.interactive?.type ?? input.interactive?.kind ?? "button_reply";
      const reply: Record<string, string> = {
        id: input.interactive?.id ?? "opcao_1",
        title: input.interactive?.title ?? "",
      };
      if (kind === "list_reply" && input.interactive?.description) reply.description = input.interactive.description;
      return { interactive: { type: kind, [kind]: reply } };
    }
    case "location":
      return {
        location: input.location ?? {
          latitude: -23.561414,
          longitude: -46.655881,
          name: "Avenida Paulista",
          address: "Av. Paulista, São Paulo - SP",
        },
      };
    case "contacts":
      return {
        contacts: input.contacts ?? [
          {
            name: { formatted_name: input.text ?? "Contato Exemplo", first_name: input.text ?? "Contato" },
            phones: [{ phone: "+55 11 99999-0000", type: "CELL", wa_id: "5511999990000" }],
          },
        ],
      };
    case "reaction": {
      const given = input.reaction;
      // Meta's removal has no `emoji` at all; an explicit "" is passed on as given (SDKs send it).
      return {
        reaction: {
          message_id: given?.message_id ?? "",
          ...(given?.emoji === undefined ? {} : { emoji: given.emoji }),
        },
      };
    }
    default:
      // Meta's shape for messages the Cloud API cannot represent.
      return {
        errors: [
          {
            code: 131051,
            title: "Message type unknown",
            message: "Message type unknown",
            error_data: { details: "Message type is currently not supported." },
          },
        ],
      };
  }
}

/** An image ad's referral (meta-messages §4.10), with the given fields over it; a null field is left out. */
function referral(given: NonNullable<InboundInput["referral"]>): Record<string, unknown> {
  const defaults: Record<string, unknown> = {
    source_url: "https://fb.me/3cr4Wqqkv",
    source_id: "120226305854810726",
    source_type: "ad",
    body: "Pão de queijo quentinho toda manhã!",
    headline: "Fale com a padaria",
    media_type: "image",
    image_url: "https://scontent.xx.fbcdn.net/v/t45.1600-4/sandbox-ad.jpg",
    ctwa_clid: `ARA${randomBytes(24).toString("base64url")}`,
    welcome_message: { text: "Olá! Como podemos ajudar?" },
  };
  const merged: Record<string, unknown> = { ...defaults, ...given };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null && value !== undefined));
}

/** What POST /_sandbox/inbound answers: the inbound message's wamid, the gateway's answer and the payload sent. */
export interface InboundSent {
  id: string;
  webhook_status: number | null;
  payload: WebhookPayload;
}

/**
 * A message from a contact, as Meta's signed `messages` webhook (`standby` when another app owns the conversation:
 * inboundPayload): the control API's POST /inbound, and the routes that build one from what was sent (a tap on a
 * button or list row, a file with real bytes). Null when the sender is a BSUID or username the sandbox does not
 * know. `content` replaces the message's type member (its key keeps its place): an answer the short form cannot
 * express, such as a payment-method answer (`orders.ts`).
 */
export async function sendInbound(
  state: SandboxState,
  input: InboundInput,
  content?: Record<string, unknown>,
): Promise<InboundSent | null> {
  const user = inboundSender(state, input);
  if (!user) return null;
  const { message, contact } = inboundMessage(state, input, user);
  if (content) Object.assign(message, content);
  const payload = inboundPayload(state, input, user, { message, contact });
  const webhookStatus = await deliver(state, "inbound", payload, { source: "control" });
  return { id: String(message.id), webhook_status: webhookStatus, payload };
}

/**
 * The webhook of one user message: the `messages` field, or `standby` when another app owns the conversation
 * (Conversation Routing, meta-late-2026 §5), with the same value either way. The one place every control route that
 * posts a user message (inbound, tap, contact-share, payment-method) picks the field.
 */
export function inboundPayload(
  state: SandboxState,
  input: Pick<InboundInput, "phone_number_id" | "waba_id">,
  user: SandboxUser,
  built: { message: Record<string, unknown>; contact: WebhookContact },
): WebhookPayload {
  return webhookPayload(state, input.phone_number_id, {
    field: inboundField(state, input.phone_number_id, user),
    wabaId: input.waba_id,
    contacts: [built.contact],
    messages: [built.message],
  });
}

function media(state: SandboxState, input: InboundInput): Record<string, unknown> {
  const given = input.media ?? {};
  const mimeType = given.mime_type ?? DEFAULT_MIME[input.type] ?? "application/octet-stream";
  const stored = registerMedia(state, {
    id: given.id ?? newMediaId(),
    phoneNumberId: input.phone_number_id,
    mimeType,
    bytes: given.data === undefined ? undefined : Buffer.from(given.data, "base64"),
  });
  // The webhook carries the file's SHA-256 in base64 (GET /{media-id} reports it in hex).
  const out: Record<string, unknown> = {
    mime_type: mimeType,
    sha256: given.sha256 ?? createHash("sha256").update(stored.bytes).digest("base64"),
    id: stored.id,
  };
  const caption = given.caption ?? input.text;
  if (caption !== undefined && (input.type === "image" || input.type === "video" || input.type === "document"))
    out.caption = caption;
  if (input.type === "document") out.filename = given.filename ?? "documento.pdf";
  if (input.type === "audio") out.voice = given.voice ?? true;
  if (input.type === "sticker") out.animated = given.animated ?? false;
  return out;
}
