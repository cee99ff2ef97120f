// Meta's webhook reads a body whole before it can check its signature, and any well-formed X-Hub-Signature-256 gets
// that far (issue 35, item 8). So the bodies read unverified are bounded per process: in number (past
// META_WEBHOOK_MAX_UNVERIFIED, 503 unread, with Retry-After: Meta delivers it again), in time
// (META_WEBHOOK_BODY_TIMEOUT_MS, then 408) and in size as they arrive (a chunked body is cut with 413 as soon as it
// passes the limit, not read to its end first). Every such answer is one the sender can read, never a reset.
import { createHmac } from "node:crypto";
import { request as httpRequest, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { APP_SECRET, startTestGateway, type TestGateway } from "@gw/test-stack";

const MAX_UNVERIFIED = 4;
const WRONG_SIGNATURE = `sha256=${"0".repeat(64)}`;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    env: { META_WEBHOOK_MAX_UNVERIFIED: String(MAX_UNVERIFIED), META_WEBHOOK_BODY_TIMEOUT_MS: "5000" },
  });
});

afterAll(async () => {
  await gateway.close();
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

interface Exchange {
  req: ClientRequest;
  /** Settles with the answer once it was read whole. */
  answer: Promise<Answer>;
  /** Settles once the connection closed, with every error seen on it until then. */
  closed: Promise<string[]>;
}

/** A chunked POST (no Content-Length) over a connection of its own, left open for the caller to write and end. */
function open(signature: string): Exchange {
  const errors: string[] = [];
  const req = httpRequest(`${gateway.apiUrl}/provider/meta/webhook`, {
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-hub-signature-256": signature },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("error", (error: NodeJS.ErrnoException) => errors.push(`response: ${error.code ?? error.message}`));
      res.once("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"], body }));
    });
    req.once("close", () => reject(new Error(`closed without a whole answer: ${errors.join(", ") || "no error"}`)));
  });
  answer.catch(() => undefined);
  req.on("error", (error: NodeJS.ErrnoException) => errors.push(`request: ${error.code ?? error.message}`));
  const closed = new Promise<string[]>((resolve) => req.once("close", () => resolve(errors)));
  return { req, answer, closed };
}

/** `promise`, or a failure naming `what` after `ms` (a server that waits for the whole body never answers). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref();
    }),
  ]);
}

const metaSignature = (body: string) => `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`;
const EMPTY_EVENT = JSON.stringify({ object: "whatsapp_business_account", entry: [] });

describe("bodies read before their signature is checked are bounded", () => {
  it("past META_WEBHOOK_MAX_UNVERIFIED bodies being read the next is 503 with Retry-After; the slow ones get 408; then Meta's next webhook is 200", async () => {
    const held = Array.from({ length: MAX_UNVERIFIED }, () => open(WRONG_SIGNATURE));
    try {
      for (const { req } of held) req.write('{"object":"whatsapp_business_');
      await eventually(() => gateway.deps.unverifiedWebhookBodies.active === MAX_UNVERIFIED, {
        what: "every held body being read",
      });

      const next = open(metaSignature(EMPTY_EVENT));
      next.req.end(EMPTY_EVENT);
      expect(await within(next.answer, 5_000, "the request past the bound")).toEqual({
        status: 503,
        retryAfter: "5",
        body: '{"error":"busy"}',
      });
      expect(await next.closed).toEqual([]);

      // The held bodies never come whole: each is answered once META_WEBHOOK_BODY_TIMEOUT_MS ran out.
      const answers = await within(Promise.all(held.map((h) => h.answer)), 15_000, "the held requests");
      expect(answers).toEqual(
        held.map(() => ({ status: 408, retryAfter: undefined, body: '{"error":"body too slow"}' })),
      );
      expect(gateway.deps.unverifiedWebhookBodies.active).toBe(0);
    } finally {
      for (const { req } of held) req.destroy();
    }

    const res = await fetch(`${gateway.apiUrl}/provider/meta/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(EMPTY_EVENT) },
      body: EMPTY_EVENT,
    });
    expect(res.status).toBe(200);
  });

  it("a chunked body over the limit with a wrong signature, 50 times: 413 as soon as it passes the limit, while the sender still holds the rest; every sender reads its whole 413, none a reset", async () => {
    const limit = gateway.config.META_WEBHOOK_BODY_LIMIT_BYTES;
    const piece = Buffer.alloc(64 * 1024, "x");
    const once = async () => {
      const exchange = open(WRONG_SIGNATURE);
      for (let sent = 0; sent <= limit; sent += piece.length) exchange.req.write(piece);
      // The rest is held back until the answer came: a server that reads a chunked body to its end first never
      // answers here.
      const answer = await within(exchange.answer, 10_000, "a chunked body over the limit");
      exchange.req.end(piece);
      return { ...answer, errors: await exchange.closed };
    };
    const outcomes = [];
    // At most MAX_UNVERIFIED at once: more would be the 503 of the test above.
    for (let done = 0; done < 50; done += MAX_UNVERIFIED)
      outcomes.push(...(await Promise.all(Array.from({ length: Math.min(MAX_UNVERIFIED, 50 - done) }, once))));
    expect(outcomes).toEqual(
      Array.from({ length: 50 }, () => ({
        status: 413,
        retryAfter: undefined,
        body: '{"error":"body too large"}',
        errors: [],
      })),
    );
  });
});
