// For other workspaces' tests (the panel's browser tests run the API in their own process). The API itself
// starts from main.ts.
export { createApp } from "./app.ts";
export { loadApiConfig } from "./config.ts";
export type { ApiConfig } from "./config.ts";
export { buildApiDeps, closeApiDeps } from "./container.ts";
export type { ApiDeps } from "./container.ts";
