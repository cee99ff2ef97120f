// `pnpm gateway integration set …` in a second shell beside `npm start`: without SECRETS_KEYS, in development the CLI
// takes the key ring start.sh keeps in .data/secrets-keys (and its loopback receivers). Development is decided by the
// database itself (the mark start.sh writes into it), not by its host: a production database reached through a
// tunnel on 127.0.0.1 is refused loudly, and nothing is sealed with the development key.
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createAccount, createSecretBox } from "@gw/core/accounts";
import { loadConfig, sections, z } from "@gw/config";
import type { Db } from "@gw/db";
import { isolatedDatabase, testActor, testEnv } from "@gw/testkit";
import { isDevelopmentDatabase, markDevelopmentDatabase } from "../src/dev-key-ring.ts";
import { integrationSetArgs, runCli, runCliProcess } from "./run-cli.ts";

interface Database {
  url: string;
  db: Db;
  drop: () => Promise<void>;
  accountId: string;
}

/** npm start's database (marked as start.sh marks it), and a production one reached on 127.0.0.1 (never marked). */
let development: Database;
let tunnelled: Database;

async function database(mark: boolean): Promise<Database> {
  const isolated = await isolatedDatabase();
  if (mark) await markDevelopmentDatabase(isolated.db.sql);
  const { id } = await createAccount({ db: isolated.db }, { actor: testActor, name: "Conta do segundo terminal" });
  return { ...isolated, accountId: id };
}

