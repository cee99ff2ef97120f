import type { RequestHandler } from "express";
import type { Actor, PanelSessionUser } from "@gw/core";
import { requestContext } from "@gw/http";
import type { Logger } from "@gw/logger";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The signed-in staff member (set by the session middleware), undefined on public pages. */
      panelUser?: PanelSessionUser;
    }
  }
}

/** The request id and one log line per request (@gw/http), naming the signed-in user. */
export function panelRequestContext(logger: Logger): RequestHandler {
  return requestContext(logger, { fields: (req) => ({ user: req.panelUser?.userId }) });
}

/** The signed-in user; only called behind `requireUser`. */
export function currentUser(req: Express.Request): PanelSessionUser {
  if (!req.panelUser) throw new Error("currentUser called on a route without requireUser");
  return req.panelUser;
}

/** The signed-in user as the services' audit trail names them (`panel:<email>`, origin panel). */
export function panelActor(req: Express.Request): Actor {
  return { id: `panel:${currentUser(req).email}`, origin: "panel", requestId: req.requestId };
}
