// Issue 29: `pnpm gateway integration enable`, the panel's Reativar and the API's POST /integrations/{id}/enable for
// the operator. The CLI holds no webhook queue: the resumed deliveries are due at once, for the dispatcher's sweep.
import { afterAll, describe, expect, it } from "@jest/globals";
import { PARKED_BUDGET_START } from "@gw/core/deliveries";
import { createDb } from "@gw/db";
import { createTestAccount } from "@gw/test-stack";
import { testEnv } from "@gw/testkit";
import { runCommand, UsageError } from "../src/commands.ts";

describe("integration enable", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  afterAll(() => db.$disconnect());

  it("re-enables an integration the gateway disabled; its waiting deliveries are due at once, audited as cli", async () => {
    const account = await createTestAccount(db, { integrationUrl: "http://127.0.0.1:9/cli-enable" });
    const integration = await db.integration.findFirstOrThrow({ where: { accountId: account.accountId } });
    await db.integration.update({
      where: { id: integration.id },
      data: { disabledAt: new Date(), disabledReason: "desativada: todas as tentativas falharam por 5 dias" },
    });
    const waiting = await db.delivery.create({
      data: {
        accountId: account.accountId,
        integrationId: integration.id,
        event: "message.status",
        status: "pending",
        body: "{}",
        occurredAt: new Date(),
        attemptCount: 7,
        nextAttemptAt: null,
        budgetStartedAt: new Date(PARKED_BUDGET_START),
      },
    });
    const before = new Date();

    const result = await runCommand(
      ["integration", "enable", "--account", account.accountId, "--integration", integration.id],
      { db },
    );

    expect(result).toEqual({ integration_id: integration.id, was_disabled: true, resumed: 1 });
    expect(await db.integration.findUniqueOrThrow({ where: { id: integration.id } })).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    const resumed = await db.delivery.findUniqueOrThrow({ where: { id: waiting.id } });
    expect(resumed.status).toBe("pending");
    expect(resumed.nextAttemptAt?.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(resumed.budgetStart).toBe(7);
    const audit = await db.auditEntry.findMany({
      where: { accountId: account.accountId, action: "cli.integration.enabled" },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toMatch(/^cli:/);
    expect(audit[0]!.details).toMatchObject({ resumed: 1 });

    // Again: not disabled any more, nothing changes.
    expect(
      await runCommand(["integration", "enable", "--account", account.accountId, "--integration", integration.id], {
        db,
      }),
    ).toEqual({ integration_id: integration.id, was_disabled: false, resumed: 0 });
  });

  it("an integration of another account is an operator mistake naming the options", async () => {
    const owner = await createTestAccount(db, { integrationUrl: "http://127.0.0.1:9/cli-enable-owner" });
    const stranger = await createTestAccount(db);
    const integration = await db.integration.findFirstOrThrow({ where: { accountId: owner.accountId } });
    const run = runCommand(
      ["integration", "enable", "--account", stranger.accountId, "--integration", integration.id],
      {
        db,
      },
    );
    await expect(run).rejects.toBeInstanceOf(UsageError);
    await expect(run).rejects.toThrow("Integração não encontrada nesta conta: confira --account e --integration.");
  });
});
