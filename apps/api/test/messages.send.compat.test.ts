import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { PublicSendIn, parseRequest, selectSendKind } from "@gw/contracts";
import { fingerprint } from "@gw/core/idempotency";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// Issue 27 adds four optional members to POST /public/v1/messages (interactive, media, reaction, location). Today a
// request may already carry members with those names: they were unknown fields, stripped and ignored (the fuzz
// suite's own valid send does). Such bodies must keep today's answer byte for byte and today's Idempotency-Key
// fingerprint (docs/decisions.md, "Kind selection keeps today's precedence"). The goldens below were taken on main
// before the change (8302408 + the schema migration): the answers through HTTP, the fingerprints from main's parse.

const REPLY_TO = "wamid.HBgLNTUxMTk4NzY1NDMyMRUCABIYFDNBMDdBNjE";
const CONTACT = "5511987650001";

/** Bodies that carry a text or a template beside new members, with the fingerprint main gave their parse. */
const FINGERPRINTS: [string, Record<string, unknown>, string][] = [
  [
    "text with an interactive member (the fuzz suite's valid send)",
    { to: CONTACT, text: "Resposta", reply_to_message_id: REPLY_TO, interactive: { type: "button" } },
    "e042d2144cec0b25a2ec5165d68cbf3b813de45fa10815d7809261e7e13cb4e2",
  ],
  [
    "text with all four members, each invalid",
    {
      to: CONTACT,
      text: "oi",
      interactive: { type: "list", sections: [] },
      media: { type: "image", link: "ftp://x" },
      reaction: { message_id: "", emoji: "👍👍" },
      location: { latitude: 500 },
    },
    "73c930a66ba40c2ceabbd7ea9f616be528f801ad965be00604f873d3b03b1de3",
  ],
  [
    "template with a media member",
    { to: CONTACT, template: "hello_world", language: "en_US", media: { type: "image" }, client_ref: "c-1" },
    "f1b43f4138c5d02dd8c420cc4d8d7342c4e2bc8635850258f9f9a8ce586044b8",
  ],
  [
    "template with a reaction member",
    {
      to: CONTACT,
      template: "pedido_confirmado",
      variables: ["Maria", "1", "2"],
      header_text: "1",
      reaction: { message_id: "wamid.X", emoji: "" },
    },
    "33768b94d8b76d0f37363a3a5dd2214e0f80474e315e3840c82d1cf550175fc8",
  ],
  [
    "text and template with a location member",
    { to: CONTACT, text: "oi", template: "hello_world", language: "en_US", location: { latitude: 1, longitude: 2 } },
    "969974e7cdb6456723d815c78ee7bfb98a07073cec0f8c9146aa2a5cc19bdf6d",
  ],
];

describe("today's send bodies keep today's fingerprint", () => {
  it.each(FINGERPRINTS)("%s", (_name, body, golden) => {
    const parsed = parseRequest(PublicSendIn, "body", selectSendKind(body));
    expect(fingerprint({ ...parsed, to: CONTACT })).toBe(golden);
  });
});

const PIX_ORDER = {
  reference_id: "pedido-1",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  items: [{ name: "Bolo", amount: 5000 }],
};

/** Refusals: status and the exact bytes main answered. */
const REFUSALS: [string, (open: string, closed: string) => Record<string, unknown>, number, string][] = [
  [
    "only the recipient",
    (_open, closed) => ({ to: closed }),
    400,
    '{"success":false,"error":{"code":"empty_message","message":"Informe um texto ou um template para enviar."}}',
  ],
  [
    "free text with new members to a contact whose window is closed",
    (_open, closed) => ({
      to: closed,
      text: "oi",
      interactive: { type: "button", buttons: [] },
      media: { type: "audio", caption: "x" },
      reaction: { message_id: "wamid.X", emoji: "👍👍" },
      location: { latitude: 91 },
    }),
    422,
    '{"success":false,"error":{"code":"outside_24h_window","message":"A janela de 24 horas está fechada para este contato; envie um template aprovado."}}',
  ],
  [
    "a text that is not a string beside a location",
    (open) => ({ to: open, text: 5, location: { latitude: 500, longitude: 0 } }),
    422,
    '{"detail":[{"loc":["body","text"],"msg":"O valor deve ser um texto.","type":"string_type","input":5}]}',
  ],
  [
    "a text over 4096 characters beside a reaction",
    (open) => ({ to: open, text: "x".repeat(4097), reaction: { message_id: "wamid.X", emoji: "👍👍" } }),
    422,
    `{"detail":[{"loc":["body","text"],"msg":"O texto deve ter no máximo 4096 caracteres.","type":"string_too_long","ctx":{"max_length":4096},"input":"${"x".repeat(4097)}"}]}`,
  ],
  [
    "a Pix order with free text and a media member",
    (open) => ({
      to: open,
      text: "oi",
      pix_order: PIX_ORDER,
      media: { type: "document", link: "https://x.example/a.pdf" },
    }),
    400,
    '{"success":false,"error":{"code":"pix_needs_template","message":"Um pedido Pix só pode ser enviado junto com um template de detalhes do pedido."}}',
  ],
];

describe("today's send bodies keep today's answers through HTTP", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const open = "5511987650011";
  const closed = "5511987650012";
  const send = (body: Record<string, unknown>) =>
    request(gateway.app).post("/public/v1/messages").set(account.auth).send(body);

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: open, type: "text", text: "oi" });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each(REFUSALS)("%s: the same status and bytes as before", async (_name, body, status, golden) => {
    const res = await send(body(open, closed));
    expect({ status: res.status, text: res.text }).toEqual({ status, text: golden });
  });

  it("free text with an interactive member is still sent as text, and Meta gets today's text payload", async () => {
    const res = await send({
      to: open,
      text: "Resposta",
      reply_to_message_id: REPLY_TO,
      interactive: { type: "button" },
    });
    expect(res.status).toBe(200);
    const { message_id: wamid, ...rest } = (res.body as { data: Record<string, unknown> }).data;
    expect(rest).toEqual({
      to: open,
      status: "sent",
      type: "text",
      phone_number_id: account.phoneNumberId,
      client_ref: null,
    });
    const sent = (await sandboxControl.sent(gateway)).find((s) => s.wamid === wamid);
    expect(sent?.raw).toBe(
      JSON.stringify({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: open,
        type: "text",
        text: { body: "Resposta", preview_url: false },
        context: { message_id: REPLY_TO },
      }),
    );
  });

  it("a template with a media member is still sent as that template, without the member", async () => {
    const res = await send({ to: closed, template: "hello_world", language: "en_US", media: { type: "image" } });
    expect(res.status).toBe(200);
    const { message_id: wamid, ...rest } = (res.body as { data: Record<string, unknown> }).data;
    expect(rest).toEqual({
      to: closed,
      status: "sent",
      type: "template",
      phone_number_id: account.phoneNumberId,
      client_ref: null,
    });
    const sent = (await sandboxControl.sent(gateway)).find((s) => s.wamid === wamid);
    expect(sent?.body).toEqual({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: closed,
      type: "template",
      template: { name: "hello_world", language: { code: "en_US" } },
    });
  });
});
