import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Dispatcher } from "@gw/dispatcher";
import { eventually } from "@gw/testkit";
import { createGatewayClient, type GatewayClient } from "@pt-gateway/client";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";
import { sandboxControl } from "./support/sandbox-control.ts";

// Issue 27, black box against the running gateway (API + provider sandbox + dispatcher + a verifying receiver): each
// new send kind answers 200 and the sandbox receives Meta's shape for it; every WhatsApp limit is refused before Meta
// (422 HTTPValidationError naming the field, the sandbox receiving nothing); the checks only the gateway's data can
// make (media of this account on this number, reaction targets, the window) refuse before Meta too.

type Json = Record<string, unknown>;

let gateway: TestGateway;
let dispatcher: Dispatcher;
let receiver: Receiver;
let account: TestAccount;
let other: TestAccount;
let client: GatewayClient;

const OPEN = "5511987654101";
const CLOSED = "5511987654102";
/** The contact's message every kind quotes, and the reaction's target. */
let inbound = "";
let inboundBsuid = "";
const media = {
  image: "",
  video: "",
  audio: "",
  voice: "",
  document: "",
  sticker: "",
  otherNumber: "",
  otherAccount: "",
};

const mediaId = () => `${Date.now()}${randomBytes(4).readUInt32BE()}`;

/**
 * A media the contact sent (so the sandbox, standing in for Meta, keeps its bytes for the number), recorded as an
 * upload of `owner` — what POST /public/v1/media records (package B); upserted, as the inbound may have recorded it
 * as received.
 */
async function uploaded(
  owner: TestAccount,
  type: string,
  mimeType: string,
  options: { filename?: string; phoneNumberId?: string } = {},
): Promise<string> {
  const id = mediaId();
  const phoneNumberId = options.phoneNumberId ?? owner.phoneNumberId;
  const inboundType = type === "voice" ? "audio" : type;
  await contactWrites(gateway, {
    phone_number_id: phoneNumberId,
    from: "5511987654199",
    type: inboundType,
    media: { id, mime_type: mimeType },
  });
  await gateway.db.sql.query({
    text: `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, size, filename, voice, expires_at)
      VALUES ($1::uuid, $2, $3, 'uploaded', $4, $5, 1, $6, false, now() + interval '30 days')
      ON CONFLICT (account_id, media_id) DO UPDATE SET origin = 'uploaded', phone_number_id = EXCLUDED.phone_number_id,
        type = EXCLUDED.type, mime_type = EXCLUDED.mime_type, filename = EXCLUDED.filename, expires_at = EXCLUDED.expires_at`,
    values: [owner.accountId, phoneNumberId, id, inboundType, mimeType, options.filename ?? null],
  });
  return id;
}

