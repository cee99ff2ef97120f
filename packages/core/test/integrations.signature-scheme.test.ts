// Issue 21: an integration chooses how its webhooks are signed. Real attempts through the dispatcher's attempt code to
// a real endpoint, verified with the official Standard Webhooks library from npm (`standardwebhooks`) and, for the
// contract's X-PT-Signature, with @gw/receiver and an independent HMAC (@noble/hashes).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { Webhook } from "standardwebhooks";
import { verifyStandardWebhook, verifyWebhook } from "@gw/receiver";
import {
  createDelivery,
  isolatedDatabase,
  reply,
  testActor,
  testSecretBox,
  type ReceivedRequest,
  testEnv,
} from "@gw/testkit";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  createAccount,
  getIntegration,
  revealIntegrationSecret,
  rotateIntegrationSecret,
  setIntegration,
} from "../src/accounts/index.ts";
import { processDeliveryAttempt } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

const HOUR = 3_600_000;
const secrets = testSecretBox();
const policy = DEVELOPMENT_INTEGRATION_POLICY;
const SHOWN_STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** What the endpoint answers next; 200 unless a test says otherwise. */
let answers: number[] = [];

let bed: AttemptBed;

beforeAll(async () => {
  // A database of its own: a due retry in the run's database is fair game for another file's dispatcher sweep, which
  // claimed this file's second attempt once (three jest workers).
  bed = await openAttemptBed(testEnv(), {
    database: await isolatedDatabase(),
    handler: (_req, res) => reply(res, answers.shift() ?? 200, "ok"),
  });
});

afterAll(async () => {
  await bed.close();
});

async function newIntegration(scheme?: "pt" | "standard-webhooks") {
  const account = await createAccount({ db: bed.db }, { name: "Conta esquemas", actor: testActor });
  const saved = await setIntegration(
    { db: bed.db, policy, secrets },
    {
      actor: testActor,
      accountId: account.id,
      url: `${bed.receiver.url}/${scheme ?? "default"}`,
      events: ["message.status"],
      ...(scheme === undefined ? {} : { signatureScheme: scheme }),
    },
  );
  return { saved, fixture: { accountId: account.id, integrationId: saved.id, secret: saved.signing_secret } };
}

type FixtureOf = Awaited<ReturnType<typeof newIntegration>>["fixture"];

/** One attempt of `deliveryId` at `now`; the request the endpoint got. */
async function attempt(deliveryId: bigint, number: number, now = new Date()): Promise<ReceivedRequest> {
  const before = bed.receiver.requests.length;
  await processDeliveryAttempt({ ...bed.deps, now: () => now }, { deliveryId: deliveryId.toString(), attempt: number });
  expect(bed.receiver.requests).toHaveLength(before + 1);
  return bed.receiver.requests[before]!;
}

async function deliverOnce(fixture: FixtureOf, now = new Date()) {
  const delivery = await createDelivery(bed.db, fixture);
  return { delivery, request: await attempt(delivery.id, 1, now) };
}

