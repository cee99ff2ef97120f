import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { Express } from "express";
import { buildOpenApiDocument } from "../openapi.ts";
import { PUBLIC_PREFIX } from "./public/index.ts";

/** Where the document is served: inside the public prefix, but registered before (outside) the key check. */
export const OPENAPI_PATH = `${PUBLIC_PREFIX}/openapi.json`;
export const DOCS_PATH = "/docs";
export const DOCS_ASSETS_PATH = "/docs/assets";

// Resolved through package.json: importing "swagger-ui-dist" itself would evaluate the browser bundle in Node.
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The only files of swagger-ui-dist the page uses; anything else under the assets path is a 404. */
const ASSETS: ReadonlySet<string> = new Set([
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "favicon-32x32.png",
  "favicon-16x16.png",
]);

// Our own initializer as a file (not inline) so the page's CSP needs no 'unsafe-inline' scripts.
// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="pt-BR">
  <head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Documentação da API</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <noscript>Esta página precisa de JavaScript. O documento OpenAPI está em <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${DOCS_PATH}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/**
 * GET /public/v1/openapi.json (no auth) and GET /docs (Swagger UI, assets served from the installed swagger-ui-dist,
 * no CDN). Registered on the app before the authenticated /public/v1 router, so neither needs a key.
 */
export function register(app: Express): void {
  // Built on the first request, once: the schemas do not change while the process runs, and building it costs about
  // a second of CPU that most processes (a pod between deploys, each test's app) would spend for nobody.
  let document: string | undefined;

  app.get(OPENAPI_PATH, (_req, res) => {
    document ??= JSON.stringify(buildOpenApiDocument());
    res.setHeader("Cache-Control", "no-cache");
    res.type("application/json").send(document);
  });

  app.get(DOCS_PATH, (_req, res) => {
    res.setHeader("Content-Security-Policy", PAGE_CSP);
    res.setHeader("Cache-Control", "no-cache");
    res.type("html").send(PAGE);
  });

  app.get(`${DOCS_PATH}/swagger-initializer.js`, (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.type("text/javascript").send(INITIALIZER);
  });

  app.get(`${DOCS_ASSETS_PATH}/:file`, (req, res, next) => {
    const file = req.params.file;
    if (!ASSETS.has(file)) return next();
    // `root`: the package sits under node_modules/.pnpm, and send refuses dot-folders in the part of the path it checks.
    res.sendFile(file, { root: SWAGGER_UI_DIR, maxAge: "1d" }, (error) => {
      if (error) next(error);
    });
  });
}
