import { ConfigError } from "@gw/config";
import { createLogger } from "@gw/logger";
import { createPanelApp } from "./app.ts";
import { loadPanelConfig, type PanelConfig } from "./config.ts";
import { buildPanelDeps, closePanelDeps } from "./container.ts";

let config: PanelConfig;
try {
  config = loadPanelConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger({ service: "panel", level: config.LOG_LEVEL });
const deps = buildPanelDeps(config, logger);
deps.redis.on("error", (error) => logger.warn("redis error", { error: error.message }));

const server = createPanelApp(deps).listen(config.PANEL_PORT, config.PANEL_HOST, () => {
  logger.info("panel listening", { url: `http://${config.PANEL_HOST}:${config.PANEL_PORT}` });
});
server.on("error", (error) => {
  logger.error("panel cannot listen", { variable: "PANEL_PORT", error: error.message });
  process.exit(1);
});
server.keepAliveTimeout = 65_000;

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) process.exit(1);
  closing = true;
  logger.info("panel shutting down", { signal });
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await closePanelDeps(deps);
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
