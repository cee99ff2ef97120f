import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { safeEqual, signWebhook } from "@gw/signer";
import {
  createDelivery,
  createFixture,
  type ReceivedRequest,
  testActor,
  testSecretBox,
  testEnv,
  isolatedDatabase,
} from "@gw/testkit";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  IntegrationUrlError,
  getIntegration,
  listIntegrations,
  revealIntegrationSecret,
  rotateIntegrationSecret,
  setIntegration,
  setIntegrationActive,
} from "../src/accounts/index.ts";
import { processDeliveryAttempt } from "../src/deliveries/index.ts";
import { openAttemptBed, type AttemptBed } from "./support/webhook-bed.ts";

const HOUR = 3_600_000;
const secrets = testSecretBox();

let bed: AttemptBed;

beforeAll(async () => {
  // A database of its own: its due deliveries would be fair game for another file's dispatcher sweep.
  bed = await openAttemptBed(testEnv(), { database: await isolatedDatabase() });
});

afterAll(async () => {
  await bed.close();
});

/** Spec 5.4 over the exact bytes received, with the given header's value. */
function signedBy(secret: string, request: ReceivedRequest, header: "x-pt-signature" | "x-pt-signature-previous") {
  const timestamp = request.headers["x-pt-timestamp"];
  const signature = request.headers[header];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  return safeEqual(signWebhook(secret, timestamp, request.body), signature);
}

/** One attempt of a fresh delivery of the fixture's integration at `now`; the request the receiver got. */
async function attemptAt(fixture: Awaited<ReturnType<typeof createFixture>>, now: Date): Promise<ReceivedRequest> {
  const before = bed.receiver.requests.length;
  const delivery = await createDelivery(bed.db, fixture);
  const outcome = await processDeliveryAttempt(
    { ...bed.deps, now: () => now },
    { deliveryId: delivery.id.toString(), attempt: 1 },
  );
  expect(outcome.outcome).toBe("delivered");
  expect(bed.receiver.requests).toHaveLength(before + 1);
  return bed.receiver.requests[before]!;
}

describe("rotateIntegrationSecret with an overlap", () => {
  it("signs with the new secret and, until the overlap ends, also with the replaced one over the same timestamp and body", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const rotatedAt = new Date();
    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      {
        actor: testActor,
        accountId: fixture.accountId,
        integrationId: fixture.integrationId,
        overlapHours: 2,
        now: rotatedAt,
      },
    );
    expect(rotated).not.toBeNull();
    const newSecret = rotated!.signing_secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(fixture.secret);
    expect(rotated!.previous_secret_expires_at).toBe(new Date(rotatedAt.getTime() + 2 * HOUR).toISOString());
    const stored = await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } });
    expect(stored.previousSigningSecret).toBeNull();
    expect(
      secrets.open(stored.previousSigningSecretEncrypted!, {
        table: "integrations",
        id: fixture.integrationId,
        field: "previous_signing_secret",
      }),
    ).toBe(fixture.secret);

    // During the overlap: both headers, each verifying with its own secret only.
    const during = await attemptAt(fixture, new Date());
    expect(signedBy(newSecret, during, "x-pt-signature")).toBe(true);
    expect(signedBy(fixture.secret, during, "x-pt-signature-previous")).toBe(true);
    expect(signedBy(fixture.secret, during, "x-pt-signature")).toBe(false);
    expect(signedBy(newSecret, during, "x-pt-signature-previous")).toBe(false);

    // After it (the attempt's clock past the expiry): the new signature alone.
    const after = await attemptAt(fixture, new Date(rotatedAt.getTime() + 2 * HOUR + 1_000));
    expect(signedBy(newSecret, after, "x-pt-signature")).toBe(true);
    expect(after.headers["x-pt-signature-previous"]).toBeUndefined();
  });

  it("with no overlap (a leaked secret) drops the old secret at once", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const rotated = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 0 },
    );
    expect(rotated?.previous_secret_expires_at).toBeNull();
    const stored = await bed.db.integration.findUniqueOrThrow({ where: { id: fixture.integrationId } });
    expect(stored.previousSigningSecretEncrypted).toBeNull();
    const request = await attemptAt(fixture, new Date());
    expect(signedBy(rotated!.signing_secret, request, "x-pt-signature")).toBe(true);
    expect(request.headers["x-pt-signature-previous"]).toBeUndefined();
  });

  it("a second rotation during the overlap keeps only the secret it replaced", async () => {
    const fixture = await createFixture(bed.db, bed.receiver.url);
    const first = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 1 },
    );
    const second = await rotateIntegrationSecret(
      { db: bed.db, secrets },
      { actor: testActor, integrationId: fixture.integrationId, overlapHours: 1 },
    );
    const request = await attemptAt(fixture, new Date());
    expect(signedBy(second!.signing_secret, request, "x-pt-signature")).toBe(true);
    expect(signedBy(first!.signing_secret, request, "x-pt-signature-previous")).toBe(true);
    expect(signedBy(fixture.secret, request, "x-pt-signature-previous")).toBe(false);
  });

  it("does not rotate another account's integration", async () => {
    const mine = await createFixture(bed.db, bed.receiver.url);
    const theirs = await createFixture(bed.db, bed.receiver.url);
    expect(
      await rotateIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: mine.accountId, integrationId: theirs.integrationId, overlapHours: 1 },
      ),
    ).toBeNull();
    expect(
      await rotateIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, integrationId: "not-a-uuid", overlapHours: 1 },
      ),
    ).toBeNull();
    const stored = await bed.db.integration.findUniqueOrThrow({ where: { id: theirs.integrationId } });
    expect(
      secrets.open(stored.signingSecretEncrypted!, {
        table: "integrations",
        id: theirs.integrationId,
        field: "signing_secret",
      }),
    ).toBe(theirs.secret);
    expect(stored.previousSigningSecretEncrypted).toBeNull();
  });
});

