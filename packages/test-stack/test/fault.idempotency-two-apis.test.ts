// Two API processes (two pods behind a balancer) share 100 concurrent sends under one Idempotency-Key (spec 4.1): the
// key is reserved in PostgreSQL before the provider is called, so exactly one call reaches the provider sandbox, and
// every answer is that send's 200 (the first, then replays of it) or 409 `idempotency_in_flight` (spec 7: wait and
// repeat with the same key).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { applyMigrations } from "@gw/db";
import { freePort, testEnv } from "@gw/testkit";
import {
  kill,
  seedAccount,
  startApi,
  startSandboxProcess,
  type ProcessAccount,
  type RunningApp,
  createWatchdog,
  type Watchdog,
} from "../src/index.ts";

const CALLS = 100;
const TO = "5511988887777";

interface Answer {
  pod: string;
  status: number;
  text: string;
  replayed: boolean;
}

let admin: URL;
let database: string;
let account: ProcessAccount;
let sandbox: RunningApp;
let pods: RunningApp[] = [];
let watchdog: Watchdog;

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  // A database of its own on the shared server (prefix gw_h1), migrated like the test database.
  const env = testEnv();
  admin = new URL(env.databaseUrl);
  admin.pathname = "/postgres";
  database = `gw_h1_idem_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${database}"`);
  const url = new URL(env.databaseUrl);
  url.pathname = `/${database}`;
  const stack = { databaseUrl: url.toString(), redisUrl: env.redisUrl, redisPrefix: env.redisPrefix };
  await applyMigrations(stack.databaseUrl);
  account = await seedAccount(stack.databaseUrl);

  const ports = [await freePort(), await freePort()];
  sandbox = await startSandboxProcess("sandbox", {
    webhookUrl: `http://127.0.0.1:${ports[0]}/provider/meta/webhook`,
    wabaId: account.wabaId,
    // Only the send matters here: no statuses posted back.
    env: { SANDBOX_AUTO_STATUSES: "false" },
  });
  pods = await Promise.all(ports.map((port, i) => startApi(`api#${i + 1}`, stack, { port, metaBaseUrl: sandbox.url })));
  watchdog = createWatchdog({ maxSilenceMs: 15_000, maxUnreadyMs: 30_000 });
  for (const app of [sandbox, ...pods]) watchdog.watch(app);
}, 120_000);

afterAll(async () => {
  watchdog?.stop();
  for (const app of [sandbox, ...pods]) if (app) await kill(app);
  if (database) await adminQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
});

describe("two API processes, one Idempotency-Key", () => {
  it("100 concurrent sends split across both reach the provider once; every answer is that 200 or 409 idempotency_in_flight", async () => {
    const startedAt = Date.now();
    const body = JSON.stringify({ to: TO, template: "hello_world", language: "en_US", client_ref: "pedido-dois-pods" });
    const send = async (pod: RunningApp): Promise<Answer> => {
      const res = await fetch(`${pod.url}/public/v1/messages`, {
        method: "POST",
        headers: { ...account.auth, "content-type": "application/json", "idempotency-key": "dois-pods-1" },
        body,
      });
      return {
        pod: pod.name,
        status: res.status,
        text: await res.text(),
        replayed: res.headers.get("idempotent-replayed") === "true",
      };
    };
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => send(pods[i % pods.length] as RunningApp)),
    );

    // Exactly one upstream call.
    const sent = (await (await fetch(`${sandbox.url}/_sandbox/sent`)).json()) as { wamid: string; to: string }[];
    const requests = (await (await fetch(`${sandbox.url}/_sandbox/requests`)).json()) as {
      method: string;
      path: string;
    }[];
    expect(sent.filter((s) => s.to === TO)).toHaveLength(1);
    expect(requests.filter((r) => r.method === "POST" && r.path.endsWith("/messages"))).toHaveLength(1);

    // Every answer is the one 200 (once as the original, otherwise replayed byte for byte) or the in-flight 409.
    expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    const ok = answers.filter((a) => a.status === 200);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(ok.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(ok.map((a) => a.text)).size).toBe(1);
    const original = JSON.parse(ok[0]?.text ?? "{}") as { data?: { message_id?: string } };
    expect(original.data?.message_id).toBe(sent.find((s) => s.to === TO)?.wamid);
    for (const a of inFlight)
      expect(JSON.parse(a.text)).toMatchObject({ success: false, error: { code: "idempotency_in_flight" } });

    // Once it settled, either pod answers the repeat with the same bytes, without calling the provider again.
    for (const pod of pods) {
      const again = await send(pod);
      expect(again).toMatchObject({ status: 200, text: ok[0]?.text, replayed: true });
    }
    expect((await (await fetch(`${sandbox.url}/_sandbox/sent`)).json()) as unknown[]).toHaveLength(1);
    watchdog.assertHealthy();

    const byPod = pods.map(
      (pod) => `${pod.name} ${answers.filter((a) => a.pod === pod.name && a.status === 200).length}×200`,
    );
    console.log(
      `two APIs, one Idempotency-Key: ${CALLS} concurrent sends → 1 upstream call; ${ok.length}×200 (1 original, ` +
        `${ok.length - 1} replays; ${byPod.join(", ")}), ${inFlight.length}×409 idempotency_in_flight, 0 other; ` +
        `duration ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
  }, 60_000);
});
