// A process's life, the same for every app: its configuration or exit 78, start, and a drain on the first signal.
export type { ProcessApp, ProcessSpec } from "./run.ts";
export { runWorkerProcess } from "./worker.ts";
export type { WorkerProcessSpec } from "./worker.ts";
export { listen, runHttpProcess } from "./http.ts";
export type { HttpListener } from "./http.ts";
