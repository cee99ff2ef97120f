import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import request from "supertest";
import { APP_SECRET, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Group commit through HTTP (issue 19): Meta's status webhooks that reach the API together are applied in shared
// transactions (META_WEBHOOK_BATCH_*), and every request is still answered 200 for its own payload, after commit.

const metaSignature = (body: string) => `sha256=${createHmac("sha256", APP_SECRET).update(body).digest("hex")}`;

describe("status webhooks that arrive together", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({
      // One batch at a time: the webhooks that arrive while it runs must leave together as the next.
      env: { API_RATE_LIMIT_POINTS: "10000", META_WEBHOOK_BATCH_MAX_IN_FLIGHT: "1" },
      sandbox: { autoStatuses: false },
    });
    account = await createTestAccount(gateway.db, {
      integrationUrl: "http://127.0.0.1:9/nunca-chamado",
      events: ["message.status"],
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("are applied in shared transactions, each request answered with its own payload's counts", async () => {
    const sent: { id: string; phoneNumberId: string }[] = [];
    for (let n = 0; n < 24; n++) {
      const res = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to: `5511955${String(n).padStart(6, "0")}`, template: "hello_world", language: "en_US" });
      expect(res.status).toBe(200);
      sent.push({ id: res.body.data.message_id as string, phoneNumberId: res.body.data.phone_number_id as string });
    }
    const bodies = sent.map(({ id, phoneNumberId }, n) =>
      JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "waba",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { phone_number_id: phoneNumberId },
                  // Every third payload carries two statuses of its message.
                  statuses: [
                    { id, status: "delivered", timestamp: "1767225600" },
                    ...(n % 3 === 0 ? [{ id, status: "read", timestamp: "1767225601" }] : []),
                  ],
                },
              },
            ],
          },
        ],
      }),
    );
    const before = await gateway.deps.metrics.providerWebhookBatch.get();
    const batchesBefore = before.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;

    const answers = await Promise.all(
      bodies.map(async (body) => {
        const res = await fetch(`${gateway.apiUrl}/provider/meta/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body) },
          body,
        });
        return { status: res.status, body: (await res.json()) as { statuses: number; deliveries: number } };
      }),
    );

    expect(answers.map((a) => [a.status, a.body.statuses, a.body.deliveries])).toEqual(
      bodies.map((_, n) => (n % 3 === 0 ? [200, 2, 2] : [200, 1, 1])),
    );
    for (const [n, { id }] of sent.entries())
      expect((await gateway.db.message.findUniqueOrThrow({ where: { wamid: id } })).status).toBe(
        n % 3 === 0 ? "read" : "delivered",
      );
    const after = await gateway.deps.metrics.providerWebhookBatch.get();
    const batches = (after.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0) - batchesBefore;
    // 24 concurrent requests, one batch at a time: fewer batches than requests.
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThan(bodies.length);
  });
});
