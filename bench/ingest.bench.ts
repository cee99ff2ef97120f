// Provider status ingestion: signed Meta webhooks POSTed to the API process's /provider/meta/webhook, each
// applied in one transaction (raw event stored, status transition, one outbox delivery per subscribed
// integration) and its delivery jobs queued after commit. BENCH_MESSAGES sent messages are seeded per run; each
// gets `delivered`, then (after every `delivered` was answered) `read`, so every status is a real transition.
// Two runs: 1 status per payload and 50 statuses per payload, each after the bare Express echo server has
// taken the same payloads with the same concurrency. No dispatcher: the jobs stay queued and are counted.
// Run by hand: `pnpm bench ingest` (see bench/README.md). Bounded by BENCH_MESSAGES and BENCH_TIMEOUT_S per phase.
import { createWebhookQueue } from "@gw/jobs";
import { freePort } from "@gw/testkit";
import { common, intEnv, SECRETS, strEnv } from "./lib/env.ts";
import { NO_PROVIDER, startApi } from "./lib/gateway.ts";
import { runLoad, type LoadResult } from "./lib/load.ts";
import { signMeta, statusWebhook, type MetaStatus, type SignedPayload } from "./lib/meta.ts";
import { startEcho } from "./lib/receiver.ts";
import { cpuMsOf, RssSampler } from "./lib/rss.ts";
import { BENCH_CONTACT, seedAccount, seedSentMessages, type BenchAccount } from "./lib/seed.ts";
import { heading, runStage } from "./lib/stage.ts";
import { latencyLine, line, mb, num, ratio, summarize, type LatencySummary } from "./lib/stats.ts";

const MESSAGES = intEnv("BENCH_MESSAGES", 10_000);
const BATCHES = strEnv("BENCH_INGEST_BATCHES", "1,50")
  .split(",")
  .map((s) => Number(s.trim()));
const WARMUP = intEnv("BENCH_WARMUP", 100, 0);
/**
 * The echo answers in a few ms: it gets more requests (the run's payloads over and over, whole rounds only) and a
 * longer warm-up.
 */
const BASELINE_REQUESTS = intEnv("BENCH_BASELINE_REQUESTS", 10_000);
const BASELINE_WARMUP = intEnv("BENCH_BASELINE_WARMUP", 2_000, 0);
const CONCURRENCY = common.concurrency();
const TIMEOUT_MS = common.timeoutMs();
const PHASES: MetaStatus[] = ["delivered", "read"];
if (BATCHES.some((b) => !Number.isInteger(b) || b < 1 || b > 1000))
  throw new Error("BENCH_INGEST_BATCHES must be a list of integers from 1 to 1000");

/** The signed payloads of one phase: `status` for every wamid, `batch` statuses per payload. */
function phasePayloads(account: BenchAccount, wamids: string[], status: MetaStatus, batch: number): SignedPayload[] {
  const out: SignedPayload[] = [];
  for (let from = 0; from < wamids.length; from += batch) {
    out.push(
      statusWebhook({
        appSecret: SECRETS.META_APP_SECRET,
        wabaId: account.wabaId,
        phoneNumberId: account.phoneNumberId,
        recipient: BENCH_CONTACT,
        wamids: wamids.slice(from, from + batch),
        status,
      }),
    );
  }
  return out;
}

interface IngestAnswers {
  statuses: number;
  deliveries: number;
}

/**
 * `payloads` through the load generator, `count` requests (cycling through them: only the echo gets more than
 * one round); for the API, adds up what each answer says it applied.
 */
function post(
  baseUrl: string,
  payloads: SignedPayload[],
  answers: IngestAnswers | null,
  count = payloads.length,
): Promise<LoadResult> {
  return runLoad({
    baseUrl,
    count,
    concurrency: CONCURRENCY,
    timeoutMs: TIMEOUT_MS,
    request: (i) => {
      const payload = payloads[i % payloads.length];
      if (!payload) throw new Error(`no payload ${i}`);
      return {
        method: "POST",
        path: "/provider/meta/webhook",
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": payload.signature,
          "user-agent": "facebookexternalua",
        },
        body: payload.body,
      };
    },
    onResponse: answers
      ? (_i, status, body) => {
          if (status === 200) {
            const parsed = JSON.parse(body.toString("utf8")) as Partial<IngestAnswers>;
            answers.statuses += parsed.statuses ?? 0;
            answers.deliveries += parsed.deliveries ?? 0;
          }
          return String(status);
        }
      : undefined,
  });
}

interface PhasesFigures {
  payloads: number;
  statuses: number;
  seconds: number;
  payloadsPerSecond: number;
  statusesPerSecond: number;
  latencyMs: LatencySummary;
  outcomes: Record<string, number>;
  meanBodyBytes: number;
  timedOut: boolean;
}

