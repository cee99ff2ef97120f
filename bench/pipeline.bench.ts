// Benchmark of the whole pipeline on loopback, with the API, the dispatcher and the provider sandbox each in
// its own process (as they run in production): POST /public/v1/messages through the API to the sandbox, then
// the sandbox's sent → delivered → read statuses back through the provider webhook, the outbox, the queue and
// the dispatcher to a receiver process. Run by hand: `pnpm bench` or `pnpm bench pipeline` (see bench/README.md).
// Bounded in count (BENCH_SENDS) and time (BENCH_TIMEOUT_S); prints figures, asserts nothing.
import { freePort } from "@gw/testkit";
import { countsBetween, enableStatementStats, printCounts, serverPids, takeCounts } from "./lib/counts.ts";
import { common, intEnv } from "./lib/env.ts";
import { openWindow, startApi, startDispatcher, startSandbox } from "./lib/gateway.ts";
import { jsonBody, runLoad, type LoadRequest } from "./lib/load.ts";
import { sleep } from "./lib/processes.ts";
import { reservePort, startEcho, startReceiver } from "./lib/receiver.ts";
import { RssSampler } from "./lib/rss.ts";
import { BENCH_CONTACT, contactNumber, openWindows, seedAccount, seedHistory } from "./lib/seed.ts";
import { runStage } from "./lib/stage.ts";
import { latencyLine, line, mb, num, perUnit, ratio, summarize } from "./lib/stats.ts";

const SENDS = intEnv("BENCH_SENDS", 1000);
const CONCURRENCY = common.concurrency();
const TIMEOUT_MS = common.timeoutMs();
const DISPATCHER_CONCURRENCY = common.dispatcherConcurrency();
/** The sandbox's SANDBOX_STATUS_BATCH_MS: statuses due within this window share one Meta payload (0 = one each). */
const STATUS_BATCH_MS = intEnv("BENCH_STATUS_BATCH_MS", 20, 0);
const BASELINE_REQUESTS = intEnv("BENCH_BASELINE_REQUESTS", Math.max(SENDS, 10_000));
const BASELINE_WARMUP = intEnv("BENCH_BASELINE_WARMUP", 2_000, 0);
/** Sends before the measured ones (their own recipients), their statuses delivered before the counting starts. */
const WARMUP = intEnv("BENCH_WARMUP", 50, 0);
/**
 * 1 (default): ANALYZE after the warm-up, as autovacuum does within its first naptime (a minute) on a new install
 * once a table has 50 rows; the measured sends then grow the tables 40-fold past what the statistics know. 0: the
 * planner sees tables never analyzed, which only a brand-new database's first minute does.
 */
const ANALYZE_AFTER_WARMUP = intEnv("BENCH_ANALYZE_AFTER_WARMUP", 1, 0) === 1;
/** `template` (an approved UTILITY template, no window needed) or `text` (each contact's window opened first). */
const KIND = process.env.BENCH_PIPELINE_KIND === "text" ? "text" : "template";
/** Distinct recipients the sends go round (1 = every send to BENCH_CONTACT). */
const CONTACTS = intEnv("BENCH_CONTACTS", 1000, 1);
const TEMPLATE = { name: "pedido_confirmado", language: "pt_BR" } as const;
/** `pnpm bench pipeline --history`: the account's long history, loaded before the run (bench/lib/seed.ts). */
const HISTORY = process.env.BENCH_HISTORY === "1";
const HISTORY_SIZE = {
  messages: intEnv("BENCH_HISTORY_MESSAGES", 1_000_000),
  deliveries: intEnv("BENCH_HISTORY_DELIVERIES", 3_000_000),
  contacts: intEnv("BENCH_HISTORY_CONTACTS", 200_000),
};

/** A send's answer, as the outcome it is counted under: `200 sent`, or the status and the error's code. */
function sendOutcome(_i: number, status: number, body: Buffer): string {
  if (status === 200) return "200 sent";
  const parsed = JSON.parse(body.toString("utf8") || "{}") as { error?: { code?: string } };
  return `${status} ${parsed.error?.code ?? "?"}`;
}

/** Until the dispatcher's /metrics shows a first run of each housekeeping task that reads the history. */
async function startupHousekeepingDone(url: string): Promise<void> {
  const tasks = ["retention", "pricing_rollup", "idempotency_purge"];
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const metrics = await fetch(`${url}/metrics`).then((res) => res.text());
    if (tasks.every((task) => new RegExp(`gw_periodic_task_runs_total\\{[^}]*task="${task}"`).test(metrics))) return;
    if (Date.now() > deadline) throw new Error("the dispatcher's start-up housekeeping did not end");
    await sleep(200);
  }
}

