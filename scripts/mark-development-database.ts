// `npm start` marks its database as a development one: `pnpm gateway` takes the key ring of .data/secrets-keys only
// against a database with the mark (apps/cli/src/dev-key-ring.ts), which no production database has.
import { createSqlPool } from "@gw/db";
import { markDevelopmentDatabase } from "../apps/cli/src/dev-key-ring.ts";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL ausente");
const pool = createSqlPool({ url, max: 1, connectionTimeoutMs: 10_000 });
try {
  await markDevelopmentDatabase(pool);
} finally {
  await pool.end();
}
