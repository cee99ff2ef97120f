import type { Express, RequestHandler, Router } from "express";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { WebhookQueue } from "@gw/jobs";
import { safeEqual } from "@gw/signer";

export const OPS_QUEUES_PATH = "/ops/queues";

/** HTTP Basic credentials compared in constant time. */
function basicAuth(user: string, password: string): RequestHandler {
  const expected = `${user}:${password}`;
  return (req, res, next) => {
    const header = req.header("authorization") ?? "";
    const presented = header.startsWith("Basic ") ? Buffer.from(header.slice(6), "base64").toString("utf8") : "";
    if (presented && safeEqual(presented, expected)) return next();
    res.setHeader("WWW-Authenticate", 'Basic realm="ops", charset="UTF-8"');
    res.status(401).type("text/plain").send("Autenticação necessária.");
  };
}

/** Bull Board for on-call, mounted only when credentials are configured (never open by default). */
export function mountQueueBoard(
  app: Express,
  deps: { queue: WebhookQueue; user?: string | undefined; password?: string | undefined },
): boolean {
  if (!deps.user || !deps.password) return false;
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(OPS_QUEUES_PATH);
  createBullBoard({ queues: [new BullMQAdapter(deps.queue)], serverAdapter });
  // @bull-board/express declares getRouter(): any; it returns an Express Router.
  const board = serverAdapter.getRouter() as Router;
  app.use(OPS_QUEUES_PATH, basicAuth(deps.user, deps.password), board);
  return true;
}
