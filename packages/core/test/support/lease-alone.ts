// A process holding a lease and nothing else (idempotency.process-leases.test.ts): it must exit by itself, since the
// lease's timers never keep a process alive. Its database is a stand-in that only counts the renewals.
import type { Sql } from "@gw/db";
import { silentLogger } from "@gw/testkit";
import { createProcessLease } from "../../src/idempotency/lease.ts";

let renewals = 0;
const sql = {
  query: () => {
    renewals++;
    return Promise.resolve({ rows: [], rowCount: 1 });
  },
} as unknown as Sql;
createProcessLease(sql, { service: "test", ttlMs: 1_000, renewEveryMs: 100, logger: silentLogger }).start();
// Some work of the process's own for a while, during which the lease is renewed; then nothing is left to do.
setTimeout(() => undefined, 500);
process.on("exit", () => process.stdout.write(`renewals ${renewals}\n`));
