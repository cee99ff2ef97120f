export { sendMessage } from "./send.ts";
export type { MessageContent, MessageSender, SendDeps, SendInput } from "./send.ts";
export { UNCONFIRMED_SEND } from "./outcome.ts";
export type { AcceptedMessage, SendOutcome, SettledSend } from "./outcome.ts";
export {
  DEFAULT_COMMIT_POLICY,
  commitAcceptedSend,
  createSendJournal,
  recordAcceptedSend,
  sentOutcome,
  storeAcceptedMessage,
} from "./accepted.ts";
export type { AcceptedSend, CommitOutcome, CommitPolicy, SendJournal, SendJournalOptions } from "./accepted.ts";