await runStage("pipeline", async ({ name, stack, prefix, cleanup, db, redis }) => {
  const receiverPort = await reservePort();
  const account = await seedAccount(db, {
    name: "bench pipeline",
    integrationUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
    events: ["message.status"],
  });
  const receiver = await startReceiver(cleanup, name, receiverPort, account.integration?.signingSecret ?? "");
  if (HISTORY) {
    const seeding = performance.now();
    let told = "";
    await seedHistory(db, account, {
      ...HISTORY_SIZE,
      onProgress: (what, done, total) => {
        if (what !== told) process.stdout.write(`${told ? "\n" : ""}history: ${what} `);
        told = what;
        process.stdout.write(`${done}/${total} `);
      },
    });
    console.log(
      `\n${line("history loaded", `${HISTORY_SIZE.messages} messages, ${HISTORY_SIZE.deliveries} deliveries, ${HISTORY_SIZE.contacts} contacts in ${((performance.now() - seeding) / 1000).toFixed(0)} s, vacuumed and analyzed`)}`,
    );
  }

  const apiPort = await freePort();
  const sandbox = await startSandbox(cleanup, name, {
    webhookUrl: `http://127.0.0.1:${apiPort}/provider/meta/webhook`,
    autoStatuses: true,
    statusDelaysMs: "10,20,30",
    // Meta sends the statuses that are due together in one payload; 0 = one status per webhook.
    statusBatchMs: STATUS_BATCH_MS,
  });
  const api = await startApi(cleanup, name, stack, prefix, { port: apiPort, metaBaseUrl: sandbox.url });
  const dispatcher = await startDispatcher(cleanup, name, stack, prefix, { concurrency: DISPATCHER_CONCURRENCY });
  const echo = await startEcho(cleanup, name);
  await openWindow(sandbox.url, api.url, account, BENCH_CONTACT);
  // The dispatcher's start-up housekeeping (retention, the pricing rollup, expired keys) reads the history once: done
  // before the counting starts, which is about sends.
  await startupHousekeepingDone(dispatcher.url);
  console.log(line("number's messaging rate", `${account.ratePerSecond}/s (the tier measured)`));

  const contacts = Array.from({ length: CONTACTS }, (_, i) => contactNumber(i));
  // The warm-up's recipients are others: the measured sends find their recipients as new as without a warm-up.
  const warmContacts = Array.from({ length: WARMUP }, (_, i) => contactNumber(CONTACTS + i));
  if (KIND === "text") await openWindows(db, account.phoneNumberId, [...contacts, ...warmContacts]);
  const sendRequest = (key: string, i: number, recipients = contacts): LoadRequest => {
    const to = recipients[i % recipients.length] ?? BENCH_CONTACT;
    const order = String(100_000 + i);
    const content =
      KIND === "text"
        ? { text: `Olá! Seu pedido ${order} saiu para entrega.` }
        : {
            template: TEMPLATE.name,
            language: TEMPLATE.language,
            variables: ["Maria", order, "3"],
            header_text: order,
          };
    return {
      method: "POST",
      path: "/public/v1/messages",
      headers: { ...account.auth, "content-type": "application/json", "idempotency-key": `${key}-${i}` },
      body: jsonBody({ to: `+${to}`, ...content, client_ref: `bench-${i}` }),
    };
  };
  // Baseline: the bare Express 5 echo with the same requests and concurrency, right before the pipeline runs.
  const echoLoad = (count: number) =>
    runLoad({
      baseUrl: echo.url,
      count,
      concurrency: CONCURRENCY,
      timeoutMs: TIMEOUT_MS,
      request: (i) => sendRequest(`echo-${prefix}`, i),
    });
  if (BASELINE_WARMUP > 0) await echoLoad(BASELINE_WARMUP);
  const echoRun = await echoLoad(BASELINE_REQUESTS);
  const echoLatency = summarize(echoRun.latenciesMs);

  // The first sends meet a cold process (the template catalogue fetched, connections opened, statements prepared):
  // a warm-up takes that, and its statuses are delivered before the measured sends start.
  let warmReads = 0;
  if (WARMUP > 0) {
    const warm = await runLoad({
      baseUrl: api.url,
      count: WARMUP,
      concurrency: CONCURRENCY,
      timeoutMs: TIMEOUT_MS,
      request: (i) => sendRequest(`warm-${prefix}`, i, warmContacts),
      onResponse: sendOutcome,
    });
    const warmAccepted = warm.outcomes["200 sent"] ?? 0;
    const warmDeadline = Date.now() + TIMEOUT_MS;
    while ((warmReads = (await receiver.report()).byStatus.read ?? 0) < warmAccepted && Date.now() < warmDeadline)
      await sleep(100);
  }
  if (ANALYZE_AFTER_WARMUP && !HISTORY) await db.sql.query("ANALYZE");

  // Counted from here (a second after the set-up's last statement, so its counts are published) to a second after
  // the last webhook: Redis commands, PostgreSQL transactions and rows, the servers' CPU.
  const pids = await serverPids(db, redis);
  const statements = await enableStatementStats(db);
  await sleep(1_500);
  const countsBefore = await takeCounts(db, redis, pids, statements);
  const rss = new RssSampler([api.child, dispatcher.child]).start();
  const started = performance.now();
  const deadline = Date.now() + TIMEOUT_MS;
  const sends = await runLoad({
    baseUrl: api.url,
    count: SENDS,
    concurrency: CONCURRENCY,
    timeoutMs: TIMEOUT_MS,
    request: (i) => sendRequest(`bench-${prefix}`, i),
    onResponse: sendOutcome,
  });
  const accepted = sends.outcomes["200 sent"] ?? 0;

  // Every accepted send ends with a `read` webhook. `sent` or `delivered` may be skipped: the sandbox posts the
  // three statuses a few ms apart, and one overtaken by a higher status is a regression the gateway drops.
  let report = await receiver.report();
  while ((report.byStatus.read ?? 0) - warmReads < accepted && Date.now() < deadline) {
    await sleep(100);
    report = await receiver.report();
  }
  const drainSeconds = (performance.now() - started) / 1000;
  report = await receiver.report({ lags: true });
  const memory = rss.stop();
  await sleep(1_500);
  const counts = countsBetween(countsBefore, await takeCounts(db, redis, pids, statements), accepted, "send");

  const sendLatency = summarize(sends.latenciesMs);

  const lag = summarize(report.lagsMs ?? []);
  const webhooksPerSecond = report.valid / drainSeconds;
  const apiPeak = RssSampler.peak(memory.api);
  const dispatcherPeak = RssSampler.peak(memory.dispatcher);
  // CPU while the load ran (the processes were already up): per accepted send for the API (the send and its
  // three statuses), per webhook delivered for the dispatcher.
  const apiCpuPerSend = perUnit(memory.api?.cpuMs, accepted);
  const dispatcherCpuPerWebhook = perUnit(memory.dispatcher?.cpuMs, report.valid);

  console.log(
    `\npipeline benchmark — ${SENDS} ${KIND} sends to ${CONTACTS} recipients${HISTORY ? " over a large history" : ""}, ${CONCURRENCY} concurrent clients, loopback; API, dispatcher, sandbox and receiver one process each; number at ${account.ratePerSecond}/s\n`,
  );
  console.log(
    line(
      "echo (bare Express 5)",
      `${echoRun.completed} in ${echoRun.seconds.toFixed(2)} s  →  ${num(echoRun.rps)} req/s`,
    ),
  );
  console.log(latencyLine("", echoLatency));
  console.log(
    line("sends answered", `${sends.completed} in ${sends.seconds.toFixed(2)} s  →  ${num(sends.rps)} req/s`),
  );
  for (const [outcome, count] of Object.entries(sends.outcomes)) console.log(`  ${outcome.padEnd(32)} ${count}`);
  console.log(latencyLine("send latency (client view)", sendLatency));
  const p99OverP50 = sendLatency.p99 / sendLatency.p50;
  console.log(
    line(
      "pipeline / echo",
      `req/s ${ratio(sends.rps, echoRun.rps)}   (send p99 / p50 ${Number.isFinite(p99OverP50) ? p99OverP50.toFixed(2) : "n/a"})`,
    ),
  );
  console.log(
    line(
      "webhooks received",
      `${report.valid} in ${drainSeconds.toFixed(2)} s  →  ${num(webhooksPerSecond)} deliveries/s (from the first send)`,
    ),
  );
  for (const [status, count] of Object.entries(report.byStatus))
    console.log(`  message.status ${status.padEnd(17)} ${count}`);
  const correct =
    (report.byStatus.read ?? 0) - warmReads === accepted && report.duplicates === 0 && report.received === report.valid;
  console.log(
    line(
      `checks ${correct ? "ok" : "FAILED"}`,
      `read webhooks ${(report.byStatus.read ?? 0) - warmReads}/${accepted} accepted sends (and ${warmReads} of the warm-up), duplicates ${report.duplicates}, refused ${report.received - report.valid}`,
    ),
  );
  if (report.duplicates || report.received !== report.valid) {
    console.log(
      `  duplicates ${report.duplicates}, refused by the receiver ${report.received - report.valid} (${JSON.stringify(report.invalid)})`,
    );
  }
  console.log(latencyLine("queue-entry → receiver lag", lag));
  console.log(
    line("peak RSS", `api ${mb(apiPeak)}   dispatcher ${mb(dispatcherPeak)}   (max of VmRSS every 200 ms and VmHWM)`),
  );
  console.log(
    line(
      "CPU during the run",
      `api ${apiCpuPerSend?.toFixed(2) ?? "n/a"} ms per send   dispatcher ${dispatcherCpuPerWebhook?.toFixed(2) ?? "n/a"} ms per webhook`,
    ),
  );
  printCounts(counts);
  // The issue's unit: every process of the gateway's and both servers', per send with its statuses and deliveries.
  const cpuParts = [
    memory.api?.cpuMs,
    memory.dispatcher?.cpuMs,
    counts.cpuMsPerUnit.postgres === null ? null : counts.cpuMsPerUnit.postgres * accepted,
    counts.cpuMsPerUnit.redis === null ? null : counts.cpuMsPerUnit.redis * accepted,
  ];
  const cpuPerSend = cpuParts.some((v) => v === null || v === undefined)
    ? null
    : perUnit(
        cpuParts.reduce<number>((sum, v) => sum + (v ?? 0), 0),
        accepted,
      );
  console.log(
    line(
      "CPU per send, all four",
      `${cpuPerSend?.toFixed(2) ?? "n/a"} ms   (API ${apiCpuPerSend?.toFixed(2) ?? "n/a"} + dispatcher ${perUnit(memory.dispatcher?.cpuMs, accepted)?.toFixed(2) ?? "n/a"} + PostgreSQL + Redis)`,
    ),
  );
  if ((report.byStatus.read ?? 0) - warmReads < accepted)
    console.log(`(stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000} before every webhook arrived)`);

  return {
    summary:
      `rate ${account.ratePerSecond}/s: ${num(sends.rps)} req/s (${ratio(sends.rps, echoRun.rps)} echo's ${num(echoRun.rps)}), send p50 ${sendLatency.p50.toFixed(0)} ms p99 ${sendLatency.p99.toFixed(0)} ms, ` +
      `${num(webhooksPerSecond)} webhooks/s, lag p50 ${lag.p50.toFixed(0)} ms, peak RSS api ${mb(apiPeak)} dispatcher ${mb(dispatcherPeak)}, ` +
      `CPU api ${apiCpuPerSend?.toFixed(2) ?? "n/a"} ms/send dispatcher ${dispatcherCpuPerWebhook?.toFixed(2) ?? "n/a"} ms/webhook all ${cpuPerSend?.toFixed(2) ?? "n/a"} ms/send; ` +
      `per send: Redis ${counts.redisCommands.toFixed(1)} commands, ${counts.transactions.toFixed(2)} transactions, rows by index ${counts.rowsFetchedByIndex.toFixed(1)} + sequentially ${counts.rowsReadSequentially.toFixed(1)}; checks ${correct ? "ok" : "FAILED"}`,
    results: {
      params: {
        kind: KIND,
        contacts: CONTACTS,
        history: HISTORY ? HISTORY_SIZE : null,
        ratePerSecond: account.ratePerSecond,
        baselineRequests: BASELINE_REQUESTS,
        baselineWarmup: BASELINE_WARMUP,
        sends: SENDS,
        concurrency: CONCURRENCY,
        dispatcherConcurrency: DISPATCHER_CONCURRENCY,
        statusBatchMs: STATUS_BATCH_MS,
        timeoutS: TIMEOUT_MS / 1000,
      },
      sends: {
        completed: sends.completed,
        errors: sends.errors,
        seconds: sends.seconds,
        rps: sends.rps,
        outcomes: sends.outcomes,
        latencyMs: sendLatency,
      },
      webhooks: {
        received: report.received,
        valid: report.valid,
        duplicates: report.duplicates,
        invalid: report.invalid,
        byStatus: report.byStatus,
        secondsFromFirstSend: drainSeconds,
        perSecond: webhooksPerSecond,
        lagMs: lag,
      },
      echo: { completed: echoRun.completed, seconds: echoRun.seconds, rps: echoRun.rps, latencyMs: echoLatency },
      ratio: sends.rps / echoRun.rps,
      checksPassed: correct,
      rssKb: memory,
      cpuMs: { apiPerSend: apiCpuPerSend, dispatcherPerWebhook: dispatcherCpuPerWebhook, allPerSend: cpuPerSend },
      counts,
      timedOut: (report.byStatus.read ?? 0) - warmReads < accepted,
    },
  };
});
