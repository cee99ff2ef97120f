// The dispatcher's drain rate: BENCH_DELIVERIES pending `message.status` deliveries inserted with SQL, their
// attempt-1 jobs queued (the job catalogue's names, ids and options, added with addBulk), then the dispatcher
// process started against a fast receiver process that verifies every X-PT-Signature and counts deliveries by
// X-PT-Delivery-Id. Baseline in the same run: a bare BullMQ Worker (no-op processor, same concurrency, its own
// process) draining as many jobs of the same size on the same Redis.
// Run by hand: `pnpm bench dispatch` (see bench/README.md). Bounded by BENCH_DELIVERIES and BENCH_TIMEOUT_S.
import { Queue } from "bullmq";
import { createWebhookQueue } from "@gw/jobs";
import { common, intEnv } from "./lib/env.ts";
import { startDispatcher } from "./lib/gateway.ts";
import { addAttemptJobs, attemptJobEntries, type AttemptJob } from "./lib/jobs.ts";
import { launchHelper, sleep } from "./lib/processes.ts";
import { reservePort, startReceiver, type ReceiverReport } from "./lib/receiver.ts";
import { RssSampler } from "./lib/rss.ts";
import { seedAccount, seedPendingDeliveries } from "./lib/seed.ts";
import { heading, runStage } from "./lib/stage.ts";
import { latencyLine, line, mb, num, perUnit, ratio, summarize } from "./lib/stats.ts";

const DELIVERIES = intEnv("BENCH_DELIVERIES", 50_000);
const DISPATCHER_CONCURRENCY = common.dispatcherConcurrency();
const TIMEOUT_MS = common.timeoutMs(300);
const BARE_QUEUE = "bench-bare-noop";

interface BareDone {
  type: "done";
  completed: number;
  firstAt: number;
  lastAt: number;
}

function isBareDone(message: unknown): message is BareDone {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "done";
}

