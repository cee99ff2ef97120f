import { z } from "zod";
import { decimalNumber } from "./validation.ts";

/*
 * The send kinds beyond text and templates (issue 27): `interactive`, `media`, `reaction` and `location` of POST
 * /public/v1/messages. Every limit Meta documents is checked here, at the edge, so a body Meta would refuse is a 422
 * HTTPValidationError naming the field and nothing is sent (reference: meta-messages.md §1–3; docs/decisions.md,
 * "Limits in code points, 422 at the field, before anything").
 */

/** The members a send may carry beyond text and templates, in the order they are documented. */
export const SEND_KIND_MEMBERS = ["interactive", "media", "reaction", "location"] as const;
export type SendKindMember = (typeof SEND_KIND_MEMBERS)[number];

/** What a send of each member is: one kind per request. */
export type SendKind = "text" | "template" | SendKindMember;

/**
 * A text with one of Meta's limits, counted in Unicode code points (meta-messages.md U#5: Meta does not say how it
 * counts; UTF-16 units would refuse a 20-character title with one emoji). The issues are zod's own `too_small` /
 * `too_big` of a string (→ `string_too_short` / `string_too_long` with `ctx.min_length` / `ctx.max_length`), and the
 * document shows `minLength` / `maxLength`, which JSON Schema also counts in code points, so the document, ajv and
 * the edge agree.
 */
export function metaText(min: number, max: number) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const length = [...value].length;
      if (length < min)
        ctx.addIssue({ code: "too_small", origin: "string", minimum: min, inclusive: true, input: value });
      else if (length > max)
        ctx.addIssue({ code: "too_big", origin: "string", maximum: max, inclusive: true, input: value });
    })
    .meta(min > 0 ? { minLength: min, maxLength: max } : { maxLength: max });
}

const HTTP_URL = /^https?:\/\/\S+$/i;
const httpUrl = () => z.string().min(8).max(2048).regex(HTTP_URL);

/** A file name as the recipient sees it: no control characters, no path separators. */
// eslint-disable-next-line no-control-regex -- the control characters are what is refused
const NOT_A_FILE_NAME = /[\u0000-\u001f\u007f/\\]/;

const fileName = () =>
  metaText(1, 200)
    .superRefine((name, ctx) => {
      if (NOT_A_FILE_NAME.test(name))
        ctx.addIssue({
          code: "custom",
          input: name,
          message: "O nome do arquivo não pode ter barras (/ ou \\) nem caracteres de controle.",
        });
    })
    .describe("The file name the recipient sees (documents only); no path separators or control characters");

const mediaId = () =>
  z
    .string()
    .regex(/^[0-9A-Za-z._-]{1,128}$/)
    .describe("A `media_id` of an upload of this account on this number (POST /public/v1/media)");

const mediaLink = () =>
  httpUrl().describe(
    "A PUBLIC http(s) URL the provider downloads without login (not recommended: the provider caches and may fail later)",
  );

/** Given: neither absent nor null (null is how the API says "absent" in a body). */
function isGiven<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** Exactly one of `media_id` and `link` (Meta's rule for every media object). */
function oneSource(
  value: { media_id?: string | null | undefined; link?: string | null | undefined },
  ctx: z.RefinementCtx,
  path: (string | number)[],
) {
  const given = [value.media_id, value.link].filter(isGiven).length;
  if (given !== 1)
    ctx.addIssue({
      code: "custom",
      path,
      input: value,
      message:
        given === 0
          ? "Informe a mídia por media_id (um upload desta conta) ou por link (uma URL pública)."
          : "Informe a mídia por media_id ou por link, não pelos dois.",
    });
}

// ---------------------------------------------------------------------------------------------------------------
// interactive

export const InteractiveHeaderTextIn = z
  .object({ type: z.literal("text"), text: metaText(1, 60) })
  .meta({ id: "InteractiveHeaderTextIn" });

export const InteractiveHeaderMediaIn = z
  .object({
    type: z.enum(["image", "video", "document"]),
    media_id: mediaId().nullish(),
    link: mediaLink().nullish(),
    filename: fileName().nullish(),
  })
  .superRefine((header, ctx) => {
    oneSource(header, ctx, []);
    if (isGiven(header.filename) && header.type !== "document")
      ctx.addIssue({
        code: "custom",
        path: ["filename"],
        input: header.filename,
        message: "O nome do arquivo só vale para um cabeçalho do tipo document.",
      });
  })
  .meta({ id: "InteractiveHeaderMediaIn" });

const header = () =>
  z
    .discriminatedUnion("type", [InteractiveHeaderTextIn, InteractiveHeaderMediaIn])
    .nullish()
    .describe("Optional header: a text (up to 60 characters), or an image, video or document by media_id or link");

const footer = () => metaText(1, 60).nullish().describe("Optional footer (up to 60 characters)");

const ButtonIn = z
  .object({
    id: z.string().min(1).max(256).describe("What `message.received` carries back as `interactive.id` when tapped"),
    title: metaText(1, 20).describe("The button's label, unique in the message"),
  })
  .meta({ id: "InteractiveButtonIn" });

/** Meta's "unique within the message": the second occurrence is the one named. */
function uniqueAt<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  ctx: z.RefinementCtx,
  pathOf: (index: number) => (string | number)[],
  message: (value: string) => string,
) {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: pathOf(index), input: key, message: message(key) });
    seen.add(key);
  });
}

