// `pnpm gateway integration set …` in a second shell beside `npm start`: without SECRETS_KEYS, in development the CLI
// takes the key ring start.sh keeps in .data/secrets-keys (and its loopback receivers); in production, or against a
// database elsewhere, the variable is still required.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createAccount, createSecretBox } from "@gw/core/accounts";
import { loadConfig, sections, z } from "@gw/config";
import { createDb } from "@gw/db";
import { testActor, testEnv } from "@gw/testkit";
import { integrationSetArgs, runCli, runCliProcess } from "./run-cli.ts";

const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
let accountId: string;

beforeAll(async () => {
  accountId = (await createAccount({ db }, { actor: testActor, name: "Conta do segundo terminal" })).id;
});
afterAll(async () => {
  await db.$disconnect();
});

/** A checkout where `npm start` ran: `.data/secrets-keys` as start.sh writes it (`dev:` + 32 random bytes). */
function checkoutWithDevRing(content = `dev:${randomBytes(32).toString("base64")}`): { cwd: string; keys: string } {
  const cwd = mkdtempSync(join(tmpdir(), "gw-checkout-"));
  mkdirSync(join(cwd, ".data"));
  writeFileSync(join(cwd, ".data", "secrets-keys"), content, { mode: 0o600 });
  return { cwd, keys: content };
}

/** A second shell: none of what start.sh exports, the local database. */
const secondShell = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DATABASE_URL: testEnv().databaseUrl,
  SECRETS_KEYS: undefined,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined,
  NODE_ENV: undefined,
  ...extra,
});

const integrationSet = (url: string) => integrationSetArgs(accountId, url, "message.status");

async function sealedSecret(id: string): Promise<string> {
  const row = await db.integration.findUniqueOrThrow({ where: { id }, select: { signingSecretEncrypted: true } });
  return row.signingSecretEncrypted ?? "";
}

const boxOf = (keys: string) =>
  createSecretBox(loadConfig(z.object(sections.secrets()), { SECRETS_KEYS: keys }).SECRETS_KEYS);

describe("pnpm gateway beside npm start", () => {
  it("without SECRETS_KEYS, in development, integration set seals with npm start's key ring, accepts the loopback receiver and says so on stderr", async () => {
    const checkout = checkoutWithDevRing();
    const run = await runCli(integrationSet("http://127.0.0.1:8098/webhooks"), secondShell(), { cwd: checkout.cwd });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: `${JSON.stringify({
        notice:
          `SECRETS_KEYS não definida: usando as chaves de desenvolvimento do npm start (${join(checkout.cwd, ".data", "secrets-keys")}). ` +
          "Em produção (NODE_ENV=production) a variável é obrigatória.",
      })}\n`,
    });
    const saved = JSON.parse(run.stdout) as { id: string; url: string; signing_secret: string };
    expect(saved.url).toBe("http://127.0.0.1:8098/webhooks");
    // Sealed under the file's key, the one the dispatcher and the panel of npm start open it with.
    const sealed = await sealedSecret(saved.id);
    expect(sealed).toMatch(/^v1:dev:/);
    expect(boxOf(checkout.keys).open(sealed, { table: "integrations", id: saved.id, field: "signing_secret" })).toBe(
      saved.signing_secret,
    );

    // SECRETS_KEYS, when set, is the ring (no notice); a command without secrets says nothing either.
    const explicit = await runCli(
      integrationSet("http://127.0.0.1:8098/explicita"),
      secondShell({ SECRETS_KEYS: testEnv().secretsKeys, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" }),
      { cwd: checkout.cwd },
    );
    expect({ code: explicit.code, stderr: explicit.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await sealedSecret((JSON.parse(explicit.stdout) as { id: string }).id)).toMatch(/^v1:test:/);
    const audit = await runCli(["audit", "list", "--account", accountId], secondShell(), { cwd: checkout.cwd });
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("in production (NODE_ENV=production) or against a database elsewhere the file is ignored: SECRETS_KEYS is required", async () => {
    const checkout = checkoutWithDevRing();
    const url = "https://hooks.example.com/segundo-terminal";
    // The same checkout in development: the ring is taken (so what follows is the file being ignored).
    expect((await runCli(integrationSet(url), secondShell(), { cwd: checkout.cwd })).code).toBe(0);

    const production = await runCli(integrationSet(`${url}/producao`), secondShell({ NODE_ENV: "production" }), {
      cwd: checkout.cwd,
    });
    expect(production.code).toBe(2);
    expect(JSON.parse(production.stderr)).toEqual({ error: expect.stringMatching(/^SECRETS_KEYS é necessária/) });
    // The production policy too: a loopback receiver is refused first, as before.
    const loopback = await runCli(
      integrationSet("http://127.0.0.1:8098/producao"),
      secondShell({ NODE_ENV: "production" }),
      { cwd: checkout.cwd },
    );
    expect(JSON.parse(loopback.stderr)).toEqual({ error: "A URL da integração deve usar https://." });

    // A database on another host (nothing connects: the refusal comes first).
    const remote = await runCli(
      integrationSet(`${url}/remoto`),
      secondShell({ DATABASE_URL: "postgresql://gateway@db.example.com:5432/gateway" }),
      { cwd: checkout.cwd },
    );
    expect(remote.code).toBe(2);
    expect(JSON.parse(remote.stderr)).toEqual({ error: expect.stringMatching(/^SECRETS_KEYS é necessária/) });
    expect(await db.integration.count({ where: { accountId, url: { startsWith: `${url}/` } } })).toBe(0);
  });

  it("a key ring file that is not one is refused, naming the file", async () => {
    const checkout = checkoutWithDevRing("nao-e-um-chaveiro");
    const run = await runCli(integrationSet("http://127.0.0.1:8098/ruim"), secondShell(), { cwd: checkout.cwd });
    expect(run.code).toBe(2);
    expect((JSON.parse(run.stderr) as { error: string }).error).toMatch(
      new RegExp(`^${join(checkout.cwd, ".data", "secrets-keys")}: Configuração inválida \\(SECRETS_KEYS\\)`),
    );
  });

  it("end to end: the CLI's process, run in the checkout, finds the ring in its working directory", async () => {
    const checkout = checkoutWithDevRing();
    const run = await runCliProcess(integrationSet("http://127.0.0.1:8098/processo"), secondShell(), checkout.cwd);
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining("usando as chaves de desenvolvimento do npm start"),
    });
    const saved = JSON.parse(run.stdout) as { id: string; signing_secret: string };
    expect(
      boxOf(checkout.keys).open(await sealedSecret(saved.id), {
        table: "integrations",
        id: saved.id,
        field: "signing_secret",
      }),
    ).toBe(saved.signing_secret);
  }, 60_000);
});
