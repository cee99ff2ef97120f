import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { Dispatcher } from "@gw/dispatcher";
import type { MessageReceivedEvent } from "@gw/receiver";
import { MESSAGE_RECEIVED_V2_NONE as NO_MEMBERS, eventually } from "@gw/testkit";
import { createGatewayClient } from "@pt-gateway/client";
import {
  contactWrites,
  createTestAccount,
  seedIntegration,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { startReceiver } from "./support/receiver.ts";

// Each inbound kind of issue 27, black box: a contact's message through the provider sandbox's signed webhook, the
// gateway's API and the dispatcher, to two verifying receivers of the same account — one integration on payload
// version 2, one on version 1 (the default). The version-2 body validates against the schema the gateway publishes
// (GET /public/v1/event-types, through the typed client) and carries the member asserted; the version-1 body is,
// byte for byte, the contract's (its keys, their order, their values).

type Data = MessageReceivedEvent["data"];
type Json = Record<string, unknown>;

let gateway: TestGateway;
let dispatcher: Dispatcher;
let account: TestAccount;
let v1: Awaited<ReturnType<typeof startReceiver>>;
let v2: Awaited<ReturnType<typeof startReceiver>>;
let validateReceived: ValidateFunction;

const secrets = { v1: "", v2: "" };
let contactCounter = 0;
/** A new contact per case: every case's messages open their own window. */
const nextContact = () => `55119876527${String(++contactCounter).padStart(2, "0")}`;

beforeAll(async () => {
  // The development policy (npm start's): the API takes the loopback receivers' URLs.
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  v1 = await startReceiver(() => secrets.v1);
  v2 = await startReceiver(() => secrets.v2);
  account = await createTestAccount(gateway.db, { integrationUrl: v1.url, events: ["message.received"] });
  secrets.v1 = account.signingSecret ?? "";
  const second = await seedIntegration(gateway.db, {
    accountId: account.accountId,
    url: v2.url,
    events: ["message.received"],
    payloadVersion: 2,
  });
  secrets.v2 = second.secret;
  dispatcher = await startTestDispatcher(gateway);

  const client = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey });
  const { data } = await client.GET("/public/v1/event-types");
  const schema = data?.data.event_types.find((type) => type.name === "message.received")?.schema;
  if (!schema) throw new Error("o catálogo não trouxe message.received");
  validateReceived = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
});

afterAll(async () => {
  await dispatcher.stop();
  await v1.close();
  await v2.close();
  await gateway.close();
});

/** The message.received each receiver verified for the inbound message `id`. */
async function receivedBoth(id: string): Promise<{ one: Data; two: Data }> {
  const find = (receiver: typeof v1) =>
    receiver.received.find((r) => r.event.event === "message.received" && r.event.data.message_id === id)?.event as
      MessageReceivedEvent | undefined;
  const { one, two } = await eventually(() => {
    const [first, second] = [find(v1), find(v2)];
    return first && second ? { one: first, two: second } : undefined;
  });
  expect({ one: v1.rejected, two: v2.rejected }).toEqual({ one: 0, two: 0 });
  expect({ valid: validateReceived(two), errors: validateReceived.errors ?? null }).toEqual({
    valid: true,
    errors: null,
  });
  return { one: one.data, two: two.data };
}

/** Today's `data`, in the contract's order: the version-1 body must serialize to exactly these bytes. */
function contractData(got: Data, values: Partial<Data>): Data {
  return {
    message_id: got.message_id,
    from: got.from,
    from_user_id: got.from_user_id,
    from_parent_user_id: null,
    from_username: null,
    phone_number_id: account.phoneNumberId,
    type: "text",
    text: null,
    media_id: null,
    media_mime: null,
    media_filename: null,
    reply_to_message_id: null,
    // The sandbox's profile name for a contact that gave none.
    contact_name: "Cliente Sandbox",
    occurred_at: got.occurred_at,
    window_expires_at: got.window_expires_at,
    ...values,
  };
}

/**
 * Sends `message` from a new contact and checks both bodies: version 1 is `v1Values` over the contract's defaults,
 * serialized in the contract's order; version 2 is version 1 followed by `members` over NO_MEMBERS.
 */
async function inboundBoth(
  message: Json,
  v1Values: Partial<Data>,
  members: Partial<typeof NO_MEMBERS> | Json,
  from = nextContact(),
): Promise<{ one: Data; two: Data }> {
  const sent = await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from, ...message });
  expect(sent.webhook_status).toBe(200);
  const { one, two } = await receivedBoth(sent.id);
  expect(one.from).toBe(from);
  expect(JSON.stringify(one)).toBe(JSON.stringify(contractData(one, v1Values)));
  // Version 2 ends with the customer's phone as the gateway knows it (issue 37): here, the phone that wrote; then the
  // standby flag (issue 37) and who answers on the business's side (issue 39).
  expect(JSON.stringify(two)).toBe(
    JSON.stringify({ ...one, ...NO_MEMBERS, ...members, contact_phone: from, standby: false, handler: "bot" }),
  );
  return { one, two };
}