export const InteractiveButtonsIn = z
  .object({
    type: z.literal("button"),
    header: header(),
    body: metaText(1, 1024).describe("The message text (up to 1024 characters)"),
    footer: footer(),
    buttons: z.array(ButtonIn).min(1).max(3).describe("One to three reply buttons"),
  })
  .superRefine((message, ctx) => {
    uniqueAt(
      message.buttons,
      (b) => b.id,
      ctx,
      (i) => ["buttons", i, "id"],
      (id) => `O id de botão ${id} se repete; cada botão precisa de um id próprio.`,
    );
    uniqueAt(
      message.buttons,
      (b) => b.title,
      ctx,
      (i) => ["buttons", i, "title"],
      (title) => `O título de botão «${title}» se repete; o WhatsApp exige títulos diferentes.`,
    );
  })
  .meta({ id: "InteractiveButtonsIn" });

const ListRowIn = z
  .object({
    id: z.string().min(1).max(200).describe("What `message.received` carries back as `interactive.id` when chosen"),
    title: metaText(1, 24),
    description: metaText(0, 72).nullish(),
  })
  .meta({ id: "InteractiveListRowIn" });

const ListSectionIn = z
  .object({
    title: metaText(1, 24).describe("Required, also with a single section"),
    rows: z.array(ListRowIn).min(1).max(10),
  })
  .meta({ id: "InteractiveListSectionIn" });

/** Meta's cap on the rows of a list, counted across its sections. */
export const MAX_LIST_ROWS = 10;

export const InteractiveListIn = z
  .object({
    type: z.literal("list"),
    header: header().describe("Optional header: a text only (up to 60 characters)"),
    body: metaText(1, 4096).describe("The message text (up to 4096 characters)"),
    footer: footer(),
    button: metaText(1, 20).describe("The label of the button that opens the list"),
    sections: z.array(ListSectionIn).min(1).max(10).describe("Up to 10 rows in all, across the sections"),
  })
  .superRefine((message, ctx) => {
    if (message.header && message.header.type !== "text")
      ctx.addIssue({
        code: "custom",
        path: ["header", "type"],
        input: message.header.type,
        message: "O cabeçalho de uma lista só pode ser um texto.",
      });
    const rows = message.sections.reduce((n, section) => n + section.rows.length, 0);
    if (rows > MAX_LIST_ROWS)
      ctx.addIssue({
        code: "custom",
        path: ["sections"],
        input: message.sections,
        params: { max_rows: MAX_LIST_ROWS, rows },
        message: `Uma lista tem no máximo ${MAX_LIST_ROWS} linhas somando todas as seções; esta tem ${rows}.`,
      });
    const positions = message.sections.flatMap((section, i) => section.rows.map((row, j) => ({ id: row.id, i, j })));
    uniqueAt(
      positions,
      (p) => p.id,
      ctx,
      (k) => {
        const p = positions[k];
        return ["sections", p?.i ?? 0, "rows", p?.j ?? 0, "id"];
      },
      (id) => `O id de linha ${id} se repete; cada linha da lista precisa de um id próprio.`,
    );
  })
  .meta({ id: "InteractiveListIn" });

export const InteractiveCtaUrlIn = z
  .object({
    type: z.literal("cta_url"),
    header: header(),
    body: metaText(1, 1024),
    footer: footer(),
    display_text: metaText(1, 20).describe("The button's label"),
    url: httpUrl().describe("The http(s) URL the button opens"),
  })
  .meta({ id: "InteractiveCtaUrlIn" });

/** Members of the other interactive types: refused on a location or contact request rather than dropped. */
const NOT_ON_BODY_ONLY = ["header", "footer", "buttons", "button", "sections", "display_text", "url"] as const;

/**
 * An interactive kind that carries only its text (`body`): a location request, a request for contact information.
 * Every other kind's member is refused at its path, with `refused` (Portuguese) naming the kind.
 */
