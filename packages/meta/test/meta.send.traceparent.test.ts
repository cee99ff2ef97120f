import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { parseTraceparent, runInSpan, startSpan } from "@gw/tracing";
import { createJsonPoster } from "../src/post.ts";

// Issue 29, item 5: the send's POST to the Graph API carries the W3C `traceparent` of a span that is a child of the
// current one (the API request's), with or without an exporter.
describe("the Meta send carries traceparent", () => {
  let server: Server;
  let url: URL;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.once("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v23.0/106540352242922/messages`);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it("sends a traceparent in the current span's trace, with a span of its own", async () => {
    const poster = createJsonPoster({ secure: false, headers: { authorization: "Bearer token" }, timeoutMs: 2_000 });
    const request = startSpan("POST /public/v1/messages", {
      kind: "server",
      parent: parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    });
    const answer = await runInSpan(request, () => poster.post(url, "{}"));
    expect(answer.status).toBe(200);
    const sent = parseTraceparent(seen.at(-1)?.traceparent as string | undefined);
    expect(sent).toEqual({ traceId: request.context.traceId, spanId: expect.any(String), sampled: true });
    expect(sent?.spanId).not.toBe(request.context.spanId);
  });

  it("starts a trace of its own for a send outside any span", async () => {
    const poster = createJsonPoster({ secure: false, headers: {}, timeoutMs: 2_000 });
    await poster.post(url, "{}");
    expect(parseTraceparent(seen.at(-1)?.traceparent as string | undefined)).toEqual({
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      sampled: false,
    });
  });
});
