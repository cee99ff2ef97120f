import type { MessageStatusEvent } from "@gw/contracts";
import { deliver } from "./deliveries.ts";
import type { Pricing } from "./pricing.ts";
import { later, type DueStatus, type SandboxState, type StatusBatch, type UserRef } from "./state.ts";
import { identityOf, userOf, webhookContact } from "./users.ts";
import { statusError, webhookPayload, type FailureCode } from "./webhooks.ts";

/** Meta's cap on statuses in one webhook payload, as the sandbox applies it. */
export const MAX_STATUSES_PER_PAYLOAD = 100;

export interface AcceptedSend {
  phoneNumberId: string;
  wamid: string;
  /** The recipient; its ids are read when each status falls due, so an identity change shows in later statuses. */
  user: UserRef;
  /** Digits of `to` for a send addressed to a phone (its statuses' `recipient_id`); undefined for a BSUID send. */
  toPhone: string | undefined;
  /**
   * Carried by the `sent` status only: Meta puts it on one of `sent`/`delivered` per message (v24 wording), the
   * sandbox on `sent` (with the send's window and category).
   */
  pricing: Pricing;
  /** A failAfterSend recipient: `sent`, then `failed` with 131026. */
  failAfterSend: boolean;
  /**
   * 131050: a marketing template to a contact who stopped marketing messages. Meta accepts the send and reports
   * only a `failed` status (nothing was delivered nor billed).
   */
  failure?: FailureCode;
  /** A reaction: only `sent` follows, never `delivered` or `read` (meta-messages.md §3.1). */
  onlySent?: boolean;
  /** The send's `biz_opaque_callback_data`, echoed in every status of the message as Meta does. */
  callbackData?: string;
}

/** The statuses the sandbox sends on its own: Meta's, the ones the gateway's contract reports in `message.status`. */
type AutoStatus = MessageStatusEvent["data"]["status"];

/**
 * A status as meta-2026 §1.5 shapes it: `recipient_id` is the phone the send was addressed to, or, for a BSUID send,
 * the phone only when this number may see it; `recipient_user_id` (and the parent when enabled) always, except on
 * `failed` statuses of phone-addressed sends; a sibling `contacts` entry except for `failed` (username not on `sent`).
 */
function autoStatus(state: SandboxState, send: AcceptedSend, status: AutoStatus, wamid: string): DueStatus {
  const user = userOf(state, send.user);
  const identity = user ? identityOf(state, user, send.phoneNumberId) : undefined;
  const entry: Record<string, unknown> = { id: send.wamid, status, timestamp: String(Math.floor(state.now() / 1000)) };
  const recipientId = send.toPhone ?? identity?.phone;
  if (recipientId !== undefined) entry.recipient_id = recipientId;
  if (identity && !(status === "failed" && send.toPhone !== undefined)) {
    entry.recipient_user_id = identity.userId;
    if (identity.parentUserId !== undefined) entry.recipient_parent_user_id = identity.parentUserId;
  }
  if (status === "sent") entry.pricing = send.pricing;
  if (status === "failed") entry.errors = [statusError(send.failure ?? 131026)];
  if (send.callbackData !== undefined) entry.biz_opaque_callback_data = send.callbackData;
  const contact =
    identity && status !== "failed" ? webhookContact(identity, { username: status !== "sent" }) : undefined;
  return { wamid, phoneNumberId: send.phoneNumberId, entry, contact };
}

/**
 * After an accepted send: `sent`, `delivered`, `read` (or `sent`, `failed` for failAfterSend recipients, or only
 * `failed` with 131050 for a marketing template to a contact who stopped marketing messages), each due
 * at its configured delay after the send. A due status never overtakes an earlier status of the same message that is
 * not settled yet (still collecting, in flight or being redelivered): it waits behind it. A reset or shutdown stops
 * the sequence.
 */
