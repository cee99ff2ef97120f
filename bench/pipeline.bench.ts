// Benchmark of the whole pipeline on loopback: POST /public/v1/messages through the API to the provider
// sandbox, then the sandbox's sent → delivered → read statuses back through the provider webhook, the
// outbox, the queue and the dispatcher to a local receiver. Run by hand: `npm run bench` (see bench/README.md).
// Bounded in count (BENCH_SENDS) and time (BENCH_TIMEOUT_S); prints figures, asserts nothing.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger, testEnv } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway } from "../apps/api/test/support/gateway.ts";
import { createDispatcher, loadDispatcherConfig } from "../apps/dispatcher/src/index.ts";

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
      received.push({ event: envelope.event, status: envelope.data.status, lagMs: Date.now() - Date.parse(envelope.occurred_at) });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

  const gateway = await startTestGateway({
    env: { API_RATE_LIMIT_POINTS: String(SENDS * 10), DATABASE_POOL_SIZE: "20", META_TIMEOUT_MS: "10000" },
    sandbox: { statusDelaysMs: { sent: 10, delivered: 20, read: 30 } },
  });
  const env = testEnv();
  const dispatcher = createDispatcher(
    loadDispatcherConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: gateway.redisPrefix,
      DISPATCHER_HOST: "127.0.0.1",
      DISPATCHER_PORT: "0",
      DISPATCHER_CONCURRENCY: process.env.BENCH_DISPATCHER_CONCURRENCY ?? "20",
      LOG_LEVEL: "error",
    }),
    { logger: silentLogger },
  );
  await dispatcher.start();

  const account = await createTestAccount(gateway.db, { integrationUrl: receiverUrl, events: ["message.status"] });
  const contact = "5511987654321";
  await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: contact, name: "Bench", type: "text", text: "oi" });

  const latencies: number[] = [];
  const outcomes = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  const deadline = Date.now() + TIMEOUT_MS;
  async function client(): Promise<void> {
    while (next < SENDS && Date.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      const res = await fetch(`${gateway.apiUrl}/public/v1/messages`, {
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

  console.log(`\npipeline benchmark — ${SENDS} sends, ${CONCURRENCY} concurrent clients, loopback, 1 API + 1 dispatcher in one process\n`);
  console.log(`sends answered                     ${latencies.length} in ${sendSeconds.toFixed(2)} s  →  ${(latencies.length / sendSeconds).toFixed(0)} req/s`);
  for (const [outcome, count] of outcomes) console.log(`  ${outcome.padEnd(32)} ${count}`);
  console.log(summary("send latency (client view)", latencies));
  console.log(`webhooks received                  ${received.length} in ${drainSeconds.toFixed(2)} s  →  ${(received.length / drainSeconds).toFixed(0)} deliveries/s (from the first send)`);
  for (const [status, count] of byStatus) console.log(`  message.status ${status.padEnd(17)} ${count}`);
  console.log(summary("queue-entry → receiver lag", received.map((r) => r.lagMs)));
  if (reads() < accepted) console.log(`(stopped at BENCH_TIMEOUT_S=${TIMEOUT_MS / 1000} before every webhook arrived)`);

  await dispatcher.stop();
  await gateway.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
}

await main();
