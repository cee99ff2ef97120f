// Issue 25, item 2: a crashed pod's in-flight Idempotency-Keys answered 409 for about 75 s (the stale bound), with no
// Retry-After. Now every process that reserves keys holds a lease and records itself as the reservation's owner: a
// repeat that finds the owner's lease expired or gone settles the key at once (freed when the provider was not called,
// `send_unconfirmed` when it was), and every 409 `idempotency_in_flight` says how long to wait. Rows without an owner
// (written by the previous release) keep the stale rule.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Db, Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import { eventually, isolatedDatabase, silentLogger, spawnScript } from "@gw/testkit";
import { ReservationLostError } from "../src/idempotency/idempotency.ts";
import { createIdempotencyStore, createProcessLease, type ProcessLease } from "../src/idempotency/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let accountId: string;

interface Outcome {
  kind: "sent" | "unconfirmed";
  n?: number;
}

const UNCONFIRMED: Outcome = { kind: "unconfirmed" };
/** Far beyond anything these tests wait: a key settled here was settled by its owner's lease, not by staleness. */
const STALE_AFTER_MS = 60_000;
const LEASE_TTL_MS = 6_000;
const leases: ProcessLease[] = [];

/** A process: its lease (taken now) and its key store naming it as the owner. */
async function aProcess() {
  const lease = createProcessLease(db.sql, {
    service: "test",
    ttlMs: LEASE_TTL_MS,
    renewEveryMs: 2_000,
    logger: silentLogger,
  });
  leases.push(lease);
  expect(await lease.renew()).toBe(true);
  const keys = createIdempotencyStore<Outcome>(db, {
    ttlHours: 48,
    staleAfterMs: STALE_AFTER_MS,
    unconfirmed: UNCONFIRMED,
    owner: lease.owner,
  });
  return { lease, keys };
}

/** The process was SIGKILLed: nothing renews its lease, and its TTL has passed (by the database's clock). */
async function killed(lease: ProcessLease): Promise<void> {
  await db.sql.query(`UPDATE process_leases SET expires_at = now() - interval '1 second' WHERE owner = $1::uuid`, [
    lease.owner,
  ]);
}

const input = () => ({ accountId, key: `chave-${randomBytes(4).toString("hex")}`, fingerprint: "f", requestId: null });

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

async function ownerOf(id: string): Promise<string | null> {
  const { rows } = await db.sql.query<{ owner: string | null }>(`SELECT owner FROM idempotency_keys WHERE id = $1`, [
    id,
  ]);
  return rows[0]?.owner ?? null;
}

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  accountId = (await db.account.create({ data: { name: "Concessões" } })).id;
});

afterAll(async () => {
  await Promise.all(leases.map((lease) => lease.stop()));
  await database.drop();
});

describe("a reservation whose owner died settles at once", () => {
  it("freed when the provider was not called: the repeat reserves the key, and the dead owner's call can never reach the provider", async () => {
    const owner = await aProcess();
    const other = await aProcess();
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    expect(await ownerOf(first.id)).toBe(owner.lease.owner);

    await killed(owner.lease);
    const repeat = await other.keys.reserve(key);
    expect(repeat.kind).toBe("reserved");
    if (repeat.kind !== "reserved") throw new Error("unreachable");
    expect(repeat.id).not.toBe(first.id);
    expect(await ownerOf(repeat.id)).toBe(other.lease.owner);
    // Were the owner alive after all (cut off from the database), its mark fails: only the repeat sends.
    await expect(owner.keys.markProviderCall(first.id)).rejects.toBeInstanceOf(ReservationLostError);
    await expect(other.keys.markProviderCall(repeat.id)).resolves.toBeUndefined();
  });

  it("settled send_unconfirmed when the provider was called, replayed to every repeat; the owner's own completion still replaces it", async () => {
    const owner = await aProcess();
    const other = await aProcess();
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    await owner.keys.markProviderCall(first.id);

    await killed(owner.lease);
    expect(await other.keys.reserve(key)).toEqual({ kind: "replay", outcome: UNCONFIRMED });
    expect(await other.keys.reserve(key)).toEqual({ kind: "replay", outcome: UNCONFIRMED });
    // An owner that was only cut off records what really happened: never a second send, and the truth wins.
    expect(await owner.keys.complete(db.sql, first.id, { kind: "sent", n: 1 }, "wamid.isolado")).toBe(true);
    expect(await other.keys.reserve(key)).toEqual({ kind: "replay", outcome: { kind: "sent", n: 1 } });
  });

  it("a lease deleted on a graceful shutdown counts as gone at once", async () => {
    const owner = await aProcess();
    const other = await aProcess();
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    await owner.keys.markProviderCall(first.id);

    await owner.lease.stop();
    const { rowCount } = await db.sql.query(`SELECT 1 FROM process_leases WHERE owner = $1::uuid`, [owner.lease.owner]);
    expect(rowCount).toBe(0);
    expect(await other.keys.reserve(key)).toEqual({ kind: "replay", outcome: UNCONFIRMED });
  });
});

