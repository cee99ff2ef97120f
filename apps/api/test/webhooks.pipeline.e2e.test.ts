import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import type { Dispatcher } from "@gw/dispatcher";
import type { MessageReceivedEvent, MessageStatusEvent } from "@gw/receiver";
import { signMetaPayload } from "@gw/signer";
import { createInternalApp } from "../src/app.ts";
import { eventually } from "@gw/testkit";
import {
  APP_SECRET,
  VERIFY_TOKEN,
  contactWrites,
  createTestAccount,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";
import { sandboxControl } from "./support/sandbox-control.ts";

// Provider events in, signed deliveries out: API + sandbox + dispatcher + a real receiver, all on loopback.
describe("webhook pipeline end to end", () => {
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let account: TestAccount;

  const statusEvents = (messageId: string) =>
    receiver.received.filter(
      (r): r is typeof r & { event: MessageStatusEvent } =>
        r.event.event === "message.status" && r.event.data.message_id === messageId,
    );

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000" },
      sandbox: { failAfterSend: ["5511922220009"] },
    });
    ({ receiver, account, dispatcher } = await startPipeline(gateway));
  });
  afterAll(async () => {
    await stopPipeline({ dispatcher, receiver, gateway });
  });

  it("an inbound message reaches the receiver as message.received with every field, and opens the window", async () => {
    const inbound = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511922220001",
      name: "Maria Silva",
      type: "image",
      media: { id: "media-123", mime_type: "image/jpeg", caption: "comprovante" },
      context: { id: "wamid.quoted" },
    });
    expect(inbound.webhook_status).toBe(200);
    const got = await eventually(() =>
      receiver.received.find((r) => r.event.event === "message.received" && r.event.data.message_id === inbound.id),
    );
    const event = got.event as MessageReceivedEvent;
    expect(event.data).toEqual({
      message_id: inbound.id,
      from: "5511922220001",
      // Meta adds the sender's business-scoped user id to every message since 2026.
      from_user_id: expect.stringMatching(/^BR\.\d+$/),
      from_parent_user_id: null,
      from_username: null,
      phone_number_id: account.phoneNumberId,
      type: "image",
      text: "comprovante",
      media_id: "media-123",
      media_mime: "image/jpeg",
      media_filename: null,
      reply_to_message_id: "wamid.quoted",
      contact_name: "Maria Silva",
      occurred_at: expect.any(String),
      window_expires_at: new Date(Date.parse(event.data.occurred_at) + 86_400_000).toISOString(),
    });
    expect(got.headers["x-pt-event"]).toBe("message.received");
    expect(got.headers["x-pt-attempt"]).toBe("1");
    expect(got.headers["x-pt-delivery-id"]).toBe(event.delivery_id);

    const window = await request(gateway.app).get("/public/v1/window/5511922220001").set(account.auth);
    expect(window.body.data).toMatchObject({ open: true, expires_at: event.data.window_expires_at });
  });

  it("a send produces message.status sent → delivered → read, each signed, with client_ref from the stored message", async () => {
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511922220002",
      type: "text",
      text: "oi",
    });
    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "11922220002", text: "Olá!", client_ref: "pedido-77" });
    expect(sent.status).toBe(200);
    const messageId = sent.body.data.message_id as string;
    await eventually(() => statusEvents(messageId).length >= 3);
    const events = statusEvents(messageId).map((r) => r.event.data);
    expect(events.map((e) => [e.status, e.status_rank])).toEqual([
      ["sent", 2],
      ["delivered", 3],
      ["read", 4],
    ]);
    for (const data of events)
      expect(data).toMatchObject({
        to: "5511922220002",
        client_ref: "pedido-77",
        campaign_id: null,
        error: null,
        phone_number_id: account.phoneNumberId,
      });
    expect(receiver.rejected).toBe(0);
  });

  it("out of order: read before delivered yields no regression event; failed after read is ignored; duplicates apply once", async () => {
    await sandboxControl.config(gateway, { autoStatuses: false });
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511922220003",
      type: "text",
      text: "oi",
    });
    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "11922220003", text: "Olá!" });
    const id = sent.body.data.message_id as string;
    const status = (s: string, extra: Record<string, unknown> = {}) => ({
      id,
      status: s,
      recipient_id: "5511922220003",
      ...extra,
    });
    await sandboxControl.statuses(gateway, {
      phone_number_id: account.phoneNumberId,
      statuses: [status("sent"), status("sent")],
    });
    await sandboxControl.statuses(gateway, { phone_number_id: account.phoneNumberId, statuses: [status("read")] });
    await sandboxControl.statuses(gateway, {
      phone_number_id: account.phoneNumberId,
      statuses: [status("delivered"), status("read")],
    });
    await sandboxControl.statuses(gateway, {
      phone_number_id: account.phoneNumberId,
      statuses: [status("failed", { errors: [{ code: 131026, title: "Message undeliverable" }] })],
    });
    await eventually(() => statusEvents(id).length >= 2);
    // Give any wrongly created delivery the time to arrive before asserting there is none.
    await eventually(
      async () =>
        (await gateway.db.delivery.count({
          where: { accountId: account.accountId, status: { in: ["pending", "delivering"] } },
        })) === 0,
    );
    expect(statusEvents(id).map((r) => r.event.data.status)).toEqual(["sent", "read"]);
    const stored = await gateway.db.message.findUnique({ where: { wamid: id } });
    expect(stored?.status).toBe("read");
    await sandboxControl.config(gateway, { autoStatuses: true });
  });

  it("a failure after sent carries error {code, message, reason}", async () => {
    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "11922220009", template: "hello_world", language: "en_US" });
    expect(sent.status).toBe(200);
    const id = sent.body.data.message_id as string;
    await eventually(() => statusEvents(id).some((r) => r.event.data.status === "failed"));
    const failed = statusEvents(id).find((r) => r.event.data.status === "failed")?.event.data;
    expect(failed).toMatchObject({
      status: "failed",
      status_rank: 1,
      error: { code: 131026, reason: "recipient_unreachable", message: expect.any(String) },
    });
  });

  it("the provider webhook checks X-Hub-Signature-256 and answers the GET handshake", async () => {
    const body = JSON.stringify({ object: "whatsapp_business_account", entry: [] });
    const bad = await request(gateway.app)
      .post("/provider/meta/webhook")
      .set("Content-Type", "application/json")
      .set("X-Hub-Signature-256", "sha256=" + "0".repeat(64))
      .send(body);
    expect(bad.status).toBe(401);
    const missing = await request(gateway.app)
      .post("/provider/meta/webhook")
      .set("Content-Type", "application/json")
      .send(body);
    expect(missing.status).toBe(401);
    const good = await request(gateway.app)
      .post("/provider/meta/webhook")
      .set("Content-Type", "application/json")
      .set("X-Hub-Signature-256", signMetaPayload(APP_SECRET, body))
      .send(body);
    expect(good.status).toBe(200);

    const handshake = await request(gateway.app)
      .get("/provider/meta/webhook")
      .query({ "hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1158201444" });
    expect(handshake.status).toBe(200);
    expect(handshake.text).toBe("1158201444");
    const wrong = await request(gateway.app)
      .get("/provider/meta/webhook")
      .query({ "hub.mode": "subscribe", "hub.verify_token": "nope", "hub.challenge": "1" });
    expect(wrong.status).toBe(403);
  });

  it("the deliveries API lists most recent first with next_before_id, shows one delivery, and hides other accounts'", async () => {
    const list = await request(gateway.app).get("/public/v1/deliveries?limit=2").set(account.auth);
    expect(list.status).toBe(200);
    const [first, second] = list.body.data.deliveries as { id: number }[];
    expect(first && second && first.id > second.id).toBe(true);
    expect(list.body.data.next_before_id).toBe(second?.id);
    const next = await request(gateway.app)
      .get(`/public/v1/deliveries?limit=2&before_id=${list.body.data.next_before_id}`)
      .set(account.auth);
    expect((next.body.data.deliveries as { id: number }[]).every((d) => d.id < (second?.id ?? 0))).toBe(true);

    const one = await request(gateway.app).get(`/public/v1/deliveries/${first?.id}`).set(account.auth);
    expect(one.body.data).toMatchObject({
      id: first?.id,
      status: "delivered",
      attempts: 1,
      last_status_code: 200,
      envelope: { delivery_id: String(first?.id) },
    });

    const other = await createTestAccount(gateway.db);
    const hidden = await request(gateway.app).get(`/public/v1/deliveries/${first?.id}`).set(other.auth);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe("not_found");
    const retryHidden = await request(gateway.app).post(`/public/v1/deliveries/${first?.id}/retry`).set(other.auth);
    expect(retryHidden.status).toBe(404);
  });

  it("retry of a delivered delivery re-sends it with the same X-PT-Delivery-Id and a higher X-PT-Attempt; audited as api.webhook.retry", async () => {
    const delivery = await gateway.db.delivery.findFirst({
      where: { accountId: account.accountId, status: "delivered" },
      orderBy: { id: "desc" },
    });
    if (!delivery) throw new Error("no delivered delivery");
    const before = receiver.received.filter((r) => r.meta.deliveryId === String(delivery.id)).length;
    const res = await request(gateway.app).post(`/public/v1/deliveries/${delivery.id}/retry`).set(account.auth);
    expect(res.status).toBe(200);
    await eventually(() => receiver.received.filter((r) => r.meta.deliveryId === String(delivery.id)).length > before);
    const again = receiver.received.filter((r) => r.meta.deliveryId === String(delivery.id)).at(-1);
    expect(again?.headers["x-pt-attempt"]).toBe("2");
    const audit = await gateway.db.auditEntry.findFirst({
      where: { accountId: account.accountId, action: "api.webhook.retry" },
    });
    expect(audit?.target).toContain(String(delivery.id));

    const pending = await gateway.db.delivery.create({
      data: {
        accountId: account.accountId,
        integrationId: delivery.integrationId,
        event: "message.status",
        status: "delivering",
        body: "{}",
        occurredAt: new Date(),
      },
    });
    const refused = await request(gateway.app).post(`/public/v1/deliveries/${pending.id}/retry`).set(account.auth);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("delivery_not_retryable");
    await gateway.db.delivery.delete({ where: { id: pending.id } });
  });

  it("the send itself is audited as api.messages.send", async () => {
    const entry = await gateway.db.auditEntry.findFirst({
      where: { accountId: account.accountId, action: "api.messages.send" },
    });
    expect(entry).toMatchObject({ actor: `api_key:${account.keyId}`, requestId: expect.any(String) });
  });

  it("/metrics on the API and the dispatcher show the send, the provider call and the deliveries", async () => {
    const metricValue = (text: string, name: string, labels: Record<string, string>) => {
      const line = text
        .split("\n")
        .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    // /metrics is served by the internal listener, not the public one.
    const api = await request(createInternalApp(gateway.deps)).get("/metrics");
    expect(api.status).toBe(200);
    expect(metricValue(api.text, "gw_message_sends_total", { outcome: "sent" })).toBeGreaterThanOrEqual(3);
    expect(
      metricValue(api.text, "gw_provider_request_duration_seconds_count", { operation: "sendMessage", outcome: "ok" }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      metricValue(api.text, "gw_http_requests_total", { route: "/public/v1/messages", status: "200" }),
    ).toBeGreaterThanOrEqual(3);
    expect(api.text).toContain('gw_webhook_queue_jobs{state="waiting"}');

    const dispatcherMetrics = await fetch(`http://127.0.0.1:${dispatcher.port}/metrics`);
    const text = await dispatcherMetrics.text();
    expect(
      metricValue(text, "gw_webhook_attempts_total", { event: "message.status", outcome: "delivered" }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      metricValue(text, "gw_webhook_attempts_total", { event: "message.received", outcome: "delivered" }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain('gw_webhook_queue_jobs{state="waiting"}');
    expect(text).toContain("gw_webhook_attempt_duration_seconds_bucket");
  });

  it("/metrics show the operator's dashboard figures: sends by number and Meta's answer, pacing waits, ingestion lag, deliveries per integration", async () => {
    const sampleValue = (text: string, name: string, labels: Record<string, string>) => {
      const line = text
        .split("\n")
        .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
      return line ? Number(line.split(" ").at(-1)) : 0;
    };
    const api = await gateway.deps.metrics.registry.metrics();
    expect(
      sampleValue(api, "gw_provider_sends_total", {
        phone_number_id: account.phoneNumberId,
        result: "accepted",
        code: "none",
      }),
    ).toBeGreaterThanOrEqual(3);
    expect(sampleValue(api, "gw_pacing_wait_seconds_count", { pacing: "refuse" })).toBeGreaterThanOrEqual(3);
    // The statuses and the inbound message Meta (the sandbox) stamped were ingested: each observed its lag.
    expect(api).toMatch(/^gw_provider_webhook_lag_seconds_count [1-9]\d*$/m);
    expect(api).toMatch(/^gw_send_journal_entries 0$/m);

    const integration = await gateway.db.integration.findFirstOrThrow({ where: { accountId: account.accountId } });
    const text = await (await fetch(`http://127.0.0.1:${dispatcher.port}/metrics`)).text();
    expect(
      sampleValue(text, "gw_webhook_integration_attempts_total", {
        integration_id: integration.id,
        outcome: "delivered",
      }),
    ).toBeGreaterThanOrEqual(4);
    expect(
      sampleValue(text, "gw_webhook_integration_attempt_duration_seconds_count", {
        integration_id: integration.id,
      }),
    ).toBeGreaterThanOrEqual(4);
    expect(text).toMatch(/^gw_webhook_delivery_oldest_due_age_seconds \d+(\.\d+)?(e[-+]?\d+)?$/m);
  });
});
