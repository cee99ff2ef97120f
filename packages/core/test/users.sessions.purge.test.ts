import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { createAccount } from "../src/accounts/index.ts";
import { purgeExpiredPanelSessions } from "../src/retention/index.ts";
import { createPanelSession, createPanelUser, loadPanelSession } from "../src/users/index.ts";
import { createDb, type Db } from "@gw/db";
import { testEnv, testActor } from "@gw/testkit";

describe("expired panel sessions purge", () => {
  let db: Db;
  beforeAll(() => {
    db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  it("removes sessions past their expiry in bounded batches and leaves live ones", async () => {
    const account = await createAccount({ db }, { actor: testActor, name: "sessões" });
    const user = await createPanelUser(
      { db },
      {
        accountId: account.id,
        email: `s-${randomBytes(3).toString("hex")}@exemplo.com.br`,
        name: "S",
        role: "viewer",
        password: "senha-de-teste-123",
        actor: testActor,
      },
    );
    const live = await createPanelSession({ db }, { userId: user.id, ttlMs: 3_600_000, maxAgeMs: 3_600_000 });
    const expired = await Promise.all(
      [1, 2, 3].map(() => createPanelSession({ db }, { userId: user.id, ttlMs: 3_600_000, maxAgeMs: 3_600_000 })),
    );
    await db.panelSession.updateMany({
      where: { userId: user.id, NOT: { csrfToken: live.csrfToken } },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });

    expect(await purgeExpiredPanelSessions({ db }, { batchSize: 2 })).toBeGreaterThanOrEqual(expired.length);

    expect(await db.panelSession.count({ where: { userId: user.id } })).toBe(1);
    expect(await loadPanelSession({ db }, { token: live.token, ttlMs: 3_600_000, maxAgeMs: 3_600_000 })).toMatchObject({
      userId: user.id,
    });
  });
});
