import type { RequestHandler } from "express";
import { authenticateApiKey } from "@gw/core";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { withLogContext } from "@gw/logger";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: { accountId: string; keyId: string };
    }
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** `Authorization: Bearer <key>` (security scheme ChaveDeApi). Missing, malformed, unknown or revoked -> 401. */
export function requireApiKey(db: Db): RequestHandler {
  return async (req, _res, next) => {
    const match = BEARER.exec(req.header("authorization") ?? "");
    const key = match?.[1];
    const auth = key ? await authenticateApiKey(db, key) : null;
    if (!auth) return next(new ApiError("invalid_api_key"));
    req.auth = auth;
    withLogContext({ accountId: auth.accountId, keyId: auth.keyId }, next);
  };
}

/** The authenticated account; routes behind requireApiKey only. */
export function authOf(req: Express.Request): { accountId: string; keyId: string } {
  if (!req.auth) throw new ApiError("invalid_api_key");
  return req.auth;
}
