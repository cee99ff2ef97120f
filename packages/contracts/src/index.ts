export {
  parseRequest,
  replaceUnstorable,
  RequestValidationError,
  toValidationIssue,
  UNSTORABLE_CHARACTER,
  unstorableTextReason,
} from "./validation.ts";
export type { RequestLocation, ValidationIssue } from "./validation.ts";
export * from "./users.ts";
export * from "./messages.ts";
export * from "./message-kinds.ts";
export * from "./deliveries.ts";
export * from "./templates.ts";
export * from "./campaigns.ts";
export * from "./webhooks.ts";
export * from "./openapi.ts";
export * from "./webhooks.openapi.ts";
export * from "./usage.ts";
export * from "./integrations.ts";
export * from "./delivery-replays.ts";
export * from "./event-types.ts";
export * from "./media.ts";
export * from "./orders.ts";
export * from "./numbers.ts";
export * from "./conversations.ts";
export * from "./statuses.ts";
