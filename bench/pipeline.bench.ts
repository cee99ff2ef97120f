// Benchmark of the whole pipeline on loopback, with the API, the dispatcher and the provider sandbox each in
// its own process (as they run in production): POST /public/v1/messages through the API to the sandbox, then
// the sandbox's sent → delivered → read statuses back through the provider webhook, the outbox, the queue and
// the dispatcher to a receiver in this process. Run by hand: `npm run bench` (see bench/README.md).
// Bounded in count (BENCH_SENDS) and time (BENCH_TIMEOUT_S); prints figures, asserts nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createDb } from "@gw/db";
import { freePort, testEnv } from "@gw/testkit";
import { createTestAccount, eventually } from "../apps/api/test/support/gateway.ts";

const SENDS = Number(process.env.BENCH_SENDS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 120) * 1000;

interface Received {
  event: string;
  status: string | undefined;
  lagMs: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(8);
  return `${label.padEnd(34)} p50 ${f(percentile(sorted, 50))} ms   p95 ${f(percentile(sorted, 95))} ms   p99 ${f(percentile(sorted, 99))} ms   max ${f(sorted.at(-1) ?? Number.NaN)} ms`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function main(): Promise<void> {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    void readBody(req).then((body) => {
      const envelope = JSON.parse(body) as { event: string; occurred_at: string; data: { status?: string } };
      // occurred_at is the time the event entered the queue (spec 2.7): this is the outbox-to-receiver lag.
      received.push({
        event: envelope.event,
        status: envelope.data.status,
        lagMs: Date.now() - Date.parse(envelope.occurred_at),
      });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

  const env = testEnv();
  const [apiPort, dispatcherPort, sandboxPort] = [await freePort(), await freePort(), await freePort()];
  const secrets = { META_APP_SECRET: "bench-app-secret", META_ACCESS_TOKEN: "bench-access-token" };
  const shared = {
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_KEY_PREFIX: `bench${randomBytes(3).toString("hex")}`,
    LOG_LEVEL: "warn",
  };
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const children = [
    launch("apps/provider-sandbox/src/main.ts", {
      ...secrets,
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_WEBHOOK_URL: `${apiUrl}/provider/meta/webhook`,
      SANDBOX_STATUS_DELAYS_MS: "10,20,30",
      LOG_LEVEL: "warn",
    }),
    launch("apps/api/src/main.ts", {
      ...shared,
      ...secrets,
      API_PORT: String(apiPort),
      META_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
      META_VERIFY_TOKEN: "bench-verify-token",
      API_RATE_LIMIT_POINTS: String(SENDS * 10),
    }),
    launch("apps/dispatcher/src/main.ts", {
      ...shared,
      DISPATCHER_PORT: String(dispatcherPort),
      DISPATCHER_CONCURRENCY: process.env.BENCH_DISPATCHER_CONCURRENCY ?? "20",
    }),
  ];
  await Promise.all(
    [
      `${apiUrl}/readyz`,
      `http://127.0.0.1:${dispatcherPort}/readyz`,
      `http://127.0.0.1:${sandboxPort}/_sandbox/sent`,
    ].map(waitUntilUp),
  );

  const db = createDb({ url: env.databaseUrl, poolSize: 2 });
  const account = await createTestAccount(db, { integrationUrl: receiverUrl, events: ["message.status"] });
  const contact = "5511987654321";
  await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/inbound`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      phone_number_id: account.phoneNumberId,
      from: contact,
      name: "Bench",
      type: "text",
      text: "oi",
    }),
  });
  // The inbound message must be stored (the 24 h window open) before the first free-text send.
  await new Promise((r) => setTimeout(r, 500));

  const latencies: number[] = [];
  const outcomes = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  const deadline = Date.now() + TIMEOUT_MS;
  async function client(): Promise<void> {
    while (next < SENDS && Date.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      const res = await fetch(`${apiUrl}/public/v1/messages`, {
        method: "POST",
        headers: { ...account.auth, "content-type": "application/json", "idempotency-key": `bench-${i}` },
        body: JSON.stringify({ to: `+${contact}`, text: `mensagem ${i}`, client_ref: `bench-${i}` }),
      });
      const body = (await res.json()) as { success: boolean; error?: { code: string } };
      latencies.push(performance.now() - t0);
      const key = body.success ? "200 sent" : `${res.status} ${body.error?.code ?? "?"}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, () => client()));
  const sendSeconds = (performance.now() - started) / 1000;
  const accepted = outcomes.get("200 sent") ?? 0;

  // Every accepted send ends with a `read` webhook. `sent` or `delivered` may be skipped: the sandbox posts the
  // three statuses a few ms apart, and one overtaken by a higher status is a regression the gateway drops.
  const reads = () => received.filter((r) => r.status === "read").length;
  while (reads() < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const drainSeconds = (performance.now() - started) / 1000;
  const byStatus = new Map<string, number>();
  for (const r of received) byStatus.set(r.status ?? r.event, (byStatus.get(r.status ?? r.event) ?? 0) + 1);

  console.log(
    `\npipeline benchmark — ${SENDS} sends, ${CONCURRENCY} concurrent clients, loopback; API, dispatcher and sandbox one process each\n`,
  );
  console.log(
    `sends answered                     ${latencies.length} in ${sendSeconds.toFixed(2)} s  →  ${(latencies.length / sendSeconds).toFixed(0)} req/s`,
  );
  for (const [outcome, count] of outcomes) console.log(`  ${outcome.padEnd(32)} ${count}`);
  console.log(summary("send latency (client view)", latencies));
  console.log(
    `webhooks received                  ${received.length} in ${drainSeconds.toFixed(2)} s  →  ${(received.length / drainSeconds).toFixed(0)} deliveries/s (from the first send)`,
  );
  for (const [status, count] of byStatus) console.log(`  message.status ${status.padEnd(17)} ${count}`);
  console.log(
    summary(
      "queue-entry → receiver lag",
      received.map((r) => r.lagMs),
    ),
  );
  if (reads() < accepted) console.log(`(stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000} before every webhook arrived)`);

  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map(
      (child) => new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null))),
    ),
  );
  await db.$disconnect();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
}

function launch(entry: string, env: Record<string, string>): ChildProcess {
  const extra =
    entry.includes("apps/api") && process.env.BENCH_API_PROFILE_DIR
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_API_PROFILE_DIR}`]
      : [];
  const child = spawn(process.execPath, [...extra, "--import", "tsx", entry], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  child.once("exit", (code, signal) => {
    if (code !== 0 && signal !== "SIGTERM") console.error(`${entry} terminou (código ${code}, sinal ${signal})`);
  });
  return child;
}

async function waitUntilUp(url: string): Promise<void> {
  await eventually(
    () =>
      fetch(url).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

await main();
