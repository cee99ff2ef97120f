// Integrations' signing secrets at rest: sealed with the key ring of SECRETS_KEYS (@gw/signer's secret box), each
// value bound to its row and column. What reads them (the dispatcher's signing, the reveal, a rotation) opens them
// here; what re-seals them (a key rotation, rows stored before encryption) and clears a previous secret once its
// overlap ended lives here too.
import { inTransaction, type Db } from "@gw/db";
import { SecretUnreadableError, sealedKeyId, type SecretBox, type SecretPlace } from "@gw/signer";
import { LRUCache } from "lru-cache";
import { auditAction, recordAudit, type Actor } from "../../audit/audit.ts";

export type IntegrationSecretField = "signing_secret" | "previous_signing_secret";

/** The authenticated place of an integration's secret: its row and column. */
export function integrationSecretPlace(integrationId: string, field: IntegrationSecretField): SecretPlace {
  return { table: "integrations", id: integrationId, field };
}

/**
 * A secret as a row holds it: sealed, or in clear text when the row was written before encryption and
 * `pnpm gateway secrets rotate-key` has not sealed it yet (a CHECK constraint keeps at most one of the two).
 */
export interface StoredSecret {
  sealed: string | null;
  clear: string | null;
}

/**
 * The secret a row holds, or null when it holds none. A sealed value is the only one read when present; it opens
 * with the key it names or throws SecretUnreadableError (never some other value).
 */
export function openIntegrationSecret(
  box: Pick<SecretBox, "open">,
  integrationId: string,
  field: IntegrationSecretField,
  stored: StoredSecret,
): string | null {
  if (stored.sealed !== null) return box.open(stored.sealed, integrationSecretPlace(integrationId, field));
  return stored.clear;
}

/** The current secret, which every integration has; an empty row is as unreadable as a corrupt one. */
export function openCurrentSigningSecret(
  box: Pick<SecretBox, "open">,
  integrationId: string,
  stored: StoredSecret,
): string {
  const secret = openIntegrationSecret(box, integrationId, "signing_secret", stored);
  if (secret === null)
    throw new SecretUnreadableError("malformed", integrationSecretPlace(integrationId, "signing_secret"), null);
  return secret;
}

export function sealIntegrationSecret(
  box: Pick<SecretBox, "seal">,
  integrationId: string,
  field: IntegrationSecretField,
  secret: string,
): string {
  return box.seal(secret, integrationSecretPlace(integrationId, field));
}

/** What an attempt signs with: the current secret, and the previous one while its overlap lasts (at `at`). */
export function integrationSigningSecrets(
  box: Pick<SecretBox, "open">,
  row: { integrationId: string; current: StoredSecret; previous: StoredSecret; previousExpiresAt: Date | null },
  at: Date,
): { current: string; previous: string | null } {
  const current = openCurrentSigningSecret(box, row.integrationId, row.current);
  const overlapping = row.previousExpiresAt !== null && row.previousExpiresAt > at;
  const previous = overlapping
    ? openIntegrationSecret(box, row.integrationId, "previous_signing_secret", row.previous)
    : null;
  return { current, previous };
}

/**
 * A box whose `open` keeps what it decrypted, for the dispatcher (every attempt signs). The cache key is the sealed
 * value with its place: a new secret (or a re-encryption) is a new value, so nothing stale is ever served; the TTL
 * only bounds how long an unused secret stays in memory. Failures are not kept.
 */
