// A campaign against a number of a high tier: how close to the tier the campaign worker sustains, and what that costs
// it in memory and CPU. The provider sandbox (its own process, statuses off, no rate limit of its own) takes every
// send; the campaign worker runs in its own process under tsx, as the tests run it. The sustained rate is read from
// the sandbox's own record of what it accepted, over the middle 80 % of the run (start-up and tail left out); the
// busiest second is checked against the tier. Every recipient must end sent, each exactly once.
// Run by hand: `pnpm bench campaign` (scripts/bench.sh must list the stage) or, with the stack's variables and a
// database whose name ends in _bench, `pnpm exec tsx bench/campaign.bench.ts`. Self-contained (bench/lib is not
// used): every child is stopped and the stage's Redis keys deleted at the end, or on Ctrl-C.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import {
  TemplateCache,
  addBusinessNumber,
  createAccount,
  createAccountDirectory,
  createCampaign,
  startCampaign,
  type TemplateSource,
} from "@gw/core";
import { createDb } from "@gw/db";
import { createRedis } from "@gw/jobs";
import { REPO_ROOT, freePort, silentLogger, spawnApp, type AppProcess } from "@gw/testkit";
import { BENCH } from "./lib/seed.ts";

const int = (name: string, fallback: number): number => {
  const value = process.env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} deve ser um inteiro positivo`);
  return parsed;
};

/** The number's messaging rate (Meta's tier): 1 000/s, the highest. */
const TIER = int("BENCH_CAMPAIGN_TIER", 1_000);
const RECIPIENTS = int("BENCH_CAMPAIGN_RECIPIENTS", 20_000);
const SEND_CONCURRENCY = int("BENCH_CAMPAIGN_SEND_CONCURRENCY", 400);
const POOL = int("BENCH_CAMPAIGN_POOL", 20);
const TIMEOUT_MS = int("BENCH_TIMEOUT_S", 300) * 1000;
const TOKEN = "bench-access-token";
const SECRET = "bench-app-secret";

const databaseUrl = process.env.DATABASE_URL ?? "";
const redisUrl = process.env.REDIS_URL ?? "";
if (!/\/\w*_bench(\?|$)/.test(databaseUrl) || redisUrl === "") {
  throw new Error(
    "DATABASE_URL deve nomear um banco *_bench e REDIS_URL deve estar definida: rode `pnpm bench campaign`",
  );
}
const prefix = `bench-campaign-${randomBytes(3).toString("hex")}`;
const children: AppProcess[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const hz = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    return (ticks * 1000) / hz;
  } catch {
    return null;
  }
}

async function until(check: () => Promise<boolean>, what: string, deadline: number): Promise<void> {
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`tempo esgotado esperando ${what}`);
    await sleep(100);
  }
}

async function cleanup(): Promise<void> {
  for (const child of children.reverse()) await child.stop();
  const redis = createRedis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
  redis.disconnect();
}

async function main(): Promise<Record<string, unknown>> {
  const deadline = Date.now() + TIMEOUT_MS;
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  children.push(
    spawnApp("apps/provider-sandbox/src/main.ts", {
      SANDBOX_PORT: String(sandboxPort),
      META_APP_SECRET: SECRET,
      META_ACCESS_TOKEN: TOKEN,
      SANDBOX_AUTO_STATUSES: "false",
      SANDBOX_HISTORY_LIMIT: String(RECIPIENTS + 1_000),
    }),
  );
  await until(
    () =>
      fetch(`${sandboxUrl}/_sandbox/config`).then(
        (r) => r.ok,
        () => false,
      ),
    "o sandbox",
    deadline,
  );

  const db = createDb({ url: databaseUrl, poolSize: 4 });
  const redis = createRedis(redisUrl);
  const account = await createAccount({ db }, { actor: BENCH, name: "bench-campanha" });
  const phoneNumberId = `1${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  await addBusinessNumber(
    { db },
    {
      actor: BENCH,
      accountId: account.id,
      phoneNumberId,
      wabaId: "102290129340398",
      displayNumber: "+55 11 4000-0000",
    },
  );
  await db.businessNumber.update({ where: { phoneNumberId }, data: { messagingRatePerSecond: TIER } });
  // The catalogue straight from the sandbox's Graph route (the worker reads it through @gw/meta itself).
  const source: TemplateSource = {
    async listTemplates(wabaId) {
      const url = `${sandboxUrl}/v23.0/${wabaId}/message_templates?limit=1000`;
      const page = (await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
        data: Awaited<ReturnType<TemplateSource["listTemplates"]>>;
      };
      return page.data;
    },
  };
  const templates = new TemplateCache({ redis, keyPrefix: prefix, ttlSeconds: 60, source, logger: silentLogger });
  const who = { accountId: account.id, actor: { id: "bench", origin: "api" as const } };
  const rows = Array.from({ length: RECIPIENTS }, (_, i) => ({
    to: `55119${String(60_000_000 + i)}`,
    variables: ["Cliente", String(i), "2"],
    header_text: String(i),
    client_ref: `bench-${i}`,
  }));
  const createdAt = Date.now();
  const campaign = await createCampaign(
    { db, directory: createAccountDirectory(db), templates },
    {
      ...who,
      name: "bench",
      template: "pedido_confirmado",
      language: "pt_BR",
      phoneNumberId,
      recipients: { kind: "list", rows },
    },
  );
  const validationMs = Date.now() - createdAt;
  if (campaign.accepted_recipients !== RECIPIENTS) throw new Error(`só ${campaign.accepted_recipients} aceitos`);

  const worker = spawnApp("apps/campaign-worker/src/main.ts", {
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(POOL),
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    META_BASE_URL: sandboxUrl,
    META_ACCESS_TOKEN: TOKEN,
    CAMPAIGN_WORKER_PORT: "0",
    CAMPAIGN_SEND_CONCURRENCY: String(SEND_CONCURRENCY),
    CAMPAIGN_SWEEP_INTERVAL_MS: "500",
    LOG_LEVEL: "info",
  });
  children.push(worker);
  await until(() => Promise.resolve(worker.output().includes("campaign worker started")), "o worker", deadline);
  const pid = worker.child.pid ?? 0;
  const rssAtStartKb = readKb(pid, "VmRSS");
  const cpuAtStart = cpuMs(pid);

  await startCampaign(
    { db, logger: silentLogger },
    { ...who, campaignId: campaign.id, acceptedRecipients: RECIPIENTS },
  );
  let peakKb = 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, readKb(pid, "VmRSS") ?? 0)), 200);
  const status = async () =>
    (await db.sql.query<{ status: string }>(`SELECT status FROM campaigns WHERE id = $1`, [campaign.id])).rows[0]
      ?.status;
  await until(async () => (await status()) === "completed", "a campanha terminar", deadline);
  clearInterval(sampler);
  const hwmKb = readKb(pid, "VmHWM");
  const cpuAtEnd = cpuMs(pid);

  const sends = (await (await fetch(`${sandboxUrl}/_sandbox/sent`)).json()) as { to: string; at: string }[];
  const mine = sends.map((s) => ({ to: s.to, at: Date.parse(s.at) })).sort((a, b) => a.at - b.at);
  const distinct = new Set(mine.map((s) => s.to)).size;
  const { rows: outcome } = await db.sql.query<{ status: string; count: number }>(
    `SELECT status, count(*)::int AS count FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
    [campaign.id],
  );
  await db.$disconnect();
  redis.disconnect();

  const times = mine.map((s) => s.at);
  const first = times[0] ?? 0;
  const last = times.at(-1) ?? 0;
  // Steady state: from the send at 10 % to the one at 90 %.
  const from = times[Math.floor(times.length * 0.1)] ?? first;
  const to = times[Math.floor(times.length * 0.9)] ?? last;
  const sustained = ((Math.floor(times.length * 0.9) - Math.floor(times.length * 0.1)) / Math.max(1, to - from)) * 1000;
  let busiest = 0;
  for (let end = 0, start = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 1000) start++;
    busiest = Math.max(busiest, end - start + 1);
  }
  const cpuPerSend =
    cpuAtStart !== null && cpuAtEnd !== null ? (cpuAtEnd - cpuAtStart) / Math.max(1, times.length) : null;
  return {
    tier: TIER,
    recipients: RECIPIENTS,
    sendConcurrency: SEND_CONCURRENCY,
    databasePool: POOL,
    validationMs,
    sends: times.length,
    distinctRecipients: distinct,
    outcome: Object.fromEntries(outcome.map((o) => [o.status, o.count])),
    wholeRunSeconds: (last - first) / 1000,
    sustainedPerSecond: Math.round(sustained),
    ofTier: Math.round((sustained / TIER) * 1000) / 10,
    busiestSecond: busiest,
    worker: {
      rssAtStartMb: rssAtStartKb === null ? null : Math.round(rssAtStartKb / 102.4) / 10,
      rssPeakMb: Math.round(Math.max(peakKb, hwmKb ?? 0) / 102.4) / 10,
      cpuMsPerSend: cpuPerSend === null ? null : Math.round(cpuPerSend * 100) / 100,
    },
    ok: distinct === RECIPIENTS && times.length === RECIPIENTS && busiest <= TIER,
  };
}

const startedAt = new Date();
let exitCode = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(signal === "SIGINT" ? 130 : 143)));
try {
  const results = await main();
  const dir = join(REPO_ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    `campaign-${startedAt
      .toISOString()
      .replace(/\.\d+Z$/, "Z")
      .replace(/:/g, "-")}.json`,
  );
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        stage: "campaign",
        startedAt: startedAt.toISOString(),
        results,
        machine: {
          node: process.version,
          cpus: cpus().length,
          memoryMb: Math.round(totalmem() / 2 ** 20),
          loadavg: loadavg(),
        },
      },
      null,
      2,
    )}\n`,
  );
  const worker = results.worker as { rssPeakMb: number; cpuMsPerSend: number | null };
  console.log(JSON.stringify(results, null, 2));
  console.log(`resultados: ${file.slice(REPO_ROOT.length + 1)}`);
  console.log(
    `campaign: ${String(results.recipients)} recipients at a tier of ${TIER}/s: sustained ${String(results.sustainedPerSecond)}/s ` +
      `(${String(results.ofTier)} % of the tier), busiest second ${String(results.busiestSecond)}, worker RSS peak ` +
      `${worker.rssPeakMb} MB, ${worker.cpuMsPerSend ?? "?"} ms CPU per send${results.ok ? "" : " — BOOKKEEPING FAILED"}`,
  );
  if (!results.ok) exitCode = 1;
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
