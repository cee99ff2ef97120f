// `delivery retry` with Redis unreachable: the retry is committed as pending (the dispatcher's reconciler queues
// it), the CLI says so in one readable line and exits 0, instead of waiting forever on the queue.
import { afterAll, expect, it } from "@jest/globals";
import { createAccount } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testEnv, testActor } from "@gw/testkit";
import { runCli } from "./run-cli.ts";

const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
afterAll(async () => {
  await db.$disconnect();
});

it("with Redis unreachable, delivery retry leaves the delivery pending, warns once and exits 0", async () => {
  const account = await createAccount({ db }, { actor: testActor, name: "Reenvio sem Redis" });
  const integration = await db.integration.create({
    data: { accountId: account.id, url: "https://example.com/hooks", events: ["message.status"], signingSecret: "s" },
  });
  const delivery = await db.delivery.create({
    data: {
      accountId: account.id,
      integrationId: integration.id,
      event: "message.status",
      status: "failed",
      body: "{}",
      attemptCount: 7,
      occurredAt: new Date(),
    },
  });

  const { code, stdout, stderr } = await runCli(
    ["delivery", "retry", "--account", account.id, "--id", delivery.id.toString(), "--no-json"],
    { DATABASE_URL: testEnv().databaseUrl, REDIS_URL: "redis://127.0.0.1:1" },
  );

  expect(code).toBe(0);
  expect(stdout).toMatch(/^Entrega reenfileirada\.$/m);
  expect(stdout).toMatch(/^ {2}status +pending$/m);
  expect(stdout).toMatch(/^ {2}nextAttempt +8$/m);
  expect(stderr).toMatch(/^aviso: Redis inacessível \(REDIS_URL\): [^\n]+\n$/);
  const row = await db.delivery.findUniqueOrThrow({ where: { id: delivery.id } });
  expect(row.status).toBe("pending");
}, 30_000);
