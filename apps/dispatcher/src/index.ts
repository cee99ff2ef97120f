export { createDispatcher } from "./dispatcher.ts";
export type { Dispatcher, DispatcherDeps } from "./dispatcher.ts";
export { dispatcherConfigSchema, loadDispatcherConfig } from "./config.ts";
export type { DispatcherConfig } from "./config.ts";
