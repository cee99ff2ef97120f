import { describe, expect, it } from "@jest/globals";
import { spawnApp } from "@gw/test-stack";
import { eventually, freePort, startOtlpReceiver, testEnv } from "@gw/testkit";

// Issue 29, item 5: the API pod, as its image runs it (dist/api/main.mjs through @gw/process), exports its spans to
// OTEL_EXPORTER_OTLP_ENDPOINT under its own service.name, and exports what it still buffers when it stops. Since
// issue 35 (item 11) an unauthenticated request such as /readyz starts its own trace, the caller's kept as a link.
describe("the API process exports its spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  it("exports a request's server span as gateway-api, linked to the caller's trace, by SIGTERM at the latest", async () => {
    const otlp = await startOtlpReceiver();
    const env = testEnv();
    const apiPort = await freePort();
    const api = spawnApp("api", {
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      META_BASE_URL: "http://127.0.0.1:9",
      META_ACCESS_TOKEN: "test-access-token",
      META_APP_SECRET: "test-app-secret",
      META_VERIFY_TOKEN: "test-verify-token",
      API_PORT: String(apiPort),
      API_INTERNAL_PORT: String(await freePort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    });
    try {
      await eventually(
        () =>
          fetch(`http://127.0.0.1:${apiPort}/readyz`, {
            headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
          }).then(
            (r) => r.status === 200,
            () => false,
          ),
        { timeoutMs: 20_000, intervalMs: 100, what: "the API to be ready" },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${api.output()}`);
      });
    } finally {
      api.child.kill("SIGTERM");
    }
    expect(await api.exited).toEqual({ code: 0, signal: null });
    const span = otlp.spans.find(
      (s) => s.name === "GET /readyz" && s.links.some((link) => link.traceId === "4bf92f3577b34da6a3ce929d0e0e4736"),
    );
    expect(span).toMatchObject({
      service: "gateway-api",
      kind: 2,
      parentSpanId: "",
      links: [{ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" }],
      attributes: expect.objectContaining({ "http.route": "/readyz", "http.response.status_code": 200 }),
    });
    await otlp.close();
  }, 40_000);
});
