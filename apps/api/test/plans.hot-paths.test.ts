// Issue 34: every hot-path statement reads the rows it is about, whatever the planner's statistics say. The whole
// pipeline (the API with the sandbox, the dispatcher) runs against a database with a large history of one account,
// analyzed, and a second account the statistics do not know (its rows arrived after the last ANALYZE, so the planner
// believes it tiny): sends of each kind, a repeat, a reaction, inbound messages, Meta's statuses (new recipients and
// known ones, which learn contacts inside plpgsql), a health event, deliveries with a retry, the sweep and the
// schedule's deadline. PostgreSQL's auto_explain hands the test the plan each statement ran with, nested statements of
// functions included (EXPLAIN ANALYZE, as NOTICEs on the connection that ran it), first with custom plans (what a
// connection uses for its first executions, and keeps when they look cheaper) and then with generic ones (what a
// prepared statement settles on). A plan fails on a sequential scan of a large table, or on an index scan that reads
// more rows than a few per row the statement is about (its input arrays, or what it returns).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import type { Dispatcher } from "@gw/dispatcher";
import { contactWrites, createTestAccount, startStack, type Stack, type TestAccount } from "@gw/test-stack";
import { eventually, isolatedDatabase, reply, silentLogger, startReceiver, type Receiver } from "@gw/testkit";

/** Rows a table needs (pg_class.reltuples after ANALYZE) to count as large: a sequential scan of it fails. */
const LARGE = 5_000;
/** Rows an index scan may read per row its statement is about (and a few besides). */
const ROWS_PER_ROW = 8;
const ROWS_BESIDES = 16;
/** The known account's history and the unknown account's rows (arrived after ANALYZE). */
const HISTORY = 30_000;
const NEWCOMER = 2_000;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

interface CapturedPlan {
  query: string;
  plan: PlanNode;
  mode: string;
}

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let databaseName: string;
let receiver: Receiver;
let known: TestAccount;
let newcomer: TestAccount;
let large: Set<string>;
const plans: CapturedPlan[] = [];

/** Every plan auto_explain sends on the pool's connections (a NOTICE each), kept with the phase's plan cache mode. */
function capturePlans(db: Db, mode: string): void {
  const seen = new WeakSet<object>();
  db.sql.on("acquire", (client) => {
    if (seen.has(client)) return;
    seen.add(client);
    client.on("notice", (notice) => {
      const text = notice.message ?? "";
      const at = text.indexOf("{");
      if (!text.startsWith("duration") || at < 0) return;
      const parsed = JSON.parse(text.slice(at)) as { "Query Text": string; Plan: PlanNode };
      plans.push({ query: parsed["Query Text"], plan: parsed.Plan, mode });
    });
  });
}

