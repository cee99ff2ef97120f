// Meta's webhook is public: a request without a well-formed X-Hub-Signature-256 is refused before a byte of its
// body is read, so unauthenticated traffic costs no buffering and no parsing.
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

/**
 * Announces a 10 MB body, sends none of it, and waits for the answer: a server that reads the body first never
 * answers (the request then fails after 5 s).
 */
function postWithoutBody(headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error("no answer while the body was withheld")), 5_000).unref();
    const req = httpRequest(`${gateway.apiUrl}/provider/meta/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(10 * 1024 * 1024), ...headers },
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
      req.destroy();
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}

describe("the provider webhook refuses unauthenticated requests before reading their body", () => {
  it.each([
    ["no signature header", {}],
    ["a malformed signature header", { "x-hub-signature-256": "sha256=nao-hex" }],
  ])("%s: 401 without waiting for the announced 10 MB", async (_name, headers) => {
    expect(await postWithoutBody(headers)).toEqual({ status: 401 });
  });

  it("a well-formed header passes on to the body limit: 413 for an oversized body", async () => {
    const res = await fetch(`${gateway.apiUrl}/provider/meta/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: "x".repeat(4 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
  });
});
