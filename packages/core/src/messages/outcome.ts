import type { ApiError } from "@gw/errors";
import type { AcceptedOrderAnswer } from "./order-records.ts";

// What a send comes to, in the domain's words: the API renders it as its HTTP answer (apps/api, messages.send.ts),
// the campaign runner reads it, and an Idempotency-Key keeps its settled part for every repeat.

/** What a send was: `text` and `template`, and the free-form kinds of issue 27 (`messages.kind`, the answer's `type`). */
export type ContentKind = "text" | "template" | "interactive" | "media" | "reaction" | "location" | "order_status";

/** A message the provider accepted, as the send's answer describes it. */
export interface AcceptedMessage {
  /** The provider's id (wamid), later carried by the message's statuses. */
  messageId: string;
  to: string;
  type: ContentKind;
  phoneNumberId: string;
  clientRef: string | null;
  /** An order_status send (issue 28): the order's resulting pair. */
  order?: AcceptedOrderAnswer;
}

/** What an Idempotency-Key keeps of a settled send: every repeat with the key gets it. */
export type SettledSend =
  { kind: "sent"; message: AcceptedMessage } | { kind: "unconfirmed"; messageId: string | null };

/** A send that reached the provider without an answer: it may have gone out, so it is never sent again. */
export const UNCONFIRMED_SEND: SettledSend = Object.freeze({ kind: "unconfirmed", messageId: null });

/**
 * What a send came to. `sent` and `unconfirmed` are what the key keeps (`replayed`: a repeat got the first call's
 * outcome); `refused` is a confirmed refusal, nothing went out (its code is the registry's, e.g. outside_24h_window,
 * rate_limited, idempotency_in_flight). Failures of the gateway's own stores are thrown, not returned.
 */
export type SendOutcome = (SettledSend & { replayed: boolean }) | { kind: "refused"; error: ApiError };
