export { WINDOW_MS, getWindow, windowStatus, windowView } from "./windows.ts";
export type { WindowState } from "./windows.ts";
