import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { userInfo } from "node:os";
import { promisify } from "node:util";
import { createDb } from "@gw/db";
import { spawnApp, type AppProcess } from "@gw/test-stack";
import { eventually, freePort, testEnv, testSecretBox } from "@gw/testkit";
import { runCommand, UsageError } from "../src/commands.ts";

const exec = promisify(execFile);

describe("admin CLI round trip", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  // The API as its own process, as operators run it next to the CLI: the CLI's changes reach it only through
  // PostgreSQL. Key lookups are cached for a minute, so a revocation seen sooner came through NOTIFY.
  let api: AppProcess;
  let apiUrl: string;
  beforeAll(async () => {
    const env = testEnv();
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    api = spawnApp("api", {
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      API_PORT: String(port),
      API_INTERNAL_PORT: String(await freePort()),
      API_KEY_CACHE_TTL_MS: "60000",
      META_BASE_URL: "http://127.0.0.1:9",
      META_ACCESS_TOKEN: "test-access-token",
      META_APP_SECRET: "test-app-secret",
      META_VERIFY_TOKEN: "test-verify-token",
    });
    await eventually(
      () =>
        fetch(`${apiUrl}/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeoutMs: 20_000, intervalMs: 100, what: "the API process to be ready" },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${api.output()}`);
    });
  });
  afterAll(async () => {
    await api.stop();
    await db.$disconnect();
  });

  it("account → number → key → integration; the key works until it is revoked, then 401 invalid_api_key", async () => {
    const run = (...argv: string[]) =>
      runCommand(argv, { db, secrets: testSecretBox() }) as Promise<Record<string, unknown>>;
    const account = await run("account", "create", "--name", "Padaria Pão Quente");
    expect(account).toMatchObject({ id: expect.any(String), name: "Padaria Pão Quente" });
    const accountId = String(account.id);
    const phoneNumberId = `9${Date.now()}`;
    const number = await run(
      "number",
      "add",
      "--account",
      accountId,
      "--phone-number-id",
      phoneNumberId,
      "--waba-id",
      "555",
      "--display",
      "+55 11 4000-1234",
    );
    expect(number).toMatchObject({ phone_number_id: phoneNumberId, waba_id: "555", is_default: true });

    const key = await run("key", "create", "--account", accountId);
    expect(String(key.key)).toMatch(/^pt_live_[A-Za-z0-9_-]{43}$/);
    // Only the hash is stored.
    const stored = await db.apiKey.findUnique({ where: { id: String(key.id) } });
    expect(stored?.keyHash).not.toContain(String(key.key));
    expect(JSON.stringify(stored)).not.toContain(String(key.key));

    const integration = await run(
      "integration",
      "set",
      "--account",
      accountId,
      "--url",
      "https://example.com/hooks",
      "--events",
      "message.status,message.received",
    );
    expect(integration).toMatchObject({
      url: "https://example.com/hooks",
      events: ["message.status", "message.received"],
      active: true,
      signing_secret: expect.stringMatching(/^whsec_/),
    });
    const rotated = await run("integration", "rotate-secret", "--integration", String(integration.id));
    expect(rotated.signing_secret).not.toBe(integration.signing_secret);

    const window = () =>
      fetch(`${apiUrl}/public/v1/window/11987654321`, { headers: { Authorization: `Bearer ${String(key.key)}` } });
    const ok = await window();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ data: { phone_number_id: phoneNumberId } });

    await run("key", "revoke", "--id", String(key.id));
    const revoked = await eventually(
      async () => {
        const res = await window();
        if (res.status === 401) return res;
        await res.arrayBuffer();
        return null;
      },
      { timeoutMs: 5_000, what: "the revoked key to be refused" },
    );
    expect(await revoked.json()).toMatchObject({ success: false, error: { code: "invalid_api_key" } });

    // The CLI audits as the services do, under the operator's OS user: each change one entry, newest first.
    const audit = (await runCommand(["audit", "list", "--account", accountId], { db })) as {
      actor: string;
      action: string;
      target: string | null;
    }[];
    const operator = `cli:${userInfo().username}`;
    expect(audit.map((entry) => entry.action)).toEqual([
      "cli.api_key.revoked",
      "cli.integration.secret_rotated",
      "cli.integration.saved",
      "cli.api_key.created",
      "cli.number.added",
      "cli.account.created",
    ]);
    expect(new Set(audit.map((entry) => entry.actor))).toEqual(new Set([operator]));
    expect(audit.find((entry) => entry.action === "cli.api_key.created")?.target).toBe(String(key.id));
    expect(audit.find((entry) => entry.action === "cli.integration.saved")?.target).toBe(
      `integration:${String(integration.id)}`,
    );
  });

  it("operator mistakes are usage errors with Portuguese messages", async () => {
    await expect(runCommand(["account", "create"], { db })).rejects.toThrow(UsageError);
    await expect(
      runCommand(
        [
          "integration",
          "set",
          "--account",
          "7c9e6679-7425-40de-944b-e07fc1f90ae7",
          "--url",
          "https://a.b",
          "--events",
          "message.sent",
        ],
        { db },
      ),
    ).rejects.toThrow(/Evento desconhecido/);
    await expect(runCommand(["nada"], { db })).rejects.toThrow("Comando desconhecido: nada");
  });

  it("`pnpm gateway` prints only JSON on stdout", async () => {
    const { stdout } = await exec("pnpm", ["gateway", "account", "create", "--name", "Via pnpm"], {
      env: { ...process.env, DATABASE_URL: testEnv().databaseUrl },
    });
    expect(JSON.parse(stdout)).toMatchObject({ name: "Via pnpm" });
    const failed = await exec("pnpm", ["gateway", "key", "revoke", "--id", "00000000-0000-0000-0000-000000000000"], {
      env: { ...process.env, DATABASE_URL: testEnv().databaseUrl },
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect("code" in failed && failed.code).toBe(2);
    expect(JSON.parse((failed as { stderr: string }).stderr.trim().split("\n").at(-1) ?? "")).toEqual({
      error: "Chave não encontrada.",
    });
    // Two pnpm + tsx start-ups: seconds each on a loaded machine.
  }, 120_000);
});
