import type { Request, RequestHandler } from "express";
import { parseTraceparent, runInSpan, startIncomingSpan, type IncomingSpan } from "@gw/tracing";
import { routeTemplate } from "./route-template.ts";

const spans = new WeakMap<Request, IncomingSpan>();

/**
 * One server span per request, the current span of everything the request does (a send's provider call, the
 * context its message keeps, its log lines). It starts a trace of its own, the caller's `traceparent` kept only as a
 * link and its sampled flag deciding nothing, unless the request authenticates (`continueCallerTrace`, after the
 * bearer key): a caller the gateway does not know must not choose our trace ids nor what is recorded (docs/decisions.md,
 * "Traces"). Named by the route's template, never the path (a path may carry a secret).
 */
export function traceRequests(): RequestHandler {
  return (req, res, next) => {
    const span = startIncomingSpan(req.method, {
      caller: parseTraceparent(req.header("traceparent")),
      attributes: { "http.request.method": req.method, "gw.request_id": req.requestId },
    });
    spans.set(req, span);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const route = routeTemplate(req);
      if (route !== undefined) span.updateName(`${req.method} ${route}`);
      span.setAttributes({ "http.route": route ?? "unmatched", "http.response.status_code": res.statusCode });
      if (res.statusCode >= 500 || !res.writableFinished) span.fail();
      span.end();
    };
    res.once("finish", end);
    res.once("close", end);
    runInSpan(span, next);
  };
}

/**
 * Placed right after the authentication of a router: the request, now authenticated, continues its caller's trace
 * (its server span becomes a child of the caller's span, recorded as its sampled flag says), as an integrator
 * joining its own traces expects.
 */
export function continueCallerTrace(): RequestHandler {
  return (req, _res, next) => {
    spans.get(req)?.continueCaller();
    next();
  };
}

/** `fn` with the request's server span current: for what is written once the request is answered (its log line). */
export function inRequestSpan<T>(req: Request, fn: () => T): T {
  const span = spans.get(req);
  return span ? runInSpan(span, fn) : fn();
}
