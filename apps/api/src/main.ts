import { recordAcceptedSend } from "@gw/core";
import { ConfigError } from "@gw/config";
import { createLogger } from "@gw/logger";
import { createApp, createInternalApp } from "./app.ts";
import { loadApiConfig, type ApiConfig } from "./config.ts";
import { buildApiDeps, closeApiDeps } from "./container.ts";

let config: ApiConfig;
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
const deps = buildApiDeps(config, logger);
deps.redis.on("error", (error) => logger.warn("redis error", { error: error.message }));

/** A port that cannot be bound stops the process with the variable to change, rather than a stack trace. */
function failToListen(variable: string) {
  return (error: Error) => {
    logger.error("api cannot listen", { variable, error: error.message });
    process.exit(1);
  };
}

const server = createApp(deps).listen(config.API_PORT, config.API_HOST, () => {
  logger.info("api listening", { url: `http://${config.API_HOST}:${config.API_PORT}` });
});
server.on("error", failToListen("API_PORT"));
// /metrics and Bull Board live on the internal listener only, never on the public one (API_INTERNAL_PORT=0: none).
const internalServer =
  config.API_INTERNAL_PORT > 0
    ? createInternalApp(deps).listen(config.API_INTERNAL_PORT, config.API_INTERNAL_HOST, () =>
        logger.info("api internal listener (metrics, queues)", {
          url: `http://${config.API_INTERNAL_HOST}:${config.API_INTERNAL_PORT}`,
        }),
      )
    : null;
internalServer?.on("error", failToListen("API_INTERNAL_PORT"));
// Sends the provider accepted while PostgreSQL was unreachable wait in the journal; write them as soon as it answers.
const journalReplay = setInterval(() => {
  deps.journal
    .replay((send) => recordAcceptedSend(deps.send, send), deps.outbox)
    .then((replayed) => {
      if (replayed > 0) {
        deps.metrics.sendJournal.inc({ operation: "replayed" }, replayed);
        logger.info("journaled sends recorded", { replayed });
      }
    })
    .catch((error: unknown) =>
      logger.warn("send journal replay failed; trying again", { error: (error as Error).message }),
    );
}, config.SEND_JOURNAL_REPLAY_INTERVAL_MS);
journalReplay.unref();
// Longer than typical load balancer idle timeouts, so the balancer closes idle connections first.
server.keepAliveTimeout = 65_000;

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) process.exit(1);
  closing = true;
  logger.info("api shutting down", { signal });
  clearInterval(journalReplay);
  internalServer?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await closeApiDeps(deps);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
