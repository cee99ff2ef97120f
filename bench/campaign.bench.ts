// A campaign against a number of the highest tier (1 000/s), sent by one and then by two campaign worker processes:
// how close to the tier they get, whether a second worker adds what a first one does, and what each costs in CPU
// and memory. The provider sandbox (its own process, statuses off, no rate limit of its own) takes every send; the
// workers run as the image runs them (the bundle `dist/campaign-worker/main.mjs` with docker/Dockerfile's node
// flags). Each phase has its own number, campaign and workers. The sustained rate is read from the sandbox's own
// record of what it accepted, over the middle 80 % of the phase (start-up and tail left out); the busiest second is
// checked against the tier. Every recipient must end sent, each exactly once (counted by the recipient each send
// carries in biz_opaque_callback_data), and with two workers each must have sent some.
// Run by hand: `pnpm bench campaign` or, with the stack's variables and a database whose name ends in _bench,
// `pnpm exec tsx bench/campaign.bench.ts`. Self-contained (bench/lib is not used): every child is stopped and the
// stage's Redis keys deleted at the end, or on Ctrl-C.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { addBusinessNumber, createAccount, createAccountDirectory } from "@gw/core/accounts";
import { createCampaign, startCampaign } from "@gw/core/campaigns";
import { TemplateCache, type TemplateSource } from "@gw/core/templates";
import { createDb, type Db } from "@gw/db";
import { createRedis, type Redis } from "@gw/jobs";
import { buildBundles, bundleOf } from "@gw/test-stack";
import { REPO_ROOT, freePort, silentLogger } from "@gw/testkit";
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
/** Worker counts, one phase each, in order. */
const PHASES = (process.env.BENCH_CAMPAIGN_WORKERS ?? "1 2")
  .split(/\s+/)
  .filter(Boolean)
  .map((n) => {
    const count = Number(n);
    if (!Number.isInteger(count) || count < 1 || count > 8)
      throw new Error("BENCH_CAMPAIGN_WORKERS: inteiros de 1 a 8");
    return count;
  });
