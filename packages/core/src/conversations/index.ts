export { listConversationMessages, listConversations } from "./conversations.ts";
export type {
  ConversationContact,
  ConversationMessageView,
  ConversationView,
  ConversationWindow,
} from "./conversations.ts";
export { openInboundMedia } from "./media.ts";
export type { InboundMediaFile } from "./media.ts";
