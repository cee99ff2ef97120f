// The audit rule (ARCHITECTURE.md): a changing service writes its entry inside its own transaction, through the one
// recordAudit, which works with Prisma and with the `pg` client alike; the entry commits with the change or not at all.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, inTransaction, type Db } from "@gw/db";
import { testActor, testEnv, testSecretBox } from "@gw/testkit";
import { PRODUCTION_INTEGRATION_POLICY, createAccount, setIntegration } from "../src/accounts/accounts.ts";
import { auditAction, recordAudit, type Actor } from "../src/audit/audit.ts";

let db: Db;
let accountId: string;
const panel: Actor = { id: "panel:ana@padaria.com.br", origin: "panel", requestId: "req-audit" };

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  accountId = (await db.account.create({ data: { name: "Regra de auditoria" } })).id;
});

afterAll(async () => {
  await db.$disconnect();
});

const entries = (action: string) => db.auditEntry.findMany({ where: { accountId, action } });

describe("recordAudit", () => {
  it("writes the actor, its request id and the action through a pg client, inside the caller's transaction", async () => {
    await inTransaction(db.sql, (client) =>
      recordAudit(client, { accountId, actor: panel, action: auditAction(panel, "teste.pg"), target: "alvo" }),
    );
    expect(await entries("panel.teste.pg")).toEqual([
      expect.objectContaining({ actor: "panel:ana@padaria.com.br", requestId: "req-audit", target: "alvo" }),
    ]);
  });

  it("rolls back with the transaction that failed after it, with Prisma and with pg", async () => {
    await expect(
      db.$transaction(async (tx) => {
        await recordAudit(tx, { accountId, actor: panel, action: "panel.teste.desfeito" });
        throw new Error("a mudança falhou depois da auditoria");
      }),
    ).rejects.toThrow("falhou");
    await expect(
      inTransaction(db.sql, async (client) => {
        await recordAudit(client, { accountId, actor: panel, action: "panel.teste.desfeito" });
        throw new Error("a mudança falhou depois da auditoria");
      }),
    ).rejects.toThrow("falhou");
    expect(await entries("panel.teste.desfeito")).toEqual([]);
  });
});

describe("a changing service", () => {
  it("audits under the door it came through, and not at all when the change is refused", async () => {
    const cli: Actor = { id: "cli:operador", origin: "cli" };
    const saved = await setIntegration(
      { db, policy: PRODUCTION_INTEGRATION_POLICY, secrets: testSecretBox() },
      { accountId, url: "https://hooks.example.com/regra", events: ["message.status"], actor: cli },
    );
    expect(await entries("cli.integration.saved")).toEqual([
      expect.objectContaining({ actor: "cli:operador", target: `integration:${saved.id}` }),
    ]);
    await expect(
      setIntegration(
        { db, policy: PRODUCTION_INTEGRATION_POLICY, secrets: testSecretBox() },
        { accountId, url: "http://hooks.example.com/regra", events: ["message.status"], actor: cli },
      ),
    ).rejects.toThrow("https");
    expect(await entries("cli.integration.saved")).toHaveLength(1);
  });

  it("creating an account audits the new account's first entry", async () => {
    const account = await createAccount({ db }, { name: "Nova conta", actor: testActor });
    expect(await db.auditEntry.findMany({ where: { accountId: account.id } })).toEqual([
      expect.objectContaining({ action: "system.account.created", actor: "test", target: `account:${account.id}` }),
    ]);
  });
});
