import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, createAccount, createSecretBox, setIntegration } from "@gw/core/accounts";
import { DELIVERY_ERROR_KIND_MESSAGES, budgetLifetimeMs, getDelivery } from "@gw/core/deliveries";
import { deliverWebhookJob, enqueueDeliveryAttempt } from "@gw/jobs";
import { createLogger } from "@gw/logger";
import {
  createDelivery,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  testActor,
  testSecretBox,
  type Receiver,
} from "@gw/testkit";
import type { Dispatcher } from "../src/index.ts";
import { metricsOf, openBed, requestsOf, type DispatcherBed } from "./support.ts";

// Hardening 4, item 16: a delivery whose integration's signing secret was sealed under a key that is not in the
// dispatcher's SECRETS_KEYS. Nothing is ever sent, but it no longer waits in silence: the row names the cause
// (`last_error_kind = secret_unavailable`, kept when its deadline fails it), a metric counts each attempt not made,
// and neither the row nor the logs hold the secret.

const SCHEDULE_MS = "50,100,150,200,250,300";
const TIMEOUT_MS = 2_000;

let bed: DispatcherBed;
let dispatcher: Dispatcher;
let receiver: Receiver;
const lines: string[] = [];

beforeAll(async () => {
  // The test runs the deadline's sweep itself: a database of its own, so no other file's delivery is failed.
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
  const logger = createLogger({ service: "dispatcher-test", level: "debug" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  logger.on("data", (info: unknown) => lines.push(JSON.stringify(info)));
  dispatcher = await bed.startDispatcher(
    { WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE_MS, WEBHOOK_RETRY_JITTER: "0.2", WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    { logger },
  );
});

afterAll(async () => {
  await bed.close(receiver);
});

async function unavailableCount(): Promise<number> {
  const text = await metricsOf(dispatcher);
  return Number(/^gw_webhook_secret_unavailable_total\{reason="unknown_key"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe("a delivery whose signing secret's key is not in the ring", () => {
  it("records secret_unavailable on the row and counts it at every run, sends nothing, keeps the cause past its deadline, and never shows the secret", async () => {
    const account = await createAccount({ db: bed.db }, { actor: testActor, name: "Conta sem chave" });
    const saved = await setIntegration(
      { db: bed.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { actor: testActor, accountId: account.id, url: receiver.url, events: ["message.status"] },
    );
    const secret = saved.signing_secret;
    // Sealed for real, under a key the dispatcher's SECRETS_KEYS does not hold (removed from the ring too early).
    const retired = createSecretBox([{ id: "retirada", key: randomBytes(32) }]);
    const sealed = retired.seal(secret, { table: "integrations", id: saved.id, field: "signing_secret" });
    await bed.db.sql.query(`UPDATE integrations SET signing_secret_encrypted = $2 WHERE id = $1::uuid`, [
      saved.id,
      sealed,
    ]);
    const delivery = await createDelivery(bed.db, { accountId: account.id, integrationId: saved.id, secret });
    const deliveryId = delivery.id.toString();
    expect(await unavailableCount()).toBe(0);
    await enqueueDeliveryAttempt(bed.queue, deliveryId, 1);

    // The first run: the row says why, with no status code and no body (no endpoint answered), no attempt spent.
    await eventually(
      async () =>
        (await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).lastErrorKind ===
        "secret_unavailable",
      { what: "the delivery's last_error_kind" },
    );
    // BullMQ runs the job again (its back-off): each run not made is counted, and recorded again.
    const job = await eventually(
      async () => {
        const found = await bed.queue.getJob(deliverWebhookJob.jobId(deliveryId, 1));
        return found && found.attemptsMade >= 2 ? found : null;
      },
      { what: "the job's second failed run", timeoutMs: 15_000 },
    );
    // Counted at each run (the second is counted before BullMQ records it as made).
    expect(await unavailableCount()).toBeGreaterThanOrEqual(2);
    expect(await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: "pending",
      attemptCount: 0,
      lastErrorKind: "secret_unavailable",
      lastStatusCode: null,
      lastError: null,
    });
    expect(await bed.db.deliveryAttempt.count({ where: { deliveryId: delivery.id } })).toBe(0);
    // What an integrator reads (GET /deliveries/{id}) and the panel's explanation of the kind.
    const view = await getDelivery({ db: bed.db }, { accountId: account.id, deliveryId: Number(delivery.id) });
    expect(view).toMatchObject({ status: "pending", attempts: 0, last_error_kind: "secret_unavailable" });
    expect(DELIVERY_ERROR_KIND_MESSAGES.secret_unavailable).toContain("SECRETS_KEYS");
    expect(requestsOf(receiver, deliveryId)).toEqual([]);

    // Past its deadline it fails, still saying why (not `expired`, which would blame a silent endpoint).
    const lifetimeMs = budgetLifetimeMs({
      scheduleMs: SCHEDULE_MS.split(",").map(Number),
      jitter: 0.2,
      attemptTimeoutMs: TIMEOUT_MS,
    });
    await bed.db.sql.query(`UPDATE deliveries SET budget_started_at = $2 WHERE id = $1::bigint`, [
      deliveryId,
      new Date(Date.now() - lifetimeMs - 60_000),
    ]);
    // A run of the job may hold the row at that instant (claimed): the sweep skips it then, and fails it next time.
    await eventually(async () => ((await dispatcher.reconcileNow())?.expired === 1 ? true : null), {
      what: "the sweep failing the delivery past its deadline",
    });
    expect(await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: "failed",
      attemptCount: 0,
      lastErrorKind: "secret_unavailable",
      lastError: null,
    });
    expect(requestsOf(receiver, deliveryId)).toEqual([]);

    // The logs name the integration and the missing key id, never the secret or its sealed form.
    const logged = lines.filter((line) => line.includes("integration signing secret cannot be decrypted"));
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(logged[0]!)).toMatchObject({
      deliveryId,
      integrationId: saved.id,
      reason: "unknown_key",
      keyId: "retirada",
    });
    const everything = [...lines, job.failedReason].join("\n");
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(sealed);
    expect(everything).not.toContain(secret.slice("whsec_".length));
  });
});
