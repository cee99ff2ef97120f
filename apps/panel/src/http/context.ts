import type { RequestHandler } from "express";
import type { Actor } from "@gw/core/audit";
import { listWabaHealth, type WabaHealthView } from "@gw/core/health";
import type { PanelSessionUser } from "@gw/core/users";
import type { Db } from "@gw/db";
import { requestContext } from "@gw/http";
import type { Logger } from "@gw/logger";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The signed-in staff member (set by the session middleware), undefined on public pages. */
      panelUser?: PanelSessionUser;
      /** The account's WABAs whose sends Meta's ban or disconnection stopped: every page shows a banner. */
      sendingBlocks?: readonly WabaHealthView[];
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

/**
 * For the signed-in pages (GET): the account's blocked WABAs, for the banner every page shows (one indexed query;
 * forms redirect, so POSTs skip it).
 */
export function loadSendingBlocks(db: Db): RequestHandler {
  return (req, _res, next) => {
    const user = req.panelUser;
    if (!user || (req.method !== "GET" && req.method !== "HEAD")) return next();
    listWabaHealth({ db }, { accountId: user.accountId, blockedOnly: true }).then((blocks) => {
      req.sendingBlocks = blocks;
      next();
    }, next);
  };
}
