import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import request from "supertest";
import { createDb } from "@gw/db";
import { testEnv } from "@gw/testkit";
import { startTestGateway, type TestGateway } from "../../api/test/support/gateway.ts";
import { runCommand, UsageError } from "../src/commands.ts";

const exec = promisify(execFile);

describe("admin CLI round trip", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
    await db.$disconnect();
  });

  it("account → number → key → integration; the key works until it is revoked, then 401 invalid_api_key", async () => {
    const run = (...argv: string[]) => runCommand(argv, { db }) as Promise<Record<string, unknown>>;
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

    const auth = { Authorization: `Bearer ${String(key.key)}` };
    const ok = await request(gateway.app).get(`/public/v1/window/11987654321`).set(auth);
    expect(ok.status).toBe(200);
    expect(ok.body.data.phone_number_id).toBe(phoneNumberId);

    await run("key", "revoke", "--id", String(key.id));
    const revoked = await request(gateway.app).get(`/public/v1/window/11987654321`).set(auth);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe("invalid_api_key");

    const audit = (await runCommand(["audit", "list", "--account", accountId], { db })) as unknown[];
    expect(Array.isArray(audit)).toBe(true);
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
  });
});
