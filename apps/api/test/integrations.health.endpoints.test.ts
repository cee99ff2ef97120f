// Issue 21, item 3: GET /integrations/{id}/health and POST /integrations/{id}/enable. The attempts are written as
// the dispatcher records them (its own test, apps/dispatcher/test/dispatcher.endpoint-health.test.ts, makes them
// for real); here: the answer's shape and figures, validation, tenant isolation, the re-enable and its audit.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { IntegrationEnableOut, IntegrationHealthOut } from "@gw/contracts";
import { PARKED_BUDGET_START } from "@gw/core/deliveries";
import { deliverWebhookJob, createWebhookQueue, type WebhookQueue } from "@gw/jobs";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

const UNKNOWN = "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5";

describe("integration health API", () => {
  let gateway: TestGateway;
  let queue: WebhookQueue;
  let owner: TestAccount;
  let stranger: TestAccount;
  let integrationId: string;
  let strangerIntegrationId: string;

  const api = () => request(gateway.app);
  const health = (account: TestAccount, id: string) =>
    api().get(`/public/v1/integrations/${id}/health`).set(account.auth);
  const enable = (account: TestAccount, id: string) =>
    api().post(`/public/v1/integrations/${id}/enable`).set(account.auth);

  async function delivery(options: { parked?: boolean } = {}): Promise<bigint> {
    const row = await gateway.db.delivery.create({
      data: {
        accountId: owner.accountId,
        integrationId,
        event: "message.status",
        status: "pending",
        body: "{}",
        occurredAt: new Date(),
        attemptCount: 2,
        nextAttemptAt: options.parked ? null : new Date(),
        ...(options.parked ? { budgetStartedAt: new Date(PARKED_BUDGET_START) } : {}),
      },
    });
    return row.id;
  }

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    queue = createWebhookQueue(gateway.redis, gateway.redisPrefix);
    owner = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/webhooks" });
    stranger = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/outra" });
    integrationId = (await gateway.db.integration.findFirstOrThrow({ where: { accountId: owner.accountId } })).id;
    strangerIntegrationId = (
      await gateway.db.integration.findFirstOrThrow({ where: { accountId: stranger.accountId } })
    ).id;
  });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await gateway.close();
  });

  it("answers the figures of the last hour and day from the recorded attempts", async () => {
    const now = Date.now();
    const id = await delivery();
    const attempts = [
      { minutesAgo: 5, durationMs: 100, statusCode: 200, errorKind: null },
      { minutesAgo: 10, durationMs: 300, statusCode: 200, errorKind: null },
      { minutesAgo: 20, durationMs: 2_000, statusCode: 502, errorKind: "http_status", body: "Bad Gateway" },
      { minutesAgo: 180, durationMs: 10_000, statusCode: null, errorKind: "timeout" },
      // Older than a day: in no window.
      { minutesAgo: 25 * 60, durationMs: 50, statusCode: 200, errorKind: null },
    ];
    for (const [index, a] of attempts.entries()) {
      await gateway.db.deliveryAttempt.create({
        data: {
          deliveryId: id,
          number: index + 1,
          integrationId,
          startedAt: new Date(now - a.minutesAgo * 60_000),
          durationMs: a.durationMs,
          statusCode: a.statusCode,
          errorKind: a.errorKind,
          responseBody: a.body ?? null,
        },
      });
    }
    const res = await health(owner, integrationId);
    expect(res.status).toBe(200);
    expect(IntegrationHealthOut.safeParse(res.body).success).toBe(true);
    expect(res.body.data).toMatchObject({
      integration_id: integrationId,
      url: "http://127.0.0.1:9/webhooks",
      active: true,
      disabled_at: null,
      disabled_reason: null,
      waiting_deliveries: 0,
      last_hour: {
        attempts: 3,
        succeeded: 2,
        failed: 1,
        success_rate: 0.6667,
        // percentile_cont over 100, 300, 2000.
        latency_ms: { p50: 300, p95: 1830, p99: 1966 },
        last_error: {
          at: new Date(now - 20 * 60_000).toISOString(),
          status_code: 502,
          error_kind: "http_status",
          message: "O endpoint respondeu com um status fora da faixa 2xx.",
          body: "Bad Gateway",
        },
      },
      last_day: {
        attempts: 4,
        succeeded: 2,
        failed: 2,
        success_rate: 0.5,
        latency_ms: { p50: 1150 },
        last_error: { status_code: 502 },
      },
    });
  });

  it("answers 404 for another account's integration or an unknown one, and 422 for an id that is not a UUID", async () => {
    for (const res of [
      await health(stranger, integrationId),
      await health(owner, UNKNOWN),
      await enable(stranger, integrationId),
      await enable(owner, strangerIntegrationId),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: "not_found" } });
    }
    for (const res of [await health(owner, "42"), await enable(owner, "nao-e-uuid")]) {
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["path", "integration_id"] });
    }
    // The stranger's attempt changed nothing.
    expect(
      await gateway.db.auditEntry.count({
        where: { action: "api.integration.enabled", target: `integration:${integrationId}` },
      }),
    ).toBe(0);
  });

  it("re-enables a disabled integration: its waiting deliveries are queued with a fresh budget, audited with the key", async () => {
    const waiting = await delivery({ parked: true });
    const reason = "desativada: todas as tentativas falharam por 5 dias; último erro: HTTP 500";
    const disabledAt = new Date(Date.now() - 60_000);
    await gateway.db.integration.update({ where: { id: integrationId }, data: { disabledAt, disabledReason: reason } });
    const before = await health(owner, integrationId);
    expect(before.body.data).toMatchObject({
      disabled_at: disabledAt.toISOString(),
      disabled_reason: reason,
      waiting_deliveries: 1,
    });

    const res = await enable(owner, integrationId);
    expect(res.status).toBe(200);
    expect(IntegrationEnableOut.safeParse(res.body).success).toBe(true);
    expect(res.body).toEqual({
      success: true,
      data: { integration_id: integrationId, was_disabled: true, resumed: 1 },
    });
    const row = await gateway.db.delivery.findUniqueOrThrow({ where: { id: waiting } });
    expect(row).toMatchObject({ status: "pending", budgetStart: 2, attemptCount: 2 });
    expect(row.nextAttemptAt).not.toBeNull();
    expect(row.budgetStartedAt.getTime()).toBeGreaterThan(disabledAt.getTime());
    expect(row.budgetStartedAt.toISOString()).not.toBe(PARKED_BUDGET_START);
    expect(await queue.getJob(deliverWebhookJob.jobId(waiting, 3))).toBeDefined();
    const audit = await gateway.db.auditEntry.findMany({ where: { target: `integration:${integrationId}` } });
    expect(audit.filter((entry) => entry.action === "api.integration.enabled")).toEqual([
      expect.objectContaining({
        actor: `api_key:${owner.keyId}`,
        details: { disabled_at: disabledAt.toISOString(), disabled_reason: reason, resumed: 1 },
      }),
    ]);
    expect((await health(owner, integrationId)).body.data).toMatchObject({ disabled_at: null, disabled_reason: null });

    // Again: nothing to do, nothing audited.
    expect((await enable(owner, integrationId)).body.data).toEqual({
      integration_id: integrationId,
      was_disabled: false,
      resumed: 0,
    });
    expect(
      await gateway.db.auditEntry.count({
        where: { action: "api.integration.enabled", target: `integration:${integrationId}` },
      }),
    ).toBe(1);
  });
});
