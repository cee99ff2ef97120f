export { WINDOW_MS, getWindow, windowStatus } from "./windows.ts";
export type { WindowState } from "./windows.ts";
