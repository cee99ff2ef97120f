import { randomUUID } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { withLogContext, type Logger } from "@gw/logger";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      /** The exact bytes of the body, kept for signature checks (provider webhook). */
      rawBody?: Buffer;
    }
  }
}

/** The matched route's template under its mount point (`/public/v1/deliveries/:id`), or undefined when no route
 * matched. Express types `req.route` as `any`. */
export function routeTemplate(req: Request): string | undefined {
  const route: unknown = req.route;
  if (typeof route !== "object" || route === null || !("path" in route)) return undefined;
  return typeof route.path === "string" && route.path ? `${req.baseUrl}${route.path}` : undefined;
}

/** Echo a well-formed `X-Request-Id` or make one; every log line of the request carries it. */
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
          path: routeTemplate(req) ?? req.path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
        }),
      );
    });
    withLogContext({ requestId }, next);
  };
}
