import { listen, runHttpProcess, type HttpListener } from "@gw/process";
import { createPanelApp } from "./app.ts";
import { loadPanelConfig } from "./config.ts";
import { buildPanelDeps, closePanelDeps } from "./container.ts";

await runHttpProcess({
  service: "panel",
  loadConfig: loadPanelConfig,
  create(config, logger) {
    const deps = buildPanelDeps(config, logger);
    deps.redis.on("error", (error) => logger.warn("redis error", { error: error.message }));
    let panel: HttpListener | undefined;
    return {
      async start() {
        panel = await listen(
          createPanelApp(deps),
          { host: config.PANEL_HOST, port: config.PANEL_PORT, variable: "PANEL_PORT" },
          logger,
        );
        logger.info("panel listening", { url: panel.url });
      },
      async stop() {
        await panel?.close();
        await closePanelDeps(deps);
      },
    };
  },
});
