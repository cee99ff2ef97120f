import type { RequestHandler } from "express";
import { markPanelSessionReauthenticated } from "@gw/core/users";
import type { Db } from "@gw/db";
import type { SessionOptions } from "./session.ts";

/** Where the password is asked again; `next` is the panel path to return to. */
export const CONFIRM_PASSWORD_PATH = "/confirmar-senha";

export function confirmPasswordUrl(next: string): string {
  return `${CONFIRM_PASSWORD_PATH}?next=${encodeURIComponent(next)}`;
}

/** Whether the signed-in session proved its password (or acted sensitively) within the idle time. */
export function isRecentlyAuthenticated(req: Express.Request, options: SessionOptions, now = Date.now()): boolean {
  const user = req.panelUser;
  return user !== undefined && now - user.reauthenticatedAt.getTime() <= options.reauthIdleMs;
}

/**
 * Sensitive actions (managing users) need a recent password: past the idle time the request is not carried out and
 * goes to the page that asks for the password, which then returns to `back` (a GET: the action's form is shown
 * again). Each action let through restarts the clock, as GitHub's "sudo mode" does: someone at work is not asked
 * at every click, a session left open is asked again. After `requireCapability`: a role that may not act is refused,
 * not asked for a password.
 */
export function requireRecentAuthentication(deps: { db: Db; session: SessionOptions }, back: string): RequestHandler {
  return (req, res, next) => {
    const user = req.panelUser;
    if (!user) return next();
    if (!isRecentlyAuthenticated(req, deps.session)) {
      res.redirect(303, confirmPasswordUrl(req.method === "GET" ? req.originalUrl : back));
      return;
    }
    markPanelSessionReauthenticated({ db: deps.db }, { sessionId: user.sessionId }).then(() => next(), next);
  };
}
