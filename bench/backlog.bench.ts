// A large backlog of retries: BENCH_BACKLOG deliveries whose first attempt failed (status pending,
// attempt_count 1, a 503 attempt row, next_attempt_at a retry wait from now) — the database state, the source of
// truth — plus, behind BENCH_BACKLOG_SCHEDULING, whatever Redis holds for them under the scheduling design in
// force (today: one delayed BullMQ job per pending retry). Reports Redis bytes per job, then lets the dispatcher
// drain into a verifying receiver for BENCH_TIMEOUT_S while its RSS is sampled.
// Run by hand: `pnpm bench backlog` (see bench/README.md). Bounded by BENCH_BACKLOG and BENCH_TIMEOUT_S.
import { getHeapStatistics } from "node:v8";
import { createWebhookQueue, QUEUES } from "@gw/jobs";
import { choiceEnv, common, intEnv, strEnv } from "./lib/env.ts";
import { startDispatcher } from "./lib/gateway.ts";
import { BACKLOG_SCHEDULING, seedBacklogJobs } from "./lib/jobs.ts";
import { appNodeFlags, maxOldSpaceMb, sleep } from "./lib/processes.ts";
import { reservePort, startReceiver, type ReceiverReport } from "./lib/receiver.ts";
import { memoryUsage, usedMemory } from "./lib/redis.ts";
import { RssSampler } from "./lib/rss.ts";
import { seedAccount, seedPendingDeliveries } from "./lib/seed.ts";
import { heading, runStage } from "./lib/stage.ts";
import { line, mb, num } from "./lib/stats.ts";

const BACKLOG = intEnv("BENCH_BACKLOG", 1_000_000);
const SCHEDULING = choiceEnv("BENCH_BACKLOG_SCHEDULING", BACKLOG_SCHEDULING, "redis-delayed");
/** `horizon` scheduling: retries due within this many seconds are Redis jobs (also given to the dispatcher). */
const HORIZON_S = intEnv("BENCH_BACKLOG_HORIZON_S", 180);
/** next_attempt_at = now + uniform(min, max) s; default: the first retry's wait, 30 s ± 20 % (spec 6.5). */
const [DUE_MIN_S = 24, DUE_MAX_S = 36] = strEnv("BENCH_BACKLOG_DUE_S", "24,36").split(",").map(Number);
const DISPATCHER_CONCURRENCY = common.dispatcherConcurrency();
const DRAIN_MS = common.timeoutMs(120);
/**
 * Optional cap for the run (node --max-old-space-size), over the one the dispatcher runs with anyway (its
 * production flags, or BENCH_DISPATCHER_NODE_FLAGS); the dispatcher has no memory setting of its own.
 */
const MAX_OLD_SPACE_MB =
  intEnv("BENCH_DISPATCHER_MAX_OLD_SPACE_MB", 0, 0) || maxOldSpaceMb(appNodeFlags("dispatcher")) || 0;