describe("a reservation whose owner lives", () => {
  it("answers 409 idempotency_in_flight with a Retry-After no later than the owner's lease, long before the stale bound", async () => {
    const owner = await aProcess();
    const other = await aProcess();
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");

    const error = await refusal(other.keys.reserve(key));
    expect(error.code).toBe("idempotency_in_flight");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(LEASE_TTL_MS / 1000);
    // Still the owner's: its call goes on.
    await expect(owner.keys.markProviderCall(first.id)).resolves.toBeUndefined();
    const again = await refusal(other.keys.reserve(key));
    expect(again.retryAfterSeconds).toBeLessThanOrEqual(LEASE_TTL_MS / 1000);
  });

  it("is never taken for dead on its owner's own pod, even while that pod's lease has lapsed: 409 with Retry-After", async () => {
    const owner = await aProcess();
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    await owner.keys.markProviderCall(first.id);
    // A database outage longer than the TTL: the pod is alive, and so is its call (committing, or journaled).
    await killed(owner.lease);

    const error = await refusal(owner.keys.reserve(key));
    expect(error.code).toBe("idempotency_in_flight");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(await owner.keys.complete(db.sql, first.id, { kind: "sent", n: 2 }, "wamid.proprio")).toBe(true);
    expect(await owner.keys.reserve(key)).toEqual({ kind: "replay", outcome: { kind: "sent", n: 2 } });
  });

  it("is reserved without an owner while the process's lease has lapsed, so a live call is not taken for dead", async () => {
    const owner = await aProcess();
    const other = await aProcess();
    // The database was out of the process's reach longer than its lease; the process itself goes on.
    await killed(owner.lease);
    const key = input();
    const first = await owner.keys.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    expect(await ownerOf(first.id)).toBeNull();
    const error = await refusal(other.keys.reserve(key));
    expect(error.code).toBe("idempotency_in_flight");
    // Once renewed, its next reservations name it again.
    expect(await owner.lease.renew()).toBe(true);
    const next = await owner.keys.reserve(input());
    if (next.kind !== "reserved") throw new Error("unreachable");
    expect(await ownerOf(next.id)).toBe(owner.lease.owner);
  });
});

describe("a reservation without an owner (written by the previous release)", () => {
  it("keeps the stale rule: 409 with Retry-After up to the stale bound, settled only once stale", async () => {
    const previousRelease = createIdempotencyStore<Outcome>(db, {
      ttlHours: 48,
      staleAfterMs: STALE_AFTER_MS,
      unconfirmed: UNCONFIRMED,
    });
    const other = await aProcess();
    const key = input();
    const first = await previousRelease.reserve(key);
    if (first.kind !== "reserved") throw new Error("unreachable");
    await previousRelease.markProviderCall(first.id);
    expect(await ownerOf(first.id)).toBeNull();

    const error = await refusal(other.keys.reserve(key));
    expect(error.code).toBe("idempotency_in_flight");
    // No lease to go by: the honest wait is the stale bound's.
    expect(error.retryAfterSeconds).toBeGreaterThan(LEASE_TTL_MS / 1000);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(STALE_AFTER_MS / 1000);

    await db.sql.query(`UPDATE idempotency_keys SET updated_at = now() - interval '61 seconds' WHERE id = $1`, [
      first.id,
    ]);
    expect(await other.keys.reserve(key)).toEqual({ kind: "replay", outcome: UNCONFIRMED });
  });
});

describe("the process lease", () => {
  it("keeps renewing through a database outage and is written again once the database answers", async () => {
    let down = false;
    let attempts = 0;
    const flaky = {
      query: (...args: Parameters<Sql["query"]>) => {
        attempts++;
        if (down)
          return Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1"), { code: "ECONNREFUSED" }));
        return (db.sql.query as (...a: Parameters<Sql["query"]>) => Promise<unknown>)(...args);
      },
    } as unknown as Sql;
    const lease = createProcessLease(flaky, { service: "test", ttlMs: 1_000, renewEveryMs: 200, logger: silentLogger });
    leases.push(lease);
    const expiresAt = async () => {
      const { rows } = await db.sql.query<{ live: boolean }>(
        `SELECT expires_at > now() AS live FROM process_leases WHERE owner = $1::uuid`,
        [lease.owner],
      );
      return rows[0]?.live ?? null;
    };
    lease.start();
    await eventually(async () => (await expiresAt()) === true, { what: "the lease taken" });

    down = true;
    const before = attempts;
    // Out of reach longer than the TTL: the lease lapses, and the process keeps trying.
    await eventually(async () => (await expiresAt()) === false, { what: "the lease lapsed" });
    await eventually(() => attempts >= before + 3, { what: "renewals tried during the outage" });
    down = false;
    await eventually(async () => (await expiresAt()) === true, { what: "the lease renewed after the outage" });
  });

  it("stops renewing on stop and deletes itself", async () => {
    let attempts = 0;
    const counting = {
      query: (...args: Parameters<Sql["query"]>) => {
        attempts++;
        return (db.sql.query as (...a: Parameters<Sql["query"]>) => Promise<unknown>)(...args);
      },
    } as unknown as Sql;
    const lease = createProcessLease(counting, {
      service: "test",
      ttlMs: 1_000,
      renewEveryMs: 100,
      logger: silentLogger,
    });
    lease.start();
    await eventually(() => attempts >= 3, { what: "a few renewals" });
    await lease.stop();
    const { rowCount } = await db.sql.query(`SELECT 1 FROM process_leases WHERE owner = $1::uuid`, [lease.owner]);
    expect(rowCount).toBe(0);
    const after = attempts;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(attempts).toBe(after);
    expect(await lease.renew()).toBe(false);
  });

  it("never keeps a process alive: one that holds only a lease exits by itself", async () => {
    const child = spawnScript("packages/core/test/support/lease-alone.ts", {});
    const exited = await Promise.race([
      child.exited,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 25_000).unref()),
    ]);
    if (exited === null) await child.stop();
    expect(exited).toEqual({ code: 0, signal: null });
    // It was renewed while the process had work of its own.
    const renewals = Number(/renewals (\d+)/.exec(child.output())?.[1] ?? 0);
    expect(renewals).toBeGreaterThanOrEqual(3);
  }, 40_000);
});
