import type { RequestHandler } from "express";
import { parseTraceparent, runInSpan, startSpan } from "@gw/tracing";
import { routeTemplate } from "./route-template.ts";

/**
 * One server span per request, the current span of everything the request does (a send's provider call, the
 * context its message keeps). A valid `traceparent` makes it a child of the caller's span; otherwise it starts a
 * trace. Named by the route's template, never the path (a path may carry a secret).
 */
export function traceRequests(): RequestHandler {
  return (req, res, next) => {
    const span = startSpan(req.method, {
      kind: "server",
      parent: parseTraceparent(req.header("traceparent")),
      attributes: { "http.request.method": req.method, "gw.request_id": req.requestId },
    });
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
