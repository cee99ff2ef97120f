import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigError } from "@gw/config";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  createAccount,
  rotateIntegrationSecret,
  setIntegration,
} from "@gw/core/accounts";
import { deliverWebhookJob, enqueueDeliveryAttempt } from "@gw/jobs";
import { verifyWebhook } from "@gw/receiver";
import {
  createDelivery,
  eventually,
  isolatedDatabase,
  reply,
  startReceiver,
  testActor,
  testSecretBox,
  type Fixture,
  type ReceivedRequest,
  type Receiver,
} from "@gw/testkit";
import { loadDispatcherConfig } from "../src/index.ts";
import { spawnApp } from "@gw/test-stack";
import { REQUIRED_SETTINGS, openBed, requestsOf, type DispatcherBed } from "./support.ts";

// The dispatcher with signing secrets stored sealed (SECRETS_KEYS): it signs every attempt with what it decrypts,
// an integrator's @gw/receiver verifies it, a value that does not open sends nothing, and its housekeeping forgets a
// previous secret once the rotation's overlap has ended.

const secrets = testSecretBox();
let bed: DispatcherBed;
let receiver: Receiver;

beforeAll(async () => {
  // The housekeeping updates the whole integrations table: a database of its own.
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
  await bed.startDispatcher({ IDEMPOTENCY_PURGE_INTERVAL_MS: "1000" });
});

afterAll(async () => {
  await bed.close(receiver);
});

async function integration(): Promise<Fixture> {
  const account = await createAccount({ db: bed.db }, { actor: testActor, name: "Conta do dispatcher" });
  const saved = await setIntegration(
    { db: bed.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets },
    { actor: testActor, accountId: account.id, url: receiver.url, events: ["message.status"] },
  );
  return { accountId: account.id, integrationId: saved.id, secret: saved.signing_secret };
}

async function delivered(fixture: Fixture): Promise<ReceivedRequest> {
  const delivery = await createDelivery(bed.db, fixture);
  await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
  return eventually(() => requestsOf(receiver, delivery.id)[0], { what: `the request of delivery ${delivery.id}` });
}

/** @gw/receiver's check, as an integrator holding `secret` runs it. */
function receiverAccepts(secret: string | string[], request: ReceivedRequest, withPrevious = false): boolean {
  return verifyWebhook({
    secret,
    rawBody: request.body,
    timestamp: request.headers["x-pt-timestamp"] as string | undefined,
    signature: request.headers["x-pt-signature"] as string | undefined,
    ...(withPrevious ? { previousSignature: request.headers["x-pt-signature-previous"] as string | undefined } : {}),
  }).ok;
}

