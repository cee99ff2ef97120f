import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// JSON.parse reads lists nested tens of thousands deep, JSON.stringify overflows the stack on them. The 422 echoed
// the refused value as `input`, so writing the answer threw and Express answered an HTML 500 with the stack trace.
// Found by fuzz.endpoints.test.ts, and again (2026-12-08) with such a list as an interactive message's `type`: the
// message names the refused tag, which was written with JSON.stringify too.

const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

const ctxOf = (type: string) =>
  type === "union_tag_invalid"
    ? { ctx: { discriminator: "'type'", tag: "[…]", expected_tags: expect.any(String) } }
    : {};

describe("a value nested deeper than the serializer goes is refused as a 422, never a 500", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway();
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  const post = (path: string, body: string) =>
    request(gateway.app).post(path).set(account.auth).set("Content-Type", "application/json").send(body);

  it.each([
    ["/public/v1/validate", deep(20_000), ["body"], "model_attributes_type"],
    [
      "/public/v1/messages",
      `{"to":"5511987654321","variables":[${deep(20_000)}]}`,
      ["body", "variables", 0],
      "string_type",
    ],
    [
      "/public/v1/messages",
      `{"to":"5511987654321","text":"oi","pix_order":${deep(20_000)}}`,
      ["body", "pix_order"],
      "dict_type",
    ],
    [
      "/public/v1/messages",
      `{"to":"5511987654321","interactive":{"type":${deep(20_000)}}}`,
      ["body", "interactive", "type"],
      "union_tag_invalid",
    ],
  ])("POST %s: HTTPValidationError at its place, without the value it cannot write", async (path, body, loc, type) => {
    const res = await post(path, body);
    expect({ status: res.status, contentType: res.headers["content-type"] }).toEqual({
      status: 422,
      contentType: expect.stringMatching(/^application\/json/),
    });
    // A refused tag is named in `ctx` (as its kind when it cannot be written); the value itself is never echoed.
    expect(res.body).toEqual({ detail: [{ loc, msg: expect.any(String), type, ...ctxOf(type) }] });
  });

  it("a refused value that can be written is still echoed as `input`", async () => {
    const res = await post("/public/v1/messages", `{"to":"5511987654321","variables":[${deep(50)}]}`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ["body", "variables", 0], msg: expect.any(String), type: "string_type", input: JSON.parse(deep(50)) },
    ]);
  });
});
