import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createLogger } from "@gw/logger";
import { startTracing, type Tracing } from "@gw/tracing/exporter";
import { eventually, startOtlpReceiver, type ExportedSpan, type OtlpReceiver } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Issue 35, item 11: an incoming `traceparent` is a parent only for a request that authenticated (an integrator
// continuing its own trace). Every other request (health, Meta's webhook, a refused key) starts a trace of its own,
// recorded by the gateway's sampler whatever the caller's flag says, and keeps the caller's context as a link. The
// log lines of a request carry its server span's ids.

const SERVER = 2;
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const callerTraceparent = (flags: "00" | "01") => `00-${CALLER_TRACE}-${CALLER_SPAN}-${flags}`;

let otlp: OtlpReceiver;
let tracing: Tracing;
let gateway: TestGateway;
let account: TestAccount;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  tracing = startTracing({
    service: "gateway-test",
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    exportDelayMs: 50,
  });
  // A real @gw/logger, muted, keeping every entry as written.
  const logger = createLogger({ service: "api-test", level: "debug" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  logger.on("data", (info: Record<string, unknown>) => logLines.push(info));
  gateway = await startTestGateway({ logger });
  account = await createTestAccount(gateway.db);
});

afterAll(async () => {
  await gateway.close();
  await tracing.shutdown();
  await otlp.close();
});

let requests = 0;
/** A request id of its own, by which the request's server span is found among the exported ones. */
const requestId = (what: string) => `traces-trust-${what}-${++requests}`;

function serverSpanOf(id: string): Promise<ExportedSpan> {
  return eventually(() => otlp.spans.find((s) => s.kind === SERVER && s.attributes["gw.request_id"] === id), {
    timeoutMs: 10_000,
    what: `the server span of request ${id} to be exported`,
  });
}

describe("an incoming traceparent is trusted as a parent only on an authenticated request", () => {
  it("starts a new trace linked to the caller's for unauthenticated requests, recorded whatever the caller's flag", async () => {
    const unauthenticated = [
      { what: "health-sampled", send: (id: string) => request(gateway.app).get("/healthz").set(headers(id, "01")) },
      { what: "health-unsampled", send: (id: string) => request(gateway.app).get("/healthz").set(headers(id, "00")) },
      {
        what: "meta-webhook",
        send: (id: string) =>
          request(gateway.app)
            .post("/provider/meta/webhook")
            .set(headers(id, "01"))
            .set("x-hub-signature-256", `sha256=${"0".repeat(64)}`)
            .set("content-type", "application/json")
            .send("{}"),
      },
      {
        what: "refused-key",
        send: (id: string) =>
          request(gateway.app)
            .get("/public/v1/deliveries")
            .set(headers(id, "01"))
            .set("authorization", "Bearer pt_live_chave-que-nao-existe"),
      },
    ];
    for (const { what, send } of unauthenticated) {
      const id = requestId(what);
      const answered = await send(id);
      expect([what, answered.status]).toEqual([what, what.startsWith("health") ? 200 : 401]);
      const span = await serverSpanOf(id);
      expect([what, span.traceId === CALLER_TRACE, span.parentSpanId]).toEqual([what, false, ""]);
      expect([what, span.links]).toEqual([what, [{ traceId: CALLER_TRACE, spanId: CALLER_SPAN }]]);
    }

    // The same caller's context on an authenticated request: the server span is its child, in its trace.
    const id = requestId("authenticated");
    const answered = await request(gateway.app).get("/public/v1/deliveries").set(account.auth).set(headers(id, "01"));
    expect(answered.status).toBe(200);
    const span = await serverSpanOf(id);
    expect(span).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, links: [] });
  });

  it("writes the request's trace_id and span_id on the log lines written while it is answered", async () => {
    const authenticated = requestId("log-authenticated");
    await request(gateway.app).get("/public/v1/deliveries").set(account.auth).set(headers(authenticated, "01"));
    const webhook = requestId("log-webhook");
    await request(gateway.app)
      .post("/provider/meta/webhook")
      .set(headers(webhook, "01"))
      .set("x-hub-signature-256", `sha256=${"0".repeat(64)}`)
      .set("content-type", "application/json")
      .send("{}");

    for (const id of [authenticated, webhook]) {
      const span = await serverSpanOf(id);
      const lines = logLines.filter((line) => line.requestId === id);
      // The request's own line, and for the webhook the route's warning about the signature, among any others.
      const messages = lines.map((line) => line.message);
      expect(messages).toContain("request");
      if (id === webhook) expect(messages).toContain("provider webhook with an invalid signature");
      for (const line of lines) expect([line.trace_id, line.span_id]).toEqual([span.traceId, span.spanId]);
    }
    // A line written outside any request carries no trace.
    gateway.deps.logger.info("outside any request");
    expect(logLines.at(-1)).toMatchObject({ message: "outside any request" });
    expect(logLines.at(-1)).not.toHaveProperty("trace_id");
  });
});

function headers(id: string, flags: "00" | "01"): Record<string, string> {
  return { "x-request-id": id, traceparent: callerTraceparent(flags) };
}
