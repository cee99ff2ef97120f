import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import request from "supertest";
import { APP_SECRET, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// Spec 3.1 through HTTP: a real send, then provider statuses emitted by the sandbox (POST /_sandbox/statuses)
// or posted to the provider webhook directly. The sandbox answers only once the gateway committed (it waits
// for the webhook's answer), so the state can be read right after. No dispatcher: the deliveries the outbox
// creates are read back through the deliveries API.

interface StatusEvent {
  deliveryId: number;
  status: string;
  statusRank: number;
  error: unknown;
}

const metaSignature = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe("message status machine through HTTP (spec 3.1)", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  let recipientSeq = 0;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" }, sandbox: { autoStatuses: false } });
    // Nothing dispatches in this file: the endpoint is never called.
    account = await createTestAccount(gateway.db, {
      integrationUrl: "http://127.0.0.1:9/nunca-chamado",
      events: ["message.status"],
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  /** A template send (no window needed); returns the message id the provider gave. */
  async function send(): Promise<{ id: string; to: string }> {
    recipientSeq++;
    const to = `55119444${String(recipientSeq).padStart(5, "0")}`;
    const res = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to, template: "hello_world", language: "en_US", client_ref: `ref-${recipientSeq}` });
    expect(res.status).toBe(200);
    return { id: res.body.data.message_id as string, to };
  }

  async function emit(
    id: string,
    ...statuses: (string | { status: string; errors: Record<string, unknown>[] })[]
  ): Promise<void> {
    const items = statuses.map((s) => (typeof s === "string" ? { id, status: s } : { id, ...s }));
    const res = await sandboxControl.statuses(gateway, { statuses: items });
    expect(res.webhook_status).toBe(200);
  }

  /** The account's message.status events for one message, oldest first, read through the deliveries API. */
  async function statusEvents(messageId: string): Promise<StatusEvent[]> {
    const list = await request(gateway.app).get("/public/v1/deliveries").query({ limit: 200 }).set(account.auth);
    expect(list.status).toBe(200);
    expect(list.body.data.next_before_id).toBeNull();
    const events: StatusEvent[] = [];
    for (const d of list.body.data.deliveries as { id: number; event: string }[]) {
      if (d.event !== "message.status") continue;
      const one = await request(gateway.app).get(`/public/v1/deliveries/${d.id}`).set(account.auth);
      expect(one.status).toBe(200);
      const data = one.body.data.envelope.data as {
        message_id: string;
        status: string;
        status_rank: number;
        error: unknown;
      };
      if (data.message_id === messageId)
        events.push({ deliveryId: d.id, status: data.status, statusRank: data.status_rank, error: data.error });
    }
    return events.sort((a, b) => a.deliveryId - b.deliveryId);
  }

  const stored = (wamid: string) => gateway.db.message.findUniqueOrThrow({ where: { wamid } });
  const failure = {
    status: "failed",
    errors: [
      {
        code: 131026,
        title: "Message undeliverable",
        message: "Message undeliverable",
        error_data: { details: "Não entregue." },
      },
    ],
  };

  it("control: sent then failed does move to failed, with the error object", async () => {
    const { id } = await send();
    await emit(id, "sent");
    await emit(id, failure);
    expect((await statusEvents(id)).map((e) => [e.status, e.statusRank])).toEqual([
      ["sent", 2],
      ["failed", 1],
    ]);
    const events = await statusEvents(id);
    expect(events[1]?.error).toEqual({ code: 131026, message: expect.any(String), reason: "recipient_unreachable" });
    expect((await stored(id)).status).toBe("failed");
  });

  it("delivered then failed: the failure is ignored (no failed event, stored status stays delivered)", async () => {
    const { id } = await send();
    await emit(id, "sent");
    await emit(id, "delivered");
    await emit(id, failure);
    const events = await statusEvents(id);
    expect(events.map((e) => e.status)).toEqual(["sent", "delivered"]);
    expect(events.every((e) => e.error === null)).toBe(true);
    const message = await stored(id);
    expect(message).toMatchObject({ status: "delivered", errorCode: null, errorReason: null });

    // Read still applies afterwards; a later failure is still ignored.
    await emit(id, "read");
    await emit(id, failure);
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["sent", "delivered", "read"]);
    expect((await stored(id)).status).toBe("read");
  });

  it("delivered then failed in one provider webhook: the failure is ignored too", async () => {
    const { id } = await send();
    await emit(id, "sent", "delivered", failure);
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["sent", "delivered"]);
    expect((await stored(id)).status).toBe("delivered");
  });

  it("delivered straight after the send (sent skipped), then failed: still ignored", async () => {
    const { id } = await send();
    await emit(id, "delivered");
    await emit(id, failure);
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["delivered"]);
    expect((await stored(id)).status).toBe("delivered");
  });

  it("sent three times in three webhooks → one message.status sent event", async () => {
    const { id, to } = await send();
    await emit(id, "sent");
    await emit(id, "sent");
    await emit(id, "sent");
    const events = await statusEvents(id);
    expect(events.map((e) => [e.status, e.statusRank])).toEqual([["sent", 2]]);
    const one = await request(gateway.app).get(`/public/v1/deliveries/${events[0]?.deliveryId}`).set(account.auth);
    expect(one.body.data.envelope.data).toEqual({
      message_id: id,
      status: "sent",
      status_rank: 2,
      to,
      // The sandbox's hand-made statuses (control endpoint) carry neither a BSUID nor pricing.
      recipient_user_id: null,
      error: null,
      phone_number_id: account.phoneNumberId,
      client_ref: `ref-${recipientSeq}`,
      campaign_id: null,
      pricing: null,
    });
    expect((await stored(id)).status).toBe("sent");
  });

  it("sent three times in one webhook → one event; a later delivered is still one more", async () => {
    const { id } = await send();
    await emit(id, "sent", "sent", "sent");
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["sent"]);
    await emit(id, "delivered", "delivered");
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["sent", "delivered"]);
  });

  it("the provider re-posting the very same webhook (same bytes, valid signature) is applied once", async () => {
    const { id, to } = await send();
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: account.wabaId,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "551140000000", phone_number_id: account.phoneNumberId },
                statuses: [{ id, status: "sent", timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: to }],
              },
            },
          ],
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await request(gateway.app)
        .post("/provider/meta/webhook")
        .set("Content-Type", "application/json")
        .set("X-Hub-Signature-256", metaSignature(APP_SECRET, body))
        .send(body);
      expect(res.status).toBe(200);
    }
    expect((await statusEvents(id)).map((e) => e.status)).toEqual(["sent"]);
  });

  it("Meta pricing both sent and delivered: the events carry the pricing once (the first), the message keeps it", async () => {
    const { id, to } = await send();
    const pricing = { billable: true, pricing_model: "PMP", type: "regular", category: "utility" };
    const at = String(Math.floor(Date.now() / 1000));
    for (const status of ["sent", "delivered"]) {
      const body = JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: account.wabaId,
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "551140000000", phone_number_id: account.phoneNumberId },
                  statuses: [{ id, status, timestamp: at, recipient_id: to, pricing }],
                },
              },
            ],
          },
        ],
      });
      const res = await request(gateway.app)
        .post("/provider/meta/webhook")
        .set("Content-Type", "application/json")
        .set("X-Hub-Signature-256", metaSignature(APP_SECRET, body))
        .send(body);
      expect(res.status).toBe(200);
    }
    const events = await statusEvents(id);
    const priced = await Promise.all(
      events.map(async (e) => {
        const one = await request(gateway.app).get(`/public/v1/deliveries/${e.deliveryId}`).set(account.auth);
        return { status: e.status, pricing: (one.body.data.envelope.data as { pricing: unknown }).pricing };
      }),
    );
    expect(priced).toEqual([
      { status: "sent", pricing: { pricing_model: "PMP", category: "utility", type: "regular" } },
      { status: "delivered", pricing: null },
    ]);
    expect((await stored(id)).pricing).toMatchObject({ pricing_model: "PMP", category: "utility", type: "regular" });
  });

  describe("provider webhook with a bad signature", () => {
    let wamid: string;
    let to: string;
    let body: string;

    beforeAll(async () => {
      ({ id: wamid, to } = await send());
      await emit(wamid, "sent");
      body = JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: account.wabaId,
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "551140000000", phone_number_id: account.phoneNumberId },
                  contacts: [{ profile: { name: "Forjado" }, wa_id: "5511944499999" }],
                  messages: [
                    {
                      from: "5511944499999",
                      id: `wamid.forjado.${wamid}`,
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      type: "text",
                      text: { body: "mensagem forjada" },
                    },
                  ],
                  statuses: [
                    { id: wamid, status: "read", timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: to },
                  ],
                },
              },
            ],
          },
        ],
      });
    });

    const snapshot = async () => ({
      providerEvents: await gateway.db.providerEvent.count({ where: { body: { contains: wamid } } }),
      earlyStatuses: await gateway.db.earlyStatus.count({ where: { wamid } }),
      inbound: await gateway.db.inboundMessage.count({ where: { wamid: `wamid.forjado.${wamid}` } }),
      status: (await stored(wamid)).status,
      deliveries: await gateway.db.delivery.count({ where: { accountId: account.accountId } }),
    });

    it.each([
      ["signed with another secret", () => metaSignature("outro-segredo", body)],
      [
        "signature of a different body",
        () => metaSignature(APP_SECRET, body.replace("mensagem forjada", "mensagem original")),
      ],
      ["signature over the body with a trailing newline", () => metaSignature(APP_SECRET, `${body}\n`)],
      ["no sha256= prefix", () => metaSignature(APP_SECRET, body).slice("sha256=".length)],
      ["sha1= scheme", () => `sha1=${createHmac("sha1", APP_SECRET).update(body).digest("hex")}`],
      ["truncated", () => metaSignature(APP_SECRET, body).slice(0, -2)],
      ["empty", () => ""],
      ["absent", () => undefined],
    ])("%s → 401 and nothing stored", async (_name, signature) => {
      const before = await snapshot();
      expect(before.status).toBe("sent");
      const req = request(gateway.app).post("/provider/meta/webhook").set("Content-Type", "application/json");
      const sig = signature();
      if (sig !== undefined) req.set("X-Hub-Signature-256", sig);
      const res = await req.send(body);
      expect(res.status).toBe(401);
      expect(await snapshot()).toEqual(before);
      expect((await statusEvents(wamid)).map((e) => e.status)).toEqual(["sent"]);
      const window = await request(gateway.app).get("/public/v1/window/5511944499999").set(account.auth);
      expect(window.status).toBe(200);
      expect(window.body.data.open).toBe(false);
    });

    it("control: the same body correctly signed is stored and applied", async () => {
      const before = await snapshot();
      const res = await request(gateway.app)
        .post("/provider/meta/webhook")
        .set("Content-Type", "application/json")
        .set("X-Hub-Signature-256", metaSignature(APP_SECRET, body))
        .send(body);
      expect(res.status).toBe(200);
      const after = await snapshot();
      expect(after).toMatchObject({ providerEvents: before.providerEvents + 1, inbound: 1, status: "read" });
      expect((await statusEvents(wamid)).map((e) => e.status)).toEqual(["sent", "read"]);
      const window = await request(gateway.app).get("/public/v1/window/5511944499999").set(account.auth);
      expect(window.body.data.open).toBe(true);
    });
  });
});
