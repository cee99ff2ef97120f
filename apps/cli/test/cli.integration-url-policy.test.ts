// `integration set` accepts only https URLs on public hosts unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
// (development). Registration only: nothing here connects anywhere.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, createAccount } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testEnv, testActor, testSecretBox } from "@gw/testkit";
import { runCommand } from "../src/commands.ts";
import { integrationSetArgs, runCli } from "./run-cli.ts";

describe("integration set: URL policy", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  const secrets = testSecretBox();
  let accountId: string;
  beforeAll(async () => {
    accountId = (await createAccount({ db }, { actor: testActor, name: "Conta política de URL" })).id;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const argv = (url: string) => integrationSetArgs(accountId, url, "message.status");

  it("without a policy it applies production's: https only, public hosts, no userinfo", async () => {
    await expect(runCommand(argv("http://hooks.example.com/h"), { db, secrets })).rejects.toThrow(
      "A URL da integração deve usar https://.",
    );
    await expect(runCommand(argv("https://127.0.0.1/h"), { db, secrets })).rejects.toThrow(
      /endereço local, privado ou reservado/,
    );
    await expect(runCommand(argv("https://ana:segredo@hooks.example.com/h"), { db, secrets })).rejects.toThrow(
      /não pode conter usuário ou senha/,
    );
    expect(await db.integration.count({ where: { accountId } })).toBe(0);
  });

  it("with the development policy a loopback http receiver is accepted", async () => {
    const url = "http://127.0.0.1:9/webhooks";
    await expect(
      runCommand(argv(url), { db, secrets, integrationPolicy: DEVELOPMENT_INTEGRATION_POLICY }),
    ).resolves.toMatchObject({ url });
  });

  it("`pnpm gateway` takes the policy from WEBHOOK_ALLOW_PRIVATE_NETWORKS (default: production)", async () => {
    const url = "http://127.0.0.1:10/webhooks";
    const env = { DATABASE_URL: testEnv().databaseUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined };

    const refused = await runCli(argv(url), env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("A URL da integração deve usar https://.");

    const accepted = await runCli(argv(url), { ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ url, active: true });
  });
});
