import type { Router } from "express";
import { pingDb, type Db } from "@gw/db";
import { pingRedis, type Redis } from "@gw/jobs";

/** `/healthz`: the process answers. `/readyz`: Postgres and Redis answer too (503 otherwise). */
export function register(router: Router, deps: { db: Db; redis: Redis }): void {
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const [postgres, redis] = await Promise.all([pingDb(deps.db), pingRedis(deps.redis)]);
    const ready = postgres && redis;
    res.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "unavailable",
      checks: { postgres: postgres ? "up" : "down", redis: redis ? "up" : "down" },
    });
  });
}
