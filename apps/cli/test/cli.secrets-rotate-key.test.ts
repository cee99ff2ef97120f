// `pnpm gateway secrets rotate-key` and the key ring (SECRETS_KEYS) of the commands that store signing secrets, run
// as operators run them: a child process with its environment.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, createAccount, createSecretBox } from "@gw/core/accounts";
import { isolatedDatabase, testActor } from "@gw/testkit";
import { runCommand } from "../src/commands.ts";
import { integrationSetArgs, runCli, type CliRun } from "./run-cli.ts";

// Every step is a `pnpm gateway` process (a few seconds each on a busy machine).
jest.setTimeout(120_000);

const ring = (...ids: string[]) => ids.map((id) => `${id}:${KEYS[id]!}`).join(",");
const KEYS: Record<string, string> = {
  k2026: randomBytes(32).toString("base64"),
  k2027: randomBytes(32).toString("base64"),
  perdida: randomBytes(32).toString("base64"),
};

// rotate-key reads the whole integrations table: a database of its own.
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let accountId: string;

beforeAll(async () => {
  database = await isolatedDatabase();
  accountId = (await createAccount({ db: database.db }, { actor: testActor, name: "Conta da CLI" })).id;
});
afterAll(async () => {
  await database.drop();
});

function cli(args: string[], keys: string): Promise<CliRun> {
  return runCli([...args, "--json"], {
    DATABASE_URL: database.url,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    SECRETS_KEYS: keys,
  });
}

const integrationSet = (url: string) => integrationSetArgs(accountId, url, "message.status");

/** `integration set` in this process (the set-up steps), with the key ring `ids` of KEYS. */
async function saved(url: string, ...ids: string[]): Promise<{ id: string; signing_secret: string }> {
  const secrets = createSecretBox(ids.map((id) => ({ id, key: Buffer.from(KEYS[id]!, "base64") })));
  return (await runCommand(integrationSet(url), {
    db: database.db,
    secrets,
    integrationPolicy: DEVELOPMENT_INTEGRATION_POLICY,
  })) as {
    id: string;
    signing_secret: string;
  };
}

async function storedRow(id: string): Promise<Record<string, string | null>> {
  const { rows } = await database.db.sql.query<{ row: Record<string, string | null> }>(
    `SELECT row_to_json(i) AS row FROM integrations i WHERE id = $1::uuid`,
    [id],
  );
  return rows[0]!.row;
}

describe("pnpm gateway and SECRETS_KEYS", () => {
  it("integration set needs the key ring, and prints a secret the table holds only sealed", async () => {
    const missing = await cli(integrationSet("http://127.0.0.1:9/sem-chave"), "");
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toEqual({ error: expect.stringMatching(/^SECRETS_KEYS é necessária/) });

    const run = await cli(integrationSet("http://127.0.0.1:9/a"), ring("k2026"));
    expect(run.code).toBe(0);
    const integration = JSON.parse(run.stdout) as { id: string; signing_secret: string };
    expect(integration.signing_secret).toMatch(/^whsec_/);
    const row = await storedRow(integration.id);
    expect(row.signing_secret).toBeNull();
    expect(row.signing_secret_encrypted).toMatch(/^v1:k2026:/);
    expect(JSON.stringify(row)).not.toContain(integration.signing_secret);
  });

  it("secrets rotate-key seals clear-text rows and re-seals under the new key, then the old key can be removed", async () => {
    const first = await saved("http://127.0.0.1:9/b", "k2026");
    // A row the previous release wrote, in clear text.
    const legacyId = randomUUID();
    const legacySecret = `whsec_${randomBytes(32).toString("base64url")}`;
    await database.db.sql.query(
      `INSERT INTO integrations (id, account_id, url, events, signing_secret)
       VALUES ($1, $2, 'http://127.0.0.1:9/legada', '{message.status}', $3)`,
      [legacyId, accountId, legacySecret],
    );

    const rotated = await cli(["secrets", "rotate-key", "--batch-size", "1"], ring("k2027", "k2026"));
    expect(rotated.stderr).toBe("");
    expect(rotated.code).toBe(0);
    // Three integrations: the one of the test above, `first` and the clear-text one.
    expect(JSON.parse(rotated.stdout)).toEqual({
      key_id: "k2027",
      integrations: 3,
      sealed_from_clear_text: 1,
      reencrypted: 2,
      previous_cleared: 0,
      unreadable: [],
      batches: 3,
    });
    for (const id of [first.id, legacyId]) {
      const row = await storedRow(id);
      expect(row.signing_secret).toBeNull();
      expect(row.signing_secret_encrypted).toMatch(/^v1:k2027:/);
    }
    expect(JSON.stringify(await storedRow(legacyId))).not.toContain(legacySecret);
    const audits = await database.db.auditEntry.findMany({ where: { action: "cli.secrets.reencrypted" } });
    expect(audits).toHaveLength(3);
    expect(audits[0]?.actor).toMatch(/^cli:/);

    // k2026 removed: the secrets still open, unchanged (and integration set updates under k2027 alone), and a second
    // run has nothing to do.
    const k2027 = createSecretBox([{ id: "k2027", key: Buffer.from(KEYS.k2027!, "base64") }]);
    const sealed = (await storedRow(first.id)).signing_secret_encrypted!;
    expect(k2027.open(sealed, { table: "integrations", id: first.id, field: "signing_secret" })).toBe(
      first.signing_secret,
    );
    expect(await saved("http://127.0.0.1:9/b", "k2027")).toMatchObject({ id: first.id });
    const idle = await cli(["secrets", "rotate-key"], ring("k2027"));
    expect(JSON.parse(idle.stdout)).toMatchObject({ integrations: 0, reencrypted: 0, sealed_from_clear_text: 0 });
  });

  it("secrets rotate-key exits 1 naming a secret it cannot open, and leaves it as it was", async () => {
    const orphan = await saved("http://127.0.0.1:9/orfa", "perdida");
    const before = (await storedRow(orphan.id)).signing_secret_encrypted;
    const run = await cli(["secrets", "rotate-key"], ring("k2027"));
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stderr) as { error: string };
    expect(error).toContain(`integração ${orphan.id} (signing_secret, chave perdida: chave ausente de SECRETS_KEYS)`);
    expect(error).toContain("Não remova chaves de SECRETS_KEYS");
    expect((await storedRow(orphan.id)).signing_secret_encrypted).toBe(before);
    // The integration itself says so too, without printing anything secret.
    const shown = await cli(integrationSet("http://127.0.0.1:9/orfa"), ring("k2027"));
    expect(shown.code).toBe(1);
    expect(JSON.parse(shown.stderr)).toEqual({
      error: expect.stringContaining(`O segredo guardado da integração ${orphan.id} não pôde ser decifrado`),
    });
  });
});
