import express, { Router } from "express";
import type { ApiDeps } from "./container.ts";
import { requireApiKey } from "./http/auth.ts";
import { errorHandler, notFound } from "./http/errors.ts";
import { authFailuresPerIp, rateLimitPerKey } from "./http/rate-limit.ts";
import { continueCallerTrace, requestContext, traceRequests } from "@gw/http";
import { httpMetrics, metricsHandler } from "./metrics.ts";
import * as docs from "./routes/docs.ts";
import * as health from "./routes/health.ts";
import { mountQueueBoard } from "./routes/ops-queues.ts";
import * as providerWebhook from "./routes/provider-webhook.ts";
import { createLearntSightings } from "@gw/core/contacts";
import { PUBLIC_PREFIX, PUBLIC_ROUTES } from "./routes/public/index.ts";

/** The public listener: health, Meta's webhook, the docs and the public API. /metrics and Bull Board are not here. */
export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // X-Forwarded-For is believed only for the configured proxies: `req.ip` is what the per-address limit counts.
  app.set("trust proxy", deps.config.TRUST_PROXY_HOPS);
  app.use(requestContext(deps.logger));
  app.use(traceRequests());
  app.use(httpMetrics(deps.metrics));

  const ops = Router();
  health.register(ops, deps);
  providerWebhook.register(ops, {
    db: deps.db,
    outbox: deps.outbox,
    logger: deps.logger,
    directory: deps.directory,
    templates: deps.templates,
    // One app, one memory of the users it learnt lately (statuses repeat a recipient's pair).
    learnt: createLearntSightings(),
    onQuarantined: (count) => deps.metrics.providerItemsQuarantined.inc(count),
    onLag: (seconds) => deps.metrics.providerWebhookLag.observe(seconds),
    appSecret: deps.config.META_APP_SECRET,
    verifyToken: deps.config.META_VERIFY_TOKEN,
    bodyLimitBytes: deps.config.META_WEBHOOK_BODY_LIMIT_BYTES,
    unverifiedBodies: deps.unverifiedWebhookBodies,
    bodyTimeoutMs: deps.config.META_WEBHOOK_BODY_TIMEOUT_MS,
    groupCommit: {
      maxPayloads: deps.config.META_WEBHOOK_BATCH_MAX_PAYLOADS,
      maxInFlight: deps.config.META_WEBHOOK_BATCH_MAX_IN_FLIGHT,
      onBatch: (payloads) => deps.metrics.providerWebhookBatch.observe(payloads),
    },
  });
  app.use(ops);
  // Before the authenticated router: the document and the docs page are public.
  docs.register(app);
  app.use(PUBLIC_PREFIX, publicRouter(deps));

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}

/**
 * Every public endpoint: the per-address limit of refused keys, the bearer key, then the per-key rate limit. Only
 * the routes that take a body parse one (http/json-body.ts): a body sent to a GET or to a retry is ignored.
 */
function publicRouter(deps: ApiDeps): Router {
  const { redis, config } = deps;
  const keyPrefix = config.REDIS_KEY_PREFIX;
  const refusals = authFailuresPerIp({
    redis,
    keyPrefix,
    points: config.API_AUTH_FAILURES_PER_IP,
    windowSeconds: config.API_AUTH_FAILURES_WINDOW_SECONDS,
  });
  const api = Router();
  api.use(refusals.guard);
  api.use(requireApiKey(deps.directory));
  // Only an authenticated request continues its caller's trace; any other starts its own (@gw/http trace-requests).
  api.use(continueCallerTrace());
  api.use(refusals.countRefusal);
  api.use(
    rateLimitPerKey({
      redis,
      keyPrefix,
      points: config.API_RATE_LIMIT_POINTS,
      windowSeconds: config.API_RATE_LIMIT_WINDOW_SECONDS,
    }),
  );
  for (const route of PUBLIC_ROUTES) route.register(api, deps);
  return api;
}

/**
 * The internal listener (API_INTERNAL_HOST:API_INTERNAL_PORT, loopback by default): Prometheus' /metrics and, when
 * OPS_USER/OPS_PASSWORD are set, Bull Board behind HTTP Basic. Its own requests are not counted as API traffic.
 */
export function createInternalApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", metricsHandler(deps.metrics));
  mountQueueBoard(app, { queue: deps.queue, user: deps.config.OPS_USER, password: deps.config.OPS_PASSWORD });
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
