export { accountOverview } from "./overview.ts";
export type { AccountOverview, FailingIntegration } from "./overview.ts";
