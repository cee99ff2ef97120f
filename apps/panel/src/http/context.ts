import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { PanelSessionUser } from "@gw/core";
import { withLogContext, type Logger } from "@gw/logger";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      /** The signed-in staff member (set by the session middleware), undefined on public pages. */
      panelUser?: PanelSessionUser;
    }
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request id on every log line and in X-Request-Id; one structured line per request, never a body or cookie. */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      withLogContext({ requestId }, () =>
        logger.http("request", {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          user: req.panelUser?.userId,
          durationMs: Math.round(durationMs * 10) / 10,
        }),
      );
    });
    withLogContext({ requestId }, next);
  };
}

/** The signed-in user; only called behind `requireUser`. */
export function currentUser(req: Express.Request): PanelSessionUser {
  if (!req.panelUser) throw new Error("currentUser called on a route without requireUser");
  return req.panelUser;
}

/** How the audit trail names a panel user. */
export function panelActor(user: PanelSessionUser): string {
  return `panel:${user.email}`;
}
