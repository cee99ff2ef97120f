// The combined fault run (hardening issue, "a fault suite that proves it"): the API, the dispatcher and the provider
// sandbox as separate processes on loopback, a signed receiver, and a PostgreSQL cluster and Redis of this suite's
// own (restarting or flushing them disturbs no other suite). During a stream of sends through the public API, with
// the sandbox posting sent/delivered/read back to the API, the dispatcher is SIGKILLed mid-batch and replaced, Redis
// is flushed and PostgreSQL is restarted. Afterwards every accepted send has all its statuses at the receiver as
// signed `message.status` webhooks, the sandbox saw each message once, and no process died or hung.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { applyMigrations } from "@gw/db";
import {
  eventually,
  freePort,
  reply,
  signatureIsValid,
  startReceiver,
  startThrowawayPostgres,
  startThrowawayRedis,
  type Receiver,
  type ThrowawayPostgres,
} from "@gw/testkit";
import {
  kill,
  launchDispatcher,
  seedAccount,
  startApi,
  startSandboxProcess,
  tail,
  waitUntilUp,
  type ProcessAccount,
  type RunningApp,
  type ProcessStack,
  sendWithRetries,
  type SendOutcome,
  redisCommand,
  createWatchdog,
  type Watchdog,
} from "../src/index.ts";

const SENDS = 120;
const CLIENTS = 4;
/** Each client's pause between two messages: keeps the stream going while the faults are injected. */
const PACE_MS = 250;
const CONTACTS = ["5511987650001", "5511987650002", "5511987650003"];
const STATUSES = ["sent", "delivered", "read"] as const;

/** Time-scaled settings: the dispatcher's retries, lock and sweep in seconds instead of minutes. */
const DISPATCHER_ENV = {
  DISPATCHER_CONCURRENCY: "8",
  DATABASE_POOL_SIZE: "10",
  WEBHOOK_TIMEOUT_MS: "2000",
  DISPATCHER_LOCK_DURATION_MS: "3000",
  DISPATCHER_STALLED_INTERVAL_MS: "1000",
  // Fast first retries; the later steps keep the schedule's deadline (expiry.ts: the longest the schedule can take,
  // about 85 s here) beyond the faults' length on a loaded machine, so no delivery is failed by its deadline.
  WEBHOOK_RETRY_SCHEDULE_MS: "200,400,800,1600,3200,6400,10000,10000,10000,10000",
  RECONCILE_INTERVAL_MS: "1000",
  RECONCILE_GRACE_MS: "2000",
};

interface StatusWebhook {
  deliveryId: string;
  messageId: string;
  status: string;
  signed: boolean;
}

let postgres: ThrowawayPostgres;
let redis: Awaited<ReturnType<typeof startThrowawayRedis>>;
let receiver: Receiver;
let watchdog: Watchdog;
let stack: ProcessStack;
let account: ProcessAccount;
let sandbox: RunningApp;
let api: RunningApp;
const apps: RunningApp[] = [];

