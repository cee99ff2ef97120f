import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import {
  createDelivery,
  isolatedDatabase,
  signatureIsValid,
  testActor,
  testSecretBox,
  type Fixture,
  type ReceivedRequest,
  testEnv,
} from "@gw/testkit";
import { safeEqual, signWebhook } from "@gw/signer";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  SecretUnreadableError,
  createAccount,
  createSecretBox,
  revealIntegrationSecret,
  rotateIntegrationSecret,
  setIntegration,
  type SecretBox,
} from "../src/accounts/index.ts";
import type { Actor } from "../src/audit/index.ts";
import {
  clearExpiredPreviousSecrets,
  createCachedSecretBox,
  processDeliveryAttempt,
  reencryptIntegrationSecrets,
  type ProcessDeliveryDeps,
} from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

// Integrations' signing secrets at rest: sealed with the key ring (SECRETS_KEYS), never in clear text in the table,
// opened where they are used (the attempt's signature, the panel's reveal, a rotation), re-sealed by
// `secrets rotate-key`, and refused (fail closed) when a stored value was altered or moved.

const HOUR = 3_600_000;
const policy = DEVELOPMENT_INTEGRATION_POLICY;
const cli: Actor = { id: "cli:operadora", origin: "cli" };
const secrets = testSecretBox();

// Deliveries whose secret does not open stay due: in a database of their own, no other test file's dispatcher sweeps
// them up.
let bed: AttemptBed;

beforeAll(async () => {
  bed = await openAttemptBed(testEnv(), { database: await isolatedDatabase() });
});

afterAll(async () => {
  await bed.close();
});

function attemptDeps(database: Db, box: Pick<SecretBox, "open">): ProcessDeliveryDeps {
  return { ...bed.deps, db: database, secrets: box };
}

/** The integration's row as PostgreSQL holds it, every column as text. */
async function rawRow(database: Db, integrationId: string): Promise<Record<string, string | null>> {
  const { rows } = await database.sql.query<{ row: Record<string, string | null> }>(
    `SELECT row_to_json(i) AS row FROM integrations i WHERE id = $1::uuid`,
    [integrationId],
  );
  return rows[0]!.row;
}

/** An integration of a fresh account, saved through the service (its secret sealed with `box`). */
async function savedIntegration(database: Db, box: SecretBox, url = bed.receiver.url) {
  const account = await createAccount(
    { db: database },
    { actor: testActor, name: `Conta ${randomBytes(3).toString("hex")}` },
  );
  const saved = await setIntegration(
    { db: database, policy, secrets: box },
    { actor: testActor, accountId: account.id, url, events: ["message.status"] },
  );
  const fixture: Fixture = { accountId: account.id, integrationId: saved.id, secret: saved.signing_secret };
  return fixture;
}

/** A row as the previous release wrote it: the secret in clear text, nothing sealed. */
async function clearTextIntegration(database: Db, url = bed.receiver.url): Promise<Fixture> {
  const account = await createAccount({ db: database }, { actor: testActor, name: "Conta legada" });
  const id = randomUUID();
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  await database.sql.query(
    `INSERT INTO integrations (id, account_id, url, events, signing_secret) VALUES ($1, $2, $3, '{message.status}', $4)`,
    [id, account.id, url, secret],
  );
  return { accountId: account.id, integrationId: id, secret };
}

/** One attempt of a fresh delivery; the request the receiver got, or null when none was sent. */
async function attempt(
  database: Db,
  box: Pick<SecretBox, "open">,
  fixture: Fixture,
): Promise<{ request: ReceivedRequest | null; deliveryId: bigint; error: unknown }> {
  const before = bed.receiver.requests.length;
  const delivery = await createDelivery(database, fixture);
  const error = await processDeliveryAttempt(attemptDeps(database, box), {
    deliveryId: delivery.id.toString(),
    attempt: 1,
  }).then(
    () => null,
    (caught: unknown) => caught,
  );
  return { request: bed.receiver.requests[before] ?? null, deliveryId: delivery.id, error };
}

function previousVerifies(secret: string, request: ReceivedRequest): boolean {
  const timestamp = request.headers["x-pt-timestamp"];
  const signature = request.headers["x-pt-signature-previous"];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  return safeEqual(signWebhook(secret, timestamp, request.body), signature);
}

