import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { parseCookie as parseCookies, stringifySetCookie } from "cookie";
import { loadPanelSession } from "@gw/core/users";
import type { Db } from "@gw/db";
import { PanelHttpError } from "./errors.ts";

export interface SessionOptions {
  /** Secure cookies; the `__Host-` prefix then also pins them to this host and path `/`. */
  secure: boolean;
  /** Idle expiry (sliding). */
  ttlMs: number;
  /** Absolute end, counted from sign-in. */
  maxAgeMs: number;
  /** Sensitive actions ask for the password again when the last proof is older than this. */
  reauthIdleMs: number;
}

const sessionCookie = (secure: boolean) => (secure ? "__Host-gw_panel" : "gw_panel");
const preSessionCookie = (secure: boolean) => (secure ? "__Host-gw_panel_csrf" : "gw_panel_csrf");

function setCookie(name: string, value: string, options: SessionOptions, maxAgeSeconds?: number): string {
  return stringifySetCookie({ name, value, ...cookieOptions(options, maxAgeSeconds) });
}

function cookieOptions(options: SessionOptions, maxAgeSeconds?: number) {
  // httpOnly: scripts never see the session; SameSite=Strict: no cross-site request carries it.
  return {
    httpOnly: true,
    sameSite: "strict" as const,
    secure: options.secure,
    path: "/",
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** The cookie lives as long as the session can (its absolute end); the idle expiry is the server's to enforce. */
export function setSessionCookie(res: Response, options: SessionOptions, token: string): void {
  res.append(
    "Set-Cookie",
    setCookie(sessionCookie(options.secure), token, options, Math.floor(options.maxAgeMs / 1000)),
  );
}

export function clearSessionCookie(res: Response, options: SessionOptions): void {
  res.append("Set-Cookie", setCookie(sessionCookie(options.secure), "", options, 0));
}

export function sessionToken(req: Request, options: SessionOptions): string | undefined {
  return parseCookies(req.headers.cookie ?? "")[sessionCookie(options.secure)];
}

/** Reads the session cookie; sets `req.panelUser` when it names a live session. */
export function loadSession(db: Db, options: SessionOptions): RequestHandler {
  return async (req, _res, next) => {
    const token = sessionToken(req, options);
    if (token && /^[A-Za-z0-9_-]{43}$/.test(token)) {
      const user = await loadPanelSession({ db }, { token, ttlMs: options.ttlMs, maxAgeMs: options.maxAgeMs });
      if (user) req.panelUser = user;
    }
    next();
  };
}

/** Pages behind sign-in: a GET goes to the sign-in page (and back afterwards), anything else is refused. */
export const requireUser: RequestHandler = (req, res, next) => {
  if (req.panelUser) return next();
  if (req.method === "GET") {
    res.redirect(303, `/entrar?next=${encodeURIComponent(req.originalUrl)}`);
    return;
  }
  next(new PanelHttpError(401, "Sua sessão expirou. Entre de novo."));
};

/**
 * The token a form must echo in `_csrf`. Signed in: the session's own token (synchronizer pattern). Signed out
 * (sign-in and invite forms): a random token in its own cookie, echoed by the form (double submit), so a login
 * CSRF cannot sign the victim in to the attacker's account.
 */
export function csrfToken(req: Request, res: Response, options: SessionOptions): string {
  if (req.panelUser) return req.panelUser.csrfToken;
  const name = preSessionCookie(options.secure);
  const existing = parseCookies(req.headers.cookie ?? "")[name];
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomBytes(24).toString("base64url");
  res.append("Set-Cookie", setCookie(name, token, options));
  return token;
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether an `Origin` header names another host; a malformed one counts as another (refused, never a 500). */
function isForeignOrigin(origin: string, host: string | undefined): boolean {
  if (origin === "null") return false;
  if (!URL.canParse(origin)) return true;
  return new URL(origin).host !== host;
}

/**
 * Every state-changing request must carry the form's token, and must not come from another site (Sec-Fetch-Site,
 * then Origin, as defence in depth next to the SameSite=Strict cookie).
 */
export function verifyCsrf(options: SessionOptions): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const site = req.header("sec-fetch-site");
    if (site && site !== "same-origin" && site !== "none")
      return next(new PanelHttpError(403, "Requisição recusada: ela não veio do painel."));
    const origin = req.header("origin");
    if (origin && isForeignOrigin(origin, req.header("host")))
      return next(new PanelHttpError(403, "Requisição recusada: ela não veio do painel."));
    const body: unknown = req.body;
    const sent =
      typeof body === "object" && body !== null && typeof (body as { _csrf?: unknown })._csrf === "string"
        ? (body as { _csrf: string })._csrf
        : req.header("x-csrf-token");
    const expected = req.panelUser
      ? req.panelUser.csrfToken
      : parseCookies(req.headers.cookie ?? "")[preSessionCookie(options.secure)];
    if (!sent || !expected || !sameToken(sent, expected))
      return next(
        new PanelHttpError(403, "O formulário expirou ou não veio do painel. Recarregue a página e tente de novo."),
      );
    next();
  };
}
