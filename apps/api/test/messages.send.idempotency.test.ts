import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { ApiError } from "@gw/errors";
import { eventually, testActor } from "@gw/testkit";
import { setNumberMessagingRate } from "@gw/core/throughput";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

const template = { template: "hello_world", language: "en_US" };

describe("Idempotency-Key on POST /public/v1/messages", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const sendWithKey = (key: string, body: Record<string, unknown>) =>
    request(gateway.app).post("/public/v1/messages").set(account.auth).set("Idempotency-Key", key).send(body);
  const messagesTo = async (to: string) => (await sandboxControl.sent(gateway)).filter((m) => m.body.to === to);

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000", DATABASE_POOL_SIZE: "10" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("50 concurrent sends with one key reach the provider once; every other answer is a replay or 409", async () => {
    const to = "5511911110001";
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => sendWithKey("concurrent-1", { to, ...template })),
    );
    expect(await messagesTo(to)).toHaveLength(1);
    const ok = answers.filter((a) => a.status === 200);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(ok.length + inFlight.length).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of inFlight) expect(a.body.error.code).toBe("idempotency_in_flight");
    // All 200s carry the same message id: the first answer, replayed.
    expect(new Set(ok.map((a) => a.body.data.message_id)).size).toBe(1);
  });

  it("a repeat after completion returns the original status and body byte for byte, without a provider call", async () => {
    const to = "5511911110002";
    const first = await sendWithKey("replay-1", { to, ...template, client_ref: "pedido-9" });
    expect(first.status).toBe(200);
    const before = (await sandboxControl.requests(gateway)).length;
    // Same content in another spelling of the number and another field order: same normalized request.
    const again = await sendWithKey("replay-1", { client_ref: "pedido-9", ...template, to: "+55 (11) 91111-0002" });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect((await sandboxControl.requests(gateway)).length).toBe(before);
    expect(await messagesTo(to)).toHaveLength(1);
  });

  it("the same key with different content is idempotency_conflict", async () => {
    await sendWithKey("conflict-1", { to: "5511911110003", ...template });
    const other = await sendWithKey("conflict-1", { to: "5511911110004", ...template });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
  });

  it("a record created before fingerprints existed is idempotency_legacy_unverified", async () => {
    await gateway.db.idempotencyKey.create({
      data: {
        accountId: account.accountId,
        key: "legacy-1",
        fingerprint: null,
        state: "completed",
        responseStatus: 200,
        responseBody: "{}",
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const res = await sendWithKey("legacy-1", { to: "5511911110005", ...template });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("idempotency_legacy_unverified");
  });

  it("a confirmed refusal (our pre-check or a Meta error) releases the key; a schema failure never reserves it", async () => {
    const to = "5511911110006";
    const closed = await sendWithKey("release-1", { to, text: "oi" });
    expect(closed.body.error.code).toBe("outside_24h_window");
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: to, type: "text", text: "olá" });
    const open = await sendWithKey("release-1", { to, text: "oi" });
    expect(open.status).toBe(200);

    const invalid = await sendWithKey("schema-1", { to: "x".repeat(40), text: "oi" });
    expect(invalid.status).toBe(422);
    expect(await gateway.db.idempotencyKey.count({ where: { accountId: account.accountId, key: "schema-1" } })).toBe(0);
  });

  it("a provider time-out keeps the key: 503 send_unconfirmed, and a retry with the key never reaches the provider", async () => {
    const to = "5511911110007";
    await sandboxControl.fault(gateway, { mode: "timeout", count: 1, route: "messages", delay_ms: 5000 });
    const first = await sendWithKey("timeout-1", { to, ...template });
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe("send_unconfirmed");
    const posts = (await sandboxControl.requests(gateway)).filter((r) => r.method === "POST").length;

    const retry = await sendWithKey("timeout-1", { to, ...template });
    expect(retry.status).toBe(503);
    expect(retry.text).toBe(first.text);
    expect((await sandboxControl.requests(gateway)).filter((r) => r.method === "POST").length).toBe(posts);
  });

  it("a repeat while the first call waits for the provider is 409 idempotency_in_flight with Retry-After within the pod's lease, body unchanged", async () => {
    const to = "5511911110010";
    const postsToMessages = async () =>
      (await sandboxControl.requests(gateway)).filter((r) => r.method === "POST" && r.path.endsWith("/messages"))
        .length;
    const before = await postsToMessages();
    // Meta answers the first send 1.5 s late.
    await sandboxControl.fault(gateway, { mode: "slow", count: 1, route: "messages", delay_ms: 1500 });
    const first = sendWithKey("retry-after-1", { to, ...template }).then((res) => res);
    await eventually(async () => (await postsToMessages()) > before);

    const repeat = await sendWithKey("retry-after-1", { to, ...template });
    expect(repeat.status).toBe(409);
    // The envelope is byte for byte what it was before the header existed.
    expect(repeat.text).toBe(JSON.stringify(new ApiError("idempotency_in_flight").toBody()));
    expect(repeat.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    // No later than the pod's lease would run out (were it dead): far sooner than the stale bound (62 s here).
    expect(Number(repeat.headers["retry-after"])).toBeLessThanOrEqual(gateway.config.PROCESS_LEASE_TTL_MS / 1000);

    expect((await first).status).toBe(200);
    expect(await messagesTo(to)).toHaveLength(1);
  });

  it("a connection reset and a provider 5xx are unconfirmed too", async () => {
    for (const [mode, key] of [
      ["reset", "reset-1"],
      ["500", "five-1"],
    ] as const) {
      await sandboxControl.fault(gateway, { mode, count: 1, route: "messages" });
      const res = await sendWithKey(key, { to: "5511911110008", ...template });
      expect({ mode, code: res.body.error?.code }).toEqual({ mode, code: "send_unconfirmed" });
    }
  });

  describe("a settled key answers before any refusal (the key is reserved last, right before the provider)", () => {
    it("a repeat is replayed after the window closed, while a new key is refused and reserves nothing", async () => {
      const to = "5511911110020";
      await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: to, type: "text", text: "oi" });
      const first = await sendWithKey("window-1", { to, text: "Seu pedido saiu." });
      expect(first.status).toBe(200);
      await gateway.db.contactWindow.updateMany({
        where: { contact: to },
        data: { expiresAt: new Date(Date.now() - 1_000) },
      });

      const again = await sendWithKey("window-1", { to, text: "Seu pedido saiu." });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      const other = await sendWithKey("window-2", { to, text: "Seu pedido saiu." });
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe("outside_24h_window");
      expect(await gateway.db.idempotencyKey.count({ where: { accountId: account.accountId, key: "window-2" } })).toBe(
        0,
      );
      expect(await messagesTo(to)).toHaveLength(1);
    });

    it("a repeat is replayed while its number is at its rate, where a new send is 429 rate_limited", async () => {
      const slow = await createTestAccount(gateway.db);
      await setNumberMessagingRate(
        { db: gateway.db },
        { actor: testActor, phoneNumberId: slow.phoneNumberId, ratePerSecond: 1 },
      );
      const send = (key: string, to: string) =>
        request(gateway.app)
          .post("/public/v1/messages")
          .set(slow.auth)
          .set("Idempotency-Key", key)
          .send({ to, ...template });
      const first = await send("rate-1", "5511911110021");
      expect(first.status).toBe(200);
      // The number's next turns taken, as a burst of other sends would: a send now would wait more than its second.
      const throughput = gateway.deps.send.throughput;
      if (!throughput) throw new Error("the API paces its sends");
      for (let i = 0; i < 4; i++)
        await throughput.take({ phoneNumberId: slow.phoneNumberId, ratePerSecond: 1, maxQueueMs: 60_000 });
      const refused = await send("rate-2", "5511911110022");
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("rate_limited");
      const again = await send("rate-1", "5511911110021");
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
    });
  });
});
