import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import type { RunningSandbox } from "../src/index.ts";
import { control, PHONE_ID, start, startReceiver, TOKEN, type ReceivedWebhook } from "./helpers.ts";

// The inbound shapes of issue 27 through POST /_sandbox/inbound: what Meta's `messages[0]` carries for a reaction
// (and its removal), a click-to-WhatsApp ad, a forwarded message, a list row and a location with its url.

const TO = "5511988886666";

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let sandbox: RunningSandbox;

beforeAll(async () => {
  receiver = await startReceiver();
  sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false, accessToken: TOKEN });
});
afterEach(() => {
  receiver.received.length = 0;
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

function messageOf(hook: ReceivedWebhook | undefined): Record<string, unknown> | undefined {
  return hook?.body.entry[0]?.changes[0]?.value.messages?.[0];
}

async function inbound(body: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const answer = await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: TO, ...body });
  expect(answer.status).toBe(200);
  return messageOf(receiver.received.at(-1));
}

describe("POST /_sandbox/inbound: the kinds of issue 27", () => {
  it("sends a reaction with its emoji, and a removal without any emoji member (Meta's shape)", async () => {
    const reaction = await inbound({ type: "reaction", reaction: { message_id: "wamid.SENT9", emoji: "👍" } });
    expect(reaction).toMatchObject({ type: "reaction", reaction: { message_id: "wamid.SENT9", emoji: "👍" } });
    const removal = await inbound({ type: "reaction", reaction: { message_id: "wamid.SENT9" } });
    expect(removal?.reaction).toEqual({ message_id: "wamid.SENT9" });
  });

  it("refuses a reaction without the message it reacts to, posting nothing", async () => {
    const answer = await control<{ error: { issues: { path: string[] }[] } }>(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "reaction",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.issues.map((issue) => issue.path.join("."))).toEqual(["reaction"]);
    expect(receiver.received).toHaveLength(0);
  });

  it("adds an ad referral over an image ad's defaults, leaving out a field set to null", async () => {
    const message = await inbound({
      type: "text",
      text: "Vi o anúncio",
      referral: { headline: "Pão de queijo em dobro", ctwa_clid: null },
    });
    const referral = message?.referral as Record<string, unknown>;
    expect(referral).toMatchObject({ source_type: "ad", media_type: "image", headline: "Pão de queijo em dobro" });
    expect(referral).not.toHaveProperty("ctwa_clid");
    const withClid = await inbound({ type: "text", text: "Oi", referral: {} });
    expect((withClid?.referral as Record<string, unknown>).ctwa_clid).toMatch(/^ARA[\w-]+$/);
  });

  it("marks a forwarded message in context without a quoted id, and refuses an empty context", async () => {
    const message = await inbound({ type: "text", text: "Olha isso", context: { frequently_forwarded: true } });
    expect(message?.context).toEqual({ frequently_forwarded: true });
    const empty = await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "text",
      text: "x",
      context: {},
    });
    expect(empty.status).toBe(400);
  });

  it("sends a list row with its description, and a location with its url", async () => {
    const row = await inbound({
      type: "interactive",
      interactive: { kind: "list_reply", id: "opcao-7", title: "Segunda via", description: "PDF do boleto" },
    });
    expect(row?.interactive).toEqual({
      type: "list_reply",
      list_reply: { id: "opcao-7", title: "Segunda via", description: "PDF do boleto" },
    });
    const place = await inbound({
      type: "location",
      location: { latitude: -22.9, longitude: -43.2, name: "Loja", url: "https://loja.example" },
    });
    expect(place?.location).toEqual({ latitude: -22.9, longitude: -43.2, name: "Loja", url: "https://loja.example" });
  });

  it("takes Meta's `type` for the reply's kind, as `kind`: a list row and a reply button (docs/client.md's bodies)", async () => {
    const row = await inbound({
      type: "interactive",
      interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto" },
    });
    expect(row?.interactive).toEqual({
      type: "list_reply",
      list_reply: { id: "opcao-7", title: "Segunda via do boleto" },
    });
    const button = await inbound({
      type: "interactive",
      interactive: { type: "button_reply", id: "falar-atendente", title: "Falar com atendente" },
    });
    expect(button?.interactive).toEqual({
      type: "button_reply",
      button_reply: { id: "falar-atendente", title: "Falar com atendente" },
    });
    const both = await inbound({
      type: "interactive",
      interactive: { type: "list_reply", kind: "list_reply", id: "opcao-2", title: "Trocar um produto" },
    });
    expect(both?.interactive).toMatchObject({ type: "list_reply" });
  });

  it("refuses a reply whose `type` and `kind` disagree, posting nothing", async () => {
    const answer = await control<{ error: { issues: { path: string[]; message: string }[] } }>(
      sandbox.url,
      "/inbound",
      {
        phone_number_id: PHONE_ID,
        from: TO,
        type: "interactive",
        interactive: { type: "list_reply", kind: "button_reply", id: "opcao-7", title: "Segunda via do boleto" },
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.issues.map((issue) => issue.path.join("."))).toEqual(["interactive.type"]);
    expect(receiver.received).toHaveLength(0);
  });
});
