import { runHttpProcess } from "@gw/process";
import { loadSandboxConfig, sandboxOptionsFromConfig } from "./config.ts";
import { startSandbox, type RunningSandbox } from "./sandbox.ts";

await runHttpProcess({
  service: "provider-sandbox",
  loadConfig: loadSandboxConfig,
  create(config, logger) {
    let running: RunningSandbox | undefined;
    return {
      async start() {
        running = await startSandbox({ ...sandboxOptionsFromConfig(config), logger });
        logger.info("provider sandbox listening", { url: running.url, webhookUrl: config.SANDBOX_WEBHOOK_URL });
      },
      // Scheduled statuses and redeliveries stop, and every connection is cut (a hung "timeout" fault included).
      stop: () => running?.close() ?? Promise.resolve(),
    };
  },
});
