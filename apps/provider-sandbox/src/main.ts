import { ConfigError } from "@gw/config";
import { createLogger } from "@gw/logger";
import { loadSandboxConfig, sandboxOptionsFromConfig, type SandboxConfig } from "./config.ts";
import { startSandbox } from "./sandbox.ts";

let config: SandboxConfig;
try {
  config = loadSandboxConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}

const logger = createLogger({ service: "provider-sandbox", level: config.LOG_LEVEL });
const running = await startSandbox({ ...sandboxOptionsFromConfig(config), logger });
logger.info("provider sandbox listening", { url: running.url, webhookUrl: config.SANDBOX_WEBHOOK_URL });

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info("provider sandbox shutting down", { signal });
  await running.close();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
