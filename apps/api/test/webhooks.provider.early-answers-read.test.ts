// Meta's webhook answers some requests before reading their body (no signature header: 401; a declared length over
// the limit: 413). The sender must still read that answer: a socket closed with the body unread sends a reset, and a
// client that gets it while writing sees EPIPE or ECONNRESET, sometimes instead of the status. So the body is read
// and thrown away before the connection closes.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startTestGateway, type TestGateway } from "@gw/test-stack";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway.close();
});

interface Outcome {
  status: number;
  body: string;
  /** Every error the client saw on the connection, while writing the body or reading the answer. */
  errors: string[];
}

/**
 * POSTs `body` over a connection of its own (the client asks to close it after the answer, as a sender without
 * keep-alive does) and reads the answer; settles once the connection is closed, with every error seen until then.
 */
function post(headers: Record<string, string>, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { status: 0, body: "", errors: [] };
    const req = httpRequest(`${gateway.apiUrl}/provider/meta/webhook`, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(body.length), ...headers },
    });
    req.on("response", (res) => {
      outcome.status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (outcome.body += chunk));
      res.on("error", (error: NodeJS.ErrnoException) =>
        outcome.errors.push(`response: ${error.code ?? error.message}`),
      );
    });
    req.on("error", (error: NodeJS.ErrnoException) => outcome.errors.push(`request: ${error.code ?? error.message}`));
    req.on("close", () => resolve(outcome));
    req.end(body);
  });
}

/** `times` requests, `together` at a time. */
async function repeat(times: number, together: number, send: () => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let done = 0; done < times; done += together)
    outcomes.push(...(await Promise.all(Array.from({ length: Math.min(together, times - done) }, send))));
  return outcomes;
}

const FOUR_MB = Buffer.alloc(4 * 1024 * 1024, "x");

describe("an answer given before the body is read reaches the sender", () => {
  it("an unsigned 4 MB body, 50 times over fresh connections: every sender reads its 401, none a reset", async () => {
    const outcomes = await repeat(50, 10, () => post({}, FOUR_MB));
    expect(outcomes).toEqual(
      Array.from({ length: 50 }, () => ({ status: 401, body: '{"error":"invalid signature"}', errors: [] })),
    );
  });

  it("a 4 MB body over the 3 MiB limit, 50 times: every sender reads its 413, none a reset", async () => {
    expect(gateway.config.META_WEBHOOK_BODY_LIMIT_BYTES).toBeLessThan(FOUR_MB.length);
    const signed = { "x-hub-signature-256": `sha256=${"0".repeat(64)}` };
    const outcomes = await repeat(50, 10, () => post(signed, FOUR_MB));
    expect(outcomes).toEqual(
      Array.from({ length: 50 }, () => ({ status: 413, body: '{"error":"body too large"}', errors: [] })),
    );
  });

  it("a declared length over the limit is answered 413 at once, without waiting for the body", async () => {
    // The body is announced and withheld: a server that reads it first (body-parser's 413 does) never answers.
    const status = await new Promise<number>((resolve, reject) => {
      setTimeout(() => reject(new Error("no answer while the body was withheld")), 5_000).unref();
      const req = httpRequest(`${gateway.apiUrl}/provider/meta/webhook`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": String(10 * 1024 * 1024),
          "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
        },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  });
});
