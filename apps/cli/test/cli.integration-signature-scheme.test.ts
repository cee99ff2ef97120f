// `integration set --signature-scheme` (issue 21): the operator chooses how an integration's webhooks are signed.
// Registration only: nothing here connects anywhere.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Webhook } from "standardwebhooks";
import { DEVELOPMENT_INTEGRATION_POLICY, createAccount } from "@gw/core/accounts";
import { createDb } from "@gw/db";
import { signatureHeaders } from "@gw/signer";
import { testEnv, testActor, testSecretBox } from "@gw/testkit";
import { runCommand } from "../src/commands.ts";
import { integrationSetArgs, runCli } from "./run-cli.ts";

describe("integration set --signature-scheme", () => {
  const db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  const secrets = testSecretBox();
  const deps = { db, secrets, integrationPolicy: DEVELOPMENT_INTEGRATION_POLICY };
  let accountId: string;
  beforeAll(async () => {
    accountId = (await createAccount({ db }, { actor: testActor, name: "Conta esquema de assinatura" })).id;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const argv = (url: string, ...extra: string[]) => integrationSetArgs(accountId, url, "message.status", ...extra);

  it("creates an integration on Standard Webhooks and prints the whsec_ secret the official library takes", async () => {
    const url = `http://127.0.0.1:9/${randomBytes(4).toString("hex")}`;
    const saved = (await runCommand(argv(url, "--signature-scheme", "standard-webhooks"), deps)) as {
      signature_scheme: string;
      signing_secret: string;
    };
    expect(saved.signature_scheme).toBe("standard-webhooks");
    expect(saved.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The printed secret verifies what the dispatcher signs with the stored one.
    const stored = await db.integration.findFirstOrThrow({ where: { accountId, url } });
    const storedSecret = secrets.open(stored.signingSecretEncrypted!, {
      table: "integrations",
      id: stored.id,
      field: "signing_secret",
    });
    const body = '{"event":"message.status","delivery_id":"1"}';
    const headers = signatureHeaders("standard-webhooks", {
      secrets: { current: storedSecret, previous: null },
      deliveryId: "1",
      timestamp: Math.floor(Date.now() / 1000),
      body,
    });
    expect(() => new Webhook(saved.signing_secret).verify(body, headers)).not.toThrow();

    // Run again without the option: the scheme stays; with pt, it goes back to X-PT-Signature, with the same secret
    // (an update shows none, as the API's PATCH).
    await expect(runCommand(argv(url), deps)).resolves.toMatchObject({ signature_scheme: "standard-webhooks" });
    const back = (await runCommand(argv(url, "--signature-scheme", "pt"), deps)) as Record<string, unknown>;
    expect(back).toMatchObject({ signature_scheme: "pt" });
    expect(back).not.toHaveProperty("signing_secret");
    const row = await db.integration.findFirstOrThrow({ where: { accountId, url } });
    expect(
      secrets.open(row.signingSecretEncrypted!, { table: "integrations", id: row.id, field: "signing_secret" }),
    ).toBe(storedSecret);
  });

  it("leaves a new integration on X-PT-Signature when the option is not given", async () => {
    const url = `http://127.0.0.1:9/${randomBytes(4).toString("hex")}`;
    await expect(runCommand(argv(url), deps)).resolves.toMatchObject({ signature_scheme: "pt" });
  });

  it("refuses an unknown scheme as a usage error (exit 2) before saving anything", async () => {
    const url = "http://127.0.0.1:9/svix";
    const refused = await runCli(argv(url, "--signature-scheme", "svix"), { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Esquema de assinatura desconhecido: svix (use pt ou standard-webhooks)");
    expect(await db.integration.count({ where: { accountId, url } })).toBe(0);
    const help = await runCli(["integration", "set", "--help"]);
    expect(help.stdout).toContain("--signature-scheme ESQUEMA");
  }, 60_000);
});
