import { LRUCache } from "lru-cache";
import { listen, type Db, type Sql } from "@gw/db";
import { hashApiKey, isWellFormedApiKey, type AuthenticatedKey } from "./api-keys.ts";
import { scopesOfRow } from "./scopes.ts";

export interface BusinessNumberRef {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  displayNumber: string;
  isDefault: boolean;
  /** Meta's messaging rate of the number (messages/s): every send from it is paced by it (core/src/throughput). */
  messagingRatePerSecond: number;
  /** Set while Meta has banned, deleted or disconnected the number's WABA: sends are refused (core/src/health). */
  sendingBlock: SendingBlock | null;
  /** Its MARKETING templates go through Meta's Marketing Messages API (`/marketing_messages`), not `/messages`. */
  marketingMessages: boolean;
}

/** Why and since when sends from a WABA's numbers are refused (`account_disabled`). */
export interface SendingBlock {
  wabaId: string;
  /** Meta's time of the event that blocked it. */
  since: Date;
  /** Meta's event (DISABLED_UPDATE, ACCOUNT_DELETED, PARTNER_REMOVED...). */
  event: string;
  /** What happened, in Portuguese (the refusal's and the panel's sentence). */
  reason: string;
}

export interface DirectoryOptions {
  /** How long a key's lookup is trusted: a revocation takes effect within this time on every pod. */
  apiKeyTtlMs: number;
  /** How long an unknown key is remembered as unknown (fake keys then cost no query). */
  unknownKeyTtlMs: number;
  /**
   * How long a business number's lookup is trusted (numbers are added by the operator, rarely changed). Changes of a
   * number's rate and of its WABA's sending block are also announced (followRevocations), so this is the fallback.
   */
  numberTtlMs: number;
  maxEntries: number;
}

export const DEFAULT_DIRECTORY_OPTIONS: DirectoryOptions = {
  apiKeyTtlMs: 5_000,
  unknownKeyTtlMs: 2_000,
  numberTtlMs: 30_000,
  maxEntries: 10_000,
};

/**
 * Read-mostly account data every request needs (API keys, business numbers), cached per process with bounded
 * size and short TTLs; `forget*` drops entries at once when this process changes them. The cost of a request
 * is then one Redis call for the rate limit instead of two database round trips. Misses are loaded once even
 * when many requests ask at the same time.
 */
export interface AccountDirectory {
  authenticate(presentedKey: string): Promise<AuthenticatedKey | null>;
  /** The number named by `phoneNumberId` in the account, or the account's default number. */
  resolveNumber(accountId: string, phoneNumberId?: string | null): Promise<BusinessNumberRef | null>;
  /** Any account's number by Meta's id (provider webhooks). */
  numberById(phoneNumberId: string): Promise<BusinessNumberRef | null>;
  forgetKey(presentedKey: string): void;
  forgetAll(): void;
  /**
   * Follow revocations as they commit, so they take effect at once on every pod (the TTLs are only the fallback):
   * revoked API keys (PostgreSQL NOTIFY from a trigger on api_keys), and the numbers of an account whose sending
   * block or messaging rate changed (NOTIFY NUMBER_CHANGES_CHANNEL by the service that changed them). Returns the
   * function that stops listening.
   */
  followRevocations(): () => Promise<void>;
}

const UNKNOWN = Symbol("unknown");
/** Notified with the key's hash by the `api_keys_notify_change` trigger (see the hot_paths migration). */
const API_KEY_CHANGES_CHANNEL = "gw_api_key_changes";
/**
 * Notified, with the account's id, when the numbers of that account changed in a way a send must see at once: a
 * messaging rate, a WABA's sending block (`announceNumberChange`). Sent inside the change's transaction, so
 * PostgreSQL delivers it on commit.
 */
export const NUMBER_CHANGES_CHANNEL = "gw_number_changes";
// The WABA's sending block rides along with the number: the send's check costs no query of its own.
const NUMBER_COLUMNS = `SELECT n.account_id, n.phone_number_id, n.waba_id, n.display_number, n.is_default,
    n.messaging_rate_per_second, n.marketing_messages, h.sending_blocked_at, h.sending_block_event, h.sending_block_reason
  FROM business_numbers n
  LEFT JOIN waba_health h ON h.account_id = n.account_id AND h.waba_id = n.waba_id AND h.sending_blocked_at IS NOT NULL`;

interface NumberRow {
  account_id: string;
  phone_number_id: string;
  waba_id: string;
  display_number: string;
  is_default: boolean;
  messaging_rate_per_second: number;
  marketing_messages: boolean;
  sending_blocked_at: Date | null;
  sending_block_event: string | null;
  sending_block_reason: string | null;
}
type Cached<T> = T | typeof UNKNOWN;

// last_used_at is written at most once a minute per key, so authentication is not a write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

