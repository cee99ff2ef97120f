// What a run costs, counted rather than timed: Redis commands (INFO commandstats, the commands scripts run included),
// PostgreSQL transactions and rows (pg_stat_database, pg_stat_user_tables, pg_stat_user_indexes and, when the server
// loads it, pg_stat_statements), and the CPU time of the PostgreSQL and Redis servers (/proc). Counts do not depend on
// how loaded the machine is: two builds are compared on them first, then on CPU time per unit of work.
import { readdirSync, readFileSync } from "node:fs";
import type { Db } from "@gw/db";
import type { Redis } from "@gw/jobs";
import { cpuMsOf } from "./rss.ts";
import { line } from "./stats.ts";

interface DatabaseCounts {
  xact_commit: number;
  xact_rollback: number;
  tup_returned: number;
  tup_fetched: number;
  tup_inserted: number;
  tup_updated: number;
  tup_deleted: number;
}

interface RelationCounts {
  seq_scan: number;
  seq_tup_read: number;
  idx_scan: number;
  idx_tup_fetch: number;
}

interface StatementCounts {
  query: string;
  calls: number;
  rows: number;
  shared_blks_hit: number;
  shared_blks_read: number;
}

export interface CountSnapshot {
  redisCommands: Map<string, number>;
  database: DatabaseCounts;
  tables: Map<string, RelationCounts>;
  /** Index entries read per index (pg_stat_user_indexes.idx_tup_read), keyed `table.index`. */
  indexes: Map<string, { idx_scan: number; idx_tup_read: number }>;
  /** Null when the server does not load pg_stat_statements. */
  statements: Map<string, StatementCounts> | null;
  cpuMs: { postgres: number | null; redis: number | null };
}

/** CPU (user + system, ms) of a process and, once reaped, of its children (cutime + cstime). */
function cpuWithReapedChildren(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const own = cpuMsOf(pid);
    const reapedTicks = Number(fields[13]) + Number(fields[14]);
    return own === null ? null : own + (reapedTicks * 1000) / 100;
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/** The postmaster's CPU and every backend's (live ones read directly, exited ones through the postmaster's cutime). */
function postgresCpuMs(postmaster: number): number | null {
  let total = cpuWithReapedChildren(postmaster);
  if (total === null) return null;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (parentOf(pid) === postmaster) total += cpuMsOf(pid) ?? 0;
  }
  return total;
}

function parseCommandStats(info: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out.set(match[1] ?? "?", Number(match[2]));
  return out;
}

/** Where the servers run: the postmaster's pid (parent of our backend) and Redis' own. */
export interface ServerPids {
  postmaster: number | null;
  redis: number | null;
}

export async function serverPids(db: Db, redis: Redis): Promise<ServerPids> {
  const backend = await db.sql.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
  const pid = backend.rows[0]?.pid;
  const server = await redis.info("server");
  const redisPid = /process_id:(\d+)/.exec(server)?.[1];
  return {
    postmaster: pid === undefined ? null : parentOf(pid),
    redis: redisPid === undefined ? null : Number(redisPid),
  };
}

