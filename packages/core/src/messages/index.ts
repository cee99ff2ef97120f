export { sendMessage, unconfirmedResponse } from "./send.ts";
export type { MessageSender, SendDeps, SendInput, SendOutcome } from "./send.ts";
export {
  DEFAULT_COMMIT_POLICY,
  commitAcceptedSend,
  createSendJournal,
  recordAcceptedSend,
  storeAcceptedMessage,
} from "./accepted.ts";
export type { AcceptedSend, CommitOutcome, CommitPolicy, SendJournal, SendJournalOptions } from "./accepted.ts";
