// The send endpoint alone: POST /public/v1/messages through the API process to the provider sandbox, with the
// sandbox's status callbacks off (SANDBOX_AUTO_STATUSES=false), so the API does nothing but sends. Two kinds of
// send: free text (the contact's 24 h window is opened first) and an approved template with its variables
// filled. Each is compared with a bare Express 5 JSON echo server in its own process, driven by the same load
// generator with the same requests (headers and bodies), the same concurrency, just before it.
// Run by hand: `pnpm bench send` (see bench/README.md). Bounded by BENCH_SENDS and BENCH_TIMEOUT_S per run.
import { freePort } from "@gw/testkit";
import { common, intEnv } from "./lib/env.ts";
import { openWindow, startApi, startSandbox } from "./lib/gateway.ts";
import { jsonBody, runLoad, type LoadRequest, type LoadResult } from "./lib/load.ts";
import { startEcho } from "./lib/receiver.ts";
import { RssSampler } from "./lib/rss.ts";
import { BENCH_CONTACT, seedAccount, type BenchAccount } from "./lib/seed.ts";
import { heading, runStage } from "./lib/stage.ts";
import { latencyLine, line, mb, num, perUnit, ratio, summarize, type LatencySummary } from "./lib/stats.ts";

const SENDS = intEnv("BENCH_SENDS", 1000);
const BASELINE_REQUESTS = intEnv("BENCH_BASELINE_REQUESTS", Math.max(SENDS, 10_000));
const WARMUP = intEnv("BENCH_WARMUP", 50, 0);
/** The echo server's JIT needs more than the API's few sends to settle. */
const BASELINE_WARMUP = intEnv("BENCH_BASELINE_WARMUP", 2_000, 0);
const CONCURRENCY = common.concurrency();
const TIMEOUT_MS = common.timeoutMs();

/** pedido_confirmado (pt_BR, APPROVED, UTILITY): header "Pedido {{1}}", body "Olá {{1}}, seu pedido {{2}} foi confirmado e chega em {{3}} dias úteis." */
const TEMPLATE = { name: "pedido_confirmado", language: "pt_BR" } as const;

type Variant = "text" | "template";

function sendRequest(account: BenchAccount, variant: Variant, key: string, i: number): LoadRequest {
  const order = String(100_000 + i);
  const body =
    variant === "text"
      ? {
          to: `+${BENCH_CONTACT}`,
          text: `Olá, Maria! Seu pedido ${order} saiu para entrega.`,
          client_ref: `pedido-${order}`,
        }
      : {
          to: BENCH_CONTACT,
          template: TEMPLATE.name,
          language: TEMPLATE.language,
          variables: ["Maria", order, "3"],
          header_text: order,
          client_ref: `pedido-${order}`,
        };
  return {
    method: "POST",
    path: "/public/v1/messages",
    headers: { ...account.auth, "content-type": "application/json", "idempotency-key": `${key}-${i}` },
    body: jsonBody(body),
  };
}

function sendOutcome(_i: number, status: number, body: Buffer): string {
  if (status === 200) return "200 sent";
  const parsed = JSON.parse(body.toString("utf8") || "{}") as { error?: { code?: string } };
  return `${status} ${parsed.error?.code ?? "?"}`;
}

interface RunFigures {
  completed: number;
  errors: number;
  seconds: number;
  rps: number;
  meanBodyBytes: number;
  outcomes: Record<string, number>;
  latencyMs: LatencySummary;
  timedOut: boolean;
}

function figures(result: LoadResult): RunFigures {
  const { completed, errors, seconds, rps, meanBodyBytes, outcomes, timedOut } = result;
  return {
    completed,
    errors,
    seconds,
    rps,
    meanBodyBytes,
    outcomes,
    timedOut,
    latencyMs: summarize(result.latenciesMs),
  };
}

function printRun(label: string, run: RunFigures): void {
  console.log(
    line(
      label,
      `${run.completed} in ${run.seconds.toFixed(2)} s  →  ${num(run.rps)} req/s   (body ${run.meanBodyBytes.toFixed(0)} B)`,
    ),
  );
  console.log(latencyLine("", run.latencyMs));
  const odd = Object.entries(run.outcomes).filter(([k]) => k !== "200" && k !== "200 sent");
  for (const [outcome, count] of odd) console.log(`  ${outcome.padEnd(32)} ${count}`);
  if (run.timedOut) console.log(`  (stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000})`);
}