export function createAccountDirectory(
  db: Db,
  options: DirectoryOptions = DEFAULT_DIRECTORY_OPTIONS,
): AccountDirectory {
  const keys = new LRUCache<string, Cached<AuthenticatedKey>>({
    max: options.maxEntries,
    ttl: options.apiKeyTtlMs,
    fetchMethod: async (keyHash) => (await loadKey(keyHash)) ?? UNKNOWN,
  });
  const numbers = new LRUCache<string, Cached<BusinessNumberRef>>({
    max: options.maxEntries,
    ttl: options.numberTtlMs,
    fetchMethod: async (cacheKey) => {
      // [account, number] as JSON (no separator a value could contain): no account = any account's number by Meta's
      // id; no number = the account's default.
      const [accountId = "", phoneNumberId = ""] = JSON.parse(cacheKey) as [string, string];
      return (await loadNumber(accountId, phoneNumberId)) ?? UNKNOWN;
    },
  });
  const lastUsedWritten = new LRUCache<string, number>({ max: options.maxEntries, ttl: LAST_USED_RESOLUTION_MS });

  async function loadKey(keyHash: string): Promise<AuthenticatedKey | null> {
    const { rows } = await db.sql.query<{ id: string; account_id: string; scopes: string[] | null }>({
      name: "authenticate-api-key",
      text: `SELECT id, account_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
      values: [keyHash],
    });
    const row = rows[0];
    return row ? { keyId: row.id, accountId: row.account_id, scopes: scopesOfRow(row.scopes) } : null;
  }

  async function loadNumber(accountId: string, phoneNumberId: string): Promise<BusinessNumberRef | null> {
    const query =
      accountId === ""
        ? {
            name: "business-number-by-id",
            text: `${NUMBER_COLUMNS} WHERE n.phone_number_id = $1`,
            values: [phoneNumberId],
          }
        : phoneNumberId === ""
          ? {
              name: "business-number-default",
              text: `${NUMBER_COLUMNS} WHERE n.account_id = $1::uuid ORDER BY n.is_default DESC, n.created_at, n.id LIMIT 1`,
              values: [accountId],
            }
          : {
              name: "business-number-of-account",
              text: `${NUMBER_COLUMNS} WHERE n.account_id = $1::uuid AND n.phone_number_id = $2`,
              values: [accountId, phoneNumberId],
            };
    const { rows } = await db.sql.query<NumberRow>(query);
    const row = rows[0];
    return row
      ? {
          accountId: row.account_id,
          phoneNumberId: row.phone_number_id,
          wabaId: row.waba_id,
          displayNumber: row.display_number,
          isDefault: row.is_default,
          messagingRatePerSecond: row.messaging_rate_per_second,
          marketingMessages: row.marketing_messages,
          sendingBlock: row.sending_blocked_at
            ? {
                wabaId: row.waba_id,
                since: row.sending_blocked_at,
                event: row.sending_block_event ?? "",
                reason: row.sending_block_reason ?? "",
              }
            : null,
        }
      : null;
  }

  function markUsed(key: AuthenticatedKey): void {
    if (lastUsedWritten.has(key.keyId)) return;
    lastUsedWritten.set(key.keyId, Date.now());
    // Fire and forget: a failed bookkeeping write must not fail the request.
    db.sql
      .query({
        name: "api-key-used",
        text: `UPDATE api_keys SET last_used_at = now() WHERE id = $1::uuid`,
        values: [key.keyId],
      })
      .catch(() => undefined);
  }

  /** Drops every cached number of the account (by account and by Meta's id alike). */
  function forgetAccountNumbers(accountId: string): void {
    // Keys first (no deletion while iterating); a lookup still in flight may be of that account: dropped too.
    for (const key of [...numbers.keys()]) {
      const value = numbers.peek(key, { allowStale: true });
      if (value === undefined || value === UNKNOWN || value.accountId === accountId) numbers.delete(key);
    }
  }

  async function fetchFound<T extends object>(
    cache: LRUCache<string, Cached<T>>,
    key: string,
    unknownTtlMs?: number,
  ): Promise<T | null> {
    // A NOTIFY (revocation) or a reconnect may drop the entry while it is being fetched, which aborts that fetch:
    // fetch once more, so the request gets the fresh answer instead of an error.
    const value = await cache.fetch(key).catch(() => cache.fetch(key));
    if (value === undefined || value === UNKNOWN) {
      // Unknowns are kept only as long as asked (keys: briefly; numbers: not at all, a new number must work at once).
      if (unknownTtlMs) cache.set(key, UNKNOWN, { ttl: unknownTtlMs });
      else cache.delete(key);
      return null;
    }
    return value;
  }

  return {
    async authenticate(presentedKey) {
      // The lookup is by SHA-256 hash, so no comparison ever runs on the secret itself.
      if (!isWellFormedApiKey(presentedKey)) return null;
      const found = await fetchFound(keys, hashApiKey(presentedKey), options.unknownKeyTtlMs);
      if (found) markUsed(found);
      return found;
    },
    resolveNumber(accountId, phoneNumberId) {
      return fetchFound(numbers, JSON.stringify([accountId, phoneNumberId ?? ""]));
    },
    numberById(phoneNumberId) {
      return fetchFound(numbers, JSON.stringify(["", phoneNumberId]));
    },
    forgetKey(presentedKey) {
      keys.delete(hashApiKey(presentedKey));
    },
    forgetAll() {
      keys.clear();
      numbers.clear();
    },
    followRevocations() {
      // One session for both channels: PostgreSQL's connection budget counts one LISTEN session per pod.
      const listener = listen(
        db.sql,
        {
          [API_KEY_CHANGES_CHANNEL]: (keyHash) => keys.delete(keyHash),
          [NUMBER_CHANGES_CHANNEL]: (accountId) => forgetAccountNumbers(accountId),
        },
        () => {
          keys.clear();
          numbers.clear();
        },
      );
      return () => listener.close();
    },
  };
}

/**
 * Inside the transaction that changed them: tells every pod's directory to drop the account's cached numbers once
 * it commits (a new messaging rate, a WABA blocked or unblocked), so the next send reads them again.
 */
export async function announceNumberChange(sql: Sql, accountId: string): Promise<void> {
  await sql.query({
    name: "announce-number-change",
    text: `SELECT pg_notify($1, $2)`,
    values: [NUMBER_CHANGES_CHANNEL, accountId],
  });
}
