// Merging two keys of one person runs inside the webhook's transaction (the shared group commit for statuses), and
// since issue 25 it runs whenever an identifier is attached: every statement of gateway_merge_contacts must find the
// absorbed key's rows through an index, never by reading the account's whole history (issue 25, item 5). The
// statements are taken from the function as migrated and explained with sequential scans disabled, so the planner
// reaches for an index whenever one applies; a scan of messages or inbound_messages whose index condition does not
// name the contact key (a seq scan, or the account's created_at index filtered row by row) fails.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, inTransaction, type Db } from "@gw/db";
import { testEnv } from "@gw/testkit";

let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = `7${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 2 });
  accountId = (await db.account.create({ data: { name: "Índices da fusão" } })).id;
  await db.businessNumber.create({
    data: { accountId, phoneNumberId: PHONE_NUMBER_ID, wabaId: "700000000000025", displayNumber: "+55 11 4000-0725" },
  });
  // A history for the planner to weigh: a few thousand sends and inbound messages of many contacts.
  await db.sql.query(
    `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, contact_key)
     SELECT $1, $2, c, 'wamid.idx.' || $3 || '.' || g, 'text', 'sent', c
     FROM generate_series(1, 3000) AS g, LATERAL (SELECT '5511977' || lpad((g % 500)::text, 6, '0') AS c) AS k`,
    [accountId, PHONE_NUMBER_ID, randomBytes(4).toString("hex")],
  );
  await db.sql.query(
    `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, occurred_at,
       window_expires_at)
     SELECT $1, $2, c, c, 'wamid.idx.in.' || $3 || '.' || g, 'text', now(), now()
     FROM generate_series(1, 3000) AS g, LATERAL (SELECT '5511977' || lpad((g % 500)::text, 6, '0') AS c) AS k`,
    [accountId, PHONE_NUMBER_ID, randomBytes(4).toString("hex")],
  );
  await db.sql.query(`ANALYZE messages, inbound_messages`);
});

afterAll(async () => {
  await db.$disconnect();
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

const SURVIVOR = "BR.2500000000000001";
const ABSORBED = "5511977000007";

/** The data-changing statements of gateway_merge_contacts, with its parameters replaced by this test's values. */
async function mergeStatements(): Promise<string[]> {
  const { rows } = await db.sql.query<{ src: string }>(
    `SELECT prosrc AS src FROM pg_proc WHERE proname = 'gateway_merge_contacts'`,
  );
  const body = rows[0]?.src ?? "";
  const inner = body.slice(body.indexOf("BEGIN") + "BEGIN".length, body.lastIndexOf("END"));
  return inner
    .split(";")
    .map((statement) => statement.trim())
    .filter((statement) => /^(INSERT|UPDATE|DELETE)\b/.test(statement))
    .map((statement) =>
      statement
        .replaceAll("p_account", `'${accountId}'::uuid`)
        .replaceAll("p_survivor", `'${SURVIVOR}'::text`)
        .replaceAll("p_absorbed", `'${ABSORBED}'::text`),
    );
}

/** How each scan of `tables` in the statement's plan finds its rows: its index condition, or its node type. */
async function scansOf(statement: string, tables: readonly string[]): Promise<string[]> {
  return inTransaction(db.sql, async (client) => {
    await client.query(`SET LOCAL enable_seqscan = off`);
    const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement}`);
    const plan = rows[0]?.["QUERY PLAN"][0].Plan;
    if (!plan) throw new Error("no plan");
    const scans: string[] = [];
    for (const node of nodesOf(plan)) {
      if (node["Node Type"] === "ModifyTable" || !tables.includes(node["Relation Name"] ?? "")) continue;
      // A bitmap heap scan finds its rows through the bitmap index scans below it.
      const conditions =
        node["Node Type"] === "Bitmap Heap Scan"
          ? nodesOf(node).flatMap((child) => (child["Index Cond"] ? [child["Index Cond"]] : []))
          : node["Index Cond"]
            ? [node["Index Cond"]]
            : [];
      scans.push(`${node["Relation Name"]}: ${conditions.join(" AND ") || node["Node Type"]}`);
    }
    return scans;
  });
}

describe("the statements that merge two contact keys", () => {
  it("read messages and inbound_messages through an index on the account and the contact key", async () => {
    const statements = await mergeStatements();
    const history = statements.filter((s) => /\b(UPDATE|FROM) (messages|inbound_messages)\b/.test(s));
    expect(history).toHaveLength(2);
    for (const statement of history) {
      const scans = await scansOf(statement, ["messages", "inbound_messages"]);
      expect(scans).toHaveLength(1);
      for (const scan of scans)
        expect(scan).toMatch(
          new RegExp(`^\\w+: \\(\\(account_id = .+\\) AND \\(contact_key = '${ABSORBED}'::text\\)\\)$`),
        );
    }
  });

  it("read every other table by its key too (identifiers, windows, suppressions, contacts)", async () => {
    const tables = ["contact_identifiers", "contact_windows", "contact_suppressions", "contacts"];
    const statements = (await mergeStatements()).filter(
      (s) => !/\b(UPDATE|FROM) (messages|inbound_messages)\b/.test(s),
    );
    expect(statements.length).toBeGreaterThanOrEqual(7);
    for (const statement of statements) {
      for (const scan of await scansOf(statement, tables))
        expect(scan).toMatch(new RegExp(`\\((contact_key|contact|key) = '(${SURVIVOR}|${ABSORBED})'::text\\)`));
    }
  });
});
