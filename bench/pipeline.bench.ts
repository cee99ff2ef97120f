// Benchmark of the whole pipeline on loopback, with the API, the dispatcher and the provider sandbox each in
// its own process (as they run in production): POST /public/v1/messages through the API to the sandbox, then
// the sandbox's sent → delivered → read statuses back through the provider webhook, the outbox, the queue and
// the dispatcher to a receiver process. Run by hand: `pnpm bench` or `pnpm bench pipeline` (see bench/README.md).
// Bounded in count (BENCH_SENDS) and time (BENCH_TIMEOUT_S); prints figures, asserts nothing.
import { freePort } from "@gw/testkit";
import { common, intEnv } from "./lib/env.ts";
import { openWindow, startApi, startDispatcher, startSandbox } from "./lib/gateway.ts";
import { jsonBody, runLoad, type LoadRequest } from "./lib/load.ts";
import { sleep } from "./lib/processes.ts";
import { reservePort, startEcho, startReceiver } from "./lib/receiver.ts";
import { RssSampler } from "./lib/rss.ts";
import { BENCH_CONTACT, seedAccount } from "./lib/seed.ts";
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

await runStage("pipeline", async ({ name, stack, prefix, cleanup, db }) => {
  const receiverPort = await reservePort();
  const account = await seedAccount(db, {
    name: "bench pipeline",
    integrationUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
    events: ["message.status"],
  });
  const receiver = await startReceiver(cleanup, name, receiverPort, account.integration?.signingSecret ?? "");

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
  console.log(line("number's messaging rate", `${account.ratePerSecond}/s (the tier measured)`));

  const sendRequest = (key: string, i: number): LoadRequest => ({
    method: "POST",
    path: "/public/v1/messages",
    headers: { ...account.auth, "content-type": "application/json", "idempotency-key": `${key}-${i}` },
    body: jsonBody({ to: `+${BENCH_CONTACT}`, text: `mensagem ${i}`, client_ref: `bench-${i}` }),
  });
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

  const rss = new RssSampler([api.child, dispatcher.child]).start();
  const started = performance.now();
  const deadline = Date.now() + TIMEOUT_MS;
  const sends = await runLoad({
    baseUrl: api.url,
    count: SENDS,
    concurrency: CONCURRENCY,
    timeoutMs: TIMEOUT_MS,
    request: (i) => sendRequest(`bench-${prefix}`, i),
    onResponse: (_i, status, body) => {
      if (status === 200) return "200 sent";
      const parsed = JSON.parse(body.toString("utf8") || "{}") as { error?: { code?: string } };
      return `${status} ${parsed.error?.code ?? "?"}`;
    },
  });
  const accepted = sends.outcomes["200 sent"] ?? 0;

  // Every accepted send ends with a `read` webhook. `sent` or `delivered` may be skipped: the sandbox posts the
  // three statuses a few ms apart, and one overtaken by a higher status is a regression the gateway drops.
  let report = await receiver.report();
  while ((report.byStatus.read ?? 0) < accepted && Date.now() < deadline) {
    await sleep(100);
    report = await receiver.report();
  }
  const drainSeconds = (performance.now() - started) / 1000;
  report = await receiver.report({ lags: true });
  const memory = rss.stop();

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
    `\npipeline benchmark — ${SENDS} sends, ${CONCURRENCY} concurrent clients, loopback; API, dispatcher, sandbox and receiver one process each; number at ${account.ratePerSecond}/s\n`,
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
    (report.byStatus.read ?? 0) === accepted && report.duplicates === 0 && report.received === report.valid;
  console.log(
    line(
      `checks ${correct ? "ok" : "FAILED"}`,
      `read webhooks ${report.byStatus.read ?? 0}/${accepted} accepted sends, duplicates ${report.duplicates}, refused ${report.received - report.valid}`,
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
  if ((report.byStatus.read ?? 0) < accepted)
    console.log(`(stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000} before every webhook arrived)`);

  return {
    summary:
      `rate ${account.ratePerSecond}/s: ${num(sends.rps)} req/s (${ratio(sends.rps, echoRun.rps)} echo's ${num(echoRun.rps)}), send p50 ${sendLatency.p50.toFixed(0)} ms p99 ${sendLatency.p99.toFixed(0)} ms, ` +
      `${num(webhooksPerSecond)} webhooks/s, lag p50 ${lag.p50.toFixed(0)} ms, peak RSS api ${mb(apiPeak)} dispatcher ${mb(dispatcherPeak)}, ` +
      `CPU api ${apiCpuPerSend?.toFixed(2) ?? "n/a"} ms/send dispatcher ${dispatcherCpuPerWebhook?.toFixed(2) ?? "n/a"} ms/webhook; checks ${correct ? "ok" : "FAILED"}`,
    results: {
      params: {
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
      cpuMs: { apiPerSend: apiCpuPerSend, dispatcherPerWebhook: dispatcherCpuPerWebhook },
      timedOut: (report.byStatus.read ?? 0) < accepted,
    },
  };
});