await runStage("send", async ({ name, stack, prefix, cleanup, db }) => {
  const account = await seedAccount(db, { name: "bench send" });
  const apiPort = await freePort();
  // Status callbacks off: the API's only work is the sends. The webhook URL stays set for the one inbound
  // message that opens the window.
  const sandbox = await startSandbox(cleanup, name, {
    webhookUrl: `http://127.0.0.1:${apiPort}/provider/meta/webhook`,
    autoStatuses: false,
  });
  const api = await startApi(cleanup, name, stack, prefix, { port: apiPort, metaBaseUrl: sandbox.url });
  const echo = await startEcho(cleanup, name);
  await openWindow(sandbox.url, api.url, account, BENCH_CONTACT);
  console.log(line("number's messaging rate", `${account.ratePerSecond}/s (the tier measured)`));
  const rss = new RssSampler([api.child]).start();

  const load = (baseUrl: string, variant: Variant, key: string, count: number, api: boolean) =>
    runLoad({
      baseUrl,
      count,
      concurrency: CONCURRENCY,
      timeoutMs: TIMEOUT_MS,
      request: (i) => sendRequest(account, variant, key, i),
      onResponse: api ? sendOutcome : undefined,
    });

  // One send of each kind must work before anything is measured.
  for (const variant of ["text", "template"] as const) {
    const probe = await load(api.url, variant, `${prefix}-probe-${variant}`, 1, true);
    if (probe.outcomes["200 sent"] !== 1)
      throw new Error(`a ${variant} send was not accepted: ${JSON.stringify(probe.outcomes)}`);
  }

  let warmAccepted = 0;
  const measure = async (variant: Variant): Promise<{ echo: RunFigures; send: RunFigures }> => {
    heading(`${variant === "text" ? "free text" : `template ${TEMPLATE.name}`} — ${CONCURRENCY} concurrent clients`);
    if (BASELINE_WARMUP > 0) await load(echo.url, variant, `${prefix}-warm-echo-${variant}`, BASELINE_WARMUP, false);
    if (WARMUP > 0) {
      const warm = await load(api.url, variant, `${prefix}-warm-${variant}`, WARMUP, true);
      warmAccepted += warm.outcomes["200 sent"] ?? 0;
    }
    // The baseline right before its target, so both see about the same machine load.
    const echoRun = figures(await load(echo.url, variant, `${prefix}-echo-${variant}`, BASELINE_REQUESTS, false));
    const sendRun = figures(await load(api.url, variant, `${prefix}-${variant}`, SENDS, true));
    printRun("echo (bare Express 5)", echoRun);
    printRun("send (API → sandbox)", sendRun);
    const p50 = ratio(sendRun.latencyMs.p50, echoRun.latencyMs.p50);
    const p99 = ratio(sendRun.latencyMs.p99, echoRun.latencyMs.p99);
    console.log(
      line("send / echo", `req/s ${ratio(sendRun.rps, echoRun.rps)}   p50 latency ${p50}   p99 latency ${p99}`),
    );
    return { echo: echoRun, send: sendRun };
  };
  const runs: Record<Variant, { echo: RunFigures; send: RunFigures }> = {
    text: await measure("text"),
    template: await measure("template"),
  };
  const memory = rss.stop();

  const stored = await db.$queryRaw<
    { kind: string; count: bigint }[]
  >`SELECT kind, count(*) AS count FROM messages GROUP BY kind ORDER BY kind`;
  const expected =
    2 + warmAccepted + (runs.text.send.outcomes["200 sent"] ?? 0) + (runs.template.send.outcomes["200 sent"] ?? 0);
  const storedTotal = stored.reduce((n, r) => n + Number(r.count), 0);
  heading("checks");
  console.log(
    line(
      "messages stored",
      `${stored.map((r) => `${r.kind} ${r.count}`).join(", ")} (accepted sends incl. probes and warm-up: ${expected})`,
    ),
  );
  console.log(line("API peak RSS", mb(RssSampler.peak(memory.api))));
  // Over both kinds, warm-ups included; the API is idle while the echo runs.
  const cpuPerSend = perUnit(memory.api?.cpuMs, expected);
  console.log(line("API CPU", `${cpuPerSend?.toFixed(2) ?? "n/a"} ms per send (text and template together)`));

  const part = (v: Variant) => {
    const { send, echo } = runs[v];
    return `${v} ${num(send.rps)} req/s p50 ${send.latencyMs.p50.toFixed(0)} ms p99 ${send.latencyMs.p99.toFixed(0)} ms (${ratio(send.rps, echo.rps)} echo's ${num(echo.rps)} req/s)`;
  };
  return {
    summary: `rate ${account.ratePerSecond}/s: ${part("text")}; ${part("template")}; API peak RSS ${mb(RssSampler.peak(memory.api))}, CPU ${cpuPerSend?.toFixed(2) ?? "n/a"} ms/send${storedTotal === expected ? "" : `; MESSAGES STORED ${storedTotal} ≠ ${expected}`}`,
    results: {
      params: {
        ratePerSecond: account.ratePerSecond,
        sends: SENDS,
        baselineRequests: BASELINE_REQUESTS,
        warmup: WARMUP,
        baselineWarmup: BASELINE_WARMUP,
        concurrency: CONCURRENCY,
        timeoutS: TIMEOUT_MS / 1000,
        template: TEMPLATE,
      },
      sandbox: { autoStatuses: false },
      runs,
      ratios: {
        text: { rps: runs.text.send.rps / runs.text.echo.rps },
        template: { rps: runs.template.send.rps / runs.template.echo.rps },
      },
      checks: { messagesStored: storedTotal, acceptedSends: expected },
      rssKb: memory,
      cpuMsPerSend: cpuPerSend,
    },
  };
});
