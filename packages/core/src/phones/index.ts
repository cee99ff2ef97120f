export { normalizePhone } from "./normalize.ts";
export type { NormalizedPhone } from "./normalize.ts";
export { validatePhone } from "./validate.ts";
