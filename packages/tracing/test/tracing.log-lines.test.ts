import { describe, expect, it } from "@jest/globals";
import { createLogger } from "@gw/logger";
import { startTracing } from "../src/exporter.ts";
import { parseTraceparent, withSpan } from "../src/index.ts";

const CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("trace ids in log lines", () => {
  it("writes the current span's trace_id and span_id on every line inside it, also after an await, and none outside", async () => {
    // What @gw/process does at start-up, here without an exporter (ids still exist: the propagated context).
    const tracing = startTracing({ service: "gateway-test", env: {} });
    const logger = createLogger({ service: "tracing-test", level: "debug" });
    for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
    const lines: Record<string, unknown>[] = [];
    logger.on("data", (info: Record<string, unknown>) => lines.push(info));

    logger.info("before");
    const span = await withSpan("work", { parent: parseTraceparent(CALLER) }, async (current) => {
      logger.info("inside");
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.warn("inside, later", { attempt: 2 });
      return current.context;
    });
    logger.info("after");
    await tracing.shutdown();

    const byMessage = Object.fromEntries(lines.map((line) => [line.message, line]));
    expect(span.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    for (const message of ["inside", "inside, later"])
      expect(byMessage[message]).toMatchObject({ trace_id: span.traceId, span_id: span.spanId });
    for (const message of ["before", "after"]) expect(byMessage[message]).not.toHaveProperty("trace_id");
  });
});