/** The official library's verdict on a request, with the secret as the integrator holds it. */
function libraryVerifies(secret: string, request: ReceivedRequest): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe("an integration signed with Standard Webhooks", () => {
  it("shows a whsec_ secret the official library verifies its deliveries with; the X-PT signature headers are not sent", async () => {
    const { saved, fixture } = await newIntegration("standard-webhooks");
    expect(saved.signature_scheme).toBe("standard-webhooks");
    expect(saved.signing_secret).toMatch(SHOWN_STANDARD_SECRET);
    const revealed = await revealIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, accountId: fixture.accountId, integrationId: fixture.integrationId },
    );
    expect(revealed?.signing_secret).toBe(saved.signing_secret);
    expect(await getIntegration({ db: bed.db }, fixture)).toMatchObject({ signature_scheme: "standard-webhooks" });

    const { delivery, request } = await deliverOnce(fixture);
    expect(request.headers["webhook-id"]).toBe(delivery.id.toString());
    expect(request.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(request.headers["x-pt-signature"]).toBeUndefined();
    expect(request.headers["x-pt-timestamp"]).toBeUndefined();
    // The delivery's metadata stays (not part of either signature).
    expect(request.headers["x-pt-delivery-id"]).toBe(delivery.id.toString());
    expect(request.headers["x-pt-attempt"]).toBe("1");
    expect(request.headers["x-pt-event"]).toBe("message.status");

    expect(libraryVerifies(saved.signing_secret, request)).toBe(true);
    expect(libraryVerifies(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, request)).toBe(false);
    expect(
      verifyStandardWebhook({
        secret: saved.signing_secret,
        rawBody: request.body,
        id: request.headers["webhook-id"] as string,
        timestamp: request.headers["webhook-timestamp"] as string,
        signature: request.headers["webhook-signature"] as string,
      }),
    ).toEqual({ ok: true });
  });

  it("keeps webhook-id (the delivery id) across attempts and signs each attempt with a fresh timestamp", async () => {
    const { saved, fixture } = await newIntegration("standard-webhooks");
    const delivery = await createDelivery(bed.db, fixture);
    answers = [500];
    const first = await attempt(delivery.id, 1, new Date(Date.now() - 120_000));
    const second = await attempt(delivery.id, 2);
    expect(first.headers["webhook-id"]).toBe(delivery.id.toString());
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(Number(second.headers["webhook-timestamp"]) - Number(first.headers["webhook-timestamp"])).toBeGreaterThan(
      100,
    );
    expect(second.headers["webhook-signature"]).not.toBe(first.headers["webhook-signature"]);
    expect(second.headers["x-pt-attempt"]).toBe("2");
    expect(libraryVerifies(saved.signing_secret, first)).toBe(true);
    expect(libraryVerifies(saved.signing_secret, second)).toBe(true);
  });

  it("during a rotation's overlap signs with both secrets in webhook-signature, so either one alone verifies", async () => {
    const { saved, fixture } = await newIntegration("standard-webhooks");
    const rotatedAt = new Date();
    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 2, now: rotatedAt },
    );
    const newSecret = rotated!.signing_secret;
    expect(newSecret).toMatch(SHOWN_STANDARD_SECRET);
    expect(newSecret).not.toBe(saved.signing_secret);

    const { request: during } = await deliverOnce(fixture);
    expect((during.headers["webhook-signature"] as string).split(" ")).toHaveLength(2);
    expect(during.headers["x-pt-signature-previous"]).toBeUndefined();
    expect(libraryVerifies(newSecret, during)).toBe(true);
    expect(libraryVerifies(saved.signing_secret, during)).toBe(true);

    // Past the overlap (the attempt's clock), the replaced secret no longer signs.
    const later = new Date(rotatedAt.getTime() + 2 * HOUR + 1_000);
    const { request: after } = await deliverOnce(fixture, later);
    expect((after.headers["webhook-signature"] as string).split(" ")).toHaveLength(1);
    const verifyAt = (secret: string) =>
      verifyStandardWebhook({
        secret,
        rawBody: after.body,
        id: after.headers["webhook-id"] as string,
        timestamp: after.headers["webhook-timestamp"] as string,
        signature: after.headers["webhook-signature"] as string,
        now: later.getTime() / 1000,
      });
    expect(verifyAt(newSecret)).toEqual({ ok: true });
    expect(verifyAt(saved.signing_secret)).toEqual({ ok: false, reason: "signature_mismatch" });
  });
});

