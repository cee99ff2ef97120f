import { createServer, type Server } from "node:http";
import { pingDb, type Db } from "@gw/db";
import { pingRedis, type Redis } from "../redis.ts";
import type { Logger } from "@gw/logger";
import type { Registry } from "prom-client";

export interface ProbeDeps {
  db: Db;
  /** Every Redis connection the worker process needs to work. */
  redis: Redis[];
  registry: Registry;
  logger: Logger;
}

/** `/healthz`: the process answers. `/readyz`: Postgres and Redis answer too (503 otherwise). `/metrics`. */
export function createProbeServer(deps: ProbeDeps): Server {
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, { status: "method_not_allowed" });
    if (path === "/healthz") return send(200, { status: "ok" });
    if (path === "/readyz") {
      void Promise.all([
        pingDb(deps.db),
        Promise.all(deps.redis.map((r) => pingRedis(r))).then((all) => all.every(Boolean)),
      ])
        .then(([postgres, redis]) => {
          const ready = postgres && redis;
          send(ready ? 200 : 503, {
            status: ready ? "ready" : "unavailable",
            checks: { postgres: postgres ? "up" : "down", redis: redis ? "up" : "down" },
          });
        })
        .catch((error: unknown) => {
          deps.logger.warn("readiness check failed", { error: (error as Error).message });
          send(503, { status: "unavailable" });
        });
      return;
    }
    if (path === "/metrics") {
      void deps.registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { "content-type": deps.registry.contentType });
          res.end(text);
        })
        .catch(() => send(500, { status: "error" }));
      return;
    }
    send(404, { status: "not_found" });
  });
}