describe("message.received on payload version 2, and version 1 unchanged", () => {
  it("button_reply: the id of the reply button tapped", async () => {
    await inboundBoth(
      {
        type: "interactive",
        interactive: { kind: "button_reply", id: "confirmar-pedido", title: "Confirmar" },
        context: { id: "wamid.botoes" },
      },
      { type: "interactive", text: "Confirmar", reply_to_message_id: "wamid.botoes" },
      { interactive: { type: "button_reply", id: "confirmar-pedido", title: "Confirmar", description: null } },
    );
  });

  it("list_reply: row 7's id, title and description", async () => {
    await inboundBoth(
      {
        type: "interactive",
        name: "Maria",
        interactive: {
          kind: "list_reply",
          id: "opcao-7",
          title: "Segunda via do boleto",
          description: "PDF do boleto do mês",
        },
        context: { id: "wamid.lista" },
      },
      { type: "interactive", text: "Segunda via do boleto", reply_to_message_id: "wamid.lista", contact_name: "Maria" },
      {
        interactive: {
          type: "list_reply",
          id: "opcao-7",
          title: "Segunda via do boleto",
          description: "PDF do boleto do mês",
        },
      },
    );
  });

  it("template quick reply: the button's payload beside its label", async () => {
    await inboundBoth(
      {
        type: "button",
        button: { text: "Falar com atendente", payload: "ATENDENTE" },
        context: { id: "wamid.template" },
      },
      { type: "button", text: "Falar com atendente", reply_to_message_id: "wamid.template" },
      { button: { payload: "ATENDENTE", text: "Falar com atendente" } },
    );
  });

  it("location: coordinates, name and address", async () => {
    await inboundBoth(
      {
        type: "location",
        location: { latitude: -23.561414, longitude: -46.655881, name: "MASP", address: "Av. Paulista, 1578" },
      },
      { type: "location" },
      {
        location: {
          latitude: -23.561414,
          longitude: -46.655881,
          name: "MASP",
          address: "Av. Paulista, 1578",
          url: null,
        },
      },
    );
  });

  it("contacts: the shared cards, normalised", async () => {
    await inboundBoth(
      {
        type: "contacts",
        contacts: [
          {
            name: { formatted_name: "João Silva", first_name: "João", last_name: "Silva" },
            phones: [{ phone: "+55 11 99999-0000", type: "CELL", wa_id: "5511999990000" }],
            emails: [{ email: "joao@example.com.br", type: "WORK" }],
            org: { company: "Padaria Pão Quente" },
          },
        ],
      },
      { type: "contacts" },
      {
        contacts: [
          {
            formatted_name: "João Silva",
            first_name: "João",
            last_name: "Silva",
            birthday: null,
            phones: [{ phone: "+55 11 99999-0000", wa_id: "5511999990000", type: "CELL" }],
            emails: [{ email: "joao@example.com.br", type: "WORK" }],
            urls: [],
            addresses: [],
            organization: { company: "Padaria Pão Quente", department: null, title: null },
            origin: null,
          },
        ],
      },
    );
  });

  it("reaction to a message the business sent, then its removal: type unsupported, emoji then null", async () => {
    const contact = nextContact();
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: contact, type: "text", text: "Oi" });
    const client = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey });
    const { data } = await client.POST("/public/v1/messages", { body: { to: contact, text: "Seu pedido saiu." } });
    const messageId = data?.data.message_id;
    if (!messageId) throw new Error("envio recusado");

    await inboundBoth(
      { type: "reaction", reaction: { message_id: messageId, emoji: "👍" } },
      { type: "unsupported" },
      { reaction: { message_id: messageId, emoji: "👍" } },
      contact,
    );
    await inboundBoth(
      { type: "reaction", reaction: { message_id: messageId } },
      { type: "unsupported" },
      { reaction: { message_id: messageId, emoji: null } },
      contact,
    );
  });

  it("click-to-WhatsApp ad: the referral with its ctwa_clid, on a text", async () => {
    const { two } = await inboundBoth(
      {
        type: "text",
        text: "Quero o pão de queijo do anúncio",
        referral: { headline: "Pão de queijo em dobro", ctwa_clid: "ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0" },
      },
      { type: "text", text: "Quero o pão de queijo do anúncio" },
      {
        referral: {
          source_type: "ad",
          source_id: "120226305854810726",
          source_url: "https://fb.me/3cr4Wqqkv",
          headline: "Pão de queijo em dobro",
          body: "Pão de queijo quentinho toda manhã!",
          media_type: "image",
          image_url: "https://scontent.xx.fbcdn.net/v/t45.1600-4/sandbox-ad.jpg",
          video_url: null,
          thumbnail_url: null,
          ctwa_clid: "ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0",
          welcome_message: "Olá! Como podemos ajudar?",
        },
      },
    );
    expect(two.referral?.ctwa_clid).toMatch(/^ARA/);
  });

  it("forwarded and frequently forwarded messages", async () => {
    await inboundBoth(
      { type: "text", text: "Olha essa promoção", context: { forwarded: true } },
      { type: "text", text: "Olha essa promoção" },
      { forwarded: true },
    );
    const sent = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: nextContact(),
      type: "image",
      media: { caption: "corrente" },
      context: { frequently_forwarded: true },
    });
    const { one, two } = await receivedBoth(sent.id);
    expect(JSON.stringify(one)).toBe(
      JSON.stringify(
        contractData(one, { type: "image", text: "corrente", media_id: one.media_id, media_mime: "image/jpeg" }),
      ),
    );
    expect(two).toEqual({
      ...one,
      ...NO_MEMBERS,
      contact_phone: one.from,
      standby: false,
      handler: "bot",
      forwarded: true,
      frequently_forwarded: true,
      media_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it("voice note: the SHA-256 of its bytes (hex) and the voice flag", async () => {
    const bytes = Buffer.from("OggS\u0000\u0002 a voice note recorded in WhatsApp");
    const sent = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: nextContact(),
      type: "audio",
      media: { data: bytes.toString("base64"), voice: true },
    });
    const { one, two } = await receivedBoth(sent.id);
    expect(JSON.stringify(one)).toBe(
      JSON.stringify(
        contractData(one, { type: "audio", media_id: one.media_id, media_mime: "audio/ogg; codecs=opus" }),
      ),
    );
    expect(two).toEqual({
      ...one,
      ...NO_MEMBERS,
      contact_phone: one.from,
      standby: false,
      handler: "bot",
      media_sha256: createHash("sha256").update(bytes).digest("hex"),
      media_voice: true,
    });
  });

  it("a document: its checksum, and no voice flag (only audio has one)", async () => {
    const bytes = Buffer.from("%PDF-1.4\n% nota fiscal\n%%EOF\n");
    const sent = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: nextContact(),
      type: "document",
      media: { data: bytes.toString("base64"), filename: "nota-fiscal.pdf" },
    });
    const { one, two } = await receivedBoth(sent.id);
    expect(one).toMatchObject({ type: "document", media_filename: "nota-fiscal.pdf", media_mime: "application/pdf" });
    expect(two).toMatchObject({ media_sha256: createHash("sha256").update(bytes).digest("hex"), media_voice: null });
  });
});