function bodyOnlyInteractive<T extends string>(
  type: T,
  body: ReturnType<typeof metaText>,
  names: { described: string; refused: string },
) {
  return z
    .object({
      type: z.literal(type),
      body,
      ...Object.fromEntries(
        NOT_ON_BODY_ONLY.map((key) => [key, z.unknown().optional().describe(`Not accepted on ${names.described}`)]),
      ),
    })
    .superRefine((message, ctx) => {
      for (const key of NOT_ON_BODY_ONLY) {
        if ((message as Record<string, unknown>)[key] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [key],
            input: (message as Record<string, unknown>)[key],
            message: `${names.refused} tem só o texto (body); ${key} não é aceito.`,
          });
      }
    });
}

export const InteractiveLocationRequestIn = bodyOnlyInteractive("location_request", metaText(1, 1024), {
  described: "a location request",
  refused: "Um pedido de localização",
}).meta({ id: "InteractiveLocationRequestIn" });

/**
 * Asks a customer known only by their username or BSUID to share their phone (issue 37; meta-late-2026 §3, partners'
 * shape): their reply is a `contacts` message with `origin: contact_request`, which links that phone to them.
 */
export const InteractiveRequestContactInfoIn = bodyOnlyInteractive(
  "request_contact_info",
  metaText(1, 1024).describe("Why the business asks for the phone"),
  { described: "a request for contact information", refused: "Um pedido de contato" },
).meta({ id: "InteractiveRequestContactInfoIn" });

/** A support menu's sections: the list example here and the list send of the document's examples (messages.ts). */
export const MENU_SECTIONS_EXAMPLE = [
  {
    title: "Financeiro",
    rows: [
      { id: "opcao-1", title: "Segunda via do boleto", description: "Enviamos o PDF aqui na conversa" },
      { id: "opcao-2", title: "Pagar com Pix" },
    ],
  },
  { title: "Pedidos", rows: [{ id: "opcao-3", title: "Rastrear pedido" }] },
];

const INTERACTIVE_EXAMPLES = [
  {
    type: "button",
    body: "Seu pedido 12345 foi confirmado. Quer acompanhar a entrega?",
    footer: "Loja Exemplo",
    buttons: [
      { id: "rastrear-12345", title: "Rastrear pedido" },
      { id: "atendente", title: "Falar com atendente" },
    ],
  },
  {
    type: "list",
    header: { type: "text", text: "Central de atendimento" },
    body: "Como podemos ajudar?",
    button: "Ver opções",
    sections: MENU_SECTIONS_EXAMPLE,
  },
  {
    type: "cta_url",
    body: "As datas da próxima turma já estão abertas.",
    display_text: "Ver datas",
    url: "https://exemplo.com.br/turmas?c=1",
  },
  { type: "location_request", body: "Para calcular o frete, compartilhe sua localização." },
  { type: "request_contact_info", body: "Para acompanhar seu pedido por telefone, compartilhe seu número." },
];

export const InteractiveIn = z
  .discriminatedUnion("type", [
    InteractiveButtonsIn,
    InteractiveListIn,
    InteractiveCtaUrlIn,
    InteractiveLocationRequestIn,
    InteractiveRequestContactInfoIn,
  ])
  .meta({
    id: "InteractiveIn",
    description:
      "Reply buttons (1–3), a list (up to 10 rows in all), a call-to-action URL button, a location request, or a request for the customer's phone (`request_contact_info`, for a customer known only by username or BSUID: the reply links the phone). Free-form: the contact's 24-hour window must be open.",
    examples: INTERACTIVE_EXAMPLES,
  });
export type InteractiveIn = z.infer<typeof InteractiveIn>;

// ---------------------------------------------------------------------------------------------------------------
// media

export const MediaIn = z
  .object({
    type: z.enum(["image", "video", "audio", "document", "sticker"]),
    media_id: mediaId().nullish(),
    link: mediaLink().nullish(),
    caption: metaText(1, 1024).nullish().describe("image, video and document only (up to 1024 characters)"),
    filename: fileName().nullish(),
    voice: z
      .boolean()
      .default(false)
      .describe("audio only: a voice note (an OGG/Opus upload), played inline and transcribed by WhatsApp"),
  })
  .superRefine((media, ctx) => {
    oneSource(media, ctx, []);
    const refuse = (path: string, input: unknown, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], input, message });
    if (isGiven(media.caption) && !["image", "video", "document"].includes(media.type))
      refuse(
        "caption",
        media.caption,
        `O WhatsApp não aceita legenda em ${media.type}; só em image, video e document.`,
      );
    if (isGiven(media.filename) && media.type !== "document")
      refuse("filename", media.filename, "O nome do arquivo só vale para type document.");
    if (media.voice && media.type !== "audio")
      refuse("voice", media.voice, "Só um áudio (type audio) pode ser uma mensagem de voz.");
  })
  .meta({
    id: "MediaIn",
    description:
      "An image, video, audio (or voice note), document or sticker: by `media_id` (an upload of this account on this number, POST /public/v1/media) or by a public `link`, exactly one. Free-form: the contact's 24-hour window must be open.",
    examples: [
      { type: "document", media_id: "1013859600285441", filename: "boleto-12345.pdf", caption: "Seu boleto" },
      { type: "image", link: "https://exemplo.com.br/produtos/bolo.jpg", caption: "Bolo de chocolate" },
      { type: "audio", media_id: "1013859600285442", voice: true },
    ],
  });
