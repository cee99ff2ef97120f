import type { Actor } from "../audit/audit.ts";
import { conversationRecipient } from "../conversations/conversations.ts";
import { personAnswered } from "../conversations/handler.ts";
import type { SendOutcome } from "./outcome.ts";
import { sendMessage, type SendDeps } from "./send.ts";

/**
 * A person's text reply from the panel's Conversas (issue 39, the inbox): the same send service as the API's, so the
 * window, the opt-outs, the pacing, pricing and exactly-once hold for a person too. `formKey` is minted when the
 * composer was drawn: the Idempotency-Key is `panel:<formKey>`, so a double click, a resubmit after a timeout or the
 * same form sent from two tabs sends once (the repeat replays the first answer). A reply makes the person the
 * conversation's handler (conversations/handler.ts, personAnswered).
 */
export async function replyInConversation(
  deps: SendDeps,
  input: {
    accountId: string;
    phoneNumberId: string;
    /** The contact as Conversas names it (its key, a phone's digits or a BSUID). */
    contact: string;
    text: string;
    formKey: string;
    actor: Actor;
    requestId: string;
  },
): Promise<SendOutcome | { kind: "not_found" }> {
  const recipient = await conversationRecipient(deps.db.sql, { accountId: input.accountId, given: input.contact });
  if (!recipient) return { kind: "not_found" };
  const request = { to: recipient.sendTo, phone_number_id: input.phoneNumberId, text: input.text };
  const outcome = await sendMessage(deps, {
    accountId: input.accountId,
    actor: input.actor,
    requestId: input.requestId,
    to: recipient.sendTo,
    phoneNumberId: input.phoneNumberId,
    content: { kind: "text", body: input.text },
    idempotency: { key: `panel:${input.formKey}`, fingerprint: { request, recipientField: "to" } },
  });
  // A person answered: they hold the conversation now (the bot stays quiet), its timeout counting from this reply.
  if (outcome.kind === "sent" && !outcome.replayed)
    await personAnswered(deps, {
      accountId: input.accountId,
      phoneNumberId: input.phoneNumberId,
      contactKey: recipient.contactKey,
      recipient: recipient.sendTo,
    });
  return outcome;
}
