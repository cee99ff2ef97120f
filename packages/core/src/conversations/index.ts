export { listConversationMessages, listConversations } from "./conversations.ts";
export type {
  ConversationContact,
  ConversationMessageView,
  ConversationView,
  ConversationWindow,
} from "./conversations.ts";
export { INBOUND_MEDIA_MAX_BYTES, openInboundMedia } from "./media.ts";
export type { InboundMediaStream } from "./media.ts";