/** Per phase: seeding, sending and the checks. */
const TIMEOUT_MS = int("BENCH_TIMEOUT_S", 300) * 1000;
/** The campaign worker's node flags in the image (docker/Dockerfile); BENCH_CAMPAIGN_NODE_FLAGS replaces them. */
const NODE_FLAGS = (() => {
  const raw = process.env.BENCH_CAMPAIGN_NODE_FLAGS;
  if (raw !== undefined) return raw.split(/\s+/).filter(Boolean);
  const dockerfile = readFileSync(join(REPO_ROOT, "docker/Dockerfile"), "utf8");
  const cmd = /^CMD \[(.*"dist\/campaign-worker\/main\.mjs")\]$/m.exec(dockerfile)?.[1];
  if (!cmd) throw new Error("docker/Dockerfile: CMD do campaign-worker não encontrado");
  return (JSON.parse(`[${cmd}]`) as string[]).slice(1, -1);
})();
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** `bundle` (the image's way) or `tsx` (the sources, as the tests run them): to see what the bundle saves. */
const RUNTIME = process.env.BENCH_RUNTIME === "tsx" ? "tsx" : "bundle";
/** Extra variables for every worker, `K=V K=V`. */
const WORKER_ENV = Object.fromEntries(
  (process.env.BENCH_CAMPAIGN_WORKER_ENV ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}
const children: Child[] = [];

/** A bundle started as the image starts it: `node <flags> dist/<app>/main.mjs`, with only `env` (and PATH, HOME). */
function startBundle(
  name: string,
  app: "campaign-worker" | "provider-sandbox",
  env: Record<string, string>,
  flags: readonly string[],
  logFile?: string,
): Child {
  const entry = RUNTIME === "tsx" ? ["--import", "tsx", `apps/${app}/src/main.ts`] : [bundleOf(app)];
  const child = spawn(process.execPath, [...flags, ...entry], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const log = logFile ? createWriteStream(logFile) : null;
  const keep = (chunk: Buffer) => {
    log?.write(chunk);
    // Start-up lines and errors are what is read; the rest is kept short.
    if (output.length < 200_000) output += chunk.toString("utf8");
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const handle: Child = {
    name,
    process: child,
    pid: child.pid ?? 0,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(killer);
    },
  };
  children.push(handle);
  return handle;
}

function readKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

const HZ = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / HZ;
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
  for (const child of children.splice(0).reverse()) await child.stop();
  const redis = createRedis(redisUrl);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
  redis.disconnect();
}

/** The worker's own count of the sends it had accepted (its /metrics). */
async function sentBy(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /^gw_campaign_messages_sent_total (\d+)/m.exec(text);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

interface Sent {
  phone_number_id: string;
  at_ms: number;
  body: { biz_opaque_callback_data?: string };
}

async function runPhase(
  context: { db: Db; redis: Redis; sandboxUrl: string; phase: number },
  workerCount: number,
): Promise<Record<string, unknown>> {
  const { db, redis, sandboxUrl } = context;
  const deadline = Date.now() + TIMEOUT_MS;
  const account = await createAccount({ db }, { actor: BENCH, name: `bench-campanha-${workerCount}` });
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
  const { rows: tierRows } = await db.sql.query<{ rate: number }>(
    `SELECT messaging_rate_per_second AS rate FROM business_numbers WHERE phone_number_id = $1`,
    [phoneNumberId],
  );
  console.log(`phase ${workerCount} worker(s): number ${phoneNumberId} at a tier of ${tierRows[0]?.rate}/s`);
  // The catalogue straight from the sandbox's Graph route (the workers read it through @gw/meta themselves).
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
    to: `55119${context.phase + 6}${String(1_000_000 + i)}`,
    variables: ["Cliente", String(i), "2"],
    header_text: String(i),
    client_ref: `bench-${i}`,
  }));
  const campaign = await createCampaign(
    { db, directory: createAccountDirectory(db), templates },
    {
      ...who,
      name: `bench-${workerCount}`,
      template: "pedido_confirmado",
      language: "pt_BR",
      phoneNumberId,
      recipients: { kind: "list", rows },
    },
  );
  if (campaign.accepted_recipients !== RECIPIENTS) throw new Error(`só ${campaign.accepted_recipients} aceitos`);

  const workers: { child: Child; port: number }[] = [];
  for (let i = 0; i < workerCount; i++) {
    const port = await freePort();
    const flags = [...NODE_FLAGS];
    let logFile: string | undefined;
    if (PROFILE_DIR) {
      const dir = join(PROFILE_DIR, `campaign-w${workerCount}-${i}-${Date.now()}`);
      mkdirSync(dir, { recursive: true });
      flags.push("--cpu-prof", `--cpu-prof-dir=${dir}`);
      logFile = join(dir, "output.log");
    }
    const child = startBundle(
      `campaign-worker-${i}`,
      "campaign-worker",
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        META_BASE_URL: sandboxUrl,
        META_ACCESS_TOKEN: TOKEN,
        CAMPAIGN_WORKER_PORT: String(port),
        CAMPAIGN_SWEEP_INTERVAL_MS: "500",
        LOG_LEVEL: "info",
        ...WORKER_ENV,
      },
      flags,
      logFile,
    );
    workers.push({ child, port });
  }
  for (const { child } of workers)
    await until(
      () => {
        if (child.process.exitCode !== null) throw new Error(`${child.name} saiu:\n${child.output()}`);
        return Promise.resolve(child.output().includes("campaign worker started"));
      },
      child.name,
      deadline,
    );
  const cpuAtStart = workers.map(({ child }) => cpuMs(child.pid));
  const rssAtStart = workers.map(({ child }) => readKb(child.pid, "VmRSS") ?? 0);
  const peaks = [...rssAtStart];

  await startCampaign(
    { db, logger: silentLogger },
    { ...who, campaignId: campaign.id, acceptedRecipients: RECIPIENTS },
  );
  const sampler = setInterval(() => {
    workers.forEach(({ child }, i) => (peaks[i] = Math.max(peaks[i] ?? 0, readKb(child.pid, "VmRSS") ?? 0)));
  }, 200);
  const status = async () =>
    (await db.sql.query<{ status: string }>(`SELECT status FROM campaigns WHERE id = $1`, [campaign.id])).rows[0]
      ?.status;
  try {
    await until(async () => (await status()) === "completed", "a campanha terminar", deadline);
  } finally {
    clearInterval(sampler);
  }
  const perWorker = [];
  for (const [i, { child, port }] of workers.entries()) {
    const sent = await sentBy(port);
    const cpu = cpuMs(child.pid);
    const start = cpuAtStart[i];
    perWorker.push({
      sent,
      rssAtStartMb: round((rssAtStart[i] ?? 0) / 1024),
      rssPeakMb: round(Math.max(peaks[i] ?? 0, readKb(child.pid, "VmHWM") ?? 0) / 1024),
      cpuMsPerRecipient: cpu !== null && start != null ? round((cpu - start) / Math.max(1, sent), 2) : null,
    });
  }
  for (const { child } of workers) await child.stop();

  const sends = ((await (await fetch(`${sandboxUrl}/_sandbox/sent`)).json()) as Sent[]).filter(
    (s) => s.phone_number_id === phoneNumberId,
  );
  const byRecipient = new Map<string, number>();
  for (const s of sends) {
    const key = s.body.biz_opaque_callback_data ?? "?";
    byRecipient.set(key, (byRecipient.get(key) ?? 0) + 1);
  }
  const duplicates = sends.length - byRecipient.size;
  const { rows: outcome } = await db.sql.query<{ status: string; count: number }>(
    `SELECT status, count(*)::int AS count FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
    [campaign.id],
  );
  const times = sends.map((s) => s.at_ms).sort((a, b) => a - b);
  const first = times[0] ?? 0;
  const last = times.at(-1) ?? 0;
  // Steady state: from the send at 10 % to the one at 90 %.
  const lo = Math.floor(times.length * 0.1);
  const hi = Math.floor(times.length * 0.9);
  const sustained = ((hi - lo) / Math.max(1, (times[hi] ?? last) - (times[lo] ?? first))) * 1000;
  let busiest = 0;
  for (let end = 0, start = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 1000) start++;
    busiest = Math.max(busiest, end - start + 1);
  }
  const sentCount = Object.fromEntries(outcome.map((o) => [o.status, o.count]));
  const ok =
    byRecipient.size === RECIPIENTS &&
    duplicates === 0 &&
    sentCount.sent === RECIPIENTS &&
    busiest <= TIER &&
    (workerCount === 1 || perWorker.every((w) => w.sent > 0));
  return {
    workers: workerCount,
    tier: TIER,
    recipients: RECIPIENTS,
    sends: sends.length,
    distinctRecipients: byRecipient.size,
    duplicates,
    outcome: sentCount,
    wholeRunSeconds: (last - first) / 1000,
    sustainedPerSecond: Math.round(sustained),
    ofTier: round(sustained / TIER, 3),
    busiestSecond: busiest,
    perWorker,
    ok,
  };
}

interface Results {
  runtime: string;
  nodeFlags: string[];
  workerEnv: Record<string, string>;
  phases: Record<string, unknown>[];
  twoVsOne: number | null;
  ok: boolean;
}

async function main(): Promise<Results> {
  // The bundles, never older than the sources.
  buildBundles(["campaign-worker", "provider-sandbox"]);
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  startBundle(
    "provider-sandbox",
    "provider-sandbox",
    {
      SANDBOX_PORT: String(sandboxPort),
      META_APP_SECRET: SECRET,
      META_ACCESS_TOKEN: TOKEN,
      SANDBOX_AUTO_STATUSES: "false",
      SANDBOX_HISTORY_LIMIT: String(RECIPIENTS * PHASES.length + 1_000),
      LOG_LEVEL: "warn",
    },
    [],
  );
  await until(
    () =>
      fetch(`${sandboxUrl}/_sandbox/config`).then(
        (r) => r.ok,
        () => false,
      ),
    "o sandbox",
    Date.now() + 60_000,
  );
  const db = createDb({ url: databaseUrl, poolSize: 4 });
  const redis = createRedis(redisUrl);
  const phases: Record<string, unknown>[] = [];
  try {
    for (const [phase, workerCount] of PHASES.entries())
      phases.push(await runPhase({ db, redis, sandboxUrl, phase }, workerCount));
  } finally {
    await db.$disconnect();
    redis.disconnect();
  }
  const rateOf = (n: number) => (phases.find((p) => p.workers === n)?.sustainedPerSecond as number | undefined) ?? null;
  const one = rateOf(1);
  const two = rateOf(2);
  return {
    runtime: RUNTIME,
    nodeFlags: NODE_FLAGS,
    workerEnv: WORKER_ENV,
    phases,
    twoVsOne: one !== null && two !== null ? round(two / one, 2) : null,
    ok: phases.every((p) => p.ok === true),
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
  const machine = { node: process.version, cpus: cpus().length, memoryMb: Math.round(totalmem() / 2 ** 20) };
  writeFileSync(
    file,
    `${JSON.stringify({ stage: "campaign", startedAt: startedAt.toISOString(), results, machine: { ...machine, loadavg: loadavg() } }, null, 2)}\n`,
  );
  console.log(JSON.stringify(results, null, 2));
  console.log(`resultados: ${file.slice(REPO_ROOT.length + 1)}`);
  for (const phase of results.phases as {
    workers: number;
    sustainedPerSecond: number;
    ofTier: number;
    busiestSecond: number;
    duplicates: number;
    perWorker: { sent: number; rssPeakMb: number; cpuMsPerRecipient: number | null }[];
    ok: boolean;
  }[])
    console.log(
      `campaign, ${phase.workers} worker(s), tier ${TIER}/s: ${phase.sustainedPerSecond} sends/s (${phase.ofTier} of the tier), ` +
        `busiest second ${phase.busiestSecond}, ${phase.duplicates} duplicates; per worker: ` +
        phase.perWorker
          .map((w) => `${w.sent} sent, ${w.cpuMsPerRecipient ?? "?"} ms CPU/recipient, peak RSS ${w.rssPeakMb} MB`)
          .join("; ") +
        (phase.ok ? "" : " — BOOKKEEPING FAILED"),
    );
  console.log(
    `campaign: 2 workers vs 1: ${results.twoVsOne === null ? "?" : String(results.twoVsOne)}× (${RUNTIME}, flags ${NODE_FLAGS.join(" ")})`,
  );
  if (!results.ok) exitCode = 1;
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