describe("integrations made through the API (issue 38, item 2)", () => {
  it("one created without payload_version gets the tapped row's interactive.id; one created with payload_version 1 does not", async () => {
    const client = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey });
    const made = { byDefault: "", one: "" };
    const byDefault = await startReceiver(() => made.byDefault);
    const one = await startReceiver(() => made.one);
    try {
      const created = await client.POST("/public/v1/integrations", {
        body: { url: byDefault.url, events: ["message.received"] },
      });
      const createdOne = await client.POST("/public/v1/integrations", {
        body: { url: one.url, events: ["message.received"], payload_version: 1 },
      });
      // The secrets as the API showed them (`whsec_…` for the pt scheme too), used as they are.
      made.byDefault = created.data?.data.signing_secret ?? "";
      made.one = createdOne.data?.data.signing_secret ?? "";
      expect([created.data?.data.payload_version, createdOne.data?.data.payload_version]).toEqual([2, 1]);

      const tap = await contactWrites(gateway, {
        phone_number_id: account.phoneNumberId,
        from: nextContact(),
        type: "interactive",
        interactive: { kind: "list_reply", id: "opcao-7", title: "Segunda via do boleto" },
        context: { id: "wamid.menu" },
      });
      expect(tap.webhook_status).toBe(200);
      const receivedBy = (receiver: typeof v1) =>
        receiver.received.find((r) => r.event.event === "message.received" && r.event.data.message_id === tap.id)?.event
          .data as Data | undefined;
      const got = await eventually(() => {
        const [two, first] = [receivedBy(byDefault), receivedBy(one)];
        return two && first ? { two, first } : undefined;
      });
      expect({ byDefault: byDefault.rejected, one: one.rejected }).toEqual({ byDefault: 0, one: 0 });
      expect(got.two).toMatchObject({
        type: "interactive",
        text: "Segunda via do boleto",
        interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: null },
      });
      expect(got.first).toMatchObject({ type: "interactive", text: "Segunda via do boleto" });
      expect(got.first).not.toHaveProperty("interactive");
    } finally {
      await byDefault.close();
      await one.close();
    }
  });
});
