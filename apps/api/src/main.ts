import { recordAcceptedSend } from "@gw/core/messages";
import { listen, runHttpProcess, type HttpListener } from "@gw/process";
import { createApp, createInternalApp } from "./app.ts";
import { loadApiConfig } from "./config.ts";
import { buildApiDeps, closeApiDeps } from "./container.ts";

await runHttpProcess({
  service: "api",
  loadConfig: loadApiConfig,
  create(config, logger) {
    const deps = buildApiDeps(config, logger);
    deps.redis.on("error", (error) => logger.warn("redis error", { error: error.message }));
    let listeners: HttpListener[] = [];
    let journalReplay: NodeJS.Timeout | undefined;
    return {
      async start() {
        const api = await listen(
          createApp(deps),
          { host: config.API_HOST, port: config.API_PORT, variable: "API_PORT" },
          logger,
          // A media upload may take up to MEDIA_TRANSFER_TIMEOUT_MS (its idle time is cut sooner, by its route).
          { requestTimeoutMs: config.MEDIA_TRANSFER_TIMEOUT_MS },
        );
        listeners = [api];
        logger.info("api listening", { url: api.url });
        // /metrics and Bull Board live on the internal listener only, never on the public one (API_INTERNAL_PORT=0:
        // none).
        if (config.API_INTERNAL_PORT > 0) {
          const internal = await listen(
            createInternalApp(deps),
            { host: config.API_INTERNAL_HOST, port: config.API_INTERNAL_PORT, variable: "API_INTERNAL_PORT" },
            logger,
          );
          listeners.push(internal);
          logger.info("api internal listener (metrics, queues)", { url: internal.url });
        }
        // Sends the provider accepted while PostgreSQL was unreachable wait in the journal; write them as soon as it
        // answers.
        journalReplay = setInterval(() => {
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
      },
      async stop() {
        clearInterval(journalReplay);
        await Promise.all(listeners.map((listener) => listener.close()));
        await closeApiDeps(deps);
      },
    };
  },
});