export function startStatusSequence(state: SandboxState, send: AcceptedSend): void {
  if (!state.config.autoStatuses || !state.config.webhookUrl) return;
  const delays = state.config.statusDelaysMs;
  const steps: [AutoStatus, number][] =
    send.failure === 131050 || send.failure === 131009
      ? [["failed", delays.sent]]
      : send.failure === 131053
        ? [
            ["sent", delays.sent],
            ["failed", delays.delivered],
          ]
        : send.onlySent
          ? [["sent", delays.sent]]
          : send.failAfterSend
            ? [
                ["sent", delays.sent],
                ["failed", delays.delivered],
              ]
            : [
                ["sent", delays.sent],
                ["delivered", delays.delivered],
                ["read", delays.read],
              ];
  const startedAt = Date.now();
  const step = (index: number): void => {
    const current = steps[index];
    if (!current) return;
    const [status, at] = current;
    later(state, startedAt + at - Date.now(), () => {
      if (state.closed) return;
      emit(state, autoStatus(state, send, status, send.wamid));
      step(index + 1);
    });
  };
  step(0);
}

/** A status is due: into the open payload of its number, unless an earlier status of its message is unsettled. */
function emit(state: SandboxState, due: DueStatus): void {
  const lane = state.lanes.get(due.wamid);
  if (lane) {
    // Same open payload, right after the message's previous status: order kept inside the payload.
    if (lane.batch.open && lane.waiting.length === 0) add(state, lane.batch, due, false);
    else lane.waiting.push(due);
    return;
  }
  const batch = openBatch(state, due.phoneNumberId);
  state.lanes.set(due.wamid, { batch, waiting: [] });
  add(state, batch, due, true);
}

function openBatch(state: SandboxState, phoneNumberId: string): StatusBatch {
  const existing = state.batches.get(phoneNumberId);
  if (existing) return existing;
  const batch: StatusBatch = { phoneNumberId, entries: [], contacts: new Map(), wamids: [], open: true };
  const window = state.config.statusBatchMs;
  // Window 0: one status per payload, posted at once (no batch is ever left open).
  if (window > 0) {
    state.batches.set(phoneNumberId, batch);
    const generation = state.generation;
    later(state, window, () => {
      if (batch.open && generation === state.generation) flush(state, batch);
    });
  }
  return batch;
}

function add(state: SandboxState, batch: StatusBatch, due: DueStatus, newMessage: boolean): void {
  batch.entries.push(due.entry);
  const contact = due.contact;
  if (contact?.user_id !== undefined) {
    const known = batch.contacts.get(contact.user_id);
    // A delivered/read status of the same user brings the username a `sent` one leaves out.
    if (!known || (contact.profile.username !== undefined && known.profile.username === undefined))
      batch.contacts.set(contact.user_id, contact);
  }
  if (newMessage) batch.wamids.push(due.wamid);
  if (state.config.statusBatchMs <= 0 || batch.entries.length >= MAX_STATUSES_PER_PAYLOAD) flush(state, batch);
}

function flush(state: SandboxState, batch: StatusBatch): void {
  batch.open = false;
  if (state.batches.get(batch.phoneNumberId) === batch) state.batches.delete(batch.phoneNumberId);
  const generation = state.generation;
  const payload = webhookPayload(state, batch.phoneNumberId, {
    contacts: [...batch.contacts.values()],
    statuses: batch.entries,
  });
  void deliver(state, "statuses", payload, {
    source: "auto",
    onSettled: () => {
      if (generation === state.generation) settle(state, batch);
    },
  });
}

/** Delivered or given up: each message's waiting statuses go on, in order, into the next payloads. */
function settle(state: SandboxState, batch: StatusBatch): void {
  for (const wamid of batch.wamids) {
    const lane = state.lanes.get(wamid);
    if (lane?.batch !== batch) continue;
    state.lanes.delete(wamid);
    for (const due of lane.waiting) emit(state, due);
  }
}