export type MediaIn = z.infer<typeof MediaIn>;

// ---------------------------------------------------------------------------------------------------------------
// reaction

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const FLAG = /^\p{Regional_Indicator}{2}$/u;
const KEYCAP = /\u20e3/u;

/** One emoji: one grapheme that is a pictograph, a flag or a keycap ("" is the removal, checked apart). */
export function isOneEmoji(value: string): boolean {
  const graphemes = [...segmenter.segment(value)];
  if (graphemes.length !== 1) return false;
  return PICTOGRAPHIC.test(value) || FLAG.test(value) || KEYCAP.test(value);
}

export const ReactionIn = z
  .object({
    message_id: z
      .string()
      .min(1)
      .max(128)
      .describe("The `message_id` of a `message.received` of this contact on this number, from the last 30 days"),
    emoji: z
      .string()
      .max(32)
      .superRefine((emoji, ctx) => {
        if (emoji !== "" && !isOneEmoji(emoji))
          ctx.addIssue({
            code: "custom",
            input: emoji,
            message: "Informe um único emoji (ou um texto vazio para remover a reação).",
          });
      })
      .describe('One emoji; `""` removes the reaction sent before'),
  })
  .meta({
    id: "ReactionIn",
    description:
      "A reaction to a message the contact sent (within 30 days); an empty `emoji` removes it. Only a `sent` status follows. Cannot quote (`reply_to_message_id`).",
    examples: [
      { message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBQjQ5Q0RFRjAxMjM0NTY3ODkA", emoji: "👍" },
      { message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBQjQ5Q0RFRjAxMjM0NTY3ODkA", emoji: "" },
    ],
  });
export type ReactionIn = z.infer<typeof ReactionIn>;

// ---------------------------------------------------------------------------------------------------------------
// location

export const LocationIn = z
  .object({
    latitude: decimalNumber().min(-90).max(90).describe("Decimal degrees"),
    longitude: decimalNumber().min(-180).max(180).describe("Decimal degrees"),
    name: metaText(1, 256).nullish(),
    address: metaText(1, 1024).nullish(),
  })
  .meta({
    id: "LocationIn",
    description: "A map pin. Free-form: the contact's 24-hour window must be open.",
    examples: [
      {
        latitude: -23.561414,
        longitude: -46.655881,
        name: "Loja Paulista",
        address: "Av. Paulista, 1000 - São Paulo, SP",
      },
    ],
  });
export type LocationIn = z.infer<typeof LocationIn>;

// ---------------------------------------------------------------------------------------------------------------
// kind selection

/** Present as today's send reads `text` and `template`: anything but absent, null or "". */
function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/**
 * The body the send's schema parses, chosen with today's precedence (docs/decisions.md, "Kind selection keeps
 * today's precedence"): with a `template` or a `text`, the new members are removed from a copy before parsing — they
 * were unknown fields until now, ignored, and must keep being so (same answer, same Idempotency-Key fingerprint).
 * Otherwise the body is parsed as it came, and the schema allows one of the new members per request.
 */
export function selectSendKind(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const body = raw as Record<string, unknown>;
  if (!present(body.template) && !present(body.text)) return raw;
  if (!SEND_KIND_MEMBERS.some((member) => Object.hasOwn(body, member))) return raw;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!(SEND_KIND_MEMBERS as readonly string[]).includes(key))
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The cross-member rules of a send: one new member per request, and a reaction never quotes. */
export function checkSendKind(
  body: { reply_to_message_id?: string | null | undefined } & Partial<Record<SendKindMember, unknown>>,
  ctx: z.RefinementCtx,
): void {
  const given = SEND_KIND_MEMBERS.filter((member) => isGiven(body[member]));
  const second = given[1];
  if (second !== undefined)
    ctx.addIssue({
      code: "custom",
      path: [second],
      input: body[second],
      message: "Envie um tipo de mensagem por requisição (interactive, media, reaction ou location).",
    });
  if (given[0] === "reaction" && body.reply_to_message_id)
    ctx.addIssue({
      code: "custom",
      path: ["reply_to_message_id"],
      input: body.reply_to_message_id,
      message: "Uma reação não pode citar outra mensagem.",
    });
}
