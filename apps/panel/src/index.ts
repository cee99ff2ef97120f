// What tests and the test stack (@gw/test-stack) start the panel with, in process.
export { createPanelApp } from "./app.ts";
export { loadPanelConfig, panelConfigSchema } from "./config.ts";
export type { PanelConfig } from "./config.ts";
export { buildPanelDeps, closePanelDeps } from "./container.ts";
export type { PanelDeps } from "./container.ts";
