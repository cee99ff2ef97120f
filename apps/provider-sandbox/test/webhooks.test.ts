import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { signMetaPayload, verifyMetaSignature } from "@gw/signer";
import { freePort } from "@gw/testkit";
import type { RunningSandbox, WebhookRecord } from "../src/index.ts";
import {
  APP_SECRET,
  control,
  PHONE_ID,
  sendMessage,
  start,
  startReceiver,
  statusesOf,
  template,
  text,
  type ReceivedWebhook,
} from "./helpers.ts";

const TO = "5511988887777";
const WABA = "102290129340398";

function valueOf(hook: ReceivedWebhook | undefined) {
  return hook?.body.entry[0]?.changes[0]?.value;
}

describe("status webhooks after a send", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      statusDelaysMs: { sent: 5, delivered: 10, read: 15 },
      failAfterSend: ["5511900001111"],
    });
  });
  afterEach(() => {
    sandbox.sandbox.reset();
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it("posts sent, delivered and read, each signed with X-Hub-Signature-256 over the raw body", async () => {
    const answer = await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const wamid = answer.body.messages?.[0]?.id;
    const hooks = await receiver.waitFor((all) => statusesOf(all).some((s) => s.status === "read"));

    expect(statusesOf(hooks).map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    for (const hook of hooks) {
      expect(hook.headers["content-type"]).toBe("application/json");
      const signature = hook.headers["x-hub-signature-256"];
      expect(typeof signature).toBe("string");
      expect(verifyMetaSignature(APP_SECRET, hook.raw, String(signature))).toBe(true);
      expect(verifyMetaSignature("another-secret", hook.raw, String(signature))).toBe(false);

      expect(hook.body.object).toBe("whatsapp_business_account");
      expect(hook.body.entry).toHaveLength(1);
      expect(hook.body.entry[0]?.id).toBe(WABA);
      expect(hook.body.entry[0]?.changes[0]?.field).toBe("messages");
      const value = valueOf(hook);
      expect(value?.messaging_product).toBe("whatsapp");
      expect(value?.metadata).toEqual({
        display_phone_number: expect.stringMatching(/^\d+$/),
        phone_number_id: PHONE_ID,
      });
      // Since 2026 Meta adds the recipient in a sibling `contacts` array on sent, delivered and read statuses.
      expect(Object.keys(value ?? {}).sort()).toEqual(["contacts", "messaging_product", "metadata", "statuses"]);
    }
    for (const status of statusesOf(hooks)) {
      expect(status).toMatchObject({ id: wamid, recipient_id: TO, timestamp: expect.stringMatching(/^\d{10}$/) });
      expect(status.errors).toBeUndefined();
    }
    expect(statusesOf(hooks)[0]?.pricing).toMatchObject({ billable: true, category: "utility" });
  });

  it("posts sent then failed with error 131026 for failAfterSend recipients, and nothing else", async () => {
    const answer = await sendMessage(sandbox.url, template("5511900001111", "hello_world", [], "en_US"));
    expect(answer.status).toBe(200);
    const hooks = await receiver.waitFor((all) => statusesOf(all).some((s) => s.status === "failed"));
    const statuses = statusesOf(hooks);
    expect(statuses.map((s) => s.status)).toEqual(["sent", "failed"]);
    expect(statuses[1]?.errors).toEqual([
      expect.objectContaining({
        code: 131026,
        title: "Message undeliverable",
        message: "Message undeliverable",
        error_data: { details: "Message Undeliverable." },
      }),
    ]);
    // The failed status ends the sequence: the sandbox posted exactly these two.
    const posted = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
    expect(posted.map((w) => w.kind)).toEqual(["statuses", "statuses"]);
  });

  it("posts operator-given statuses exactly, duplicates and out of order included", async () => {
    const first = await sendMessage(sandbox.url, template(TO, "hello_world", [], "en_US"));
    const wamid = first.body.messages?.[0]?.id ?? "";
    await receiver.waitFor((all) => statusesOf(all).some((s) => s.status === "read"));
    receiver.received.length = 0;

    const given = [
      { id: wamid, status: "read", timestamp: "1763900000" },
      { id: wamid, status: "delivered", timestamp: "1763899990" },
      { id: wamid, status: "delivered", timestamp: "1763899990" },
      {
        id: "wamid.OTHER",
        status: "failed",
        recipient_id: "5511911112222",
        timestamp: 1763899999,
        errors: [{ code: 131049, title: "This message was not delivered to maintain healthy ecosystem engagement." }],
      },
    ];
    const answer = await control(sandbox.url, "/statuses", { statuses: given });
    expect(answer.body).toEqual({ webhook_status: 200 });
    expect(receiver.received).toHaveLength(1);
    expect(statusesOf(receiver.received)).toEqual([
      { id: wamid, status: "read", timestamp: "1763900000", recipient_id: TO },
      { id: wamid, status: "delivered", timestamp: "1763899990", recipient_id: TO },
      { id: wamid, status: "delivered", timestamp: "1763899990", recipient_id: TO },
      {
        id: "wamid.OTHER",
        status: "failed",
        timestamp: "1763899999",
        recipient_id: "5511911112222",
        errors: given[3]?.errors,
      },
    ]);
    expect(valueOf(receiver.received[0])?.metadata.phone_number_id).toBe(PHONE_ID);
  });

  it("refuses statuses of an unknown message without recipient_id, in Portuguese", async () => {
    const answer = await control<{ error: { message: string } }>(sandbox.url, "/statuses", {
      phone_number_id: PHONE_ID,
      statuses: [{ id: "wamid.NOPE", status: "sent" }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/recipient_id é obrigatório/);
  });
});

describe("inbound webhooks", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    // These tests count exact POSTs: a redelivery of the refused one would land in a later test.
    sandbox = await start({ webhookUrl: receiver.url, webhookRetries: false });
  });
  afterEach(() => {
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it("builds Meta's payload for a text message and answers the gateway's status", async () => {
    const answer = await control<{ id: string; webhook_status: number }>(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: "+55 11 98888-7777",
      name: "Maria Souza",
      type: "text",
      text: "Quero saber do meu pedido",
      timestamp: 1763900000,
      id: "wamid.INBOUND1",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: "wamid.INBOUND1", webhook_status: 200 });
    expect(receiver.received).toHaveLength(1);
    const hook = receiver.received[0];
    expect(hook && verifyMetaSignature(APP_SECRET, hook.raw, String(hook.headers["x-hub-signature-256"]))).toBe(true);
    expect(hook?.body).toEqual({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: expect.stringMatching(/^\d+$/), phone_number_id: PHONE_ID },
                contacts: [
                  { profile: { name: "Maria Souza" }, wa_id: TO, user_id: expect.stringMatching(/^BR\.\d+$/) },
                ],
                messages: [
                  {
                    from: TO,
                    from_user_id: expect.stringMatching(/^BR\.\d+$/),
                    id: "wamid.INBOUND1",
                    timestamp: "1763900000",
                    type: "text",
                    text: { body: "Quero saber do meu pedido" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
  });

  it("carries media id, mime type, sha256 and caption for an image", async () => {
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "image",
      media: { id: "1339522734477770", mime_type: "image/png", caption: "Comprovante" },
    });
    const message = valueOf(receiver.received[0])?.messages?.[0];
    expect(message).toMatchObject({
      from: TO,
      type: "image",
      id: expect.stringMatching(/^wamid\./),
      timestamp: expect.stringMatching(/^\d+$/),
    });
    expect(message?.image).toEqual({
      id: "1339522734477770",
      mime_type: "image/png",
      sha256: expect.any(String),
      caption: "Comprovante",
    });
    expect(message?.text).toBeUndefined();
  });

  it("carries filename for a document", async () => {
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "document",
      media: { filename: "nota.pdf" },
    });
    const message = valueOf(receiver.received[0])?.messages?.[0];
    expect(message?.document).toEqual({
      id: expect.stringMatching(/^\d+$/),
      mime_type: "application/pdf",
      sha256: expect.any(String),
      filename: "nota.pdf",
    });
  });

  it("builds an interactive button reply with the quoted message in context", async () => {
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "interactive",
      interactive: { id: "confirmar", title: "Confirmar" },
      context: { id: "wamid.SENT1" },
    });
    const message = valueOf(receiver.received[0])?.messages?.[0];
    expect(message?.interactive).toEqual({
      type: "button_reply",
      button_reply: { id: "confirmar", title: "Confirmar" },
    });
    expect(message?.context).toEqual({
      from: valueOf(receiver.received[0])?.metadata.display_phone_number,
      id: "wamid.SENT1",
    });
  });

  it("builds a template quick-reply button message", async () => {
    await control(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: TO,
      type: "button",
      button: { text: "Falar com atendente", payload: "ATENDENTE" },
      context: { id: "wamid.TEMPLATE1", from: "15550001234" },
    });
    const message = valueOf(receiver.received[0])?.messages?.[0];
    expect(message?.button).toEqual({ payload: "ATENDENTE", text: "Falar com atendente" });
    expect(message?.context).toEqual({ from: "15550001234", id: "wamid.TEMPLATE1" });
  });

  it("marks unsupported messages with Meta's errors array", async () => {
    await control(sandbox.url, "/inbound", { phone_number_id: PHONE_ID, from: TO, type: "unsupported" });
    const message = valueOf(receiver.received[0])?.messages?.[0];
    expect(message).toMatchObject({ type: "unsupported", errors: [expect.objectContaining({ code: 131051 })] });
  });

  it("refuses an incomplete inbound request in Portuguese and posts nothing", async () => {
    const answer = await control<{ error: { message: string; issues: { path: string[] }[] } }>(
      sandbox.url,
      "/inbound",
      {
        phone_number_id: PHONE_ID,
        from: TO,
        type: "text",
      },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/Requisição inválida/);
    expect(answer.body.error.issues.map((i) => i.path.join("."))).toContain("text");
    expect(receiver.received).toHaveLength(0);
  });

  it("reports the gateway's refusal status", async () => {
    const refusing = await startReceiver(401);
    await control(sandbox.url, "/config", { webhookUrl: refusing.url });
    try {
      const answer = await control(sandbox.url, "/inbound", {
        phone_number_id: PHONE_ID,
        from: TO,
        type: "text",
        text: "oi",
      });
      expect(answer.body.webhook_status).toBe(401);
      expect(refusing.received).toHaveLength(1);
    } finally {
      await control(sandbox.url, "/config", { webhookUrl: receiver.url });
      await refusing.close();
    }
  });
});

describe("an unreachable webhook", () => {
  it("answers webhook_status null and the sandbox keeps working", async () => {
    const port = await freePort();
    const sandbox = await start({
      webhookUrl: `http://127.0.0.1:${port}/nada`,
      statusDelaysMs: { sent: 0, delivered: 0, read: 0 },
    });
    try {
      const inbound = await control(sandbox.url, "/inbound", {
        phone_number_id: PHONE_ID,
        from: TO,
        type: "text",
        text: "oi",
      });
      expect(inbound.status).toBe(200);
      expect(inbound.body.webhook_status).toBeNull();
      expect((await sendMessage(sandbox.url, text(TO, "resposta"))).status).toBe(200);
      const records = (await control<WebhookRecord[]>(sandbox.url, "/webhooks")).body;
      expect(records[0]).toMatchObject({ kind: "inbound", status: null, error: expect.any(String) });
      expect(records[0]?.signature).toBe(signMetaPayload(APP_SECRET, records[0]?.raw ?? ""));
    } finally {
      await sandbox.close();
    }
  });
});