export function createCachedSecretBox(box: SecretBox, options: { max?: number; ttlMs?: number } = {}): SecretBox {
  const cache = new LRUCache<string, string>({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 600_000 });
  return {
    currentKeyId: box.currentKeyId,
    seal: (plaintext, place) => box.seal(plaintext, place),
    open(sealed, place) {
      const key = `${place.table}\n${place.id}\n${place.field}\n${sealed}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const opened = box.open(sealed, place);
      cache.set(key, opened);
      return opened;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Housekeeping

/**
 * Forget previous secrets whose rotation overlap has ended (deliveries stopped signing with them then); also a
 * previous secret left without an end. Run by the dispatcher's housekeeping loop; returns the integrations changed.
 */
export async function clearExpiredPreviousSecrets(deps: { db: Db }, input: { now?: Date } = {}): Promise<number> {
  const { rowCount } = await deps.db.sql.query({
    name: "clear-expired-previous-secrets",
    text: `UPDATE integrations SET previous_signing_secret = NULL, previous_signing_secret_encrypted = NULL,
        previous_secret_expires_at = NULL
      WHERE (previous_signing_secret IS NOT NULL OR previous_signing_secret_encrypted IS NOT NULL
          OR previous_secret_expires_at IS NOT NULL)
        AND (previous_secret_expires_at IS NULL OR previous_secret_expires_at <= $1)`,
    values: [input.now ?? new Date()],
  });
  return rowCount ?? 0;
}

/** A value `reencryptIntegrationSecrets` could not open: left as it is, for the operator to look at. */
export interface UnreadableSecret {
  integration_id: string;
  field: IntegrationSecretField;
  reason: SecretUnreadableError["reason"];
  key_id: string | null;
}

export interface ReencryptReport {
  /** The key every secret is now sealed with (SECRETS_KEYS' first). */
  key_id: string;
  /** Integrations that needed something (examined). */
  integrations: number;
  /** Secrets that were in clear text (stored before encryption), now sealed. */
  sealed_from_clear_text: number;
  /** Secrets sealed with another key, now sealed with `key_id`. */
  reencrypted: number;
  /** Previous secrets whose overlap had ended, removed instead of re-sealed. */
  previous_cleared: number;
  unreadable: UnreadableSecret[];
  batches: number;
}

interface SecretRow {
  id: string;
  account_id: string;
  signing_secret: string | null;
  signing_secret_encrypted: string | null;
  previous_signing_secret: string | null;
  previous_signing_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
}

// Rows with anything to do: a clear value, a value sealed with another key (or not a sealed value at all), a previous
// secret past its overlap. Keyset-paged by id, so a value that cannot be opened is reported once, not looped on.
const SELECT_BATCH = `
SELECT id::text, account_id::text, signing_secret, signing_secret_encrypted, previous_signing_secret,
  previous_signing_secret_encrypted, previous_secret_expires_at
FROM integrations
WHERE id > $1::uuid AND (
  signing_secret IS NOT NULL OR previous_signing_secret IS NOT NULL
  OR split_part(signing_secret_encrypted, ':', 2) <> $2
  OR split_part(previous_signing_secret_encrypted, ':', 2) <> $2
  OR (previous_secret_expires_at IS NULL) <> (previous_signing_secret_encrypted IS NULL)
  OR previous_secret_expires_at <= $3)
ORDER BY id
LIMIT $4
FOR UPDATE`;

const UPDATE_ROW = `
UPDATE integrations SET signing_secret = $2, signing_secret_encrypted = $3, previous_signing_secret = NULL,
  previous_signing_secret_encrypted = $4, previous_secret_expires_at = $5
WHERE id = $1::uuid`;

/**
 * Bring every stored signing secret under the current key (`pnpm gateway secrets rotate-key`): seal the ones still
 * in clear text (rows stored before encryption), re-seal the ones sealed with another key, drop previous secrets
 * whose overlap ended. In batches of `batchSize` integrations, each its own transaction with its audit entry
 * (`<origin>.secrets.reencrypted`, counts and key id only). Idempotent: a second run finds nothing to do. A value
 * that cannot be opened (its key left SECRETS_KEYS, or it was altered) is left as it is and reported.
 */
export async function reencryptIntegrationSecrets(
  deps: { db: Db; secrets: SecretBox },
  input: { actor: Actor; batchSize?: number; now?: Date },
): Promise<ReencryptReport> {
  const box = deps.secrets;
  const keyId = box.currentKeyId;
  const batchSize = Math.min(Math.max(input.batchSize ?? 200, 1), 5_000);
  const now = input.now ?? new Date();
  const report: ReencryptReport = {
    key_id: keyId,
    integrations: 0,
    sealed_from_clear_text: 0,
    reencrypted: 0,
    previous_cleared: 0,
    unreadable: [],
    batches: 0,
  };
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const done = await inTransaction(deps.db.sql, async (client) => {
      const { rows } = await client.query<SecretRow>(SELECT_BATCH, [after, keyId, now, batchSize]);
      const batch = { sealed: 0, reencrypted: 0, cleared: 0, changed: 0 };
      for (const row of rows) {
        // Re-seal one value under the current key; null when it cannot be opened (reported, left unchanged).
        const reseal = (field: IntegrationSecretField, stored: StoredSecret): string | null => {
          if (stored.sealed !== null && stored.clear === null && sealedKeyId(stored.sealed) === keyId)
            return stored.sealed;
          try {
            const secret = openIntegrationSecret(box, row.id, field, stored);
            if (secret === null) return null;
            if (stored.sealed === null) batch.sealed += 1;
            else batch.reencrypted += 1;
            return sealIntegrationSecret(box, row.id, field, secret);
          } catch (error) {
            if (!(error instanceof SecretUnreadableError)) throw error;
            report.unreadable.push({ integration_id: row.id, field, reason: error.reason, key_id: error.keyId });
            return null;
          }
        };
        const current = reseal("signing_secret", {
          sealed: row.signing_secret_encrypted,
          clear: row.signing_secret,
        });
        const previousLive =
          row.previous_secret_expires_at !== null &&
          row.previous_secret_expires_at > now &&
          (row.previous_signing_secret !== null || row.previous_signing_secret_encrypted !== null);
        const previous = previousLive
          ? reseal("previous_signing_secret", {
              sealed: row.previous_signing_secret_encrypted,
              clear: row.previous_signing_secret,
            })
          : null;
        if (!previousLive && (row.previous_signing_secret ?? row.previous_signing_secret_encrypted) !== null)
          batch.cleared += 1;
        // A current secret that cannot be opened keeps its stored form; an unreadable previous one is dropped only
        // when its overlap is over (above), else kept as it is.
        const keepPrevious = previousLive && previous === null;
        await client.query(UPDATE_ROW, [
          row.id,
          current === null ? row.signing_secret : null,
          current ?? row.signing_secret_encrypted,
          keepPrevious ? row.previous_signing_secret_encrypted : previous,
          previousLive ? row.previous_secret_expires_at : null,
        ]);
        batch.changed += 1;
      }
      if (batch.sealed + batch.reencrypted + batch.cleared > 0)
        await recordAudit(client, {
          accountId: null,
          actor: input.actor,
          action: auditAction(input.actor, "secrets.reencrypted"),
          target: "integrations",
          details: {
            key_id: keyId,
            integrations: batch.changed,
            sealed_from_clear_text: batch.sealed,
            reencrypted: batch.reencrypted,
            previous_cleared: batch.cleared,
          },
        });
      report.integrations += rows.length;
      report.sealed_from_clear_text += batch.sealed;
      report.reencrypted += batch.reencrypted;
      report.previous_cleared += batch.cleared;
      if (rows.length > 0) report.batches += 1;
      const last = rows.at(-1);
      if (last) after = last.id;
      return rows.length < batchSize;
    });
    if (done) return report;
  }
}
