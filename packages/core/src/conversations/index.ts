export { conversationRecipient, listConversationMessages, listConversations } from "./conversations.ts";
export type {
  ConversationContact,
  ConversationMessageView,
  ConversationView,
  ConversationWindow,
  InboundDetailsView,
  OutboundContentView,
  SharedContactView,
} from "./conversations.ts";
export { INBOUND_MEDIA_MAX_BYTES, openInboundMedia } from "./media.ts";
export type { InboundMediaStream } from "./media.ts";
export {
  READ_RECEIPT_MAX_AGE_MS,
  markConversationReadOnOpen,
  markInboundMessageRead,
  panelReadReceiptsEnabled,
  setPanelReadReceipts,
} from "./read.ts";
export type { ReadReceipt, ReadReceiptDeps, ReadReceiptOutcome } from "./read.ts";
export { TYPING_INDICATOR_MS, createTypingLimiter } from "./typing.ts";
export type { TypingClaim, TypingLimiter, TypingTarget } from "./typing.ts";
export { applyHandovers, controlThread, conversationDetail, readThread, threadView } from "./thread.ts";
export type {
  ConversationDetailOutcome,
  HandoverInput,
  ThreadControlDeps,
  ThreadControlOutcome,
  ThreadState,
} from "./thread.ts";
export { handOverConversation, personAnswered, readHandler } from "./handler.ts";
export { changeConversation } from "./inbox.ts";
export type { InboxChange } from "./inbox.ts";
export { conversationState } from "./updated.ts";
export type { HandoverDeps, HandoverOutcome } from "./handler.ts";