/** One account's history as the gateway writes it, in bulk: messages, contacts, inbound, deliveries, keys, audit. */
async function seedHistory(db: Db, account: TestAccount, count: number, tag: string): Promise<void> {
  const integration = await db.integration.findFirstOrThrow({ where: { accountId: account.accountId } });
  const contacts = Math.max(1, Math.floor(count / 3));
  await db.sql.query(
    `WITH c AS (SELECT g, (5511900000000 + g)::text AS phone, 'BR.${tag}' || g AS bsuid FROM generate_series(1, $2::int) g),
      contacts AS (INSERT INTO contacts (account_id, key, phone, bsuid, updated_at)
        SELECT $1::uuid, phone, phone, bsuid, now() - interval '1 hour' FROM c)
    INSERT INTO contact_identifiers (account_id, identifier, kind, contact_key)
    SELECT $1::uuid, phone, 'phone', phone FROM c UNION ALL SELECT $1::uuid, bsuid, 'bsuid', phone FROM c`,
    [account.accountId, contacts],
  );
  await db.sql.query(
    `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, contact_key, created_at, status_at)
    SELECT $1::uuid, $2, c, 'wamid.${tag}.' || g, 'template', 'read', c, now() - g * interval '1 second', now()
    FROM generate_series(1, $3::int) g, LATERAL (SELECT (5511900000000 + 1 + g % $4::int)::text AS c) x`,
    [account.accountId, account.phoneNumberId, count, contacts],
  );
  await db.sql.query(
    `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, text, occurred_at,
      window_expires_at, created_at)
    SELECT $1::uuid, $2, c, c, 'wamid.in.${tag}.' || g, 'text', 'oi', now() - g * interval '1 second',
      now() - g * interval '1 second' + interval '24 hours', now() - g * interval '1 second'
    FROM generate_series(1, $3::int) g, LATERAL (SELECT (5511900000000 + 1 + g % $4::int)::text AS c) x`,
    [account.accountId, account.phoneNumberId, Math.floor(count / 2), contacts],
  );
  await db.sql.query(
    `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
    SELECT $1, (5511900000000 + g)::text, now() - interval '1 hour', now() + interval '23 hours'
    FROM generate_series(1, $2::int) g`,
    [account.phoneNumberId, Math.floor(contacts / 2)],
  );
  // Settled deliveries with their attempts, and a queue of retries due tomorrow (beyond the sweep's horizon).
  await db.sql.query(
    `WITH d AS (
      INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, next_attempt_at,
        delivered_at, created_at, updated_at, budget_started_at)
      SELECT $1::uuid, $2::uuid, 'message.status',
        CASE WHEN g % 20 = 0 THEN 'pending' WHEN g % 20 = 1 THEN 'failed' ELSE 'delivered' END, '{}', 1,
        now() - g * interval '1 second', CASE WHEN g % 20 = 0 THEN now() + interval '1 day' END,
        CASE WHEN g % 20 > 1 THEN now() - g * interval '1 second' END, now() - g * interval '1 second',
        now() - g * interval '1 second', now()
      FROM generate_series(1, $3::int) g
      RETURNING id, integration_id, created_at)
    INSERT INTO delivery_attempts (delivery_id, number, started_at, duration_ms, status_code, integration_id)
    SELECT id, 1, created_at, 12, 200, integration_id FROM d`,
    [account.accountId, integration.id, count],
  );
  await db.sql.query(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, outcome, expires_at, created_at, updated_at,
      provider_called_at, wamid)
    SELECT $1::uuid, '${tag}-' || g, md5(g::text), 'completed', '{"kind":"unconfirmed","messageId":null}',
      now() + interval '1 day', now(), now(), now(), 'wamid.${tag}.' || g
    FROM generate_series(1, $2::int) g`,
    [account.accountId, count],
  );
  await db.sql.query(
    `INSERT INTO audit_entries (account_id, actor, action, target, request_id)
    SELECT $1::uuid, 'api_key:seed', 'api.messages.send', 'message:wamid.${tag}.' || g, 'seed'
    FROM generate_series(1, $2::int) g`,
    [account.accountId, count],
  );
  await db.sql.query(
    `INSERT INTO provider_events (body, payload_hash, processed_at, received_at)
    SELECT '{}', md5('${tag}' || g), now(), now() - g * interval '1 second' FROM generate_series(1, $1::int) g`,
    [Math.floor(count / 2)],
  );
}

/** The rows a statement is about: what its top node returns, or the largest list it was handed (unnest, VALUES). */
function statementRows(plan: PlanNode): number {
  let rows = plan["Actual Rows"] * plan["Actual Loops"];
  const visit = (node: PlanNode) => {
    if (!node["Relation Name"] && /Function Scan|Values Scan|ProjectSet|Result/.test(node["Node Type"]))
      rows = Math.max(rows, node["Actual Rows"] * node["Actual Loops"]);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return rows;
}

/**
 * The dispatcher's housekeeping that is no hot path: retention's purges (bounded batches by time, hourly) and the
 * pricing rollup (an account's closed days, once a day). They run at its start, so their plans come along.
 */
const HOUSEKEEPING = [/ORDER BY \w+ LIMIT \$2 FOR UPDATE SKIP LOCKED/, /INSERT INTO message_pricing_days/];

/** What is wrong with one plan: a sequential scan of a large table, or an index scan reading beyond the bound. */
function problemsOf(captured: CapturedPlan): string[] {
  if (HOUSEKEEPING.some((pattern) => pattern.test(captured.query.replace(/\s+/g, " ")))) return [];
  const problems: string[] = [];
  const allowed = ROWS_PER_ROW * Math.max(1, statementRows(captured.plan)) + ROWS_BESIDES;
  const visit = (node: PlanNode) => {
    const relation = node["Relation Name"];
    // A node that never ran (the other branch of a CASE, a sub-plan not needed) read nothing.
    if (relation && large.has(relation) && node["Actual Loops"] > 0) {
      const type = node["Node Type"];
      const read =
        (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
        node["Actual Loops"];
      if (type === "Seq Scan") problems.push(`sequential scan of ${relation} (${read} rows)`);
      else if (/Index Scan|Index Only Scan|Bitmap Heap Scan/.test(type) && read > allowed)
        problems.push(
          `${type} of ${relation}${node["Index Name"] ? ` by ${node["Index Name"]}` : ""} read ${read} rows, allowed ${allowed}`,
        );
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(captured.plan);
  return problems;
}

async function runPipeline(mode: "force_custom_plan" | "force_generic_plan", round: number): Promise<void> {
  await database.db.sql.query(`ALTER DATABASE "${databaseName}" SET plan_cache_mode = ${mode}`);
  const stack: Stack = await startStack({
    db: { url: database.url },
    sandbox: { statusDelaysMs: { sent: 10, delivered: 20, read: 30 } },
    api: { env: { API_RATE_LIMIT_POINTS: "100000" } },
  });
  capturePlans(stack.db, mode);
  const dispatcherDb = createDb({ url: database.url, poolSize: 4 });
  capturePlans(dispatcherDb, mode);
  const { createDispatcher, loadDispatcherConfig } = await import("@gw/dispatcher");
  const dispatcher: Dispatcher = createDispatcher(
    loadDispatcherConfig({
      DATABASE_URL: database.url,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.redisPrefix,
      DISPATCHER_PORT: "0",
      WEBHOOK_RETRY_SCHEDULE_MS: "50,50,50",
      RECONCILE_INTERVAL_MS: "500",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: stack.secretsKeys,
    }),
    { logger: silentLogger, db: dispatcherDb },
  );
  await dispatcher.start();
  try {
    if (!stack.api) throw new Error("no API");
    const api = stack.api.url;
    const gateway = { sandbox: { url: stack.sandboxUrl } };
    const send = (body: Record<string, unknown>, key: string) =>
      fetch(`${api}/public/v1/messages`, {
        method: "POST",
        headers: { ...newcomer.auth, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { data?: { message_id?: string } } }));

    // A new contact writes (a contact learnt with its message), and a known one (learnt before, read under a lock).
    const stranger = `55119888${round}0001`;
    const inbound = await contactWrites(gateway, {
      phone_number_id: newcomer.phoneNumberId,
      from: stranger,
      type: "text",
      text: "oi",
    });
    expect(inbound.webhook_status).toBe(200);
    expect(
      (
        await contactWrites(gateway, {
          phone_number_id: newcomer.phoneNumberId,
          from: "5511900000003",
          type: "text",
          text: "olá",
        })
      ).webhook_status,
    ).toBe(200);

    const sent: string[] = [];
    const text = await send({ to: `+${stranger}`, text: "Seu pedido saiu para entrega." }, `plans-${round}-text`);
    expect(text.status).toBe(200);
    sent.push(text.body.data?.message_id ?? "");
    // A repeat of the same key is replayed.
    expect(
      (await send({ to: `+${stranger}`, text: "Seu pedido saiu para entrega." }, `plans-${round}-text`)).status,
    ).toBe(200);
    // Templates to known contacts of the newcomer and to numbers never seen.
    for (const [i, to] of [
      "5511900000004",
      "5511900000005",
      `55119777${round}0001`,
      `55119777${round}0002`,
    ].entries()) {
      const template = await send({ to, template: "hello_world", language: "en_US" }, `plans-${round}-tpl-${i}`);
      expect(template.status).toBe(200);
      sent.push(template.body.data?.message_id ?? "");
    }
    // A reaction to the stranger's message (its key is reserved first: its target is read among the contact's messages).
    const reaction = await send(
      { to: `+${stranger}`, reaction: { message_id: inbound.id, emoji: "👍" } },
      `plans-${round}-react`,
    );
    expect(reaction.status).toBe(200);
    sent.push(reaction.body.data?.message_id ?? "");

    // Every send's statuses delivered, up to `read` for all but the reaction (one attempt failed and was retried).
    await eventually(
      () => {
        const bodies = receiver.requests.map((r) => r.body);
        const reads = sent
          .slice(0, -1)
          .every((w) => bodies.some((b) => b.includes(w) && b.includes('"status":"read"')));
        return reads && sent.every((w) => bodies.some((b) => b.includes(w)));
      },
      { timeoutMs: 20_000, what: "every send's statuses delivered" },
    );
    // A health event of the number (Meta's quality update), and the sweep with the schedule's deadline.
    const quality = await fetch(`${stack.sandboxUrl}/_sandbox/numbers/quality-update`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: newcomer.phoneNumberId, waba_id: newcomer.wabaId, event: "ONBOARDING" }),
    });
    expect(quality.status).toBe(200);
    await dispatcher.reconcileNow();
  } finally {
    await dispatcher.stop();
    await dispatcherDb.$disconnect();
    await stack.close();
  }
}

beforeAll(async () => {
  database = await isolatedDatabase();
  databaseName = new URL(database.url).pathname.slice(1);
  let failedOnce = false;
  receiver = await startReceiver((request, res) => {
    // One attempt refused: its retry is scheduled, claimed and recorded as well.
    if (!failedOnce && request.body.includes('"status":"delivered"')) {
      failedOnce = true;
      return reply(res, 500, "tente de novo");
    }
    return reply(res, 200, "ok");
  });
  known = await createTestAccount(database.db, { integrationUrl: `${receiver.url}/known`, name: "conta conhecida" });
  await seedHistory(database.db, known, HISTORY, "known");
  await database.db.sql.query("ANALYZE");
  // After the statistics were taken: the planner believes this account has nothing.
  newcomer = await createTestAccount(database.db, { integrationUrl: `${receiver.url}/newcomer`, name: "conta nova" });
  await seedHistory(database.db, newcomer, NEWCOMER, "newcomer");
  const { rows } = await database.db.sql.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.reltuples >= $1`,
    [LARGE],
  );
  large = new Set(rows.map((row) => row.relname));
  for (const setting of [
    "session_preload_libraries = 'auto_explain'",
    "auto_explain.log_min_duration = 0",
    "auto_explain.log_analyze = on",
    "auto_explain.log_timing = off",
    "auto_explain.log_nested_statements = on",
    "auto_explain.log_format = json",
    "auto_explain.log_level = notice",
  ])
    await database.db.sql.query(`ALTER DATABASE "${databaseName}" SET ${setting}`);
  await runPipeline("force_custom_plan", 1);
  await runPipeline("force_generic_plan", 2);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await database?.drop();
});

describe("the hot paths on a large history and an account the statistics do not know", () => {
  it("ran the pipeline against the large tables", () => {
    expect([...large].sort()).toEqual(
      expect.arrayContaining(["contact_identifiers", "contacts", "deliveries", "delivery_attempts", "messages"]),
    );
    // Sends, statuses, contacts learnt, claims and results, the sweep: each seen planned in both modes.
    for (const mode of ["force_custom_plan", "force_generic_plan"])
      for (const marker of [
        "INSERT INTO idempotency_keys",
        "gateway_learn_contact",
        "UPDATE deliveries d SET status = 'delivering'",
        "INSERT INTO delivery_attempts",
        "next_attempt_at >= ",
      ])
        expect({ mode, marker, seen: plans.some((p) => p.mode === mode && p.query.includes(marker)) }).toEqual({
          mode,
          marker,
          seen: true,
        });
  });

  it("reads the rows each statement is about, never a sequential scan of a large table", () => {
    const problems = plans.flatMap((captured) =>
      problemsOf(captured).map(
        (problem) => `${captured.mode}: ${problem}\n  ${captured.query.replace(/\s+/g, " ").slice(0, 240)}`,
      ),
    );
    expect([...new Set(problems)]).toEqual([]);
  });
});