async function sendRaw(body: Json, headers: Record<string, string> = {}) {
  const res = await fetch(`${gateway.apiUrl}/public/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...account.auth, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** What the sandbox took for the account's number: accepted plus refused sends. */
async function sandboxSends(phoneNumberId = account.phoneNumberId): Promise<number> {
  const res = await fetch(`${gateway.sandbox.url}/_sandbox/sent/stats?phone_number_id=${phoneNumberId}`);
  const { numbers } = (await res.json()) as { numbers: { sent: number; refused: Record<string, number> }[] };
  return numbers.reduce((n, s) => n + s.sent + Object.values(s.refused).reduce((a, b) => a + b, 0), 0);
}

async function sentBody(wamid: string): Promise<Json> {
  const sent = (await sandboxControl.sent(gateway)).find((s) => s.wamid === wamid);
  if (!sent) throw new Error(`sandbox did not receive ${wamid}`);
  return sent.body;
}

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "100000" } });
  ({ receiver, account, dispatcher } = await startPipeline(gateway));
  other = await createTestAccount(gateway.db);
  client = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey });
  const wrote = (await contactWrites(gateway, {
    phone_number_id: account.phoneNumberId,
    from: OPEN,
    type: "text",
    text: "Oi, quero a segunda via",
  })) as unknown as { id: string; payload: { entry: { changes: { value: { messages: Json[] } }[] }[] } };
  inbound = wrote.id;
  const from = wrote.payload.entry[0]?.changes[0]?.value.messages[0]?.from_user_id;
  inboundBsuid = typeof from === "string" ? from : "";
  media.image = await uploaded(account, "image", "image/jpeg");
  media.video = await uploaded(account, "video", "video/mp4");
  media.audio = await uploaded(account, "audio", "audio/mpeg");
  media.voice = await uploaded(account, "voice", "audio/ogg");
  media.document = await uploaded(account, "document", "application/pdf", { filename: "boleto-12345.pdf" });
  media.sticker = await uploaded(account, "sticker", "image/webp");
  media.otherAccount = await uploaded(other, "image", "image/jpeg");
}, 60_000);

afterAll(async () => {
  await stopPipeline({ dispatcher, receiver, gateway });
});

const LIST_ROWS = Array.from({ length: 10 }, (_, i) => ({
  id: `opcao-${i + 1}`,
  title: `Opção ${i + 1}`,
  ...(i === 6 ? { description: "Enviamos o PDF aqui" } : {}),
}));

/** Each kind: the API body (with `reply_to_message_id` except a reaction) and the Graph JSON the sandbox must get. */
const KINDS: [string, () => Json, () => Json][] = [
  [
    "reply buttons with an image header by media_id",
    () => ({
      interactive: {
        type: "button",
        header: { type: "image", media_id: media.image },
        body: "Seu pedido foi confirmado 👍",
        footer: "Loja Exemplo",
        buttons: [
          { id: "rastrear", title: "Rastrear pedido" },
          { id: "atendente", title: "Falar com atendente" },
        ],
      },
    }),
    () => ({
      type: "interactive",
      interactive: {
        type: "button",
        header: { type: "image", image: { id: media.image } },
        body: { text: "Seu pedido foi confirmado 👍" },
        footer: { text: "Loja Exemplo" },
        action: {
          buttons: [
            { type: "reply", reply: { id: "rastrear", title: "Rastrear pedido" } },
            { type: "reply", reply: { id: "atendente", title: "Falar com atendente" } },
          ],
        },
      },
    }),
  ],
  [
    "a list of 10 rows in two sections",
    () => ({
      interactive: {
        type: "list",
        header: { type: "text", text: "Central" },
        body: "Como podemos ajudar?",
        button: "Ver opções",
        sections: [
          { title: "Financeiro", rows: LIST_ROWS.slice(0, 7) },
          { title: "Pedidos", rows: LIST_ROWS.slice(7) },
        ],
      },
    }),
    () => ({
      type: "interactive",
      interactive: {
        type: "list",
        header: { type: "text", text: "Central" },
        body: { text: "Como podemos ajudar?" },
        action: {
          button: "Ver opções",
          sections: [
            { title: "Financeiro", rows: LIST_ROWS.slice(0, 7) },
            { title: "Pedidos", rows: LIST_ROWS.slice(7) },
          ],
        },
      },
    }),
  ],
  [
    "a URL button",
    () => ({
      interactive: {
        type: "cta_url",
        body: "Veja as datas",
        display_text: "Ver datas",
        url: "https://exemplo.com.br/d?c=1",
      },
    }),
    () => ({
      type: "interactive",
      interactive: {
        type: "cta_url",
        body: { text: "Veja as datas" },
        action: { name: "cta_url", parameters: { display_text: "Ver datas", url: "https://exemplo.com.br/d?c=1" } },
      },
    }),
  ],
  [
    "a location request",
    () => ({ interactive: { type: "location_request", body: "Compartilhe sua localização" } }),
    () => ({
      type: "interactive",
      interactive: {
        type: "location_request_message",
        body: { text: "Compartilhe sua localização" },
        action: { name: "send_location" },
      },
    }),
  ],
  [
    "an image by media_id with a caption",
    () => ({ media: { type: "image", media_id: media.image, caption: "Bolo" } }),
    () => ({ type: "image", image: { id: media.image, caption: "Bolo" } }),
  ],
  [
    "an image by link",
    () => ({ media: { type: "image", link: "https://exemplo.com.br/bolo.jpg" } }),
    () => ({ type: "image", image: { link: "https://exemplo.com.br/bolo.jpg" } }),
  ],
  [
    "a video by media_id",
    () => ({ media: { type: "video", media_id: media.video } }),
    () => ({ type: "video", video: { id: media.video } }),
  ],
  [
    "an audio by media_id",
    () => ({ media: { type: "audio", media_id: media.audio } }),
    () => ({ type: "audio", audio: { id: media.audio } }),
  ],
  [
    "a voice note (OGG audio)",
    () => ({ media: { type: "audio", media_id: media.voice, voice: true } }),
    () => ({ type: "audio", audio: { id: media.voice, voice: true } }),
  ],
  [
    "a document by media_id, named by its upload",
    () => ({ media: { type: "document", media_id: media.document } }),
    () => ({ type: "document", document: { id: media.document, filename: "boleto-12345.pdf" } }),
  ],
  [
    "a document by link with a filename",
    () => ({ media: { type: "document", link: "https://exemplo.com.br/nf.pdf", filename: "nota-fiscal.pdf" } }),
    () => ({ type: "document", document: { link: "https://exemplo.com.br/nf.pdf", filename: "nota-fiscal.pdf" } }),
  ],
  [
    "a sticker by media_id",
    () => ({ media: { type: "sticker", media_id: media.sticker } }),
    () => ({ type: "sticker", sticker: { id: media.sticker } }),
  ],
  [
    "a location",
    () => ({ location: { latitude: -23.561414, longitude: -46.655881, name: "Loja Paulista" } }),
    () => ({ type: "location", location: { latitude: "-23.561414", longitude: "-46.655881", name: "Loja Paulista" } }),
  ],
];

const wamids = new Map<string, string>();

describe("each send kind reaches the sandbox in Meta's shape", () => {
  it.each(KINDS)("%s, quoting the contact's message", async (name, body, graph) => {
    const { data, response } = await client.POST("/public/v1/messages", {
      body: { to: OPEN, reply_to_message_id: inbound, ...body() } as never,
    });
    expect(response.status).toBe(200);
    const wamid = data?.data.message_id ?? "";
    const kind = Object.keys(body())[0];
    expect(data?.data.type).toBe(kind);
    wamids.set(name, wamid);
    expect(await sentBody(wamid)).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: OPEN,
      ...graph(),
      context: { message_id: inbound },
    });
  });

  it("a reaction and its removal, answered as reactions", async () => {
    for (const emoji of ["👍", ""]) {
      const { data, response } = await client.POST("/public/v1/messages", {
        body: { to: OPEN, reaction: { message_id: inbound, emoji } } as never,
      });
      expect(response.status).toBe(200);
      expect(data?.data.type).toBe("reaction");
      wamids.set(`reaction ${emoji}`, data?.data.message_id ?? "");
      expect(await sentBody(data?.data.message_id ?? "")).toEqual({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: OPEN,
        type: "reaction",
        reaction: { message_id: inbound, emoji },
      });
    }
  });

  it("a kind sent to the contact's BSUID goes to `recipient`", async () => {
    expect(inboundBsuid).not.toBe("");
    const { data, response } = await client.POST("/public/v1/messages", {
      body: { to: inboundBsuid, location: { latitude: 1.5, longitude: -2 } } as never,
    });
    expect(response.status).toBe(200);
    const body = await sentBody(data?.data.message_id ?? "");
    expect(body).toMatchObject({
      recipient: inboundBsuid,
      type: "location",
      location: { latitude: "1.5", longitude: "-2" },
    });
    expect(body.to).toBeUndefined();
  });

  it("message.status follows: sent, delivered, read for a list; only sent for a reaction", async () => {
    const statusesOf = (wamid: string) =>
      receiver.received
        .filter((r) => r.event.event === "message.status")
        .map((r) => r.event.data as { message_id: string; status: string })
        .filter((d) => d.message_id === wamid)
        .map((d) => d.status);
    const list = wamids.get("a list of 10 rows in two sections") ?? "";
    const reaction = wamids.get("reaction 👍") ?? "";
    await eventually(() => statusesOf(list).includes("read") && statusesOf(reaction).length > 0, {
      timeoutMs: 20_000,
      what: "the list's read and the reaction's sent",
    });
    expect(statusesOf(list)).toEqual(["sent", "delivered", "read"]);
    expect(statusesOf(reaction)).toEqual(["sent"]);
  });

  it("an Idempotency-Key repeat of a media send answers the same bytes, replayed, and sends nothing", async () => {
    const key = `kinds-${randomBytes(6).toString("hex")}`;
    const body = { to: OPEN, media: { type: "document", media_id: media.document, caption: "Seu boleto" } };
    const first = await sendRaw(body, { "idempotency-key": key });
    expect(first.status).toBe(200);
    const before = await sandboxSends();
    const again = await sendRaw(body, { "idempotency-key": key });
    expect({ status: again.status, text: again.text }).toEqual({ status: 200, text: first.text });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await sandboxSends()).toBe(before);
  });

  it.each(["interactive", "media", "reaction", "location"])(
    "%s to a contact whose window is closed: 422 outside_24h_window before Meta",
    async (kind) => {
      const bodies: Record<string, Json> = {
        interactive: { interactive: { type: "location_request", body: "Onde você está?" } },
        media: { media: { type: "image", link: "https://exemplo.com.br/a.jpg" } },
        reaction: { reaction: { message_id: inbound, emoji: "👍" } },
        location: { location: { latitude: 0, longitude: 0 } },
      };
      const before = await sandboxSends();
      const res = await sendRaw({ to: CLOSED, ...bodies[kind] });
      expect(res.status).toBe(422);
      expect((JSON.parse(res.text) as { error: { code: string } }).error.code).toBe("outside_24h_window");
      expect(await sandboxSends()).toBe(before);
    },
  );
});

const long = (n: number, c = "a") => c.repeat(n);
const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `Botão ${i}` }));
const rows = (n: number, prefix = "r") =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, title: `Linha ${i}` }));
const button = (extra: Json) => ({ interactive: { type: "button", body: "Oi", buttons: buttons(2), ...extra } });
const list = (extra: Json) => ({
  interactive: { type: "list", body: "Oi", button: "Ver", sections: [{ title: "S", rows: rows(2) }], ...extra },
});
const cta = (extra: Json) => ({
  interactive: { type: "cta_url", body: "Oi", display_text: "Abrir", url: "https://exemplo.com.br", ...extra },
});
const mediaBody = (extra: Json) => ({ media: { type: "image", link: "https://exemplo.com.br/a.jpg", ...extra } });
const I = ["body", "interactive"];

/** Every limit of the send: the body and the `loc` of the 422 (each refused before Meta). */
const LIMITS: [string, () => Json, (string | number)[]][] = [
  [
    "a button title of 21 characters",
    () => button({ buttons: [{ id: "a", title: long(21) }] }),
    [...I, "buttons", 0, "title"],
  ],
  ["4 buttons", () => button({ buttons: buttons(4) }), [...I, "buttons"]],
  ["0 buttons", () => button({ buttons: [] }), [...I, "buttons"]],
  ["a button id of 257", () => button({ buttons: [{ id: long(257), title: "x" }] }), [...I, "buttons", 0, "id"]],
  [
    "duplicate button ids",
    () =>
      button({
        buttons: [
          { id: "a", title: "x" },
          { id: "a", title: "y" },
        ],
      }),
    [...I, "buttons", 1, "id"],
  ],
  [
    "duplicate button titles",
    () =>
      button({
        buttons: [
          { id: "a", title: "x" },
          { id: "b", title: "x" },
        ],
      }),
    [...I, "buttons", 1, "title"],
  ],
  ["a button body of 1025", () => button({ body: long(1025) }), [...I, "body"]],
  ["a header text of 61", () => button({ header: { type: "text", text: long(61) } }), [...I, "header", "text"]],
  ["a footer of 61", () => button({ footer: long(61) }), [...I, "footer"]],
  [
    "a media header with both media_id and link",
    () => button({ header: { type: "image", media_id: "1", link: "https://exemplo.com.br/a.jpg" } }),
    [...I, "header"],
  ],
  ["a media header with neither media_id nor link", () => button({ header: { type: "video" } }), [...I, "header"]],
  [
    "11 rows across 2 sections",
    () =>
      list({
        sections: [
          { title: "A", rows: rows(6, "a") },
          { title: "B", rows: rows(5, "b") },
        ],
      }),
    [...I, "sections"],
  ],
  [
    "11 sections",
    () =>
      list({
        sections: Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: [{ id: `r${i}`, title: "x" }] })),
      }),
    [...I, "sections"],
  ],
  ["11 rows in one section", () => list({ sections: [{ title: "S", rows: rows(11) }] }), [...I, "sections", 0, "rows"]],
  [
    "a row id of 201",
    () => list({ sections: [{ title: "S", rows: [{ id: long(201), title: "x" }] }] }),
    [...I, "sections", 0, "rows", 0, "id"],
  ],
  [
    "duplicate row ids across sections",
    () =>
      list({
        sections: [
          { title: "A", rows: rows(1) },
          { title: "B", rows: rows(1) },
        ],
      }),
    [...I, "sections", 1, "rows", 0, "id"],
  ],
  [
    "a row title of 25",
    () => list({ sections: [{ title: "S", rows: [{ id: "r", title: long(25) }] }] }),
    [...I, "sections", 0, "rows", 0, "title"],
  ],
  [
    "a row description of 73",
    () => list({ sections: [{ title: "S", rows: [{ id: "r", title: "x", description: long(73) }] }] }),
    [...I, "sections", 0, "rows", 0, "description"],
  ],
  [
    "a section title of 25",
    () => list({ sections: [{ title: long(25), rows: rows(1) }] }),
    [...I, "sections", 0, "title"],
  ],
  ["a section without a title", () => list({ sections: [{ rows: rows(1) }] }), [...I, "sections", 0, "title"]],
  ["a list button of 21", () => list({ button: long(21) }), [...I, "button"]],
  [
    "a list with a media header",
    () => list({ header: { type: "image", link: "https://exemplo.com.br/a.jpg" } }),
    [...I, "header", "type"],
  ],
  ["a list body of 4097", () => list({ body: long(4097) }), [...I, "body"]],
  ["a URL button text of 21", () => cta({ display_text: long(21) }), [...I, "display_text"]],
  ["a URL button to ftp:", () => cta({ url: "ftp://exemplo.com.br/a" }), [...I, "url"]],
  ["a URL button body of 1025", () => cta({ body: long(1025) }), [...I, "body"]],
  [
    "a location request with a footer",
    () => ({ interactive: { type: "location_request", body: "Oi", footer: "x" } }),
    [...I, "footer"],
  ],
  [
    "a location request with a header",
    () => ({ interactive: { type: "location_request", body: "Oi", header: { type: "text", text: "x" } } }),
    [...I, "header"],
  ],
  ["an unknown interactive type", () => ({ interactive: { type: "carousel", body: "Oi" } }), [...I, "type"]],
  ["a caption of 1025", () => mediaBody({ caption: long(1025) }), ["body", "media", "caption"]],
  ["a caption on an audio", () => mediaBody({ type: "audio", caption: "x" }), ["body", "media", "caption"]],
  ["a caption on a sticker", () => mediaBody({ type: "sticker", caption: "x" }), ["body", "media", "caption"]],
  ["a filename on an image", () => mediaBody({ filename: "a.jpg" }), ["body", "media", "filename"]],
  [
    "a filename with a slash",
    () => mediaBody({ type: "document", filename: "../a.pdf" }),
    ["body", "media", "filename"],
  ],
  ["voice on a video", () => mediaBody({ type: "video", voice: true }), ["body", "media", "voice"]],
  ["both media_id and link", () => mediaBody({ media_id: "123" }), ["body", "media"]],
  ["neither media_id nor link", () => ({ media: { type: "image" } }), ["body", "media"]],
  ["a link that is not http(s)", () => mediaBody({ link: "ftp://exemplo.com.br/a.jpg" }), ["body", "media", "link"]],
  ["two emoji", () => ({ reaction: { message_id: "wamid.X", emoji: "👍👍" } }), ["body", "reaction", "emoji"]],
  [
    "a reaction that is a word",
    () => ({ reaction: { message_id: "wamid.X", emoji: "ok" } }),
    ["body", "reaction", "emoji"],
  ],
  [
    "a reaction quoting a message",
    () => ({ reaction: { message_id: "wamid.X", emoji: "👍" }, reply_to_message_id: "wamid.Y" }),
    ["body", "reply_to_message_id"],
  ],
  ["latitude 91", () => ({ location: { latitude: 91, longitude: 0 } }), ["body", "location", "latitude"]],
  ["longitude -181", () => ({ location: { latitude: 0, longitude: -181 } }), ["body", "location", "longitude"]],
  [
    "a location name of 257",
    () => ({ location: { latitude: 0, longitude: 0, name: long(257) } }),
    ["body", "location", "name"],
  ],
  [
    "two kinds in one request",
    () => ({ location: { latitude: 0, longitude: 0 }, reaction: { message_id: "wamid.X", emoji: "👍" } }),
    ["body", "location"],
  ],
];

describe("every limit is refused before Meta, naming the field", () => {
  it.each(LIMITS)("%s", async (_name, body, loc) => {
    const before = await sandboxSends();
    const res = await sendRaw({ to: OPEN, ...body() });
    expect(res.status).toBe(422);
    const detail = (JSON.parse(res.text) as { detail: { loc: unknown[] }[] }).detail;
    expect(detail.map((d) => d.loc)).toContainEqual(loc);
    expect(await sandboxSends()).toBe(before);
  });

  it("a 20-character title with an emoji is within the limit (code points)", async () => {
    const res = await sendRaw({ to: OPEN, ...button({ buttons: [{ id: "a", title: `${long(19)}👍` }] }) });
    expect(res.status).toBe(200);
  });
});

describe("what only the gateway knows is refused before Meta", () => {
  const CASES: [string, () => Json, string][] = [
    [
      "another account's media_id",
      () => ({ media: { type: "image", media_id: media.otherAccount } }),
      "media_unavailable",
    ],
    ["an unknown media_id", () => ({ media: { type: "image", media_id: "999999999" } }), "media_unavailable"],
    [
      "a header by another account's media_id",
      () => button({ header: { type: "image", media_id: media.otherAccount } }),
      "media_unavailable",
    ],
    ["a PDF sent as an image", () => ({ media: { type: "image", media_id: media.document } }), "media_type_mismatch"],
    [
      "an MP3 sent as a voice note",
      () => ({ media: { type: "audio", media_id: media.audio, voice: true } }),
      "media_type_mismatch",
    ],
    [
      "a reaction to an unknown message",
      () => ({ reaction: { message_id: "wamid.NAOEXISTE", emoji: "👍" } }),
      "reaction_target_not_found",
    ],
  ];
  it.each(CASES)("%s", async (_name, body, code) => {
    const before = await sandboxSends();
    const res = await sendRaw({ to: OPEN, ...body() });
    expect(res.status).toBe(422);
    expect((JSON.parse(res.text) as { error: { code: string } }).error.code).toBe(code);
    expect(await sandboxSends()).toBe(before);
  });

  it("a media_id of another number of the same account", async () => {
    const second = `1${Date.now()}`.slice(0, 15);
    await gateway.db.sql.query({
      text: `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, expires_at)
        VALUES ($1::uuid, $2, $3, 'uploaded', 'image', 'image/jpeg', now() + interval '30 days')`,
      values: [account.accountId, second, `${second}77`],
    });
    const res = await sendRaw({ to: OPEN, media: { type: "image", media_id: `${second}77` } });
    expect((JSON.parse(res.text) as { error: { code: string } }).error.code).toBe("media_unavailable");
  });

  it("a reaction to a message of another contact", async () => {
    const otherContact = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511987654177",
      type: "text",
      text: "oi",
    });
    const res = await sendRaw({ to: OPEN, reaction: { message_id: otherContact.id, emoji: "👍" } });
    expect((JSON.parse(res.text) as { error: { code: string } }).error.code).toBe("reaction_target_not_found");
  });
});

describe("the sandbox's tap", () => {
  it("row 7 of a sent list comes back as message.received quoting it", async () => {
    const wamid = wamids.get("a list of 10 rows in two sections") ?? "";
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/tap`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ wamid, row_index: 7 }),
    });
    expect(res.status).toBe(200);
    const { payload } = (await res.json()) as { payload: { entry: { changes: { value: { messages: Json[] } }[] }[] } };
    expect(payload.entry[0]?.changes[0]?.value.messages[0]).toMatchObject({
      type: "interactive",
      interactive: {
        type: "list_reply",
        list_reply: { id: "opcao-7", title: "Opção 7", description: "Enviamos o PDF aqui" },
      },
      context: { id: wamid },
    });
    const unknown = await fetch(`${gateway.sandbox.url}/_sandbox/tap`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ wamid, row_id: "opcao-99" }),
    });
    expect(unknown.status).toBe(422);
  });
});
