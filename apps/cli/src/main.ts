// `pnpm gateway <command>`: operator CLI. Prints JSON on stdout; errors as JSON on stderr with exit code 2.
import { env, loadConfig, z, ConfigError } from "@gw/config";
import { createDb } from "@gw/db";
import { runCommand, UsageError, type CliDeps } from "./commands.ts";

const configSchema = z.object({
  // Defaults point at the local stack of `npm start` (scripts/stack.sh).
  DATABASE_URL: env.postgresUrl().default("postgresql://postgres@127.0.0.1:55432/gateway"),
  REDIS_URL: env.redisUrl().optional(),
  REDIS_KEY_PREFIX: z.string().min(1).default("gw"),
});

function fail(message: string): never {
  process.stderr.write(JSON.stringify({ error: message }) + "\n");
  process.exit(2);
}

let config: z.infer<typeof configSchema>;
try {
  config = loadConfig(configSchema);
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}

const db = createDb({ url: config.DATABASE_URL, poolSize: 2 });
const deps: CliDeps = { db };
const cleanups: (() => Promise<unknown>)[] = [() => db.$disconnect()];

if (config.REDIS_URL) {
  const redisUrl = config.REDIS_URL;
  const prefix = config.REDIS_KEY_PREFIX;
  deps.retryDelivery = async (accountId, deliveryId) => {
    const { createRedis, createWebhookQueue } = await import("@gw/jobs");
    const { retryDelivery } = await import("@gw/core");
    const redis = createRedis(redisUrl);
    const queue = createWebhookQueue(redis, prefix);
    cleanups.push(
      () => queue.close(),
      () => redis.quit(),
    );
    // The panel's resend: audited as `webhook.retry` (the API's own is `api.webhook.retry`).
    return retryDelivery({ db, queue, accountId, deliveryId, actor: "cli", action: "webhook.retry", requestId: null });
  };
}

try {
  const result = await runCommand(process.argv.slice(2), deps);
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
} catch (error) {
  const message =
    error instanceof UsageError
      ? error.message
      : error instanceof Error
        ? (error.message.split("\n").filter(Boolean).at(-1) ?? error.message)
        : String(error);
  await Promise.allSettled(cleanups.map((c) => c()));
  fail(message);
}
await Promise.allSettled(cleanups.map((c) => c()));
