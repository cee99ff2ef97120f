// Database state for the benches. Accounts, numbers, keys and integrations go through the production services
// of @gw/core (as the CLI creates them); the bulk rows a bench starts from (sent messages, pending deliveries)
// are inserted with one set-based SQL statement per chunk, in the shapes the services write.
import { randomBytes } from "node:crypto";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  addBusinessNumber,
  createAccount,
  createApiKey,
  setIntegration,
  type WebhookEvent,
} from "@gw/core/accounts";
import type { Actor } from "@gw/core/audit";
import { setNumberMessagingRate } from "@gw/core/throughput";
import type { Db } from "@gw/db";
import { testSecretBox } from "@gw/testkit";

/** The benches' set-up, as the audit trail names it. */
export const BENCH: Actor = { id: "system:bench", origin: "system" };

export interface BenchAccount {
  accountId: string;
  apiKey: string;
  phoneNumberId: string;
  wabaId: string;
  auth: { authorization: string };
  integration: { id: string; url: string; signingSecret: string } | null;
  /** The number's messaging rate (business_numbers.messaging_rate_per_second), the tier the bench measures. */
  ratePerSecond: number;
}

/**
 * The tier a bench measures unless it is about pacing: Meta's highest (1 000/s). A number left at Meta's default
 * 80/s would make a send bench measure the pacer (429 past 80/s), not the send.
 */
export const BENCH_TIER = 1_000;

