// Found by the combined fault run: a send reserved its Idempotency-Key, then failed before the provider call because
// PostgreSQL was restarting (the window lookup), and the release of the key failed for the same reason. The key stayed
// in flight, so the client, repeating with the same key as spec 4.1 asks, got 409 `idempotency_in_flight` until the
// reservation went stale (the provider deadline + 60 s), although nothing had been sent. The release is retried while
// the database is unavailable.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createIdempotencyStore, fingerprint, type IdempotencyStore } from "@gw/core/idempotency";
import { UNCONFIRMED_SEND, type SettledSend } from "@gw/core/messages";
import { applyMigrations, createDb, type Db } from "@gw/db";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@gw/testkit";
import { seedAccount, type ProcessAccount } from "../src/index.ts";

let postgres: ThrowawayPostgres;
let db: Db;
let account: ProcessAccount;
let idempotency: IdempotencyStore<SettledSend>;

beforeAll(async () => {
  postgres = await startThrowawayPostgres();
  const url = await postgres.createDatabase("gateway");
  await applyMigrations(url);
  account = await seedAccount(url);
  db = createDb({ url, poolSize: 2 });
  // A stale reservation would be freed only after a minute: longer than this test waits for anything.
  idempotency = createIdempotencyStore<SettledSend>(db, {
    ttlHours: 24,
    staleAfterMs: 60_000,
    unconfirmed: UNCONFIRMED_SEND,
    releaseRetryMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await postgres?.stop();
});

describe("releasing an Idempotency-Key while PostgreSQL restarts", () => {
  it("frees the key once the database answers again, so the repeat of a send that never went out is not a 409", async () => {
    const input = { accountId: account.accountId, key: "queda-antes-do-envio", fingerprint: fingerprint({ n: 1 }) };
    const reserved = await idempotency.reserve({ ...input, requestId: "req-1" });
    if (reserved.kind !== "reserved") throw new Error("esperava uma reserva");

    let released: Promise<unknown> = Promise.resolve();
    await postgres.restart({
      whileDown: async () => {
        // The send failed before the provider call: its key is released while the server is still down.
        released = idempotency.release(reserved.id).then(
          () => "released",
          (error: Error) => error,
        );
        // The outage lasts a moment; the release's retry window (30 s here) is far longer.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      },
    });

    expect(await released).toBe("released");
    const again = await idempotency.reserve({ ...input, requestId: "req-2" });
    expect(again.kind).toBe("reserved");
  }, 60_000);
});