beforeAll(async () => {
  postgres = await startThrowawayPostgres();
  const databaseUrl = await postgres.createDatabase("gateway");
  await applyMigrations(databaseUrl);
  redis = await startThrowawayRedis();
  stack = { databaseUrl, redisUrl: redis.url, redisPrefix: "fault" };
  // Answers a little later, so the dispatcher always has attempts in flight while the stream goes on.
  receiver = await startReceiver((_req, res) => void setTimeout(() => reply(res, 200, "ok"), 80));
  account = await seedAccount(databaseUrl, { integrationUrl: receiver.url });

  const apiPort = await freePort();
  sandbox = await startSandboxProcess("sandbox", {
    webhookUrl: `http://127.0.0.1:${apiPort}/provider/meta/webhook`,
    wabaId: account.wabaId,
    env: {
      SANDBOX_STATUS_DELAYS_MS: "150,400,700",
      // Meta's redelivery of webhooks the API refused (503 while PostgreSQL restarts), 100× faster.
      SANDBOX_WEBHOOK_RETRIES: "true",
      SANDBOX_WEBHOOK_RETRY_SCALE: "0.01",
    },
  });
  apps.push(sandbox);
  api = await startApi("api", stack, {
    port: apiPort,
    metaBaseUrl: sandbox.url,
    env: { SEND_JOURNAL_REPLAY_INTERVAL_MS: "500", META_TIMEOUT_MS: "5000" },
  });
  apps.push(api);
  const dispatcher = await launchDispatcher("dispatcher#1", stack, DISPATCHER_ENV);
  apps.push(dispatcher);
  await waitUntilUp(dispatcher);

  // The contacts write first (through the sandbox, a signed inbound webhook): their 24 h windows open.
  for (const from of CONTACTS) {
    const res = await fetch(`${sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: account.phoneNumberId, from, name: "Cliente", type: "text", text: "oi" }),
    });
    expect({ status: res.status, answer: await res.json() }).toMatchObject({
      status: 200,
      answer: { webhook_status: 200 },
    });
  }

  watchdog = createWatchdog({ maxSilenceMs: 15_000, maxUnreadyMs: 45_000 });
  for (const app of apps) watchdog.watch(app);
}, 120_000);

afterAll(async () => {
  watchdog?.stop();
  for (const app of apps) await kill(app);
  await receiver?.close();
  await redis?.stop();
  await postgres?.stop();
});

/** The `message.status` webhooks the receiver got, read from their raw bodies. */
function statusWebhooks(): StatusWebhook[] {
  const secret = account.signingSecret ?? "";
  return receiver.requests.map((request) => {
    const body = JSON.parse(request.body) as {
      event?: string;
      delivery_id?: string;
      data?: { message_id?: string; status?: string };
    };
    return {
      deliveryId: body.delivery_id ?? "",
      messageId: body.data?.message_id ?? "",
      status: body.data?.status ?? "",
      signed:
        signatureIsValid(secret, request) &&
        body.event === "message.status" &&
        request.headers["x-pt-event"] === "message.status" &&
        request.headers["x-pt-delivery-id"] === body.delivery_id,
    };
  });
}

/** Statuses of each message that reached the receiver signed. */
function signedStatuses(): Map<string, Set<string>> {
  const byMessage = new Map<string, Set<string>>();
  for (const webhook of statusWebhooks()) {
    if (!webhook.signed) continue;
    const set = byMessage.get(webhook.messageId) ?? new Set<string>();
    set.add(webhook.status);
    byMessage.set(webhook.messageId, set);
  }
  return byMessage;
}

async function sandboxJson<T>(path: string): Promise<T> {
  const res = await fetch(`${sandbox.url}/_sandbox/${path}`);
  return (await res.json()) as T;
}

interface Stream {
  outcomes: SendOutcome[];
  accepted(): number;
  /** Repeats because the API could not take the send (503 service_unavailable, connection refused). */
  unavailableRepeats(): number;
  finished(): boolean;
  done: Promise<void>;
  /** The clients stop (the test is over, passed or not). */
  cancel(): void;
}

/**
 * CLIENTS integrators sending SENDS text messages through the public API, each with its own Idempotency-Key,
 * repeating the same request after a 503, a 409 in flight or a refused connection, as the spec asks.
 */
function startStream(): Stream {
  const outcomes: SendOutcome[] = [];
  let unavailable = 0;
  let next = 0;
  let finished = false;
  let cancelled = false;
  const client = async () => {
    for (let i = next++; i < SENDS && !cancelled; i = next++) {
      const key = `fault-${i}`;
      const body = { to: CONTACTS[i % CONTACTS.length], text: `mensagem de falhas nº ${i}`, client_ref: key };
      outcomes.push(
        await sendWithRetries(
          api.url,
          account.auth,
          { key, body },
          {
            // Longer than a reservation takes to go stale (META_TIMEOUT_MS + 60 s): a client that follows the spec
            // gets its 200 even if a restart left its key in flight.
            deadlineMs: 80_000,
            pauseMs: 250,
            requestTimeoutMs: 20_000,
            onRepeat: (why) => {
              if (why !== "idempotency_in_flight") unavailable++;
            },
            isCancelled: () => cancelled,
          },
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, client)).then(() => {
    finished = true;
  });
  return {
    outcomes,
    accepted: () => outcomes.filter((o) => o.status === 200).length,
    unavailableRepeats: () => unavailable,
    finished: () => finished,
    done,
    cancel: () => {
      cancelled = true;
    },
  };
}

interface Faults {
  attemptsInFlightAtKill: number;
  flushed: boolean;
  outageMs: number;
  /** Sends the API refused (503 or no connection) and webhooks it answered 503 while PostgreSQL was down. */
  refusedSends: number;
  refusedWebhooks: number;
}

/** The three faults, each once the stream has gone far enough, while it goes on. */
async function injectFaults(stream: Stream): Promise<Faults> {
  const faults: Faults = {
    attemptsInFlightAtKill: 0,
    flushed: false,
    outageMs: 0,
    refusedSends: 0,
    refusedWebhooks: 0,
  };
  const whenAccepted = (share: number, what: string) =>
    eventually(
      () => {
        watchdog.assertHealthy();
        if (stream.finished()) throw new Error(`o fluxo de envios terminou antes de ${what}`);
        return stream.accepted() >= Math.round(SENDS * share);
      },
      { timeoutMs: 60_000, intervalMs: 20, what },
    );

  // 1. The dispatcher dies with attempts in flight (the receiver holds each answer 80 ms); a new one replaces it.
  await whenAccepted(0.2, "a queda do dispatcher");
  await eventually(() => receiver.open.size > 0, { timeoutMs: 20_000, intervalMs: 5, what: "tentativas em voo" });
  faults.attemptsInFlightAtKill = receiver.open.size;
  const first = apps.find((a) => a.name === "dispatcher#1");
  if (!first) throw new Error("dispatcher#1 ausente");
  watchdog.release(first);
  await kill(first);
  const second = await launchDispatcher("dispatcher#2", stack, DISPATCHER_ENV);
  apps.push(second);
  await waitUntilUp(second);
  watchdog.watch(second);

  // 2. Redis loses every job, delayed retry and rate-limit bucket.
  await whenAccepted(0.45, "o FLUSHALL");
  expect(await redisCommand(redis.url, "FLUSHALL")).toBe("+OK");
  faults.flushed = true;

  // 3. PostgreSQL restarts (-m fast: every connection terminated, 57P01). It stays down until the API has refused
  // sends and the sandbox's webhooks and both gateway processes report themselves unready, so the clients' repeats,
  // the sandbox's redeliveries and the dispatcher's handling of a database outage are all exercised.
  await whenAccepted(0.65, "o reinício do PostgreSQL");
  const stoppedAt = Date.now();
  const repeatsBefore = stream.unavailableRepeats();
  const unready = (app: RunningApp) =>
    fetch(`${app.url}/readyz`).then(
      (r) => r.status === 503,
      () => false,
    );
  await postgres.restart({
    whileDown: () =>
      eventually(
        async () => {
          watchdog.assertHealthy();
          faults.refusedSends = stream.unavailableRepeats() - repeatsBefore;
          faults.refusedWebhooks = (await sandboxJson<{ status: number | null; at: string }[]>("webhooks")).filter(
            (w) => Date.parse(w.at) >= stoppedAt && w.status !== null && w.status !== 200,
          ).length;
          if (faults.refusedSends < 3 || faults.refusedWebhooks < 1) return false;
          return (await Promise.all([api, second].map(unready))).every(Boolean);
        },
        { timeoutMs: 20_000, intervalMs: 20, what: "a API e o dispatcher sentirem o PostgreSQL fora" },
      ),
  });
  faults.outageMs = Date.now() - stoppedAt;
  return faults;
}

describe("dispatcher SIGKILL, Redis FLUSHALL and a PostgreSQL restart during sends and status ingestion", () => {
  it(
    "delivers every status of every accepted send, signed, with no duplicate upstream send and no process dead or hung",
    () =>
      watchdog.guard(async () => {
        const startedAt = Date.now();
        const stream = startStream();
        let faults: Faults;
        try {
          [faults] = await Promise.all([injectFaults(stream), stream.done]);
        } finally {
          stream.cancel();
        }
        const { outcomes } = stream;

        // Every send got a final answer, and every answer was a 200.
        expect(outcomes).toHaveLength(SENDS);
        expect(
          outcomes.filter((o) => o.status === null).map((o) => `${o.key}: ${o.repeats.slice(-3).join(" | ")}`),
        ).toEqual([]);
        expect(outcomes.filter((o) => o.status !== 200).map((o) => `${o.key}: ${o.status} ${o.code}`)).toEqual([]);
        const acceptedSends = outcomes.filter((o) => o.status === 200);

        // Every status of every accepted send reaches the receiver, signed.
        const missing = () => {
          const got = signedStatuses();
          return acceptedSends.flatMap((send) =>
            STATUSES.filter((s) => !got.get(send.messageId ?? "")?.has(s)).map(
              (s) => `${send.key} ${send.messageId} ${s}`,
            ),
          );
        };
        await eventually(
          () => {
            watchdog.assertHealthy();
            return missing().length === 0;
          },
          { timeoutMs: 90_000, intervalMs: 250, what: "todos os status de todos os envios aceitos no receptor" },
        ).catch(async (error: Error) => {
          const pending = await sandboxJson<{ pending: unknown[] }>("webhooks/pending");
          const db = new pg.Client({ connectionString: stack.databaseUrl });
          await db.connect();
          const states = await db
            .query<{ status: string; last_error_kind: string | null; count: string }>(
              "SELECT status, last_error_kind, count(*) FROM deliveries GROUP BY 1, 2 ORDER BY 1, 2",
            )
            .finally(() => db.end());
          throw new Error(
            `${error.message}\nfaltam ${missing().length}: ${missing().slice(0, 10).join(", ")}\n` +
              `reentregas pendentes no sandbox: ${pending.pending.length}\n` +
              `entregas: ${states.rows.map((r) => `${r.status}/${r.last_error_kind ?? "-"} ${r.count}`).join(", ")}\n` +
              apps.map((app) => `--- ${app.name}\n${tail(app, 15)}`).join("\n"),
          );
        });

        const webhooks = statusWebhooks();
        // Every POST the receiver got was signed with the integration's secret over the bytes it received.
        expect(webhooks.filter((w) => !w.signed)).toEqual([]);
        // One event per change: each (message, status) has exactly one delivery id, however often it was attempted.
        const deliveryIds = new Map<string, Set<string>>();
        for (const w of webhooks) {
          const key = `${w.messageId} ${w.status}`;
          deliveryIds.set(key, (deliveryIds.get(key) ?? new Set()).add(w.deliveryId));
        }
        expect([...deliveryIds].filter(([, ids]) => ids.size !== 1).map(([key]) => key)).toEqual([]);
        expect(deliveryIds.size).toBe(acceptedSends.length * STATUSES.length);

        // The sandbox received each message once, and the ids the API answered are the sandbox's.
        const sent = await sandboxJson<{ wamid: string; body: { text?: { body?: string } } }[]>("sent");
        const perText = new Map<string, number>();
        for (const { body } of sent) perText.set(body.text?.body ?? "", (perText.get(body.text?.body ?? "") ?? 0) + 1);
        const duplicates = [...perText.values()].reduce((sum, n) => sum + n - 1, 0);
        expect([...perText].filter(([, n]) => n > 1)).toEqual([]);
        const wamids = new Set(sent.map((s) => s.wamid));
        expect(acceptedSends.filter((s) => !wamids.has(s.messageId ?? ""))).toEqual([]);

        // Nothing is left behind: no redelivery pending in the sandbox, no dead letter in the gateway.
        await eventually(
          async () => (await sandboxJson<{ pending: unknown[] }>("webhooks/pending")).pending.length === 0,
          {
            timeoutMs: 20_000,
            intervalMs: 250,
            what: "o sandbox sem reentregas pendentes",
          },
        );
        const failed = await fetch(`${api.url}/public/v1/deliveries?status=failed`, { headers: account.auth });
        expect(((await failed.json()) as { data: { deliveries: unknown[] } }).data.deliveries).toEqual([]);

        // The faults really happened, and every process but the one killed is still up.
        expect(faults.attemptsInFlightAtKill).toBeGreaterThan(0);
        expect(faults.flushed).toBe(true);
        watchdog.assertHealthy();
        for (const app of apps.filter((a) => a.name !== "dispatcher#1")) expect(app.process.child.exitCode).toBeNull();

        const refusedWebhooks = (await sandboxJson<{ status: number | null }[]>("webhooks")).filter(
          (w) => w.status !== 200,
        ).length;
        const repeats = outcomes.flatMap((o) => o.repeats.map((why) => why.split(":")[0] ?? why));
        const repeatKinds = [...new Set(repeats)].map((why) => `${why} ${repeats.filter((r) => r === why).length}`);
        console.log(
          `fault run: ${acceptedSends.length}/${SENDS} sends accepted, ${deliveryIds.size} statuses delivered signed ` +
            `(${webhooks.length} POSTs to the receiver), ${duplicates} duplicate upstream sends; faults injected: 3 ` +
            `(dispatcher SIGKILL with ${faults.attemptsInFlightAtKill} attempts in flight, Redis FLUSHALL, PostgreSQL ` +
            `down ${faults.outageMs} ms); client repeats ${repeats.length} (${repeatKinds.join(", ") || "none"}), ` +
            `sandbox webhooks refused then redelivered ${refusedWebhooks}, API unready for ` +
            `${watchdog.worst().api?.unreadyMs ?? 0} ms at most; duration ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
        );
      }),
    200_000,
  );
});
