// The HTTP edges' shared middleware (the API and the panel): the request id, the one log line per request, the
// client address that per-address limits count, the CSV downloads' streaming (`csv-download.ts`), the media
// transfers' per-process slots (`transfer-slots.ts`) and minimum rate (`transfer-rate.ts`), and the downloads'
// Content-Disposition.
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { withLogContext, type Logger } from "@gw/logger";
import { routeTemplate } from "./route-template.ts";
import { inRequestSpan } from "./trace-requests.ts";

export { routeTemplate };
export { continueCallerTrace, traceRequests } from "./trace-requests.ts";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
    }
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The address a per-address limit counts: IPv4 as is, IPv6 by its /64 (one host commonly holds a whole /64, so
 * counting single IPv6 addresses would give one client 2^64 budgets). Used by the API's and the panel's limits.
 */
export function clientAddressKey(ip: string): string {
  const address = ip.split("%")[0] ?? ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0");
  const groups = [...left, ...zeros, ...right].slice(0, 4);
  return `${groups.map((group) => (Number.parseInt(group, 16) || 0).toString(16)).join(":")}::/64`;
}

export interface RequestContextOptions {
  /** Fields the app adds to the request's log line once it is answered (the panel's signed-in user). */
  fields?: (req: Request) => Record<string, unknown>;
}

/**
 * Echo a well-formed `X-Request-Id` or make one; every log line of the request carries it, and one structured line
 * per request is written when it is answered. The line names the route's template, never the path itself: a path
 * may carry a secret (an invite's token), and never a body or a cookie.
 */
export function requestContext(logger: Logger, options: RequestContextOptions = {}): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      // Inside the request's server span (traceRequests), so that the line names the request's trace.
      inRequestSpan(req, () =>
        withLogContext({ requestId }, () =>
          logger.http("request", {
            method: req.method,
            path: routeTemplate(req) ?? "unmatched",
            status: res.statusCode,
            ...options.fields?.(req),
            durationMs: Math.round(durationMs * 10) / 10,
          }),
        ),
      );
    });
    withLogContext({ requestId }, next);
  };
}

export { sendCsv } from "./csv-download.ts";
export type { CsvDownload, CsvDownloadEnd } from "./csv-download.ts";
export { createDownloadSlots } from "./transfer-slots.ts";
export type { DownloadSlots } from "./transfer-slots.ts";
export { watchTransferRate } from "./transfer-rate.ts";
export type { RateWatch, TooSlow } from "./transfer-rate.ts";
export { contentDisposition } from "./content-disposition.ts";
