import { fileURLToPath } from "node:url";
import express, { Router } from "express";
import { CAMPAIGN_CSV_MAX_BYTES } from "@gw/contracts";
import helmet from "helmet";
import multer from "multer";
import type { PanelDeps } from "./container.ts";
import { traceRequests } from "@gw/http";
import { loadSendingBlocks, panelRequestContext } from "./http/context.ts";
import { errorHandler, notFound } from "./http/errors.ts";
import { loadSession, requireUser, verifyCsrf } from "./http/session.ts";
import { PUBLIC_PAGES, SIGNED_IN_PAGES } from "./pages/index.ts";
import { requireSection } from "./http/roles.ts";
import { AGENT_SECTIONS } from "./views/nav.ts";

const ASSETS_DIR = fileURLToPath(new URL("./assets/", import.meta.url));
/** A campaign's CSV: the same cap as the API's (what 100 000 real rows need, see the contracts). */
const MAX_UPLOAD_BYTES = CAMPAIGN_CSV_MAX_BYTES;

/** The web panel: server-rendered pages, sessions in PostgreSQL, forms protected by CSRF tokens. */
export function createPanelApp(deps: PanelDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.TRUST_PROXY_HOPS);
  app.use(panelRequestContext(deps.logger));
  app.use(traceRequests());
  app.use(
    helmet({
      // Strict CSP: only this origin's stylesheet and script, no inline code, no framing, forms post only here.
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", "data:"],
          mediaSrc: ["'self'"],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          ...(deps.config.PANEL_COOKIE_SECURE ? { upgradeInsecureRequests: [] } : {}),
        },
      },
      xFrameOptions: { action: "deny" },
      strictTransportSecurity: deps.config.PANEL_COOKIE_SECURE,
      referrerPolicy: { policy: "same-origin" },
    }),
  );
  app.use("/assets", express.static(ASSETS_DIR, { maxAge: "1h", index: false }));
  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.use(express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 200 }));
  app.use(loadSession(deps.db, deps.session));
  // Multipart forms (a campaign's CSV, field `arquivo`) are read before the CSRF check, so their `_csrf` field is
  // checked like any form's: only for signed-in users, only on the routes a page declares, in memory, bounded.
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 50, fieldSize: 64 * 1024 },
  }).single("arquivo");
  const multipartRoutes = SIGNED_IN_PAGES.flatMap((section) => section.multipartRoutes ?? []);
  if (multipartRoutes.length > 0)
    app.post(multipartRoutes, (req, res, next) => (req.panelUser ? upload(req, res, next) : next()));
  app.use(verifyCsrf(deps.session));
  // Pages are per user: never cached by a shared cache or the back button after sign-out.
  app.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  const open = Router();
  for (const section of PUBLIC_PAGES) section.register(open, deps);
  app.use(open);

  const signedIn = Router();
  signedIn.use(requireUser);
  signedIn.use(loadSendingBlocks(deps.db));
  signedIn.use(requireSection(AGENT_SECTIONS));
  for (const section of SIGNED_IN_PAGES) section.register(signedIn, deps);
  app.use(signedIn);

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