/** Change one byte of a sealed value's ciphertext, in place in the table. */
async function alterStored(database: Db, integrationId: string, column: string): Promise<void> {
  const row = await rawRow(database, integrationId);
  const parts = row[column]!.split(":");
  const bytes = Buffer.from(parts[3]!, "base64url");
  bytes[3] = bytes[3]! ^ 0x20;
  parts[3] = bytes.toString("base64url");
  await database.sql.query(`UPDATE integrations SET ${column} = $2 WHERE id = $1::uuid`, [
    integrationId,
    parts.join(":"),
  ]);
}

async function expectUnreadable(promise: Promise<unknown>, reason: SecretUnreadableError["reason"]) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SecretUnreadableError);
  expect((error as SecretUnreadableError).reason).toBe(reason);
}

describe("signing secrets at rest", () => {
  it("are stored only sealed: the raw row never holds the secret, current or previous, and the services still give it", async () => {
    const fixture = await savedIntegration(bed.db, secrets);
    expect(fixture.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const created = await rawRow(bed.db, fixture.integrationId);
    expect(created.signing_secret).toBeNull();
    expect(created.signing_secret_encrypted).toMatch(new RegExp(`^v1:${secrets.currentKeyId}:`));
    expect(JSON.stringify(created)).not.toContain(fixture.secret);
    expect(JSON.stringify(created)).not.toContain(fixture.secret.slice(6, 30));

    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 2 },
    );
    const newSecret = rotated!.signing_secret;
    const row = JSON.stringify(await rawRow(bed.db, fixture.integrationId));
    for (const secret of [fixture.secret, newSecret]) expect(row).not.toContain(secret);
    expect(await rawRow(bed.db, fixture.integrationId)).toMatchObject({
      signing_secret: null,
      previous_signing_secret: null,
      previous_signing_secret_encrypted: expect.stringMatching(/^v1:/),
    });

    expect(
      await revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: fixture.accountId, integrationId: fixture.integrationId },
      ),
    ).toMatchObject({ signing_secret: newSecret });
    const { request } = await attempt(bed.db, secrets, fixture);
    expect(request && signatureIsValid(newSecret, request)).toBe(true);
    expect(request && previousVerifies(fixture.secret, request)).toBe(true);
  });

  it("fail closed on an altered value: nothing is sent nor spent, nothing revealed; a rotation without overlap replaces it", async () => {
    const fixture = await savedIntegration(bed.db, secrets);
    await alterStored(bed.db, fixture.integrationId, "signing_secret_encrypted");

    const { request, deliveryId, error } = await attempt(bed.db, secrets, fixture);
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect((error as SecretUnreadableError).reason).toBe("rejected");
    expect((error as Error).message).toContain(fixture.integrationId);
    expect(request).toBeNull();
    // The claim is given back: the same attempt runs again once the secret is fixed.
    expect(await bed.db.delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: "pending",
      attemptCount: 0,
    });

    await expectUnreadable(
      revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: fixture.accountId, integrationId: fixture.integrationId },
      ),
      "rejected",
    );
    expect(
      await bed.db.auditEntry.count({
        where: { target: `integration:${fixture.integrationId}`, action: "system.integration.secret_revealed" },
      }),
    ).toBe(0);
    // An overlap would need the altered secret; a leak-style rotation needs nothing old.
    await expectUnreadable(
      rotateIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, integrationId: fixture.integrationId, overlapHours: 1 },
      ),
      "rejected",
    );
    const replaced = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 0 },
    );
    const retried = await processDeliveryAttempt(attemptDeps(bed.db, secrets), {
      deliveryId: deliveryId.toString(),
      attempt: 1,
    });
    expect(retried.outcome).toBe("delivered");
    const sent = bed.receiver.requests.find((r) => r.headers["x-pt-delivery-id"] === deliveryId.toString());
    expect(sent && signatureIsValid(replaced!.signing_secret, sent)).toBe(true);
  });

  it("refuse a sealed value moved from another integration's row, or from the previous column to the current", async () => {
    const victim = await savedIntegration(bed.db, secrets);
    const other = await savedIntegration(bed.db, secrets);
    const foreign = (await rawRow(bed.db, other.integrationId)).signing_secret_encrypted;
    await bed.db.sql.query(`UPDATE integrations SET signing_secret_encrypted = $2 WHERE id = $1::uuid`, [
      victim.integrationId,
      foreign,
    ]);
    const moved = await attempt(bed.db, secrets, victim);
    expect(moved.request).toBeNull();
    expect((moved.error as SecretUnreadableError).reason).toBe("rejected");
    await expectUnreadable(
      revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: victim.accountId, integrationId: victim.integrationId },
      ),
      "rejected",
    );

    // Its own previous secret (sealed for the previous column) does not open as the current one either.
    await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: other.integrationId, overlapHours: 1 },
    );
    await bed.db.sql.query(
      `UPDATE integrations SET signing_secret_encrypted = previous_signing_secret_encrypted WHERE id = $1::uuid`,
      [other.integrationId],
    );
    const swapped = await attempt(bed.db, secrets, other);
    expect(swapped.request).toBeNull();
    expect((swapped.error as SecretUnreadableError).reason).toBe("rejected");
  });

  it("a row stored in clear text by the previous release still signs and reveals; its clear write into a sealed row is refused", async () => {
    const legacy = await clearTextIntegration(bed.db);
    const before = await attempt(bed.db, secrets, legacy);
    expect(before.request && signatureIsValid(legacy.secret, before.request)).toBe(true);
    expect(
      await revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: legacy.accountId, integrationId: legacy.integrationId },
      ),
    ).toMatchObject({ signing_secret: legacy.secret });
    // A previous-release pod's rotation of an already sealed row is refused, not mixed in.
    const sealed = await savedIntegration(bed.db, secrets);
    await expect(
      bed.db.sql.query(`UPDATE integrations SET signing_secret = 'whsec_da_versao_anterior' WHERE id = $1::uuid`, [
        sealed.integrationId,
      ]),
    ).rejects.toThrow(/integrations_signing_secret_one_form/);
  });

  it("a previous secret is forgotten once its overlap has ended, and kept while it lasts", async () => {
    const ended = await savedIntegration(bed.db, secrets);
    await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: ended.integrationId, overlapHours: 1, now: new Date(Date.now() - 3 * HOUR) },
    );
    const live = await savedIntegration(bed.db, secrets);
    await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: live.integrationId, overlapHours: 1 },
    );
    expect((await rawRow(bed.db, ended.integrationId)).previous_signing_secret_encrypted).not.toBeNull();

    expect(await clearExpiredPreviousSecrets({ db: bed.db })).toBe(1);
    expect(await rawRow(bed.db, ended.integrationId)).toMatchObject({
      previous_signing_secret: null,
      previous_signing_secret_encrypted: null,
      previous_secret_expires_at: null,
    });
    expect((await rawRow(bed.db, live.integrationId)).previous_signing_secret_encrypted).toMatch(/^v1:/);
    expect((await rawRow(bed.db, live.integrationId)).previous_secret_expires_at).not.toBeNull();
  });

  it("the dispatcher's cache opens a rotated secret as the new one (keyed by the sealed value, never stale)", async () => {
    const cached = createCachedSecretBox(secrets);
    const fixture = await savedIntegration(bed.db, secrets);
    const first = await attempt(bed.db, cached, fixture);
    expect(first.request && signatureIsValid(fixture.secret, first.request)).toBe(true);
    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 0 },
    );
    const second = await attempt(bed.db, cached, fixture);
    expect(second.request && signatureIsValid(rotated!.signing_secret, second.request)).toBe(true);
    expect(second.request && signatureIsValid(fixture.secret, second.request)).toBe(false);
  });
});

