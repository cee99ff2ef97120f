// What the provider-webhook ingest tests stand on (not a test file itself): a database of the file's own with an
// account's integration and business number, and the ingest's deps whose outbox only records what it was asked to
// queue (queueing itself is tested with the dispatcher).
import { createDb, type Db } from "@gw/db";
import { createFixture, silentLogger, type Fixture, type isolatedDatabase, type TestEnv } from "@gw/testkit";
import { createAccountDirectory } from "../../src/accounts/index.ts";
import type { IngestDeps } from "../../src/ingest/index.ts";

export interface IngestBed {
  db: Db;
  fixture: Fixture;
  deps: IngestDeps;
  /** The delivery ids the outbox was asked to queue after each commit, in order. */
  dispatched: string[];
  close(): Promise<void>;
}

/** The bed on `database` (the file's isolatedDatabase()), the fixture's account owning `number`. */
export async function openIngestBed(
  database: Awaited<ReturnType<typeof isolatedDatabase>>,
  number: { phoneNumberId: string; wabaId: string; displayNumber: string },
): Promise<IngestBed> {
  const { db } = database;
  const fixture = await createFixture(db, "http://127.0.0.1:9/x");
  await db.businessNumber.create({ data: { accountId: fixture.accountId, ...number } });
  const dispatched: string[] = [];
  const deps: IngestDeps = {
    db,
    outbox: {
      dispatch: (deliveries) => {
        dispatched.push(...deliveries.map((d) => d.deliveryId));
        return Promise.resolve();
      },
    },
    logger: silentLogger,
    directory: createAccountDirectory(db),
  };
  return { db, fixture, deps, dispatched, close: () => database.drop() };
}

/**
 * An account named `name` owning `number` in the run's shared database (`env`, testEnv()), with ingest deps whose outbox
 * queues nothing: for tests of what ingestion does to contacts (no integration, so no delivery).
 */
export async function openAccountIngest(
  env: TestEnv,
  name: string,
  number: { phoneNumberId: string; wabaId: string; displayNumber: string },
): Promise<{ db: Db; deps: IngestDeps; accountId: string }> {
  const db = createDb({ url: env.databaseUrl, poolSize: 2 });
  const accountId = (await db.account.create({ data: { name } })).id;
  await db.businessNumber.create({ data: { accountId, ...number } });
  const deps: IngestDeps = {
    db,
    outbox: { dispatch: () => Promise.resolve() },
    logger: silentLogger,
    directory: createAccountDirectory(db),
  };
  return { db, deps, accountId };
}
