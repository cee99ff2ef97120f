export { sendMessage } from "./send.ts";
export { replyInConversation } from "./conversation-reply.ts";
export { getMessageDetail } from "./detail.ts";
export type { MessageContent, MessageSender, SendDeps, SendInput } from "./send.ts";
export { UNCONFIRMED_SEND } from "./outcome.ts";
export type { AcceptedMessage, ContentKind, SendOutcome, SettledSend } from "./outcome.ts";
export { decimalDegrees, freeFormPayload } from "./free-form.ts";
export type {
  FreeFormContent,
  Interactive,
  InteractiveHeader,
  Location,
  Media,
  MediaSource,
  MediaType,
  Reaction,
} from "./free-form.ts";
export { outboundSummary } from "./summary.ts";
export type { OutboundSummary } from "./summary.ts";
export { checkMediaReference, findSendableMedia } from "./media-target.ts";
export type { SendableMedia } from "./media-target.ts";
export { REACTION_MAX_AGE_MS, checkReactionTarget } from "./reaction-target.ts";
export {
  DEFAULT_COMMIT_POLICY,
  commitAcceptedSend,
  createSendJournal,
  createSendRecorder,
  recordAcceptedSend,
  recordAcceptedSends,
  sentOutcome,
  storeAcceptedMessage,
} from "./accepted.ts";
export type {
  AcceptedSend,
  CommitOutcome,
  CommitPolicy,
  SendJournal,
  SendJournalOptions,
  SendRecorder,
} from "./accepted.ts";