/** 15-digit Meta-like ids: phone_number_id starts with 1, WABA id with 2. */
function metaId(first: string): string {
  return `${first}${randomBytes(7).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
}

/**
 * An account with one business number at `ratePerSecond` (default BENCH_TIER) and one API key; with
 * `integrationUrl`, one active integration.
 */
export async function seedAccount(
  db: Db,
  options: { name: string; integrationUrl?: string; events?: WebhookEvent[]; ratePerSecond?: number },
): Promise<BenchAccount> {
  const account = await createAccount({ db }, { actor: BENCH, name: options.name });
  const phoneNumberId = metaId("1");
  const wabaId = metaId("2");
  await addBusinessNumber(
    { db },
    { actor: BENCH, accountId: account.id, phoneNumberId, wabaId, displayNumber: "+55 11 4000-0000" },
  );
  const ratePerSecond = options.ratePerSecond ?? BENCH_TIER;
  await setNumberMessagingRate({ db }, { actor: BENCH, phoneNumberId, ratePerSecond });
  const key = await createApiKey({ db }, { actor: BENCH, accountId: account.id });
  let integration: BenchAccount["integration"] = null;
  if (options.integrationUrl) {
    // Bench receivers listen on loopback: the development policy.
    const row = await setIntegration(
      { db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      {
        actor: BENCH,
        accountId: account.id,
        url: options.integrationUrl,
        events: options.events ?? ["message.status"],
      },
    );
    integration = { id: row.id, url: row.url, signingSecret: row.signing_secret };
  }
  return {
    accountId: account.id,
    apiKey: key.key,
    phoneNumberId,
    wabaId,
    auth: { authorization: `Bearer ${key.key}` },
    integration,
    ratePerSecond,
  };
}

/** A realistic wamid: `wamid.` + base64 of the recipient and a per-message suffix, like Meta's ids. */
export function wamidFor(contact: string, tag: string, i: number): string {
  return `wamid.${Buffer.from(`${contact}_${tag}${String(i).padStart(9, "0")}`).toString("base64")}`;
}

export const BENCH_CONTACT = "5511987654321";

/** The i-th of a bench's distinct recipients: a Brazilian mobile's 13 digits. */
export function contactNumber(i: number): string {
  return `55119${String(10_000_000 + i)}`;
}

/** Open the 24 h window of each contact on the number, as an inbound message would (free text needs it). */
export async function openWindows(db: Db, phoneNumberId: string, contacts: readonly string[]): Promise<void> {
  await db.$executeRaw`
    INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
    SELECT ${phoneNumberId}, c, now(), now() + interval '24 hours' FROM unnest(${[...contacts]}::text[]) AS c
    ON CONFLICT (phone_number_id, contact) DO UPDATE SET last_inbound_at = EXCLUDED.last_inbound_at,
      expires_at = EXCLUDED.expires_at`;
}

/**
 * `count` text messages the provider has accepted and reported `sent` (what a send leaves once Meta's first
 * status arrived), with wamids wamidFor(BENCH_CONTACT, tag, 0..count-1). Returns those wamids.
 */
export async function seedSentMessages(db: Db, account: BenchAccount, tag: string, count: number): Promise<string[]> {
  const wamids = Array.from({ length: count }, (_, i) => wamidFor(BENCH_CONTACT, tag, i));
  for (let from = 0; from < count; from += 10_000) {
    const chunk = wamids.slice(from, from + 10_000);
    await db.$executeRaw`
      INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, client_ref, request_id, created_at, status_at)
      SELECT ${account.accountId}::uuid, ${account.phoneNumberId}, ${BENCH_CONTACT}, w, 'text', 'sent', ${`bench-${tag}-`} || ord, 'bench',
             now() - interval '1 minute', now() - interval '1 minute'
      FROM unnest(${chunk}::text[]) WITH ORDINALITY AS t(w, ord)`;
  }
  return wamids;
}

export interface PendingDeliveriesOptions {
  account: BenchAccount;
  count: number;
  /** Attempts already made (0 = a fresh delivery whose attempt 1 is due now). */
  attemptCount: number;
  /** next_attempt_at = now() + uniform(min, max) seconds. */
  dueInSeconds: { min: number; max: number };
  /** Also insert the delivery_attempts rows of the attempts already made (a 503 each). */
  withAttemptRows: boolean;
  /** Rows per INSERT (progress is printed per chunk). */
  chunk?: number;
  onProgress?: (inserted: number) => void;
}

/**
 * Pending `message.status` deliveries for the account's integration, as the outbox writes them: the body is
 * the envelope of spec 2.7 with its own delivery_id, serialized as JSON.stringify would. A delivery with
 * attempts behind it carries the last failure (503 http_status) like the dispatcher leaves it. Returns the
 * range of ids inserted (ids are consecutive in a fresh database, but read them back to be sure).
 */
export async function seedPendingDeliveries(
  db: Db,
  options: PendingDeliveriesOptions,
): Promise<{ minId: bigint; maxId: bigint; count: number }> {
  const { account } = options;
  if (!account.integration) throw new Error("seedPendingDeliveries needs an account with an integration");
  const chunk = options.chunk ?? 50_000;
  const failed = options.attemptCount > 0;
  let inserted = 0;
  while (inserted < options.count) {
    const n = Math.min(chunk, options.count - inserted);
    await db.$executeRaw`
      WITH ids AS (
        SELECT nextval(pg_get_serial_sequence('deliveries', 'id')) AS id, g,
               now() + make_interval(secs => ${options.dueInSeconds.min}::float8 + random() * ${options.dueInSeconds.max - options.dueInSeconds.min}::float8) AS due
        FROM generate_series(${inserted + 1}::int, ${inserted + n}::int) AS g
      )
      INSERT INTO deliveries (id, account_id, integration_id, event, status, body, attempt_count, budget_start, next_attempt_at,
                              last_status_code, last_error, last_error_kind, occurred_at, created_at, updated_at)
      SELECT id, ${account.accountId}::uuid, ${account.integration.id}::uuid, 'message.status', 'pending',
             '{"event":"message.status","occurred_at":"' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ||
             '","delivery_id":"' || id || '","data":{"message_id":"wamid.' || encode(convert_to(${BENCH_CONTACT} || '_bench' || lpad(g::text, 9, '0'), 'UTF8'), 'base64') ||
             '","status":"delivered","status_rank":3,"to":"' || ${BENCH_CONTACT} || '","error":null,"phone_number_id":"' || ${account.phoneNumberId} ||
             '","client_ref":"pedido-' || g || '","campaign_id":null}}',
             ${options.attemptCount}::int, 0, due,
             ${failed ? 503 : null}::int, ${failed ? "Service Unavailable" : null}::text, ${failed ? "http_status" : null}::text,
             now(), now(), now()
      FROM ids`;
    inserted += n;
    options.onProgress?.(inserted);
  }
  if (failed && options.withAttemptRows) {
    await db.$executeRaw`
      INSERT INTO delivery_attempts (delivery_id, number, started_at, duration_ms, status_code, error_kind, response_body)
      SELECT d.id, a, now() - interval '5 seconds', 12, 503, 'http_status', 'Service Unavailable'
      FROM deliveries d CROSS JOIN generate_series(1, ${options.attemptCount}::int) AS a
      WHERE d.account_id = ${account.accountId}::uuid`;
  }
  const [range] = await db.$queryRaw<{ min: bigint | null; max: bigint | null; count: bigint }[]>`
    SELECT min(id) AS min, max(id) AS max, count(*) AS count FROM deliveries WHERE account_id = ${account.accountId}::uuid`;
  if (!range || range.min === null || range.max === null) throw new Error("no deliveries were inserted");
  return { minId: range.min, maxId: range.max, count: Number(range.count) };
}

export interface HistoryOptions {
  messages: number;
  deliveries: number;
  contacts: number;
  /** Rows per INSERT; progress is told per chunk. */
  chunk?: number;
  onProgress?: (what: string, done: number, total: number) => void;
}

/**
 * A long-lived account's history, as the gateway writes it, bulk-inserted with SQL before a run: contacts with a phone
 * and a BSUID each (both identifiers), sent messages to them (statuses `read`), one inbound message for every two
 * sends, their settled `message.status` deliveries (one attempt each, 19 in 20 delivered) and the send's audit and
 * Idempotency-Key rows; open windows for one contact in ten, opt-outs for one in two hundred. The run's own recipients (contactNumber) are other numbers. VACUUM ANALYZE follows, as
 * autovacuum would after such a load.
 */
export async function seedHistory(db: Db, account: BenchAccount, options: HistoryOptions): Promise<void> {
  const chunk = options.chunk ?? 200_000;
  const integrationId = account.integration?.id;
  if (!integrationId) throw new Error("seedHistory needs an account with an integration");
  const inChunks = async (what: string, total: number, insert: (from: number, to: number) => Promise<unknown>) => {
    for (let from = 1; from <= total; from += chunk) {
      const to = Math.min(total, from + chunk - 1);
      await insert(from, to);
      options.onProgress?.(what, to, total);
    }
  };
  const contacts = options.contacts;
  await inChunks("contacts", contacts, (from, to) =>
    db.sql.query(
      `WITH c AS (SELECT (5511920000000 + g)::text AS phone, 'BR.hist' || g AS bsuid FROM generate_series($2::int, $3::int) g),
        stored AS (INSERT INTO contacts (account_id, key, phone, bsuid, updated_at)
          SELECT $1::uuid, phone, phone, bsuid, now() - interval '2 days' FROM c)
      INSERT INTO contact_identifiers (account_id, identifier, kind, contact_key)
      SELECT $1::uuid, phone, 'phone', phone FROM c UNION ALL SELECT $1::uuid, bsuid, 'bsuid', phone FROM c`,
      [account.accountId, from, to],
    ),
  );
  await inChunks("messages", options.messages, (from, to) =>
    db.sql.query(
      `WITH m AS (
        SELECT g, (5511920000000 + 1 + g % $5::int)::text AS c, now() - interval '2 days' - g * interval '100 ms' AS at
        FROM generate_series($3::int, $4::int) g)
      , sent AS (INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, client_ref,
          request_id, contact_key, recipient_user_id, created_at, status_at)
        SELECT $1::uuid, $2, c, 'wamid.hist.' || g, 'template', 'pedido_confirmado', 'read', 'pedido-' || g, 'hist', c,
          'BR.hist' || (1 + g % $5::int), at, at + interval '30 s' FROM m)
      , keys AS (INSERT INTO idempotency_keys (account_id, key, fingerprint, state, outcome, expires_at, created_at,
          updated_at, provider_called_at, wamid)
        SELECT $1::uuid, 'hist-' || g, md5(g::text), 'completed', '{"kind":"unconfirmed","messageId":null}',
          now() + interval '1 day', at, at, at, 'wamid.hist.' || g FROM m)
      , audit AS (INSERT INTO audit_entries (account_id, actor, action, target, request_id, created_at)
        SELECT $1::uuid, 'api_key:hist', 'api.messages.send', 'message:wamid.hist.' || g, 'hist', at FROM m)
      INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, from_user_id, wamid, type, text,
        occurred_at, window_expires_at, created_at)
      SELECT $1::uuid, $2, c, c, 'BR.hist' || (1 + g % $5::int), 'wamid.in.hist.' || g, 'text', 'oi', at, at + interval '24 hours', at
      FROM m WHERE g % 2 = 0`,
      [account.accountId, account.phoneNumberId, from, to, contacts],
    ),
  );
  // One in ten contacts wrote within the day (an open window); one in two hundred stopped marketing messages.
  await db.sql.query(
    `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
    SELECT $1, (5511920000000 + g)::text, now() - interval '1 hour', now() + interval '23 hours'
    FROM generate_series(1, $2::int, 10) g`,
    [account.phoneNumberId, contacts],
  );
  await db.sql.query(
    `INSERT INTO contact_suppressions (account_id, contact, reason, created_at)
    SELECT $1::uuid, (5511920000000 + g)::text, 'user_preferences', now() - interval '3 days'
    FROM generate_series(1, $2::int, 200) g`,
    [account.accountId, contacts],
  );
  await inChunks("deliveries", options.deliveries, (from, to) =>
    db.sql.query(
      `WITH d AS (
        INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, next_attempt_at,
          delivered_at, last_status_code, created_at, updated_at, budget_started_at)
        SELECT $1::uuid, $2::uuid, 'message.status', CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'delivered' END,
          '{"event":"message.status","occurred_at":"2026-12-05T10:00:00.000Z","delivery_id":"' || g ||
          '","data":{"message_id":"wamid.hist.' || (g / 3) || '","status":"read","status_rank":4,"to":"5511920000001","recipient_user_id":null,"error":null,"phone_number_id":"' || $3 || '","client_ref":null,"campaign_id":null,"pricing":null}}',
          1, at, NULL, CASE WHEN g % 20 <> 0 THEN at END, CASE WHEN g % 20 = 0 THEN 500 ELSE 200 END, at, at, at
        FROM (SELECT g, now() - interval '2 days' - g * interval '30 ms' AS at FROM generate_series($4::int, $5::int) g) AS s
        RETURNING id, integration_id, created_at, last_status_code)
      INSERT INTO delivery_attempts (delivery_id, number, started_at, duration_ms, status_code, integration_id)
      SELECT id, 1, created_at, 12, last_status_code, integration_id FROM d`,
      [account.accountId, integrationId, account.phoneNumberId, from, to],
    ),
  );
  // As a long-lived database is: vacuumed (visibility map set, so autovacuum has nothing to do during the run) and
  // analyzed.
  options.onProgress?.("vacuum analyze", 0, 1);
  await db.sql.query("VACUUM ANALYZE");
}