describe("integration services of the panel", () => {
  const policy = DEVELOPMENT_INTEGRATION_POLICY;

  it("lists and reads integrations without their secrets, paged oldest first, filtered by state", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/a");
    const { accountId } = fixture;
    const b = await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId, url: "http://127.0.0.1:9/b", events: ["message.status"] },
    );
    const c = await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId, url: "http://127.0.0.1:9/c", events: ["message.received"] },
    );
    await setIntegrationActive({ db: bed.db }, { actor: testActor, accountId, integrationId: b.id, active: false });

    const first = await listIntegrations({ db: bed.db }, { accountId, limit: 2 });
    expect(first.integrations.map((i) => i.url)).toEqual(["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]);
    expect(first.next_cursor).not.toBeNull();
    const second = await listIntegrations({ db: bed.db }, { accountId, limit: 2, cursor: first.next_cursor! });
    expect(second.integrations.map((i) => i.id)).toEqual([c.id]);
    expect(second.next_cursor).toBeNull();
    expect(JSON.stringify([first, second])).not.toContain("whsec_");
    expect(JSON.stringify(await getIntegration({ db: bed.db }, { accountId, integrationId: c.id }))).not.toContain(
      "whsec_",
    );

    const paused = await listIntegrations({ db: bed.db }, { accountId, active: false });
    expect(paused.integrations.map((i) => i.id)).toEqual([b.id]);
    const active = await listIntegrations({ db: bed.db }, { accountId, active: true });
    expect(active.integrations.map((i) => i.id)).toEqual([fixture.integrationId, c.id]);
  });

  it("reveals the secret and pauses only within the account", async () => {
    const mine = await createFixture(bed.db, "http://127.0.0.1:9/mine");
    const theirs = await createFixture(bed.db, "http://127.0.0.1:9/theirs");
    expect(
      await revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: mine.accountId, integrationId: mine.integrationId },
      ),
    ).toMatchObject({ signing_secret: mine.secret });
    expect(
      await revealIntegrationSecret(
        { db: bed.db, secrets },
        { actor: testActor, accountId: mine.accountId, integrationId: theirs.integrationId },
      ),
    ).toBeNull();
    expect(
      await getIntegration({ db: bed.db }, { accountId: mine.accountId, integrationId: theirs.integrationId }),
    ).toBeNull();
    expect(
      await setIntegrationActive(
        { db: bed.db },
        { actor: testActor, accountId: mine.accountId, integrationId: theirs.integrationId, active: false },
      ),
    ).toBeNull();
    expect((await bed.db.integration.findUniqueOrThrow({ where: { id: theirs.integrationId } })).active).toBe(true);
  });

  it("edits an integration by id (URL included), keeping its secret and state, and refuses a URL already used", async () => {
    const fixture = await createFixture(bed.db, "http://127.0.0.1:9/old");
    const { accountId, integrationId } = fixture;
    await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId, url: "http://127.0.0.1:9/other", events: ["message.status"] },
    );
    await setIntegrationActive({ db: bed.db }, { actor: testActor, accountId, integrationId, active: false });

    const edited = await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId, integrationId, url: "http://127.0.0.1:9/new", events: ["message.received"] },
    );
    expect(edited).toMatchObject({
      id: integrationId,
      url: "http://127.0.0.1:9/new",
      events: ["message.received"],
      active: false,
      signing_secret: fixture.secret,
    });

    const taken = await setIntegration(
      { db: bed.db, policy, secrets },
      { actor: testActor, accountId, integrationId, url: "http://127.0.0.1:9/other", events: ["message.status"] },
    ).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(IntegrationUrlError);
    expect((taken as IntegrationUrlError).reason).toBe("url_taken");

    const other = await createFixture(bed.db, "http://127.0.0.1:9/x");
    const foreign = await setIntegration(
      { db: bed.db, policy, secrets },
      {
        actor: testActor,
        accountId,
        integrationId: other.integrationId,
        url: "http://127.0.0.1:9/y",
        events: ["message.status"],
      },
    ).catch((error: unknown) => error);
    expect(foreign).toMatchObject({ code: "not_found" });
    expect((await bed.db.integration.findUniqueOrThrow({ where: { id: other.integrationId } })).url).toBe(
      "http://127.0.0.1:9/x",
    );
  });
});
