import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { enqueueDeliveryAttempt } from "@gw/jobs";
import {
  createDelivery,
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  type Receiver,
} from "@gw/testkit";
import { openBed, requestsOf, type DispatcherBed } from "./support.ts";

// Issue 35, item 11: `.env.example` says that with OTEL_EXPORTER_OTLP_ENDPOINT empty the trace context is still
// propagated. A dispatcher without an endpoint (this one: nothing in this process started an exporter) sends a valid
// W3C `traceparent` on every webhook POST: the delivery's stored trace with a span id of its own per attempt, or a
// new trace when the row has none.

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;
const SEND_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SEND_SPAN = "00f067aa0ba902b7";

let bed: DispatcherBed;
let receiver: Receiver;

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
  await bed.startDispatcher();
});

afterAll(async () => {
  await bed.close(receiver);
});

/** The parts of each `traceparent` one delivery's POSTs carried, in order (the header must be there and valid). */
function traceparentsOf(deliveryId: bigint): { traceId: string; spanId: string; flags: string }[] {
  return requestsOf(receiver, deliveryId).map((request) => {
    const match = TRACEPARENT.exec(String(request.headers.traceparent));
    expect([request.headers.traceparent, match !== null]).toEqual([expect.any(String), true]);
    return { traceId: match?.[1] ?? "", spanId: match?.[2] ?? "", flags: match?.[3] ?? "" };
  });
}

describe("traceparent on webhook POSTs without an OTLP endpoint", () => {
  it("carries the delivery's trace with a new span id on every attempt, or a new trace when the row has none", async () => {
    const fixture = await createFixture(bed.db, receiver.url);
    const traced = await createDelivery(bed.db, fixture);
    await bed.db.delivery.update({
      where: { id: traced.id },
      data: { traceContext: `00-${SEND_TRACE}-${SEND_SPAN}-01` },
    });
    const untraced = await createDelivery(bed.db, fixture);
    // The traced delivery's first attempt is refused, so that its retry shows a second span of the same trace.
    let refused = false;
    receiver.setHandler((request, res) => {
      const first = request.headers["x-pt-delivery-id"] === traced.id.toString() && !refused;
      refused ||= first;
      reply(res, first ? 500 : 200, "ok");
    });

    await enqueueDeliveryAttempt(bed.queue, traced.id, 1);
    await enqueueDeliveryAttempt(bed.queue, untraced.id, 1);
    await eventually(
      () => requestsOf(receiver, traced.id).length === 2 && requestsOf(receiver, untraced.id).length === 1,
      { what: "two POSTs of the traced delivery and one of the other" },
    );

    const attempts = traceparentsOf(traced.id);
    expect(attempts.map((a) => [a.traceId, a.flags])).toEqual([
      [SEND_TRACE, "01"],
      [SEND_TRACE, "01"],
    ]);
    expect(new Set([SEND_SPAN, ...attempts.map((a) => a.spanId)]).size).toBe(3);
    const [fresh] = traceparentsOf(untraced.id);
    expect(fresh?.traceId).not.toBe(SEND_TRACE);
    expect(fresh?.traceId).not.toBe("0".repeat(32));
    // Nothing recorded this new trace: it is not marked sampled.
    expect(fresh?.flags).toBe("00");
  });
});
