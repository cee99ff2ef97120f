import type { RequestHandler } from "express";
import { hasScope, missingScopeMessage, type AccountDirectory, type ApiKeyScope } from "@gw/core/accounts";
import type { Actor } from "@gw/core/audit";
import { ApiError } from "@gw/errors";
import { withLogContext } from "@gw/logger";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: { accountId: string; keyId: string; scopes: readonly ApiKeyScope[] | null };
    }
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * `Authorization: Bearer <key>` (security scheme ChaveDeApi). Missing, malformed, unknown or revoked -> 401.
 * Keys are looked up through the account directory's short-lived cache (a revocation applies within
 * API_KEY_CACHE_TTL_MS on every pod).
 */
export function requireApiKey(directory: AccountDirectory): RequestHandler {
  return (req, _res, next) => {
    const key = BEARER.exec(req.header("authorization") ?? "")?.[1];
    if (!key) return next(new ApiError("invalid_api_key"));
    directory.authenticate(key).then((auth) => {
      if (!auth) return next(new ApiError("invalid_api_key"));
      req.auth = auth;
      withLogContext({ accountId: auth.accountId, keyId: auth.keyId }, next);
    }, next);
  };
}

/**
 * The operation's scope (its route's `scope`, define-route.ts), after the key and the rate limit and before anything
 * of the request is read: 403 `insufficient_scope` naming it.
 */
export function requireScope(scope: ApiKeyScope): RequestHandler {
  return (req, _res, next) => {
    if (hasScope(authOf(req).scopes, scope)) return next();
    next(new ApiError("insufficient_scope", { message: missingScopeMessage(scope) }));
  };
}

/** The authenticated account; routes behind requireApiKey only. */
export function authOf(req: Express.Request): NonNullable<Express.Request["auth"]> {
  if (!req.auth) throw new ApiError("invalid_api_key");
  return req.auth;
}

/** The API key as the services' audit trail names it (`api_key:<id>`, origin api), with the request's id. */
export function apiActor(req: Express.Request): Actor {
  return { id: `api_key:${authOf(req).keyId}`, origin: "api", requestId: req.requestId };
}