/** Makes pg_stat_statements readable in the bench database when the server loads it (stack.sh does). */
export async function enableStatementStats(db: Db): Promise<boolean> {
  try {
    await db.sql.query(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`);
    await db.sql.query(`SELECT 1 FROM pg_stat_statements LIMIT 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The counters now. PostgreSQL's backends publish their counts when they go idle, at most once a second: take a
 * snapshot a second or more after the work it closes.
 */
export async function takeCounts(db: Db, redis: Redis, pids: ServerPids, statements: boolean): Promise<CountSnapshot> {
  const [info, database, tables, indexes, stmts] = await Promise.all([
    redis.info("commandstats"),
    db.sql.query<DatabaseCounts>(
      `SELECT xact_commit::float8 AS xact_commit, xact_rollback::float8 AS xact_rollback,
         tup_returned::float8 AS tup_returned, tup_fetched::float8 AS tup_fetched, tup_inserted::float8 AS tup_inserted,
         tup_updated::float8 AS tup_updated, tup_deleted::float8 AS tup_deleted
       FROM pg_stat_database WHERE datname = current_database()`,
    ),
    db.sql.query<RelationCounts & { relname: string }>(
      `SELECT relname, COALESCE(seq_scan, 0)::float8 AS seq_scan, COALESCE(seq_tup_read, 0)::float8 AS seq_tup_read,
         COALESCE(idx_scan, 0)::float8 AS idx_scan, COALESCE(idx_tup_fetch, 0)::float8 AS idx_tup_fetch
       FROM pg_stat_user_tables`,
    ),
    db.sql.query<{ name: string; idx_scan: number; idx_tup_read: number }>(
      `SELECT relname || '.' || indexrelname AS name, idx_scan::float8 AS idx_scan, idx_tup_read::float8 AS idx_tup_read
       FROM pg_stat_user_indexes`,
    ),
    statements
      ? db.sql.query<StatementCounts & { queryid: string }>(
          `SELECT queryid::text, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query, calls::float8 AS calls,
             rows::float8 AS rows, shared_blks_hit::float8 AS shared_blks_hit, shared_blks_read::float8 AS shared_blks_read
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      : Promise.resolve(null),
  ]);
  const zero: DatabaseCounts = {
    xact_commit: 0,
    xact_rollback: 0,
    tup_returned: 0,
    tup_fetched: 0,
    tup_inserted: 0,
    tup_updated: 0,
    tup_deleted: 0,
  };
  return {
    redisCommands: parseCommandStats(info),
    database: database.rows[0] ?? zero,
    tables: new Map(tables.rows.map(({ relname, ...counts }) => [relname, counts])),
    indexes: new Map(indexes.rows.map(({ name, ...counts }) => [name, counts])),
    statements: stmts === null ? null : new Map(stmts.rows.map(({ queryid, ...counts }) => [queryid, counts])),
    cpuMs: {
      postgres: pids.postmaster === null ? null : postgresCpuMs(pids.postmaster),
      redis: pids.redis === null ? null : cpuMsOf(pids.redis),
    },
  };
}

export interface CountReport {
  units: number;
  unit: string;
  redisCommands: number;
  redisByCommand: Record<string, number>;
  transactions: number;
  rollbacks: number;
  rowsInserted: number;
  rowsUpdated: number;
  rowsDeleted: number;
  /** pg_stat_database.tup_fetched: heap rows fetched through indexes. */
  rowsFetchedByIndex: number;
  /** pg_stat_database.tup_returned: rows returned by sequential scans and index entries returned by index scans. */
  rowsReturned: number;
  /** Σ pg_stat_user_tables.seq_tup_read: rows read by sequential scans of our tables. */
  rowsReadSequentially: number;
  seqScans: number;
  /** Per table: sequential scans and rows they read, index rows fetched (each per unit). */
  tables: Record<string, RelationCounts>;
  /** Per index: entries read (per unit), the largest first. */
  indexes: Record<string, { idx_scan: number; idx_tup_read: number }>;
  /** Per statement (pg_stat_statements), the most rows first: calls, rows and buffers per unit. */
  statements: StatementCounts[] | null;
  cpuMsPerUnit: { postgres: number | null; redis: number | null };
}

function perUnitMap<T extends object>(
  before: Map<string, T>,
  after: Map<string, T>,
  units: number,
): Map<string, Record<keyof T, number>> {
  const out = new Map<string, Record<keyof T, number>>();
  for (const [name, counts] of after) {
    const previous = before.get(name);
    const delta = {} as Record<keyof T, number>;
    let moved = false;
    for (const key of Object.keys(counts) as (keyof T)[]) {
      const value = counts[key];
      if (typeof value !== "number") continue;
      const was = previous?.[key];
      const d = (value - (typeof was === "number" ? was : 0)) / units;
      delta[key] = d;
      if (d !== 0) moved = true;
    }
    if (moved) out.set(name, delta);
  }
  return out;
}

export function countsBetween(before: CountSnapshot, after: CountSnapshot, units: number, unit: string): CountReport {
  const n = Math.max(1, units);
  const redisByCommand: Record<string, number> = {};
  let redisCommands = 0;
  for (const [command, calls] of after.redisCommands) {
    const delta = calls - (before.redisCommands.get(command) ?? 0);
    if (delta <= 0) continue;
    // INFO itself is the bench's own.
    if (command === "info") continue;
    redisByCommand[command] = delta / n;
    redisCommands += delta;
  }
  const db = (key: keyof DatabaseCounts) => (after.database[key] - before.database[key]) / n;
  const tables = perUnitMap(before.tables, after.tables, n);
  const indexes = perUnitMap(before.indexes, after.indexes, n);
  let rowsReadSequentially = 0;
  let seqScans = 0;
  for (const counts of tables.values()) {
    rowsReadSequentially += counts.seq_tup_read;
    seqScans += counts.seq_scan;
  }
  let statements: StatementCounts[] | null = null;
  if (after.statements && before.statements) {
    statements = [];
    for (const [id, counts] of after.statements) {
      const was = before.statements.get(id);
      const calls = (counts.calls - (was?.calls ?? 0)) / n;
      if (calls <= 0) continue;
      statements.push({
        query: counts.query,
        calls,
        rows: (counts.rows - (was?.rows ?? 0)) / n,
        shared_blks_hit: (counts.shared_blks_hit - (was?.shared_blks_hit ?? 0)) / n,
        shared_blks_read: (counts.shared_blks_read - (was?.shared_blks_read ?? 0)) / n,
      });
    }
    statements.sort((a, b) => b.shared_blks_hit + b.shared_blks_read - (a.shared_blks_hit + a.shared_blks_read));
  }
  const cpu = (key: "postgres" | "redis") => {
    const a = after.cpuMs[key];
    const b = before.cpuMs[key];
    return a === null || b === null ? null : (a - b) / n;
  };
  return {
    units,
    unit,
    redisCommands: redisCommands / n,
    redisByCommand,
    transactions: db("xact_commit") + db("xact_rollback"),
    rollbacks: db("xact_rollback"),
    rowsInserted: db("tup_inserted"),
    rowsUpdated: db("tup_updated"),
    rowsDeleted: db("tup_deleted"),
    rowsFetchedByIndex: db("tup_fetched"),
    rowsReturned: db("tup_returned"),
    rowsReadSequentially,
    seqScans,
    tables: Object.fromEntries(tables),
    indexes: Object.fromEntries(
      [...indexes].filter(([, c]) => c.idx_tup_read > 0).sort(([, a], [, b]) => b.idx_tup_read - a.idx_tup_read),
    ),
    statements,
    cpuMsPerUnit: { postgres: cpu("postgres"), redis: cpu("redis") },
  };
}

const f1 = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(1));
const f2 = (n: number) => n.toFixed(2);

/** The report as the benches print it: totals per unit first, then where they come from. */
export function printCounts(report: CountReport, options: { statements?: number } = {}): void {
  const per = `per ${report.unit}`;
  const top = Object.entries(report.redisByCommand)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 14)
    .map(([command, calls]) => `${command} ${f1(calls)}`)
    .join(", ");
  console.log(`\ncounts ${per} (${report.units} ${report.unit}s; counted, not timed)`);
  console.log(line("Redis commands", `${f1(report.redisCommands)}   (${top})`));
  console.log(
    line("PostgreSQL transactions", `${f2(report.transactions)}   (of which rolled back ${f2(report.rollbacks)})`),
  );
  console.log(
    line(
      "rows inserted / updated / deleted",
      `${f1(report.rowsInserted)} / ${f1(report.rowsUpdated)} / ${f1(report.rowsDeleted)}`,
    ),
  );
  console.log(
    line(
      "rows read",
      `through indexes (tup_fetched) ${f1(report.rowsFetchedByIndex)}, sequentially (Σ seq_tup_read) ${f1(report.rowsReadSequentially)} in ${f2(report.seqScans)} scans; tup_returned ${f1(report.rowsReturned)}`,
    ),
  );
  const seqTables = Object.entries(report.tables)
    .filter(([, c]) => c.seq_scan > 0)
    .sort(([, a], [, b]) => b.seq_tup_read - a.seq_tup_read)
    .slice(0, 6)
    .map(([name, c]) => `${name} ${f2(c.seq_scan)} scans ${f1(c.seq_tup_read)} rows`);
  if (seqTables.length) console.log(line("  sequential scans", seqTables.join("; ")));
  const indexRows = Object.entries(report.indexes)
    .slice(0, 8)
    .map(([name, c]) => `${name} ${f1(c.idx_tup_read)} in ${f2(c.idx_scan)}`);
  if (indexRows.length) console.log(line("  index entries read", indexRows.join("; ")));
  const cpu = report.cpuMsPerUnit;
  console.log(
    line(
      `CPU ${per}, servers`,
      `PostgreSQL ${cpu.postgres === null ? "n/a" : f2(cpu.postgres)} ms   Redis ${cpu.redis === null ? "n/a" : f2(cpu.redis)} ms`,
    ),
  );
  const limit = options.statements ?? 12;
  if (report.statements && limit > 0) {
    console.log(`  statements ${per}, most buffers first (calls, rows, buffers):`);
    for (const s of report.statements.slice(0, limit))
      console.log(
        `    ${f2(s.calls).padStart(6)} ${f1(s.rows).padStart(7)} ${f1(s.shared_blks_hit + s.shared_blks_read).padStart(8)}  ${s.query}`,
      );
  } else if (report.statements === null) {
    console.log("  (pg_stat_statements not loaded by the server: no per-statement figures)");
  }
}
