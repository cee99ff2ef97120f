export { sendMessage, unconfirmedResponse } from "./send.ts";
export type { MessageSender, SendContext, SendDeps, SendOutcome } from "./send.ts";
export { TEMPLATE_STATUSES, templateCatalogue, validatePhone, windowStatus } from "./queries.ts";
