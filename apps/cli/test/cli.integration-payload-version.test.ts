// `integration set --payload-version` (issue 27): the operator chooses which message.received body an integration
// gets — 1, the contract's (the default), or 2, with the option tapped, location, contacts, reactions, ad referral and
// the media's checksum. Registration only: nothing here connects anywhere.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, createAccount } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { testEnv, testActor, testSecretBox } from "@gw/testkit";
import { runCommand } from "../src/commands.ts";
import { integrationSetArgs, runCli } from "./run-cli.ts";

describe("integration set --payload-version", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  const deps = { db, secrets: testSecretBox(), integrationPolicy: DEVELOPMENT_INTEGRATION_POLICY };
  let accountId: string;
  beforeAll(async () => {
    accountId = (await createAccount({ db }, { actor: testActor, name: "Conta versão de payload" })).id;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const argv = (url: string, ...extra: string[]) => integrationSetArgs(accountId, url, "message.received", ...extra);

  it("creates an integration on version 2, keeps it when run again without the option, and goes back to 1", async () => {
    const url = `http://127.0.0.1:9/${randomBytes(4).toString("hex")}`;
    // A new integration gets version 2 without the option (issue 38), as over the API.
    await expect(runCommand(argv(url), deps)).resolves.toMatchObject({ payload_version: 2 });
    await expect(runCommand(argv(url, "--payload-version", "2"), deps)).resolves.toMatchObject({ payload_version: 2 });
    expect((await db.integration.findFirstOrThrow({ where: { accountId, url } })).payloadVersion).toBe(2);
    await expect(runCommand(argv(url), deps)).resolves.toMatchObject({ payload_version: 2 });
    await expect(runCommand(argv(url, "--payload-version", "1"), deps)).resolves.toMatchObject({ payload_version: 1 });
    const audit = await db.auditEntry.findFirst({
      where: { accountId, action: { contains: "integration" } },
      orderBy: { id: "desc" },
    });
    expect(audit?.details).toMatchObject({ payload_version: 1 });
  });

  it("creates an integration directly on version 1 when asked", async () => {
    const url = `http://127.0.0.1:9/${randomBytes(4).toString("hex")}`;
    await expect(runCommand(argv(url, "--payload-version", "1"), deps)).resolves.toMatchObject({ payload_version: 1 });
  });

  it("refuses an unknown version as a usage error (exit 2) before saving anything", async () => {
    const url = "http://127.0.0.1:9/v3";
    const refused = await runCli(argv(url, "--payload-version", "3"), { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Versão de payload desconhecida: 3 (use 1 ou 2)");
    expect(await db.integration.count({ where: { accountId, url } })).toBe(0);
    const help = await runCli(["integration", "set", "--help"]);
    expect(help.stdout).toContain("--payload-version VERSÃO");
  }, 60_000);
});
