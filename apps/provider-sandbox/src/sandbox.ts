import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createLogger } from "@gw/logger";
import { controlRouter } from "./control.ts";
import { MetaError } from "./graph/errors.ts";
import { graphRouter } from "./graph/router.ts";
import { cancelTimers, clearState, createState, runtimeConfigFrom, type SandboxState } from "./state.ts";
import type { SandboxOptions } from "./types.ts";

export interface Sandbox {
  app: express.Express;
  /** Live state: sent messages, Graph requests, webhooks posted, faults, windows and the run-time config. */
  state: SandboxState;
  /**
   * Clears sent, requests, webhooks, faults, windows, rate and pair-rate counters, marketing preferences, scheduled
   * statuses and pending redeliveries; `config` also restores the options.
   */
  reset(options?: { config?: boolean }): void;
  /** Stops scheduled statuses, pending redeliveries and in-flight webhook POSTs; the app answers nothing useful afterwards. */
  shutdown(): void;
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const logger = options.logger ?? createLogger({ service: "provider-sandbox" });
  const state = createState(options, logger);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use("/_sandbox", express.json({ limit: "5mb" }), controlRouter(state, options));
  app.use(graphRouter(state));
  app.use((error: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const status =
      typeof error === "object" && error !== null && "status" in error && typeof error.status === "number"
        ? error.status
        : 500;
    if (req.path.startsWith("/_sandbox")) {
      const message = status < 500 ? "Corpo da requisição inválido (JSON esperado)." : "Erro interno do sandbox.";
      res.status(status < 500 ? 400 : 500).json({ error: { message } });
    } else if (status < 500) {
      const result = new MetaError(100, "The request body could not be read.").toResult();
      res.status(result.status).json(result.body);
    } else {
      const result = new MetaError(131000, "Something went wrong").toResult();
      res.status(result.status).json(result.body);
    }
    if (status >= 500) logger.error("sandbox internal error", { error });
  });

  return {
    app,
    state,
    reset(resetOptions) {
      clearState(state);
      if (resetOptions?.config) state.config = runtimeConfigFrom(options);
    },
    shutdown() {
      state.closed = true;
      state.generation += 1;
      cancelTimers(state);
      state.redeliveries.clear();
      state.lanes.clear();
      state.batches.clear();
      state.transport.close();
    },
  };
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
  sandbox: Sandbox;
}

/** Listens on host (default 127.0.0.1) and port (default: any free port). */
export async function startSandbox(
  options: SandboxOptions & { port?: number; host?: string },
): Promise<RunningSandbox> {
  const { port = 0, host = "127.0.0.1", ...rest } = options;
  const sandbox = createSandbox(rest);
  const server = createServer(sandbox.app);
  // Longer than the gateway's client keep-alive, so it never writes to a socket the sandbox just closed.
  server.keepAliveTimeout = 65_000;
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  const hostForUrl = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    sandbox,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        sandbox.shutdown();
        server.close((error) => (error ? reject(error) : resolve()));
        // Hung "timeout" faults and keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
