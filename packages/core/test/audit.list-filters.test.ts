import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { listAudit, recordAudit } from "../src/audit/audit.ts";

let db: Db;

beforeAll(() => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
});
afterAll(async () => {
  await db.$disconnect();
});

const HOUR = 3600_000;
const CLI = { id: "cli", origin: "cli" } as const;

/** Entries with these actions, actors and ages (hours ago), oldest first as they would have been written. */
async function trail(accountId: string, entries: [action: string, actor: string, hoursAgo: number][]) {
  for (const [action, actor, hoursAgo] of entries) {
    await recordAudit(db, { accountId, actor: { id: actor, origin: "system" }, action, target: "alvo" });
    const last = await db.auditEntry.findFirstOrThrow({ where: { accountId }, orderBy: { id: "desc" } });
    await db.auditEntry.update({ where: { id: last.id }, data: { createdAt: new Date(Date.now() - hoursAgo * HOUR) } });
  }
}

describe("listAudit", () => {
  it("filters by part of the actor, by action or dotted prefix, and by time, within the account only", async () => {
    const { id: accountId } = await db.account.create({ data: { name: "Auditada" } });
    const { id: otherId } = await db.account.create({ data: { name: "Outra" } });
    await trail(accountId, [
      ["panel.login", "panel:Ana@Padaria.com.br", 50],
      ["panel.user.invited", "panel:ana@padaria.com.br", 30],
      ["panel.user.role_changed", "panel:bia@padaria.com.br", 20],
      ["panel.userx.weird", "panel:bia@padaria.com.br", 10],
      ["api.webhook.retry", "api_key:123", 5],
      ["panel.user.removed", "cli", 1],
    ]);
    await trail(otherId, [["panel.user.invited", "panel:ana@padaria.com.br", 1]]);
    const actions = async (filters: Parameters<typeof listAudit>[1]) =>
      (await listAudit({ db }, filters)).entries.map((e) => e.action);

    expect(await actions({ accountId, actor: "ANA@padaria" })).toEqual(["panel.user.invited", "panel.login"]);
    expect(await actions({ accountId, action: "panel.user" })).toEqual([
      "panel.user.removed",
      "panel.user.role_changed",
      "panel.user.invited",
    ]);
    expect(await actions({ accountId, action: "panel.user.invited" })).toEqual(["panel.user.invited"]);
    expect(await actions({ accountId, action: "panel.use" })).toEqual([]);
    expect(
      await actions({ accountId, since: new Date(Date.now() - 25 * HOUR), until: new Date(Date.now() - 2 * HOUR) }),
    ).toEqual(["api.webhook.retry", "panel.userx.weird", "panel.user.role_changed"]);
    expect(
      await actions({ accountId, actor: "panel:", action: "panel", since: new Date(Date.now() - 40 * HOUR) }),
    ).toEqual(["panel.userx.weird", "panel.user.role_changed", "panel.user.invited"]);
  });

  it("pages newest first with a before-id cursor that keeps the filters, ending with a null cursor", async () => {
    const { id: accountId } = await db.account.create({ data: { name: "Paginada" } });
    for (let i = 0; i < 5; i += 1) {
      await recordAudit(db, { accountId, actor: CLI, action: "panel.api_key.created", target: `k${i}` });
      await recordAudit(db, { accountId, actor: CLI, action: "panel.login", target: `l${i}` });
    }
    const seen: string[] = [];
    let beforeId: number | undefined;
    for (let page = 0; page < 5; page += 1) {
      const { entries, next_before_id } = await listAudit(
        { db },
        { accountId, action: "panel.api_key", limit: 2, beforeId },
      );
      seen.push(...entries.map((e) => e.target ?? ""));
      if (next_before_id === null) break;
      beforeId = next_before_id;
    }
    expect(seen).toEqual(["k4", "k3", "k2", "k1", "k0"]);
  });

  it("keeps the operator's defaults: 100 entries, limits held within 1..1000", async () => {
    const { id: accountId } = await db.account.create({ data: { name: "Limites" } });
    for (let i = 0; i < 3; i += 1) await recordAudit(db, { accountId, actor: CLI, action: "x" });
    expect((await listAudit({ db }, { accountId })).entries).toHaveLength(3);
    expect((await listAudit({ db }, { accountId, limit: 0 })).entries).toHaveLength(1);
    expect((await listAudit({ db }, { accountId, limit: Number.NaN })).entries).toHaveLength(3);
  });
});
