// A minimal HTTP process for process.http.test.ts (not a test itself): GET /slow answers only once the process has
// begun to stop, so the test can tell a drained request from a cut one; HOLD=1 never answers.
import { loadConfig, z } from "@gw/config";
import { listen, runHttpProcess, type HttpListener } from "../src/index.ts";

await runHttpProcess({
  service: "http-app",
  loadConfig: () =>
    loadConfig(
      z.object({ PORT: z.coerce.number().int(), LOG_LEVEL: z.string().default("info"), HOLD: z.string().optional() }),
    ),
  create(config, logger) {
    let listener: HttpListener | undefined;
    let stopping: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stopping = resolve));
    return {
      async start() {
        listener = await listen(
          (req, res) => {
            logger.info("request received", { path: req.url });
            void stopped.then(() => {
              if (config.HOLD !== "1") res.end("answered after the signal");
            });
          },
          { host: "127.0.0.1", port: config.PORT, variable: "PORT" },
          logger,
        );
        logger.info("listening", { url: listener.url });
      },
      async stop() {
        stopping();
        await listener?.close();
        logger.info("drained");
      },
    };
  },
});