await runStage("dispatch", async ({ name, stack, prefix, cleanup, db, redis }) => {
  const receiverPort = await reservePort();
  const account = await seedAccount(db, {
    name: "bench dispatch",
    integrationUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
    events: ["message.status"],
  });
  const receiver = await startReceiver(cleanup, name, receiverPort, account.integration?.signingSecret ?? "");

  let t = performance.now();
  const range = await seedPendingDeliveries(db, {
    account,
    count: DELIVERIES,
    attemptCount: 0,
    dueInSeconds: { min: 0, max: 0 },
    withAttemptRows: false,
  });
  const ids = (
    await db.$queryRaw<
      { id: bigint }[]
    >`SELECT id FROM deliveries WHERE account_id = ${account.accountId}::uuid ORDER BY id`
  ).map((r) => r.id);
  const jobs: AttemptJob[] = ids.map((id) => ({ deliveryId: id, attempt: 1, delayMs: 0 }));
  console.log(
    line(
      "deliveries inserted (SQL)",
      `${range.count} (ids ${range.minId}–${range.maxId}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    ),
  );

  // ── Baseline: the same jobs (same name, payload, options and job ids) on a queue of its own, a no-op worker.
  heading(`bare BullMQ worker, no-op processor, concurrency ${DISPATCHER_CONCURRENCY}`);
  const bareQueue = new Queue(BARE_QUEUE, { connection: redis, prefix });
  cleanup.add("close the baseline queue", () => bareQueue.close());
  t = performance.now();
  const entries = attemptJobEntries(jobs);
  for (let from = 0; from < entries.length; from += 1_000) await bareQueue.addBulk(entries.slice(from, from + 1_000));
  const bareAddSeconds = (performance.now() - t) / 1000;
  console.log(
    line(
      "jobs added (addBulk × 1000)",
      `${entries.length} in ${bareAddSeconds.toFixed(1)} s  →  ${num(entries.length / bareAddSeconds)} jobs/s`,
    ),
  );

  const bareStarted = Date.now();
  const bare = launchHelper(
    cleanup,
    "bare-worker",
    "bare-worker.ts",
    {
      REDIS_URL: stack.redisUrl,
      BARE_PREFIX: prefix,
      BARE_QUEUE,
      BARE_CONCURRENCY: String(DISPATCHER_CONCURRENCY),
      BARE_EXPECT: String(jobs.length),
    },
    { stage: name, ipc: true },
  );
  const bareResult = await new Promise<BareDone | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), TIMEOUT_MS);
    bare.process.on("message", (message: unknown) => {
      if (isBareDone(message)) {
        clearTimeout(timer);
        resolve(message);
      }
    });
    void bare.exited.then(() => resolve(null));
  });
  await bare.stop();
  const bareCounts = await bareQueue.getJobCounts("waiting", "active", "completed", "failed");
  const bareSeconds = bareResult ? (bareResult.lastAt - bareResult.firstAt) / 1000 : Number.NaN;
  const bareRate = bareResult ? bareResult.completed / bareSeconds : Number.NaN;
  if (bareResult) {
    console.log(
      line(
        "drained",
        `${bareResult.completed} in ${bareSeconds.toFixed(2)} s (first → last completion)  →  ${num(bareRate)} jobs/s; ${((bareResult.lastAt - bareStarted) / 1000).toFixed(1)} s from spawn`,
      ),
    );
  } else {
    console.log(line("drained", `NOT all within BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000}: ${JSON.stringify(bareCounts)}`));
  }

  // ── The dispatcher: attempt-1 jobs as the outbox queues them, then the real process.
  heading(`dispatcher, DISPATCHER_CONCURRENCY=${DISPATCHER_CONCURRENCY}, receiver verifies every signature`);
  const queue = createWebhookQueue(redis, prefix);
  cleanup.add("close the queue", () => queue.close());
  t = performance.now();
  await addAttemptJobs(queue, jobs);
  const addSeconds = (performance.now() - t) / 1000;
  console.log(
    line(
      "jobs added (addBulk × 1000)",
      `${jobs.length} in ${addSeconds.toFixed(1)} s  →  ${num(jobs.length / addSeconds)} jobs/s`,
    ),
  );

  const dispatcherStarted = Date.now();
  const dispatcher = await startDispatcher(cleanup, name, stack, prefix, {
    concurrency: DISPATCHER_CONCURRENCY,
    wait: false,
  });
  const rss = new RssSampler([dispatcher.child]).start();
  const deadline = dispatcherStarted + TIMEOUT_MS;
  let report: ReceiverReport = await receiver.report();
  let lastPrint = Date.now();
  while (report.unique < jobs.length && Date.now() < deadline && dispatcher.child.process.exitCode === null) {
    await sleep(250);
    report = await receiver.report();
    if (Date.now() - lastPrint >= 10_000) {
      lastPrint = Date.now();
      console.log(`  … ${report.unique} received after ${((Date.now() - dispatcherStarted) / 1000).toFixed(0)} s`);
    }
  }
  // A moment for anything sent twice to show up before counting.
  await sleep(1_000);
  const memory = rss.stop();
  await dispatcher.child.stop();
  report = await receiver.report({ ids: true, lags: true });

  const receivedIds = new Set(report.ids ?? []);
  const missing = ids.filter((id) => !receivedIds.has(String(id)));
  const expected = new Set(ids.map(String));
  const unexpected = [...receivedIds].filter((id) => !expected.has(id));
  const seconds =
    report.firstAt !== null && report.lastAt !== null ? (report.lastAt - report.firstAt) / 1000 : Number.NaN;
  const dispatchRate = report.valid / seconds;
  const byStatus = await db.$queryRaw<
    { status: string; count: bigint }[]
  >`SELECT status, count(*) AS count FROM deliveries GROUP BY status ORDER BY status`;
  const [attemptRows] = await db.$queryRaw<{ count: bigint }[]>`SELECT count(*) AS count FROM delivery_attempts`;
  const lag = summarize(report.lagsMs ?? []);
  const invalidTotal = report.received - report.valid;
  // From spawn (start-up included, about half a second of CPU for a bundle) to the last arrival.
  const cpuMs = memory.dispatcher?.cpuMs ?? null;
  const cpuPerDelivery = perUnit(cpuMs, report.valid);
  const exactlyOnce = missing.length === 0 && report.duplicates === 0 && invalidTotal === 0 && unexpected.length === 0;

  console.log(
    line(
      "received",
      `${report.valid} valid in ${seconds.toFixed(2)} s (first → last arrival)  →  ${num(dispatchRate)} deliveries/s; ${report.lastAt === null ? "n/a" : ((report.lastAt - dispatcherStarted) / 1000).toFixed(1)} s from spawn`,
    ),
  );
  // occurred_at was set at insertion: this includes the time spent queued before the dispatcher started.
  console.log(latencyLine("occurred_at → receiver", lag));
  console.log(line("dispatcher peak RSS", mb(RssSampler.peak(memory.dispatcher))));
  console.log(
    line(
      "dispatcher CPU",
      cpuMs === null
        ? "n/a"
        : `${(cpuMs / 1000).toFixed(1)} s from spawn (start-up included)  →  ${cpuPerDelivery?.toFixed(2) ?? "n/a"} ms per delivery`,
    ),
  );
  heading("checks");
  console.log(
    line(
      `exactly once ${exactlyOnce ? "ok" : "FAILED"}`,
      `unique ${report.unique}/${jobs.length}, missing ${missing.length}, duplicates ${report.duplicates}, invalid signature/headers ${invalidTotal} ${JSON.stringify(report.invalid)}, unknown ids ${unexpected.length}`,
    ),
  );
  if (missing.length) console.log(`  missing (first 20): ${missing.slice(0, 20).join(", ")}`);
  if (report.duplicateIds.length)
    console.log(
      `  duplicated (first 20): ${report.duplicateIds
        .slice(0, 20)
        .map(([id, n]) => `${id}×${n}`)
        .join(", ")}`,
    );
  console.log(
    line(
      "deliveries by status (SQL)",
      `${byStatus.map((r) => `${r.status} ${r.count}`).join(", ")}; delivery_attempts ${attemptRows?.count ?? 0}`,
    ),
  );
  console.log(
    line(
      "dispatcher / bare worker",
      `${ratio(dispatchRate, bareRate)} (${num(dispatchRate)} vs ${num(bareRate)} per second)`,
    ),
  );

  return {
    summary:
      `dispatcher ${num(dispatchRate)} deliveries/s vs bare BullMQ ${num(bareRate)} jobs/s (${ratio(dispatchRate, bareRate)}); ` +
      `${report.unique}/${jobs.length} received, ${missing.length} missing, ${report.duplicates} duplicates, ${invalidTotal} invalid; ` +
      `dispatcher peak RSS ${mb(RssSampler.peak(memory.dispatcher))}, CPU ${cpuPerDelivery?.toFixed(2) ?? "n/a"} ms per delivery`,
    results: {
      params: { deliveries: DELIVERIES, dispatcherConcurrency: DISPATCHER_CONCURRENCY, timeoutS: TIMEOUT_MS / 1000 },
      baseline: {
        jobs: jobs.length,
        addSeconds: bareAddSeconds,
        result: bareResult,
        seconds: bareSeconds,
        perSecond: bareRate,
        counts: bareCounts,
      },
      dispatcher: {
        addSeconds,
        received: report.received,
        valid: report.valid,
        unique: report.unique,
        seconds,
        perSecond: dispatchRate,
        secondsFromSpawnToLast: report.lastAt === null ? null : (report.lastAt - dispatcherStarted) / 1000,
        lagMs: lag,
        byAttempt: report.byAttempt,
        cpuMs,
        cpuMsPerDelivery: cpuPerDelivery,
      },
      ratio: dispatchRate / bareRate,
      checks: {
        exactlyOnce,
        missing: missing.length,
        missingSample: missing.slice(0, 100),
        duplicates: report.duplicates,
        duplicateSample: report.duplicateIds.slice(0, 100),
        invalid: report.invalid,
        unknownIds: unexpected.length,
        deliveriesByStatus: Object.fromEntries(byStatus.map((r) => [r.status, Number(r.count)])),
        deliveryAttempts: Number(attemptRows?.count ?? 0),
      },
      rssKb: memory,
    },
  };
});
