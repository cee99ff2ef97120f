import { describe, expect, it } from "@jest/globals";
import { startTracing, tracesEndpoint } from "../src/exporter.ts";
import { currentTraceparent, parseTraceparent, startIncomingSpan, startSpan, withSpan } from "../src/index.ts";

const CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("trace context without an OTLP endpoint (nothing exported, traceparent propagated)", () => {
  it("starts no exporter when OTEL_EXPORTER_OTLP_ENDPOINT is unset or empty", async () => {
    for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: "" }, { OTEL_EXPORTER_OTLP_ENDPOINT: "  " }]) {
      const tracing = startTracing({ service: "gateway-test", env });
      expect(tracing.exporting).toBe(false);
      await tracing.shutdown();
    }
  });

  it("continues the caller's trace and sampled flag with a new span id per hop, current only inside the span", async () => {
    expect(currentTraceparent()).toBeNull();
    const seen = await withSpan("server", { kind: "server", parent: parseTraceparent(CALLER) }, async (server) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const inner = startSpan("client", { kind: "client" });
      return { server: server.traceparent, current: currentTraceparent(), inner: inner.context };
    });
    const server = parseTraceparent(seen.server);
    expect(server).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: expect.any(String), sampled: true });
    expect(server?.spanId).not.toBe("00f067aa0ba902b7");
    expect(seen.current).toBe(seen.server);
    expect(seen.inner.traceId).toBe(server?.traceId);
    expect(seen.inner.spanId).not.toBe(server?.spanId);
    expect(currentTraceparent()).toBeNull();
  });

  it("starts a new, unsampled trace when the caller sent none or one that is not W3C's", () => {
    const invalid = [
      undefined,
      "",
      "garbage",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      `${CALLER}-extra`,
    ];
    for (const value of invalid) expect([value, parseTraceparent(value)]).toEqual([value, null]);
    const a = startSpan("a", { parent: null });
    const b = startSpan("b", { parent: null });
    expect(a.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(a.context.traceId).not.toBe(b.context.traceId);
    // A later version is read by its first four fields (W3C forward compatibility).
    expect(parseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more")?.spanId).toBe(
      "00f067aa0ba902b7",
    );
  });

  it("makes a request's span a new, unsampled trace unless it continues its caller before its first use", () => {
    const caller = parseTraceparent(CALLER);
    const untrusted = startIncomingSpan("GET", { caller });
    expect(untrusted.context.traceId).not.toBe(caller?.traceId);
    expect(untrusted.traceparent).toMatch(/-00$/);

    const trusted = startIncomingSpan("GET", { caller });
    trusted.continueCaller();
    expect(trusted.context.traceId).toBe(caller?.traceId);
    expect(trusted.context.spanId).not.toBe(caller?.spanId);
    expect(trusted.traceparent).toMatch(/-01$/);

    // Once used (a child span, a log line), its trace is settled: authentication afterwards changes nothing.
    const used = startIncomingSpan("GET", { caller });
    const before = used.context;
    used.continueCaller();
    expect(used.context).toEqual(before);
    expect(used.context.traceId).not.toBe(caller?.traceId);
  });

  it("sends spans to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces, or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given", () => {
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toBe(
      "http://collector:4318/v1/traces",
    );
    expect(
      tracesEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:4318/custom",
      }),
    ).toBe("http://traces:4318/custom");
    expect(tracesEndpoint({})).toBeNull();
  });
});
