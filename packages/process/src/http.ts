import { once } from "node:events";
import { createServer, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@gw/logger";
import { runProcess, type ProcessSpec } from "./run.ts";

/**
 * The `main` of an HTTP process (the API, the panel, the provider sandbox): config or exit 78, start (its
 * listeners), and on the first signal a drain: no new connections, the requests in flight answered, then what the
 * app holds closed.
 */
export function runHttpProcess<Config extends { LOG_LEVEL: string }>(spec: ProcessSpec<Config>): Promise<void> {
  return runProcess(spec, {
    stopping: "stopping: no new connections, waiting for the requests in flight",
    leftBehind: "requests in flight are cut",
    survivesUnhandledRejection: false,
  });
}

export interface HttpListener {
  /** Where it listens (`http://127.0.0.1:8080`), with the port bound (port 0 picks one). */
  url: string;
  /** No new connection, idle keep-alive sockets closed at once; resolves once the requests in flight are answered. */
  close(): Promise<void>;
}

/**
 * Listens on host:port with `handler`. Keep-alive lasts longer than typical load balancers' idle timeouts (65 s), so
 * the balancer closes idle connections first. A port that cannot be bound rejects with the variable to change. Once
 * closing, a connection is closed as soon as its request in flight is answered (not kept alive for the next one).
 */
export async function listen(
  handler: RequestListener,
  address: { host: string; port: number; variable: string },
  logger: Logger,
  options: { requestTimeoutMs?: number } = {},
): Promise<HttpListener> {
  const server = createServer(handler);
  server.keepAliveTimeout = 65_000;
  // A request's whole time (Node's default 300 s), raised where bodies are large (the API's media uploads).
  if (options.requestTimeoutMs !== undefined) server.requestTimeout = options.requestTimeoutMs;
  let closing = false;
  server.on("request", (_req, res: ServerResponse) => {
    res.once("finish", () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  server.listen(address.port, address.host);
  try {
    await once(server, "listening");
  } catch (error) {
    throw new Error(`cannot listen (${address.variable}): ${(error as Error).message}`, { cause: error });
  }
  server.on("error", (error) => logger.error("server error", { variable: address.variable, error: error.message }));
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    close() {
      closing = true;
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