describe("secrets rotate-key (reencryptIntegrationSecrets)", () => {
  // It reads the whole integrations table: a database of its own.
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  const oldKey = { id: "k2026", key: randomBytes(32) };
  const newKey = { id: "k2027", key: randomBytes(32) };
  const oldRing = createSecretBox([oldKey]);
  // During the switch both keys are configured, the new one first.
  const switching = createSecretBox([newKey, oldKey]);
  const newOnly = createSecretBox([newKey]);

  beforeAll(async () => {
    database = await isolatedDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it("re-seals every secret under the new key in bounded batches, audited, idempotent; the old key can then go", async () => {
    const { db: isolated } = database;
    const plain = await Promise.all([1, 2, 3].map(() => savedIntegration(isolated, oldRing)));
    const overlapping = await savedIntegration(isolated, oldRing);
    const rotated = await rotateIntegrationSecret(
      { db: isolated, secrets: oldRing },
      { actor: testActor, integrationId: overlapping.integrationId, overlapHours: 24 },
    );
    const ended = await savedIntegration(isolated, oldRing);
    const endedRotation = await rotateIntegrationSecret(
      { db: isolated, secrets: oldRing },
      { actor: testActor, integrationId: ended.integrationId, overlapHours: 1, now: new Date(Date.now() - 3 * HOUR) },
    );
    const legacy = await clearTextIntegration(isolated);
    // Before: the new-key-only ring opens none of them.
    const refused = await attempt(isolated, newOnly, plain[0]!);
    expect((refused.error as SecretUnreadableError).reason).toBe("unknown_key");

    const report = await reencryptIntegrationSecrets(
      { db: isolated, secrets: switching },
      { actor: cli, batchSize: 2 },
    );
    expect(report).toEqual({
      key_id: "k2027",
      integrations: 6,
      sealed_from_clear_text: 1,
      // Five current secrets and the live previous one.
      reencrypted: 6,
      previous_cleared: 1,
      unreadable: [],
      batches: 3,
    });

    const rows = await isolated.sql.query<{ row: Record<string, string | null> }>(
      `SELECT row_to_json(i) AS row FROM integrations i`,
    );
    for (const { row } of rows.rows) {
      expect(row.signing_secret).toBeNull();
      expect(row.signing_secret_encrypted).toMatch(/^v1:k2027:/);
      if (row.previous_signing_secret_encrypted !== null)
        expect(row.previous_signing_secret_encrypted).toMatch(/^v1:k2027:/);
      expect(JSON.stringify(row)).not.toContain(legacy.secret);
    }
    expect(await rawRow(isolated, ended.integrationId)).toMatchObject({
      previous_signing_secret_encrypted: null,
      previous_secret_expires_at: null,
    });

    // The old key removed from the ring: everything still opens, signs and reveals.
    for (const fixture of [...plain, { ...ended, secret: endedRotation!.signing_secret }, legacy]) {
      const { request } = await attempt(isolated, newOnly, fixture);
      expect(request && signatureIsValid(fixture.secret, request)).toBe(true);
    }
    const overlap = await attempt(isolated, newOnly, overlapping);
    expect(overlap.request && signatureIsValid(rotated!.signing_secret, overlap.request)).toBe(true);
    expect(overlap.request && previousVerifies(overlapping.secret, overlap.request)).toBe(true);
    expect(
      await revealIntegrationSecret(
        { db: isolated, secrets: newOnly },
        { actor: testActor, accountId: legacy.accountId, integrationId: legacy.integrationId },
      ),
    ).toMatchObject({ signing_secret: legacy.secret });

    const audits = await isolated.auditEntry.findMany({ where: { action: "cli.secrets.reencrypted" } });
    expect(audits).toHaveLength(3);
    expect(audits.every((entry) => entry.actor === "cli:operadora" && entry.accountId === null)).toBe(true);
    const details = audits.map((entry) => entry.details as Record<string, number>);
    expect(details.reduce((sum, d) => sum + (d.reencrypted ?? 0) + (d.sealed_from_clear_text ?? 0), 0)).toBe(7);
    expect(JSON.stringify(details)).not.toContain("whsec_");

    const again = await reencryptIntegrationSecrets({ db: isolated, secrets: newOnly }, { actor: cli, batchSize: 2 });
    expect(again).toMatchObject({ integrations: 0, sealed_from_clear_text: 0, reencrypted: 0, batches: 0 });
    expect(await isolated.auditEntry.count({ where: { action: "cli.secrets.reencrypted" } })).toBe(3);
  });

  it("reports a value it cannot open and leaves it as it is, doing the rest", async () => {
    const { db: isolated } = database;
    const lost = createSecretBox([{ id: "perdida", key: randomBytes(32) }]);
    const orphan = await savedIntegration(isolated, lost);
    const storedBefore = (await rawRow(isolated, orphan.integrationId)).signing_secret_encrypted;
    const fine = await savedIntegration(isolated, oldRing);

    const report = await reencryptIntegrationSecrets({ db: isolated, secrets: switching }, { actor: cli });
    expect(report.unreadable).toEqual([
      { integration_id: orphan.integrationId, field: "signing_secret", reason: "unknown_key", key_id: "perdida" },
    ]);
    expect(report.reencrypted).toBe(1);
    expect((await rawRow(isolated, orphan.integrationId)).signing_secret_encrypted).toBe(storedBefore);
    expect((await rawRow(isolated, fine.integrationId)).signing_secret_encrypted).toMatch(/^v1:k2027:/);
  });
});
