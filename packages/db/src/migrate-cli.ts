// `pnpm migrate`: apply committed SQL migrations to DATABASE_URL.
import { env, loadConfig, z } from "@gw/config";
import { applyMigrations } from "./migrate.ts";

const config = loadConfig(z.object({ DATABASE_URL: env.postgresUrl() }));
const result = await applyMigrations(config.DATABASE_URL);
process.stdout.write(JSON.stringify(result) + "\n");