describe("the default scheme and switching", () => {
  it("leaves an integration that chose nothing on X-PT-Signature with exactly the contract's headers and traceparent", async () => {
    const { saved, fixture } = await newIntegration();
    expect(saved.signature_scheme).toBe("pt");
    expect(saved.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const { request } = await deliverOnce(fixture);
    expect(Object.keys(request.headers).sort()).toEqual(
      [
        "connection",
        "content-length",
        "content-type",
        "host",
        // W3C trace context, sent with or without a trace exporter (issue 35, item 11): a header the contract allows.
        "traceparent",
        "user-agent",
        "x-pt-attempt",
        "x-pt-delivery-id",
        "x-pt-event",
        "x-pt-signature",
        "x-pt-timestamp",
      ].sort(),
    );
    const timestamp = request.headers["x-pt-timestamp"] as string;
    const independent = bytesToHex(
      hmac(sha256, utf8ToBytes(saved.signing_secret), utf8ToBytes(`${timestamp}.${request.body}`)),
    );
    expect(request.headers["x-pt-signature"]).toBe(`sha256=${independent}`);
    expect(
      verifyWebhook({
        secret: saved.signing_secret,
        rawBody: request.body,
        timestamp,
        signature: request.headers["x-pt-signature"] as string,
      }),
    ).toEqual({ ok: true });
  });

  it("switches an existing integration's scheme without touching its stored secret; a re-save without one keeps it", async () => {
    const { saved, fixture } = await newIntegration("pt");
    const storedBefore = await bed.db.integration.findUniqueOrThrow({ where: { id: saved.id } });
    const switched = await setIntegration(
      { db: bed.db, policy, secrets },
      {
        actor: testActor,
        accountId: fixture.accountId,
        integrationId: saved.id,
        url: saved.url,
        events: ["message.status"],
        signatureScheme: "standard-webhooks",
      },
    );
    expect(switched.signature_scheme).toBe("standard-webhooks");
    // The same key, shown in the form the libraries read: the base64url body re-encoded as padded base64.
    expect(switched.signing_secret).toBe(
      `whsec_${Buffer.from(saved.signing_secret.slice("whsec_".length), "base64url").toString("base64")}`,
    );
    const storedAfter = await bed.db.integration.findUniqueOrThrow({ where: { id: saved.id } });
    expect(storedAfter.signingSecretEncrypted).toBe(storedBefore.signingSecretEncrypted);
    const audit = await bed.db.auditEntry.findFirstOrThrow({
      where: { target: `integration:${saved.id}`, action: { endsWith: "integration.updated" } },
    });
    expect(audit.details).toMatchObject({ signature_scheme: "standard-webhooks" });

    const { request } = await deliverOnce(fixture);
    expect(request.headers["x-pt-signature"]).toBeUndefined();
    expect(libraryVerifies(switched.signing_secret, request)).toBe(true);

    // The CLI's re-run by URL without --signature-scheme keeps the chosen scheme.
    const resaved = await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId: fixture.accountId, url: saved.url, events: ["message.status"] },
    );
    expect(resaved.signature_scheme).toBe("standard-webhooks");

    // And back: the X-PT scheme again, with the secret as stored.
    const back = await setIntegration(
      { db: bed.db, policy, secrets },
      {
        actor: testActor,
        accountId: fixture.accountId,
        url: saved.url,
        events: ["message.status"],
        signatureScheme: "pt",
      },
    );
    expect(back.signing_secret).toBe(saved.signing_secret);
    const { request: again } = await deliverOnce(fixture);
    expect(again.headers["webhook-signature"]).toBeUndefined();
    expect(
      verifyWebhook({
        secret: saved.signing_secret,
        rawBody: again.body,
        timestamp: again.headers["x-pt-timestamp"] as string,
        signature: again.headers["x-pt-signature"] as string,
      }),
    ).toEqual({ ok: true });
  });

  it("refuses an unknown scheme in the table itself", async () => {
    const { saved } = await newIntegration();
    await expect(
      bed.db.sql.query(`UPDATE integrations SET signature_scheme = 'svix' WHERE id = $1::uuid`, [saved.id]),
    ).rejects.toThrow(/integrations_signature_scheme_known/);
  });
});
