import express, { Router } from "express";
import type { ApiDeps } from "./container.ts";
import { requireApiKey } from "./http/auth.ts";
import { errorHandler, notFound } from "./http/errors.ts";
import { rateLimitPerKey } from "./http/rate-limit.ts";
import { requestContext } from "./http/request-context.ts";
import { httpMetrics, metricsHandler } from "./metrics.ts";
import * as docs from "./routes/docs.ts";
import * as health from "./routes/health.ts";
import { mountQueueBoard } from "./routes/ops-queues.ts";
import * as providerWebhook from "./routes/provider-webhook.ts";
import * as deliveries from "./routes/public/deliveries.ts";
import * as sendMessage from "./routes/public/messages.send.ts";
import * as templates from "./routes/public/templates.ts";
import * as validate from "./routes/public/validate.ts";
import * as window from "./routes/public/window.ts";

export const PUBLIC_PREFIX = "/public/v1";

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", true);
  app.use(requestContext(deps.logger));
  app.use(httpMetrics(deps.metrics));
  // Prometheus, outside the public API auth; on its own port instead when API_METRICS_PORT is set (main.ts).
  if (deps.config.API_METRICS_PORT === 0) app.get("/metrics", metricsHandler(deps.metrics));

  const ops = Router();
  health.register(ops, deps);
  providerWebhook.register(ops, {
    db: deps.db,
    outbox: deps.outbox,
    logger: deps.logger,
    directory: deps.directory,
    onQuarantined: (count) => deps.metrics.providerItemsQuarantined.inc(count),
    appSecret: deps.config.META_APP_SECRET,
    verifyToken: deps.config.META_VERIFY_TOKEN,
    bodyLimitBytes: deps.config.META_WEBHOOK_BODY_LIMIT_BYTES,
  });
  app.use(ops);
  mountQueueBoard(app, { queue: deps.queue, user: deps.config.OPS_USER, password: deps.config.OPS_PASSWORD });
  // Before the authenticated router: the document and the docs page are public.
  docs.register(app);

  // Every public endpoint: bearer key, then the per-key rate limit. Only the routes that take a body parse one
  // (http/json-body.ts): a body sent to a GET or to a retry is ignored, never an error.
  const api = Router();
  api.use(requireApiKey(deps.directory));
  api.use(
    rateLimitPerKey({
      redis: deps.redis,
      keyPrefix: deps.config.REDIS_KEY_PREFIX,
      points: deps.config.API_RATE_LIMIT_POINTS,
      windowSeconds: deps.config.API_RATE_LIMIT_WINDOW_SECONDS,
    }),
  );
  sendMessage.register(api, { send: deps.send, onOutcome: (outcome) => deps.metrics.sends.inc({ outcome }) });
  validate.register(api);
  window.register(api, deps);
  templates.register(api, deps);
  deliveries.register(api, deps);
  app.use(PUBLIC_PREFIX, api);

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
