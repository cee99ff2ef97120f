// Every concern's names in one module, kept while consumers move to the concerns' own entry points
// (`@gw/core/<concern>`, package.json "exports"); ARCHITECTURE.md, "Tiers inside core".
export * from "./accounts/index.ts";
export * from "./audit/index.ts";
export * from "./campaigns/index.ts";
export * from "./contacts/index.ts";
export * from "./conversations/index.ts";
export * from "./csv/index.ts";
export * from "./dashboard/index.ts";
export * from "./deliveries/index.ts";
export * from "./events/index.ts";
export * from "./health/index.ts";
export * from "./idempotency/index.ts";
export * from "./ingest/index.ts";
export * from "./messages/index.ts";
export * from "./phones/index.ts";
export * from "./pricing/index.ts";
export * from "./retention/index.ts";
export * from "./suppressions/index.ts";
export * from "./templates/index.ts";
export * from "./throughput/index.ts";
export * from "./users/index.ts";
export * from "./windows/index.ts";