describe("dispatcher with sealed signing secrets", () => {
  it("signs with the decrypted secret; @gw/receiver verifies it, and the replaced one through X-PT-Signature-Previous", async () => {
    const fixture = await integration();
    const first = await delivered(fixture);
    expect(receiverAccepts(fixture.secret, first)).toBe(true);
    expect(receiverAccepts("whsec_outro", first)).toBe(false);

    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 1 },
    );
    const second = await delivered(fixture);
    expect(receiverAccepts(rotated!.signing_secret, second)).toBe(true);
    // A receiver still configured with the old secret only.
    expect(receiverAccepts(fixture.secret, second, true)).toBe(true);
    expect(receiverAccepts(fixture.secret, second)).toBe(false);
  });

  it("sends nothing and spends no attempt for a secret that does not open, and delivers once it is replaced", async () => {
    const fixture = await integration();
    const { rows } = await bed.db.sql.query<{ sealed: string }>(
      `SELECT signing_secret_encrypted AS sealed FROM integrations WHERE id = $1::uuid`,
      [fixture.integrationId],
    );
    // Another key id: as if the key that sealed it had been removed from SECRETS_KEYS too early.
    const relabelled = rows[0]!.sealed.replace(/^v1:[^:]+:/, "v1:removida:");
    await bed.db.sql.query(`UPDATE integrations SET signing_secret_encrypted = $2 WHERE id = $1::uuid`, [
      fixture.integrationId,
      relabelled,
    ]);
    const delivery = await createDelivery(bed.db, fixture);
    await enqueueDeliveryAttempt(bed.queue, delivery.id, 1);
    const job = await eventually(
      async () => {
        const found = await bed.queue.getJob(deliverWebhookJob.jobId(delivery.id, 1));
        return found && found.attemptsMade >= 1 ? found : null;
      },
      { what: "the job's first failed run" },
    );
    expect(job.failedReason).toContain("cannot be decrypted (key id removida)");
    expect(job.failedReason).not.toContain("whsec_");
    expect(requestsOf(receiver, delivery.id)).toEqual([]);
    expect(await bed.db.delivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: "pending",
      attemptCount: 0,
    });

    const replaced = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 0 },
    );
    // BullMQ runs the job again (its back-off): this time it opens.
    const request = await eventually(() => requestsOf(receiver, delivery.id)[0], {
      what: "the delivery once the secret was replaced",
      timeoutMs: 15_000,
    });
    expect(receiverAccepts(replaced!.signing_secret, request)).toBe(true);
    expect(request.headers["x-pt-attempt"]).toBe("1");
  });

  it("forgets a previous secret by itself once its overlap has ended, and keeps one whose overlap lasts", async () => {
    const ended = await integration();
    const live = await integration();
    await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: live.integrationId, overlapHours: 1 },
    );
    // The overlap ended a minute ago (a rotation an hour and a minute back).
    await rotateIntegrationSecret(
      { db: bed.db, secrets },
      {
        actor: testActor,
        integrationId: ended.integrationId,
        overlapHours: 1,
        now: new Date(Date.now() - 61 * 60_000),
      },
    );
    const previousOf = async (id: string) =>
      (
        await bed.db.sql.query<{ sealed: string | null; until: Date | null }>(
          `SELECT previous_signing_secret_encrypted AS sealed, previous_secret_expires_at AS until
           FROM integrations WHERE id = $1::uuid`,
          [id],
        )
      ).rows[0]!;
    await eventually(async () => ((await previousOf(ended.integrationId)).sealed === null ? true : null), {
      what: "the housekeeping clearing the ended overlap's secret",
      timeoutMs: 10_000,
    });
    expect(await previousOf(ended.integrationId)).toEqual({ sealed: null, until: null });
    expect((await previousOf(live.integrationId)).sealed).toMatch(/^v1:/);
  });
});

describe("dispatcher configuration: SECRETS_KEYS", () => {
  const { SECRETS_KEYS: _ring, ...base } = REQUIRED_SETTINGS;

  it("is required, and the example key of .env.example is refused", () => {
    expect(() => loadDispatcherConfig(base)).toThrow(ConfigError);
    expect(() => loadDispatcherConfig(base)).toThrow(/SECRETS_KEYS: obrigatória e ausente/);
    expect(() =>
      loadDispatcherConfig({ ...base, SECRETS_KEYS: "k1:ZXhhbXBsZS1rZXktZG8tbm90LXVzZS1hbnl3aGVyZSE=" }),
    ).toThrow(/a chave k1 é a de exemplo/);
    expect(
      loadDispatcherConfig({ ...base, SECRETS_KEYS: `k1:${randomBytes(32).toString("base64")}` }).SECRETS_KEYS,
    ).toHaveLength(1);
  });

  it("main.ts exits 78 without a usable key ring, never printing the key", async () => {
    const weak = Buffer.alloc(32, 7).toString("base64");
    const child = spawnApp("dispatcher", { ...base, SECRETS_KEYS: `k1:${weak}` });
    expect(await child.exited).toEqual({ code: 78, signal: null });
    const output = child.lines.join("\n");
    expect(output).toMatch(/SECRETS_KEYS: a chave k1 não parece aleatória/);
    expect(output).not.toContain(weak);
  }, 30_000);
});
