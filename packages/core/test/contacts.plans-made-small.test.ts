// Issue 34: PL/pgSQL keeps each statement's plan for the life of the connection. On a new install the contact
// functions are first planned while contact_identifiers and contacts are a few rows (the statistics of the first
// ANALYZE), where a sequential scan is the cheapest plan; that plan then stayed while the tables grew, reading every
// identifier of every tenant on each status until the next ANALYZE. Here one connection learns contacts while the
// tables are small and analyzed so, then the tables grow by thousands of rows the statistics do not know, and the same
// connection learns more: every nested statement must still find its rows by index (auto_explain, as NOTICEs).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "@jest/globals";
import type { SqlClient } from "@gw/db";
import { isolatedDatabase } from "@gw/testkit";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

const CONTACT_TABLES = new Set(["contact_identifiers", "contacts"]);
const GROWN_BY = 4_000;

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let client: SqlClient;
let accountId: string;
const plans: { query: string; plan: PlanNode }[] = [];

beforeAll(async () => {
  database = await isolatedDatabase();
  client = await database.db.sql.connect();
  accountId = (
    await client.query<{ id: string }>(`INSERT INTO accounts (name) VALUES ('Planos de tabela pequena') RETURNING id`)
  ).rows[0]!.id;
  // Autovacuum must not analyze the tables meanwhile: that would invalidate the cached plans and hide the defect.
  await client.query(`ALTER TABLE contact_identifiers SET (autovacuum_enabled = false)`);
  await client.query(`ALTER TABLE contacts SET (autovacuum_enabled = false)`);
  await client.query(`LOAD 'auto_explain'`);
  await client.query(`SET auto_explain.log_min_duration = 0`);
  await client.query(`SET auto_explain.log_analyze = on`);
  await client.query(`SET auto_explain.log_timing = off`);
  await client.query(`SET auto_explain.log_nested_statements = on`);
  await client.query(`SET auto_explain.log_format = json`);
  await client.query(`SET auto_explain.log_level = notice`);
  client.on("notice", (notice) => {
    const text = notice.message ?? "";
    const at = text.indexOf("{");
    if (!text.startsWith("duration") || at < 0) return;
    const parsed = JSON.parse(text.slice(at)) as { "Query Text": string; Plan: PlanNode };
    plans.push({ query: parsed["Query Text"], plan: parsed.Plan });
  });
}, 60_000);

afterAll(async () => {
  client?.release();
  await database?.drop();
});

const tag = randomBytes(3).toString("hex");
const phone = (i: number) => `55119${String(i).padStart(8, "0")}`;
const bsuid = (i: number) => `BR.${tag}${i}`;

/** A status's recipient learnt as the ingestion learns it: phone and BSUID, a known user read without locks. */
async function learn(i: number): Promise<void> {
  await client.query(`SELECT gateway_learn_contact($1::uuid, $2, $3, NULL, NULL, NULL, false)`, [
    accountId,
    phone(i),
    bsuid(i),
  ]);
}

/** Scans of the contact tables that read more rows than they return (a few besides): a table read to find a key. */
function wideScans(node: PlanNode): string[] {
  const found: string[] = [];
  const visit = (n: PlanNode) => {
    if (n["Relation Name"] && CONTACT_TABLES.has(n["Relation Name"])) {
      const read = (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * Math.max(1, n["Actual Loops"]);
      if (n["Node Type"] === "Seq Scan" || read > n["Actual Rows"] * n["Actual Loops"] + 8)
        found.push(`${n["Node Type"]} on ${n["Relation Name"]}: read ${read}`);
    }
    for (const child of n.Plans ?? []) visit(child);
  };
  visit(node);
  return found;
}

it("learns contacts by index after the tables outgrew the statistics their plans were made with", async () => {
  // Small and analyzed: what a new install's tables look like at autovacuum's first ANALYZE.
  for (let i = 0; i < 20; i++) await learn(i);
  await client.query(`ANALYZE contact_identifiers, contacts`);
  // Planned now, on a few pages (more than five runs: PL/pgSQL settles on a generic plan and keeps it).
  for (let i = 20; i < 40; i++) await learn(i);
  await learn(5);

  // The tables grow far past what the statistics say, with no ANALYZE (no plan invalidation) in between.
  await client.query(
    `WITH c AS (SELECT g, $2 || g AS phone, 'BR.grown.' || $3 || g AS bsuid FROM generate_series(1, $4::int) g),
      inserted AS (INSERT INTO contacts (account_id, key, phone, bsuid) SELECT $1::uuid, phone, phone, bsuid FROM c)
    INSERT INTO contact_identifiers (account_id, identifier, kind, contact_key)
    SELECT $1::uuid, phone, 'phone', phone FROM c UNION ALL SELECT $1::uuid, bsuid, 'bsuid', phone FROM c`,
    [accountId, "55218", tag, GROWN_BY],
  );

  plans.length = 0;
  for (let i = 100; i < 110; i++) await learn(i); // new users: identifiers inserted, a merge check
  for (let i = 100; i < 110; i++) await learn(i); // known users: the one-read path
  await learn(7); // a user learnt while the tables were small

  expect(plans.length).toBeGreaterThan(20);
  const problems = plans.flatMap((captured) =>
    wideScans(captured.plan).map((scan) => `${scan} — ${captured.query.replace(/\s+/g, " ").slice(0, 140)}`),
  );
  expect(problems).toEqual([]);
}, 60_000);