if (!Number.isFinite(DUE_MIN_S) || !Number.isFinite(DUE_MAX_S) || DUE_MIN_S < 0 || DUE_MAX_S < DUE_MIN_S) {
  throw new Error("BENCH_BACKLOG_DUE_S must be `min,max` seconds with 0 ≤ min ≤ max");
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

await runStage("backlog", async ({ name, stack, prefix, cleanup, db, redis }) => {
  const receiverPort = await reservePort();
  const account = await seedAccount(db, {
    name: "bench backlog",
    integrationUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
    events: ["message.status"],
  });
  const receiver = await startReceiver(cleanup, name, receiverPort, account.integration?.signingSecret ?? "");
  const queue = createWebhookQueue(redis, prefix);
  cleanup.add("close the queue", () => queue.close());
  await queue.waitUntilReady();

  // ── The database: the source of truth, the same whatever the scheduling design.
  heading(
    `seeding ${BACKLOG} pending retries (attempt 1 failed with 503; next_attempt_at now + ${DUE_MIN_S}–${DUE_MAX_S} s)`,
  );
  let t = performance.now();
  const range = await seedPendingDeliveries(db, {
    account,
    count: BACKLOG,
    attemptCount: 1,
    dueInSeconds: { min: DUE_MIN_S, max: DUE_MAX_S },
    withAttemptRows: true,
    chunk: 50_000,
    onProgress: (n) => {
      if (n % 200_000 === 0 || n === BACKLOG) console.log(`  … ${n} rows`);
    },
  });
  console.log(line("deliveries + attempt rows (SQL)", `${range.count} in ${seconds(t)} s`));

  // ── Redis: only what the scheduling design in force keeps there.
  const memoryBefore = await usedMemory(redis);
  t = performance.now();
  const jobs = await seedBacklogJobs(db, queue, account.accountId, SCHEDULING, {
    horizonMs: HORIZON_S * 1000,
    onProgress: (n) => {
      if (n % 200_000 === 0) console.log(`  … ${n} delayed jobs`);
    },
  });
  const memoryAfter = await usedMemory(redis);
  console.log(line(`Redis jobs (${SCHEDULING})`, `${jobs} in ${seconds(t)} s`));
  const counts = await queue.getJobCounts("delayed", "waiting", "prioritized");
  // Any one job: the first of the delayed set (job ids are `delivery-<id>-attempt-<n>`).
  const [oneJobId] = jobs ? await redis.zrange(`${prefix}:${QUEUES.webhooks}:delayed`, 0, 0) : [];
  const firstJobKey = oneJobId ? `${prefix}:${QUEUES.webhooks}:${oneJobId}` : null;
  const jobHashBytes = firstJobKey ? await memoryUsage(redis, firstJobKey) : null;
  const delayedSetBytes = jobs ? await memoryUsage(redis, `${prefix}:${QUEUES.webhooks}:delayed`, 0) : null;
  const bytesPerJob = jobs ? (memoryAfter - memoryBefore) / jobs : null;

  heading("Redis memory");
  console.log(line("jobs by state", JSON.stringify(counts)));
  console.log(
    line(
      "used_memory before → after",
      `${(memoryBefore / 1024 / 1024).toFixed(1)} → ${(memoryAfter / 1024 / 1024).toFixed(1)} MB  →  ${bytesPerJob === null ? "n/a" : `${bytesPerJob.toFixed(0)} B per job`} (the whole Redis: other users move it too)`,
    ),
  );
  console.log(
    line(
      "MEMORY USAGE one job hash",
      jobHashBytes === null ? "n/a (no job)" : `${jobHashBytes} B (${firstJobKey?.slice(prefix.length + 1) ?? "?"})`,
    ),
  );
  console.log(
    line(
      "MEMORY USAGE delayed set",
      delayedSetBytes === null || !jobs
        ? "n/a"
        : `${delayedSetBytes} B  →  ${(delayedSetBytes / jobs).toFixed(0)} B per job`,
    ),
  );

  // ── Drain: the integrator answers again; the dispatcher works through the backlog for DRAIN_MS.
  heading(`dispatcher draining for up to ${DRAIN_MS / 1000} s, DISPATCHER_CONCURRENCY=${DISPATCHER_CONCURRENCY}`);
  const started = Date.now();
  const dispatcher = await startDispatcher(cleanup, name, stack, prefix, {
    concurrency: DISPATCHER_CONCURRENCY,
    wait: false,
    // The rework's setting (ignored by a dispatcher without it): the same horizon as the seeding's.
    env: { DISPATCHER_SCHEDULE_HORIZON_MS: String(HORIZON_S * 1000) },
    ...(MAX_OLD_SPACE_MB ? { nodeArgs: [`--max-old-space-size=${MAX_OLD_SPACE_MB}`] } : {}),
  });
  const rss = new RssSampler([dispatcher.child]).start();
  let report: ReceiverReport = await receiver.report();
  let lastPrint = Date.now();
  while (report.unique < BACKLOG && Date.now() - started < DRAIN_MS && dispatcher.child.process.exitCode === null) {
    await sleep(500);
    report = await receiver.report();
    if (Date.now() - lastPrint >= 10_000) {
      lastPrint = Date.now();
      const rssKb = rss.snapshot().dispatcher?.lastKb ?? null;
      console.log(
        `  … ${report.unique} received after ${((Date.now() - started) / 1000).toFixed(0)} s, dispatcher RSS ${mb(rssKb)}`,
      );
    }
  }
  const windowSeconds = (Date.now() - started) / 1000;
  // The drain figures are those of the window; what arrives while the dispatcher shuts down is counted apart.
  report = await receiver.report({ series: true });
  const memory = rss.stop();
  const exit = dispatcher.child.process.exitCode;
  const stopStarted = Date.now();
  await dispatcher.child.stop();
  const stopSeconds = (Date.now() - stopStarted) / 1000;
  const final = await receiver.report();

  const drainSeconds =
    report.firstAt !== null && report.lastAt !== null ? (report.lastAt - report.firstAt) / 1000 : Number.NaN;
  const drainRate = report.valid / drainSeconds;
  const byStatus = await db.$queryRaw<
    { status: string; count: bigint }[]
  >`SELECT status, count(*) AS count FROM deliveries GROUP BY status ORDER BY status`;
  const delivered = Number(byStatus.find((r) => r.status === "delivered")?.count ?? 0);
  const peak = RssSampler.peak(memory.dispatcher);
  const heapLimitMb = MAX_OLD_SPACE_MB || Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
  const cap = MAX_OLD_SPACE_MB
    ? `cap for this run: --max-old-space-size=${MAX_OLD_SPACE_MB} (V8 old space, not RSS)`
    : `no memory cap: the dispatcher has no memory setting; V8's default heap limit here is ${heapLimitMb} MB`;

  console.log(
    line(
      "received",
      `${report.valid} valid in ${drainSeconds.toFixed(1)} s (first → last arrival)  →  ${num(drainRate)} deliveries/s; ${num(report.valid / windowSeconds)}/s over the ${windowSeconds.toFixed(0)} s window`,
    ),
  );
  if (exit !== null) console.log(`  the dispatcher exited during the drain (code ${exit})`);
  console.log(
    line(
      "first arrival after spawn",
      report.firstAt === null ? "n/a" : `${((report.firstAt - started) / 1000).toFixed(1)} s`,
    ),
  );
  console.log(line("dispatcher RSS", `peak ${mb(peak)}, at the end ${mb(memory.dispatcher?.lastKb ?? null)}; ${cap}`));
  console.log(line("deliveries by status (SQL)", byStatus.map((r) => `${r.status} ${r.count}`).join(", ")));
  console.log(
    line(
      "dispatcher shutdown (SIGTERM)",
      `${stopSeconds.toFixed(1)} s; ${final.valid - report.valid} more deliveries arrived meanwhile (not in the rates above)`,
    ),
  );
  console.log(
    line(
      "receiver, at the end",
      `unique ${final.unique}, duplicates ${final.duplicates}, refused ${final.received - final.valid}; delivered in SQL ${delivered}`,
    ),
  );

  return {
    summary:
      `${BACKLOG} retries (${SCHEDULING}), Redis ${bytesPerJob === null ? "n/a" : `${bytesPerJob.toFixed(0)} B/job`} (job hash ${jobHashBytes ?? "n/a"} B); ` +
      `drained ${report.valid} in a ${windowSeconds.toFixed(0)} s window, ${num(drainRate)}/s first → last arrival; dispatcher peak RSS ${mb(peak)} (${MAX_OLD_SPACE_MB ? `cap ${MAX_OLD_SPACE_MB} MB old space` : "no memory cap"}); ` +
      `${final.duplicates} duplicates, ${final.received - final.valid} refused`,
    results: {
      params: {
        backlog: BACKLOG,
        scheduling: SCHEDULING,
        horizonS: HORIZON_S,
        dueInSeconds: [DUE_MIN_S, DUE_MAX_S],
        dispatcherConcurrency: DISPATCHER_CONCURRENCY,
        drainS: DRAIN_MS / 1000,
        maxOldSpaceMb: MAX_OLD_SPACE_MB || null,
      },
      redis: {
        jobs,
        counts,
        usedMemoryBefore: memoryBefore,
        usedMemoryAfter: memoryAfter,
        bytesPerJob,
        jobHashBytes,
        delayedSetBytes,
      },
      drain: {
        windowSeconds,
        received: report.received,
        valid: report.valid,
        unique: report.unique,
        firstArrivalAfterSpawnS: report.firstAt === null ? null : (report.firstAt - started) / 1000,
        drainSeconds,
        perSecond: drainRate,
        perSecondSeries: report.perSecond,
      },
      shutdown: { seconds: stopSeconds, deliveredMeanwhile: final.valid - report.valid },
      checks: {
        receivedUnique: final.unique,
        duplicates: final.duplicates,
        invalid: final.invalid,
        deliveredInSql: delivered,
        deliveriesByStatus: Object.fromEntries(byStatus.map((r) => [r.status, Number(r.count)])),
      },
      dispatcherMemory: {
        rssKb: memory.dispatcher,
        peakKb: peak,
        memoryCap: MAX_OLD_SPACE_MB ? { maxOldSpaceMb: MAX_OLD_SPACE_MB } : null,
        v8HeapLimitMb: heapLimitMb,
      },
    },
  };
});
