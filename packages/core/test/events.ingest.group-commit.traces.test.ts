// Issue 35, item 11: Meta's status webhooks of several tenants committed together (group commit) never share a trace.
// Each payload is a span of its own, in the trace of the request that brought it and linked to the batch's span; the
// deliveries made from a payload keep that payload's context (or the send's, when its message kept one).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createFixture, eventually, isolatedDatabase, startOtlpReceiver, type OtlpReceiver } from "@gw/testkit";
import { parseTraceparent, runInSpan, startSpan } from "@gw/tracing";
import { startTracing, type Tracing } from "@gw/tracing/exporter";
import { createIngestBatcher } from "../src/ingest/index.ts";
import { openIngestBed, type IngestBed } from "./support/ingest-bed.ts";

const NUMBER_A = "5511400000071";
const NUMBER_B = "5511400000072";

let otlp: OtlpReceiver;
let tracing: Tracing;
let bed: IngestBed;
let tenantB: string;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  tracing = startTracing({
    service: "gateway-test",
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    exportDelayMs: 50,
  });
  bed = await openIngestBed(await isolatedDatabase(), {
    phoneNumberId: NUMBER_A,
    wabaId: "waba-traces-a",
    displayNumber: "+55 11 4000-0071",
  });
  const other = await createFixture(bed.db, "http://127.0.0.1:9/b");
  tenantB = other.accountId;
  await bed.db.businessNumber.create({
    data: { accountId: tenantB, phoneNumberId: NUMBER_B, wabaId: "waba-traces-b", displayNumber: "+55 11 4000-0072" },
  });
});

afterAll(async () => {
  await bed.close();
  await tracing.shutdown();
  await otlp.close();
});

function statusWebhook(phoneNumberId: string, wamid: string, status: string): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "waba",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { phone_number_id: phoneNumberId },
              statuses: [{ id: wamid, status, timestamp: "1767225600" }],
            },
          },
        ],
      },
    ],
  });
}

async function sentMessage(accountId: string, phoneNumberId: string, wamid: string): Promise<string> {
  await bed.db.message.create({
    data: { accountId, phoneNumberId, to: "5511987654321", wamid, kind: "text", status: "accepted" },
  });
  return wamid;
}

async function deliveryTraceOf(wamid: string) {
  const row = await bed.db.delivery.findFirstOrThrow({ where: { body: { contains: `"${wamid}"` } } });
  return parseTraceparent(row.traceContext);
}

describe("traces of status webhooks committed together", () => {
  it("gives each tenant's payload its own span in its request's trace, linked to the batch, and its deliveries that trace", async () => {
    const first = await sentMessage(bed.fixture.accountId, NUMBER_A, "wamid.traces.first");
    const ofA = await sentMessage(bed.fixture.accountId, NUMBER_A, "wamid.traces.a");
    const ofB = await sentMessage(tenantB, NUMBER_B, "wamid.traces.b");
    const batches: number[] = [];
    const batcher = createIngestBatcher(bed.deps, { maxPayloads: 50, maxInFlight: 1, onBatch: (n) => batches.push(n) });
    // Three requests (each its server span, as the API's tracing middleware makes them): the first goes alone, the
    // two that arrive while it runs (tenant A's and tenant B's) leave together.
    const [firstRequest, requestA, requestB] = ["first", "a", "b"].map(() =>
      startSpan("POST", { kind: "server", parent: null }),
    );
    const answers = await Promise.all([
      runInSpan(firstRequest!, () => batcher.ingest(statusWebhook(NUMBER_A, first, "sent"))),
      runInSpan(requestA!, () => batcher.ingest(statusWebhook(NUMBER_A, ofA, "delivered"))),
      runInSpan(requestB!, () => batcher.ingest(statusWebhook(NUMBER_B, ofB, "delivered"))),
    ]);
    expect(batches).toEqual([1, 2]);
    expect(answers.map((answer) => answer.deliveries)).toEqual([1, 1, 1]);

    // Each delivery is in the trace of the request that brought its status, never another tenant's.
    expect((await deliveryTraceOf(first))?.traceId).toBe(firstRequest?.context.traceId);
    const traceA = await deliveryTraceOf(ofA);
    const traceB = await deliveryTraceOf(ofB);
    expect(traceA?.traceId).toBe(requestA?.context.traceId);
    expect(traceB?.traceId).toBe(requestB?.context.traceId);

    // The payloads' spans: children of their requests, linked to the one batch span (a trace of its own), and the
    // spans the deliveries' attempts will be children of.
    const spans = await eventually(
      () => {
        const batch = otlp.spans.find((s) => s.name === "ingest provider webhooks");
        const payloads = otlp.spans.filter(
          (s) =>
            s.name === "ingest provider webhook" &&
            (s.traceId === requestA?.context.traceId || s.traceId === requestB?.context.traceId),
        );
        return batch && payloads.length === 2 ? { batch, payloads } : undefined;
      },
      { what: "the batch's and the payloads' spans to be exported" },
    );
    expect(spans.batch).toMatchObject({
      parentSpanId: "",
      attributes: expect.objectContaining({ "gw.batch.payloads": 2 }),
    });
    expect([requestA?.context.traceId, requestB?.context.traceId]).not.toContain(spans.batch.traceId);
    for (const [request, delivered] of [
      [requestA, traceA],
      [requestB, traceB],
    ] as const) {
      const payload = spans.payloads.find((s) => s.traceId === request?.context.traceId);
      expect(payload).toMatchObject({
        parentSpanId: request?.context.spanId,
        links: [{ traceId: spans.batch.traceId, spanId: spans.batch.spanId }],
      });
      expect(delivered?.spanId).toBe(payload?.spanId);
    }
  });
});
