import { createDb } from "@gw/db";
import { createRedis } from "@gw/jobs";
import { createLogger } from "@gw/logger";
import { ConfigError } from "@gw/config";
import { createApp } from "./app.ts";
import { loadApiConfig } from "./config.ts";

let config;
try {
  config = loadApiConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger({ service: "api", level: config.LOG_LEVEL });
const db = createDb({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const redis = createRedis(config.REDIS_URL);
redis.on("error", (error) => logger.warn("redis error", { error: error.message }));

const app = createApp({ config, db, redis, logger });
const server = app.listen(config.API_PORT, config.API_HOST, () => {
  logger.info("api listening", { url: `http://${config.API_HOST}:${config.API_PORT}` });
});
server.keepAliveTimeout = 65_000;

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info("api shutting down", { signal });
  server.close();
  server.closeIdleConnections();
  await Promise.allSettled([db.$disconnect(), redis.quit()]);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
