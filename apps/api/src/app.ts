import express, { Router } from "express";
import type { Db } from "@gw/db";
import type { Redis } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import type { ApiConfig } from "./config.ts";
import { errorHandler, notFound } from "./http/errors.ts";
import { requestContext } from "./http/request-context.ts";
import * as health from "./routes/health.ts";

export interface ApiDeps {
  config: ApiConfig;
  db: Db;
  redis: Redis;
  logger: Logger;
}

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", true);
  app.use(requestContext(deps.logger));

  const ops = Router();
  health.register(ops, deps);
  app.use(ops);

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
