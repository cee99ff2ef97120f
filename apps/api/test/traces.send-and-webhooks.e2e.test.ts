import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import type { Dispatcher } from "@gw/dispatcher";
import type { MessageStatusEvent } from "@gw/receiver";
import { parseTraceparent } from "@gw/tracing";
import { startTracing, type Tracing } from "@gw/tracing/exporter";
import { eventually, startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from "@gw/testkit";
import { contactWrites, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";

const SERVER = 2;
const CLIENT = 3;

// Issue 29, item 5: the API request, the deliveries of its message's statuses (row and job) and the dispatcher's
// attempts share one W3C trace; traceparent goes out on the Meta call and on every webhook POST; the spans reach an
// OTLP/HTTP collector (here one on loopback) when OTEL_EXPORTER_OTLP_ENDPOINT is set.
describe("traces: a send and its webhooks form one trace, exported over OTLP", () => {
  let otlp: OtlpReceiver;
  let tracing: Tracing;
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let account: TestAccount;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    tracing = startTracing({
      service: "gateway-test",
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
      exportDelayMs: 50,
    });
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    ({ receiver, account, dispatcher } = await startPipeline(gateway));
  });
  afterAll(async () => {
    await stopPipeline({ dispatcher, receiver, gateway });
    await tracing.shutdown();
    await otlp.close();
  });

  const statusWebhooks = (messageId: string) =>
    receiver.received.filter(
      (r): r is typeof r & { event: MessageStatusEvent } =>
        r.event.event === "message.status" && r.event.data.message_id === messageId,
    );

  /** Sends a text to `from` (who writes first, opening the window) and waits for its sent, delivered, read webhooks. */
  async function sendAndAwaitStatuses(from: string, headers: Record<string, string>) {
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from, type: "text", text: "oi" });
    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set(headers)
      .send({ to: from, text: "Seu pedido saiu para entrega." });
    expect(sent.status).toBe(200);
    const messageId = sent.body.data.message_id as string;
    await eventually(() => statusWebhooks(messageId).length >= 3, { timeoutMs: 15_000 });
    const webhooks = statusWebhooks(messageId);
    expect(webhooks.map((w) => w.event.data.status)).toEqual(["sent", "delivered", "read"]);
    const traceparents = webhooks.map((w) => parseTraceparent(String(w.headers.traceparent)));
    return { messageId, webhooks, traceparents };
  }

  /** The exported spans of one trace, once the send's request, its Meta call and `attempts` attempts are in. */
  async function exportedTrace(traceId: string, attempts: number): Promise<ExportedSpan[]> {
    return eventually(
      () => {
        const spans = otlp.spans.filter((s) => s.traceId === traceId);
        const posts = spans.filter((s) => s.name === "POST webhook");
        const request = spans.some((s) => s.name === "POST /public/v1/messages");
        const meta = spans.some((s) => s.name === "POST graph messages");
        return request && meta && posts.length >= attempts ? spans : undefined;
      },
      { timeoutMs: 15_000, what: "the trace's spans to be exported" },
    );
  }

  it("continues the caller's trace: request, Meta call and the three webhook attempts share its trace id", async () => {
    const callerTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpanId = "00f067aa0ba902b7";
    const { messageId, webhooks, traceparents } = await sendAndAwaitStatuses("5511922230001", {
      traceparent: `00-${callerTraceId}-${callerSpanId}-01`,
    });

    // Every webhook POST carried a traceparent of the caller's trace, each attempt its own span.
    expect(traceparents.map((t) => t?.traceId)).toEqual([callerTraceId, callerTraceId, callerTraceId]);
    expect(new Set(traceparents.map((t) => t?.spanId)).size).toBe(3);

    const spans = await exportedTrace(callerTraceId, 3);
    const server = spans.find((s) => s.name === "POST /public/v1/messages");
    expect(server).toMatchObject({
      kind: SERVER,
      parentSpanId: callerSpanId,
      service: "gateway-test",
      attributes: expect.objectContaining({ "http.route": "/public/v1/messages", "http.response.status_code": 200 }),
    });
    const meta = spans.find((s) => s.name === "POST graph messages");
    expect(meta).toMatchObject({ kind: CLIENT, parentSpanId: server?.spanId });
    // The attempts are children of the send's request (through the message and the delivery row), and the span each
    // POST named in its traceparent is the exported attempt of that delivery.
    const attempts = spans.filter((s) => s.name === "POST webhook");
    for (const [index, webhook] of webhooks.entries()) {
      const attempt = attempts.find((s) => s.spanId === traceparents[index]?.spanId);
      expect(attempt).toMatchObject({
        kind: CLIENT,
        parentSpanId: server?.spanId,
        attributes: expect.objectContaining({
          "gw.delivery_id": webhook.meta.deliveryId,
          "gw.event": "message.status",
          "http.response.status_code": 200,
        }),
      });
    }
    // The context the attempts joined is kept on the message and on each delivery row (for retries and the sweep).
    const stored = await gateway.db.message.findUnique({ where: { wamid: messageId } });
    expect(parseTraceparent(stored?.traceContext)?.spanId).toBe(server?.spanId);
    const rows = await gateway.db.delivery.findMany({
      where: { id: { in: webhooks.map((w) => BigInt(w.meta.deliveryId)) } },
    });
    expect(rows.map((row) => parseTraceparent(row.traceContext)?.spanId)).toEqual([
      server?.spanId,
      server?.spanId,
      server?.spanId,
    ]);
    // Nothing of the message's text or the signing secret is in any span.
    const exported = JSON.stringify(spans);
    expect(exported).not.toContain("Seu pedido");
    expect(exported).not.toContain(account.signingSecret ?? "no secret");
    expect(otlp.refused).toBe(0);
  });

  it("starts a trace for a request without traceparent, and its three webhooks join it", async () => {
    const { traceparents } = await sendAndAwaitStatuses("5511922230002", {});
    const traceId = traceparents[0]?.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceparents.map((t) => t?.traceId)).toEqual([traceId, traceId, traceId]);

    const spans = await exportedTrace(traceId ?? "", 3);
    const server = spans.find((s) => s.name === "POST /public/v1/messages");
    expect(server?.parentSpanId).toBe("");
    expect(spans.filter((s) => s.name === "POST webhook").map((s) => s.parentSpanId)).toEqual([
      server?.spanId,
      server?.spanId,
      server?.spanId,
    ]);
  });
});
