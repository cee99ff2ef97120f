// Issue 35, item 1, for the operator: `pnpm gateway key create --scopes messages:send,orders:write` makes a key that
// holds only those scopes; an unknown name is refused in Portuguese before anything is created; without --scopes (or
// with all of them) the key holds every scope, as every key made before scopes.
import { afterAll, describe, expect, it } from "@jest/globals";
import { createAccountDirectory } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { runCommand, UsageError } from "../src/commands.ts";

describe("key create --scopes", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  afterAll(() => db.$disconnect());

  const account = () => db.account.create({ data: { name: "Chaves com permissões" } });

  it("creates a key with only the scopes named; the API's directory reads them", async () => {
    const { id: accountId } = await account();
    const created = (await runCommand(
      ["key", "create", "--account", accountId, "--scopes", "orders:write, messages:send"],
      { db },
    )) as { id: string; key: string; scopes: unknown };
    expect(created.scopes).toEqual(["messages:send", "orders:write"]);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: created.id } })).scopes).toEqual([
      "messages:send",
      "orders:write",
    ]);
    const directory = createAccountDirectory(db);
    expect(await directory.authenticate(created.key)).toEqual({
      keyId: created.id,
      accountId,
      scopes: ["messages:send", "orders:write"],
    });
  });

  it("refuses an unknown scope, naming it and the known ones, and creates nothing", async () => {
    const { id: accountId } = await account();
    const attempt = runCommand(["key", "create", "--account", accountId, "--scopes", "messages:send,contacts:delete"], {
      db,
    });
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(
      "Permissão desconhecida: contacts:delete (use messages:send, messages:read, orders:write, media:write, integrations:manage, usage:read)",
    );
    await expect(runCommand(["key", "create", "--account", accountId, "--scopes", " , "], { db })).rejects.toThrow(
      "Informe ao menos uma permissão em --scopes",
    );
    expect(await db.apiKey.count({ where: { accountId } })).toBe(0);
  });

  it("without --scopes, or naming every scope, the key holds every scope (stored as no list)", async () => {
    const { id: accountId } = await account();
    const plain = (await runCommand(["key", "create", "--account", accountId], { db })) as {
      id: string;
      scopes: unknown;
    };
    const all = (await runCommand(
      [
        "key",
        "create",
        "--account",
        accountId,
        "--scopes",
        "usage:read,integrations:manage,media:write,orders:write,messages:read,messages:send",
      ],
      { db },
    )) as { id: string; scopes: unknown };
    for (const created of [plain, all]) {
      expect(created.scopes).toBe("all");
      const [row] = await db.$queryRaw<
        { scopes: string[] | null }[]
      >`SELECT scopes FROM api_keys WHERE id = ${created.id}::uuid`;
      expect(row?.scopes).toBeNull();
    }
  });

  it("documents --scopes and the scopes in the command's help", async () => {
    const help = String(await runCommand(["key", "create", "--help"], { db }));
    expect(help).toContain("--scopes PERMISSÕES");
    for (const scope of [
      "messages:send",
      "messages:read",
      "orders:write",
      "media:write",
      "integrations:manage",
      "usage:read",
    ])
      expect(help).toContain(scope);
  });
});
