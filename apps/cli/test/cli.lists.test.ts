// `account list`, `number list`, `key list` and `integration list` (issue 38): the ids the other commands take, read
// from the database rather than only from npm start's banner, and never a secret. Run in process (run-cli.ts), as a
// script reads them (JSON) and as a person does (--no-json).
import { randomBytes, randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { addBusinessNumber, createAccount, createApiKey, revokeApiKey } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testActor, testEnv } from "@gw/testkit";
import { integrationSetArgs, runCli } from "./run-cli.ts";

const env = { DATABASE_URL: testEnv().databaseUrl };
const db = createDb({ url: env.DATABASE_URL, poolSize: 2 });
afterAll(async () => {
  await db.$disconnect();
});

/** A phone_number_id no other test uses (they are unique across accounts). */
const phoneNumberId = () => `8${Date.now()}${randomInt(1000, 9999)}`;

async function json<T>(args: readonly string[]): Promise<T> {
  const run = await runCli([...args, "--json"], env);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(run.stdout) as T;
}

describe("pnpm gateway … list", () => {
  const name = `Lista ${randomBytes(3).toString("hex")}`;
  let accountId: string;
  let firstNumber: string;
  let secondNumber: string;
  let keys: { all: { id: string; key: string }; scoped: { id: string; key: string } };
  let integration: { id: string; signing_secret: string };
  beforeAll(async () => {
    accountId = (await createAccount({ db }, { actor: testActor, name })).id;
    firstNumber = phoneNumberId();
    secondNumber = phoneNumberId();
    const number = { actor: testActor, accountId, wabaId: "300000000000001" };
    await addBusinessNumber({ db }, { ...number, phoneNumberId: firstNumber, displayNumber: "+55 11 4000-0101" });
    await addBusinessNumber({ db }, { ...number, phoneNumberId: secondNumber, displayNumber: "+55 11 4000-0102" });
    const all = await createApiKey({ db }, { actor: testActor, accountId });
    const scoped = await createApiKey({ db }, { actor: testActor, accountId, scopes: ["messages:send"] });
    await revokeApiKey({ db }, { actor: testActor, keyId: scoped.id });
    keys = { all, scoped };
    integration = await json(integrationSetArgs(accountId, "https://exemplo.com.br/lista", "message.status"));
  });

  it("account list names every account with its id, oldest first", async () => {
    const accounts = await json<{ id: string; name: string; created_at: string }[]>(["account", "list"]);
    expect(accounts.find((account) => account.id === accountId)).toEqual({
      id: accountId,
      name,
      created_at: expect.any(String),
    });
    const times = accounts.map((account) => account.created_at);
    expect(times).toEqual([...times].sort());
  });

  it("number list gives an account's numbers, the default first; without --account, every account's", async () => {
    await expect(json(["number", "list", "--account", accountId])).resolves.toEqual([
      { phone_number_id: firstNumber, display_number: "+55 11 4000-0101", is_default: true, marketing_messages: "off" },
      {
        phone_number_id: secondNumber,
        display_number: "+55 11 4000-0102",
        is_default: false,
        marketing_messages: "off",
      },
    ]);
    const all = await json<{ account_id: string }[]>(["number", "list"]);
    expect(all.filter((number) => number.account_id === accountId)).toEqual([
      {
        account_id: accountId,
        account_name: name,
        phone_number_id: firstNumber,
        display_number: "+55 11 4000-0101",
        is_default: true,
        marketing_messages: "off",
      },
      {
        account_id: accountId,
        account_name: name,
        phone_number_id: secondNumber,
        display_number: "+55 11 4000-0102",
        is_default: false,
        marketing_messages: "off",
      },
    ]);
  });

  it("key list shows id, name, prefix, scopes and dates, newest first, revoked included, never the key", async () => {
    const run = await runCli(["key", "list", "--account", accountId, "--json"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(keys.all.key);
    expect(run.stdout).not.toContain(keys.scoped.key);
    const listed = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        id: keys.scoped.id,
        name: null,
        prefix: keys.scoped.key.slice(0, 14),
        scopes: ["messages:send"],
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: expect.any(String),
      },
      {
        id: keys.all.id,
        name: null,
        prefix: keys.all.key.slice(0, 14),
        scopes: "all",
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
      },
    ]);

    const text = await runCli(["key", "list", "--account", accountId, "--no-json"], env);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toBe("Chaves de API da conta (da mais nova à mais antiga):");
    expect(lines[2]).toMatch(/^ {2}id +name +prefix +scopes +created_at +last_used_at +revoked_at$/);
    expect(text.stdout).toMatch(/^2 registros\.$/m);
    expect(text.stdout).not.toContain(keys.all.key);
  });

  it("integration list shows each integration's settings and never its signing secret", async () => {
    const run = await runCli(["integration", "list", "--account", accountId, "--json"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(integration.signing_secret);
    expect(run.stdout).not.toContain("signing_secret");
    expect(JSON.parse(run.stdout)).toEqual([
      {
        id: integration.id,
        url: "https://exemplo.com.br/lista",
        events: ["message.status"],
        active: true,
        disabled_at: null,
        signature_scheme: "pt",
        payload_version: expect.any(Number),
        deliver_in_order: false,
        created_at: expect.any(String),
      },
    ]);
  });

  it("an account with nothing to list says so, and one that does not exist is a usage error (exit 2)", async () => {
    const empty = (await createAccount({ db }, { actor: testActor, name: "Lista vazia" })).id;
    const [integrations, numbers, missing] = await Promise.all([
      runCli(["integration", "list", "--account", empty, "--no-json"], env),
      runCli(["number", "list", "--account", empty, "--json"], env),
      runCli(["key", "list", "--account", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "--no-json"], env),
    ]);
    expect(integrations).toMatchObject({
      code: 0,
      stdout: "Esta conta não tem integrações: crie uma com pnpm gateway integration set.\n",
    });
    expect(numbers).toMatchObject({ code: 0, stdout: "[]\n" });
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toBe("erro: Conta não encontrada: confira --account.\nVeja: pnpm gateway key list --help\n");
  });
});
