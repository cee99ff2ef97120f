// Benchmark of the whole pipeline on loopback, with the API, the dispatcher and the provider sandbox each in
// its own process (as they run in production): POST /public/v1/messages through the API to the sandbox, then
// the sandbox's sent → delivered → read statuses back through the provider webhook, the outbox, the queue and
// the dispatcher to a receiver process. Run by hand: `pnpm bench` or `pnpm bench pipeline` (see bench/README.md).
// Bounded in count (BENCH_SENDS) and time (BENCH_TIMEOUT_S); prints figures, asserts nothing.
import { freePort } from "@gw/testkit";
import { common, intEnv } from "./lib/env.ts";
import { openWindow, startApi, startDispatcher, startSandbox } from "./lib/gateway.ts";
import { jsonBody, runLoad } from "./lib/load.ts";
import { sleep } from "./lib/processes.ts";
import { reservePort, startReceiver } from "./lib/receiver.ts";
import { RssSampler } from "./lib/rss.ts";
import { BENCH_CONTACT, seedAccount } from "./lib/seed.ts";
import { runStage } from "./lib/stage.ts";
import { latencyLine, line, mb, num, perUnit, summarize } from "./lib/stats.ts";

const SENDS = intEnv("BENCH_SENDS", 1000);
const CONCURRENCY = common.concurrency();
const TIMEOUT_MS = common.timeoutMs();
const DISPATCHER_CONCURRENCY = common.dispatcherConcurrency();
/** The sandbox's SANDBOX_STATUS_BATCH_MS: statuses due within this window share one Meta payload (0 = one each). */
const STATUS_BATCH_MS = intEnv("BENCH_STATUS_BATCH_MS", 20, 0);

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
  await openWindow(sandbox.url, api.url, account, BENCH_CONTACT);
  const rss = new RssSampler([api.child, dispatcher.child]).start();

  const started = performance.now();
  const deadline = Date.now() + TIMEOUT_MS;
  const sends = await runLoad({
    baseUrl: api.url,
    count: SENDS,
    concurrency: CONCURRENCY,
    timeoutMs: TIMEOUT_MS,
    request: (i) => ({
      method: "POST",
      path: "/public/v1/messages",
      headers: { ...account.auth, "content-type": "application/json", "idempotency-key": `bench-${prefix}-${i}` },
      body: jsonBody({ to: `+${BENCH_CONTACT}`, text: `mensagem ${i}`, client_ref: `bench-${i}` }),
    }),
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
    `\npipeline benchmark — ${SENDS} sends, ${CONCURRENCY} concurrent clients, loopback; API, dispatcher, sandbox and receiver one process each\n`,
  );
  console.log(
    line("sends answered", `${sends.completed} in ${sends.seconds.toFixed(2)} s  →  ${num(sends.rps)} req/s`),
  );
  for (const [outcome, count] of Object.entries(sends.outcomes)) console.log(`  ${outcome.padEnd(32)} ${count}`);
  console.log(latencyLine("send latency (client view)", sendLatency));
  console.log(
    line(
      "webhooks received",
      `${report.valid} in ${drainSeconds.toFixed(2)} s  →  ${num(webhooksPerSecond)} deliveries/s (from the first send)`,
    ),
  );
  for (const [status, count] of Object.entries(report.byStatus))
    console.log(`  message.status ${status.padEnd(17)} ${count}`);
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
      `${num(sends.rps)} req/s, send p50 ${sendLatency.p50.toFixed(0)} ms p99 ${sendLatency.p99.toFixed(0)} ms, ` +
      `${num(webhooksPerSecond)} webhooks/s, lag p50 ${lag.p50.toFixed(0)} ms, peak RSS api ${mb(apiPeak)} dispatcher ${mb(dispatcherPeak)}, ` +
      `CPU api ${apiCpuPerSend?.toFixed(2) ?? "n/a"} ms/send dispatcher ${dispatcherCpuPerWebhook?.toFixed(2) ?? "n/a"} ms/webhook`,
    results: {
      params: {
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
      rssKb: memory,
      cpuMs: { apiPerSend: apiCpuPerSend, dispatcherPerWebhook: dispatcherCpuPerWebhook },
      timedOut: (report.byStatus.read ?? 0) < accepted,
    },
  };
});