/** Both phases as one measurement (the time between them, spent waiting for the last answers, excluded). */
function combine(results: LoadResult[], statusesPerPayload: (request: number) => number): PhasesFigures {
  let statuses = 0;
  let payloads = 0;
  let seconds = 0;
  let bytes = 0;
  const outcomes: Record<string, number> = {};
  const latencies: number[] = [];
  for (const r of results) {
    payloads += r.completed;
    seconds += r.seconds;
    bytes += r.meanBodyBytes * r.requested;
    for (let i = 0; i < r.completed; i++) statuses += statusesPerPayload(i);
    for (const [k, v] of Object.entries(r.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + v;
    latencies.push(...r.latenciesMs);
  }
  const requested = results.reduce((n, r) => n + r.requested, 0);
  return {
    payloads,
    statuses,
    seconds,
    payloadsPerSecond: payloads / seconds,
    statusesPerSecond: statuses / seconds,
    latencyMs: summarize(latencies),
    outcomes,
    meanBodyBytes: requested ? bytes / requested : 0,
    timedOut: results.some((r) => r.timedOut),
  };
}

await runStage("ingest", async ({ name, stack, prefix, cleanup, db, redis }) => {
  // The integration is subscribed and active, so each transition makes one delivery and queues one job; nothing
  // consumes them (no dispatcher), and its URL is never called.
  const account = await seedAccount(db, {
    name: "bench ingest",
    integrationUrl: "http://127.0.0.1:9/not-called",
    events: ["message.status"],
  });
  const api = await startApi(cleanup, name, stack, prefix, { port: await freePort(), metaBaseUrl: NO_PROVIDER });
  const echo = await startEcho(cleanup, name);
  const queue = createWebhookQueue(redis, prefix);
  cleanup.add("close the queue", () => queue.close());

  // A forged signature must be refused, or the figures below would not include the HMAC check.
  const forged = phasePayloads(account, ["wamid.forged"], "delivered", 1)[0];
  if (!forged) throw new Error("no payload");
  const refused = await fetch(`${api.url}/provider/meta/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": signMeta("not-the-app-secret", forged.body) },
    body: forged.body,
  });
  if (refused.status !== 401)
    throw new Error(`a payload with a wrong signature was answered ${refused.status}, not 401`);
  console.log(
    line("signature check", "a payload with a wrong X-Hub-Signature-256 is answered 401 (the API's warning above)"),
  );

  const seedStarted = performance.now();
  const sets = new Map<number, string[]>();
  for (const batch of BATCHES) sets.set(batch, await seedSentMessages(db, account, `b${batch}`, MESSAGES));
  const warm = WARMUP > 0 ? await seedSentMessages(db, account, "warm", WARMUP) : [];
  console.log(
    line(
      "seeded",
      `${BATCHES.length} × ${MESSAGES} sent messages (+${WARMUP} for warm-up) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
    ),
  );
  const rss = new RssSampler([api.child]).start();

  for (const status of warm.length ? PHASES : [])
    await post(api.url, phasePayloads(account, warm, status, 1), { statuses: 0, deliveries: 0 });

  const counts = async () => {
    const [row] = await db.$queryRaw<{ deliveries: bigint; events: bigint; early: bigint }[]>`
      SELECT (SELECT count(*) FROM deliveries) AS deliveries, (SELECT count(*) FROM provider_events) AS events,
             (SELECT count(*) FROM early_statuses) AS early`;
    if (!row) throw new Error("no counts");
    return { deliveries: Number(row.deliveries), events: Number(row.events), early: Number(row.early) };
  };

  const runs: Record<string, unknown> = {};
  const summaries: string[] = [];
  let allChecksPassed = true;
  for (const batch of BATCHES) {
    const wamids = sets.get(batch) ?? [];
    const phases = PHASES.map((status) => phasePayloads(account, wamids, status, batch));
    const all = [...(phases[0] ?? []), ...(phases[1] ?? [])];
    const perPayload = (i: number) => all[i % all.length]?.statuses ?? 0;
    heading(
      `${batch} status${batch > 1 ? "es" : ""} per payload — ${MESSAGES} messages × (delivered, read), ${CONCURRENCY} concurrent clients`,
    );

    if (BASELINE_WARMUP > 0) await post(echo.url, all, null, BASELINE_WARMUP);
    const echoRun = combine(
      [await post(echo.url, all, null, Math.ceil(BASELINE_REQUESTS / all.length) * all.length)],
      perPayload,
    );
    const before = await counts();
    const answers: IngestAnswers = { statuses: 0, deliveries: 0 };
    const cpuBefore = cpuMsOf(api.child.pid);
    const apiRun = combine(
      [await post(api.url, phases[0] ?? [], answers), await post(api.url, phases[1] ?? [], answers)],
      perPayload,
    );
    const cpuAfter = cpuMsOf(api.child.pid);
    // The API's own CPU time over both phases, per status applied (the process idles between them).
    const cpuMsPerStatus =
      cpuBefore === null || cpuAfter === null || apiRun.statuses === 0
        ? null
        : (cpuAfter - cpuBefore) / apiRun.statuses;
    const after = await counts();

    const [byStatus] = await db.$queryRaw<{ read: bigint; other: bigint }[]>`
      SELECT count(*) FILTER (WHERE status = 'read') AS read, count(*) FILTER (WHERE status <> 'read') AS other
      FROM messages WHERE client_ref LIKE ${`bench-b${batch}-%`}`;
    const checks = {
      messagesRead: Number(byStatus?.read ?? 0),
      messagesNotRead: Number(byStatus?.other ?? 0),
      deliveriesCreated: after.deliveries - before.deliveries,
      expectedDeliveries: 2 * MESSAGES,
      providerEventsStored: after.events - before.events,
      payloadsAnswered200: apiRun.outcomes["200"] ?? 0,
      statusesAppliedPerAnswers: answers.statuses,
      deliveriesPerAnswers: answers.deliveries,
      earlyStatuses: after.early,
    };
    const passed =
      checks.messagesRead === MESSAGES &&
      checks.messagesNotRead === 0 &&
      checks.deliveriesCreated === checks.expectedDeliveries &&
      checks.deliveriesPerAnswers === checks.expectedDeliveries &&
      checks.providerEventsStored === all.length &&
      checks.earlyStatuses === 0;
    allChecksPassed &&= passed;

    const show = (label: string, f: PhasesFigures) => {
      console.log(
        line(
          label,
          `${f.payloads} payloads in ${f.seconds.toFixed(2)} s  →  ${num(f.payloadsPerSecond)} payloads/s, ${num(f.statusesPerSecond)} statuses/s   (body ${f.meanBodyBytes.toFixed(0)} B)`,
        ),
      );
      console.log(latencyLine("", f.latencyMs));
      for (const [k, v] of Object.entries(f.outcomes)) if (k !== "200") console.log(`  ${k.padEnd(32)} ${v}`);
      if (f.timedOut) console.log(`  (stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000})`);
    };
    show("echo (bare Express 5)", echoRun);
    show("API ingestion", apiRun);
    console.log(
      line(
        "API / echo",
        `statuses/s ${ratio(apiRun.statusesPerSecond, echoRun.statusesPerSecond)}   p50 latency ${ratio(apiRun.latencyMs.p50, echoRun.latencyMs.p50)}`,
      ),
    );
    console.log(line("API CPU", `${cpuMsPerStatus?.toFixed(3) ?? "n/a"} ms per status applied`));
    console.log(
      line(
        `checks (SQL) ${passed ? "ok" : "FAILED"}`,
        `read ${checks.messagesRead}/${MESSAGES}, not read ${checks.messagesNotRead}, deliveries ${checks.deliveriesCreated}/${checks.expectedDeliveries}, ` +
          `provider_events ${checks.providerEventsStored}, early_statuses ${checks.earlyStatuses}; answers: statuses ${checks.statusesAppliedPerAnswers}, deliveries ${checks.deliveriesPerAnswers}`,
      ),
    );
    runs[`batch${batch}`] = { statusesPerPayload: batch, echo: echoRun, api: apiRun, checks, passed, cpuMsPerStatus };
    summaries.push(
      `${batch}/payload ${num(apiRun.statusesPerSecond)} statuses/s (${ratio(apiRun.statusesPerSecond, echoRun.statusesPerSecond)} echo's ${num(echoRun.statusesPerSecond)}), CPU ${cpuMsPerStatus?.toFixed(3) ?? "n/a"} ms/status`,
    );
  }
  const memory = rss.stop();

  const jobs = await queue.getJobCounts("waiting", "delayed", "active", "completed", "failed");
  const total = await counts();
  heading("queue");
  const jobsQueued = (jobs.waiting ?? 0) + (jobs.delayed ?? 0);
  console.log(
    line(
      "delivery jobs queued after commit",
      `${jobsQueued} for ${total.deliveries} deliveries ${jobsQueued === total.deliveries ? "(one each)" : "(MISMATCH)"}`,
    ),
  );
  console.log(line("API peak RSS", mb(RssSampler.peak(memory.api))));
  allChecksPassed &&= jobsQueued === total.deliveries;

  return {
    summary: `${summaries.join("; ")}; checks ${allChecksPassed ? "ok" : "FAILED"}; API peak RSS ${mb(RssSampler.peak(memory.api))}`,
    results: {
      params: {
        messages: MESSAGES,
        batches: BATCHES,
        warmup: WARMUP,
        baselineRequests: BASELINE_REQUESTS,
        baselineWarmup: BASELINE_WARMUP,
        concurrency: CONCURRENCY,
        timeoutS: TIMEOUT_MS / 1000,
      },
      runs,
      queue: { jobs, deliveries: total.deliveries },
      checksPassed: allChecksPassed,
      rssKb: memory,
    },
  };
});