beforeAll(async () => {
  [development, tunnelled] = await Promise.all([database(true), database(false)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([development.drop(), tunnelled.drop()]);
});

/** A checkout where `npm start` ran: `.data/secrets-keys` as start.sh writes it (`dev:` + 32 random bytes). */
function checkoutWithDevRing(content = `dev:${randomBytes(32).toString("base64")}`): { cwd: string; keys: string } {
  const cwd = mkdtempSync(join(tmpdir(), "gw-checkout-"));
  mkdirSync(join(cwd, ".data"));
  writeFileSync(join(cwd, ".data", "secrets-keys"), content, { mode: 0o600 });
  return { cwd, keys: content };
}

/** A second shell: none of what start.sh exports; DATABASE_URL is the given database's. */
const secondShell = (target: Database, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DATABASE_URL: target.url,
  SECRETS_KEYS: undefined,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined,
  NODE_ENV: undefined,
  ...extra,
});

/** `target`'s URL with its host and query changed (the database and port are the same server's). */
function urlOf(target: Database, host: string, query: string): string {
  const url = new URL(target.url);
  url.hostname = host;
  url.search = query;
  return url.toString();
}

const integrationSet = (target: Database, url: string) => integrationSetArgs(target.accountId, url, "message.status");

async function sealedSecret(target: Database, id: string): Promise<string> {
  const row = await target.db.integration.findUniqueOrThrow({
    where: { id },
    select: { signingSecretEncrypted: true },
  });
  return row.signingSecretEncrypted ?? "";
}

const boxOf = (keys: string) =>
  createSecretBox(loadConfig(z.object(sections.secrets()), { SECRETS_KEYS: keys }).SECRETS_KEYS);

describe("pnpm gateway beside npm start", () => {
  it("without SECRETS_KEYS, against npm start's database, integration set seals with npm start's key ring, accepts the loopback receiver and says so on stderr", async () => {
    const checkout = checkoutWithDevRing();
    const run = await runCli(integrationSet(development, "http://127.0.0.1:8098/webhooks"), secondShell(development), {
      cwd: checkout.cwd,
    });
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
    const sealed = await sealedSecret(development, saved.id);
    expect(sealed).toMatch(/^v1:dev:/);
    expect(boxOf(checkout.keys).open(sealed, { table: "integrations", id: saved.id, field: "signing_secret" })).toBe(
      saved.signing_secret,
    );

    // SECRETS_KEYS, when set, is the ring (no notice); a command without secrets says nothing either.
    const explicit = await runCli(
      integrationSet(development, "http://127.0.0.1:8098/explicita"),
      secondShell(development, { SECRETS_KEYS: testEnv().secretsKeys, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" }),
      { cwd: checkout.cwd },
    );
    expect({ code: explicit.code, stderr: explicit.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await sealedSecret(development, (JSON.parse(explicit.stdout) as { id: string }).id)).toMatch(/^v1:test:/);
    const audit = await runCli(["audit", "list", "--account", development.accountId], secondShell(development), {
      cwd: checkout.cwd,
    });
    expect({ code: audit.code, stderr: audit.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("a database npm start did not mark, reached on 127.0.0.1 as through a tunnel: refuses loudly, whatever the URL says, and seals and changes nothing", async () => {
    const checkout = checkoutWithDevRing();
    const file = join(checkout.cwd, ".data", "secrets-keys");
    expect(await isDevelopmentDatabase(tunnelled.db.sql)).toBe(false);
    const auditBefore = await tunnelled.db.auditEntry.count();

    const shells: [string, NodeJS.ProcessEnv][] = [
      ["the tunnel's 127.0.0.1", secondShell(tunnelled)],
      // The URL's host is loopback while ?host= connects elsewhere: the host was all the CLI used to look at.
      [
        "localhost with ?host=",
        secondShell(tunnelled, { DATABASE_URL: urlOf(tunnelled, "localhost", "?host=127.0.0.1") }),
      ],
      // A session may set any gateway.* value itself; the mark is what ALTER DATABASE stored.
      [
        "a session setting the mark's value",
        secondShell(tunnelled, {
          DATABASE_URL: `${tunnelled.url}?options=${encodeURIComponent("-c gateway.development=on")}`,
        }),
      ],
    ];
    for (const [, shell] of shells) {
      for (const args of [
        integrationSet(tunnelled, "https://hooks.example.com/tunel"),
        // Not refused for its http:// first: the development policy is not taken either.
        integrationSet(tunnelled, "http://127.0.0.1:8098/tunel"),
        ["secrets", "rotate-key"],
      ]) {
        const run = await runCli(args, shell, { cwd: checkout.cwd });
        expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
        const { error } = JSON.parse(run.stderr) as { error: string };
        // Why (the mark is missing, the host proves nothing), what was not done, and what to do.
        expect(error).toMatch(
          /^SECRETS_KEYS não definida e o banco de DATABASE_URL não tem a marca de desenvolvimento/,
        );
        expect(error).toContain("um túnel para 127.0.0.1 não o torna local");
        expect(error).toContain(`as chaves de ${file} não foram usadas e nada foi alterado`);
        expect(error).toContain("Defina SECRETS_KEYS com as chaves desse banco");
        expect(error).toContain("rode o npm start de novo");
      }
    }
    expect(await tunnelled.db.integration.count()).toBe(0);
    expect(await tunnelled.db.auditEntry.count()).toBe(auditBefore);

    // With the environment's own ring, as the refusal says, the same command works (and seals with that ring).
    const fixed = await runCli(
      integrationSet(tunnelled, "https://hooks.example.com/tunel"),
      secondShell(tunnelled, { SECRETS_KEYS: testEnv().secretsKeys }),
      { cwd: checkout.cwd },
    );
    expect({ code: fixed.code, stderr: fixed.stderr }).toEqual({ code: 0, stderr: "" });
    expect(await sealedSecret(tunnelled, (JSON.parse(fixed.stdout) as { id: string }).id)).toMatch(/^v1:test:/);
  });

  it("the database decides, not its host: npm start's database named by a host that is not loopback (?host=) takes the ring", async () => {
    const checkout = checkoutWithDevRing();
    const shell = secondShell(development, { DATABASE_URL: urlOf(development, "db.example.com", "?host=127.0.0.1") });
    const run = await runCli(integrationSet(development, "http://127.0.0.1:8098/por-nome"), shell, {
      cwd: checkout.cwd,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining("usando as chaves de desenvolvimento do npm start"),
    });
    const saved = JSON.parse(run.stdout) as { id: string; signing_secret: string };
    expect(
      boxOf(checkout.keys).open(await sealedSecret(development, saved.id), {
        table: "integrations",
        id: saved.id,
        field: "signing_secret",
      }),
    ).toBe(saved.signing_secret);
  });

  it("in production (NODE_ENV=production) the file is ignored, even on npm start's database: SECRETS_KEYS is required", async () => {
    const checkout = checkoutWithDevRing();
    const url = "https://hooks.example.com/segundo-terminal";
    // The same checkout in development: the ring is taken (so what follows is the file being ignored).
    expect((await runCli(integrationSet(development, url), secondShell(development), { cwd: checkout.cwd })).code).toBe(
      0,
    );

    const production = await runCli(
      integrationSet(development, `${url}/producao`),
      secondShell(development, { NODE_ENV: "production" }),
      { cwd: checkout.cwd },
    );
    expect(production.code).toBe(2);
    expect(JSON.parse(production.stderr)).toEqual({ error: expect.stringMatching(/^SECRETS_KEYS é necessária/) });
    // The production policy too: a loopback receiver is refused first, as before.
    const loopback = await runCli(
      integrationSet(development, "http://127.0.0.1:8098/producao"),
      secondShell(development, { NODE_ENV: "production" }),
      { cwd: checkout.cwd },
    );
    expect(JSON.parse(loopback.stderr)).toEqual({ error: "A URL da integração deve usar https://." });
    expect(
      await development.db.integration.count({
        where: { accountId: development.accountId, url: { startsWith: `${url}/` } },
      }),
    ).toBe(0);
  });

  it("a key ring file that is not one is refused, naming the file", async () => {
    const checkout = checkoutWithDevRing("nao-e-um-chaveiro");
    const run = await runCli(integrationSet(development, "http://127.0.0.1:8098/ruim"), secondShell(development), {
      cwd: checkout.cwd,
    });
    expect(run.code).toBe(2);
    expect((JSON.parse(run.stderr) as { error: string }).error).toMatch(
      new RegExp(`^${join(checkout.cwd, ".data", "secrets-keys")}: Configuração inválida \\(SECRETS_KEYS\\)`),
    );
  });

  it("end to end: the CLI's process, run in the checkout, finds the ring in its working directory", async () => {
    const checkout = checkoutWithDevRing();
    const run = await runCliProcess(
      integrationSet(development, "http://127.0.0.1:8098/processo"),
      secondShell(development),
      checkout.cwd,
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.stringContaining("usando as chaves de desenvolvimento do npm start"),
    });
    const saved = JSON.parse(run.stdout) as { id: string; signing_secret: string };
    expect(
      boxOf(checkout.keys).open(await sealedSecret(development, saved.id), {
        table: "integrations",
        id: saved.id,
        field: "signing_secret",
      }),
    ).toBe(saved.signing_secret);
  }, 60_000);
});
