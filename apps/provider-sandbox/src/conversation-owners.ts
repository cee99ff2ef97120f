import { remember, type SandboxState, type SandboxUser, type ThreadControlRecord } from "./state.ts";
import { identityOf, portfolioOf, userIdOf } from "./users.ts";
import {
  numberMetadata,
  type HandoverChange,
  type HandoverValue,
  type MessagingHandoversPayload,
  type MessagesField,
  type ThreadRole,
} from "./webhooks.ts";

/*
 * Conversation Routing (meta-late-2026 §5): each conversation (business number, user) has one owner app. The sandbox
 * models what the gateway can observe: whether this app owns it (user messages on `messages`) or another app does,
 * e.g. Meta's Business AI agent (user messages on `standby`), and thread control, which moves the ownership:
 * - roles: `business_ai` is the `ai_agent`; each number has one `escalation_partner` app (`this_app` unless set
 *   through POST /_sandbox/escalation-partner or the `escalationPartners` option); every other app is a `partner`;
 * - this app acts through POST /{phone-number-id}/thread_control (`graph/thread-control.ts`), or implicitly takes the
 *   thread with a non-template send when it is the escalation partner (`graph/messages.ts`);
 * - the other apps act through POST /_sandbox/thread-control (`control/thread-control.ts`);
 * - Meta tells the new owner `control_passed` and the previous one `control_taken` (`messaging_handovers` field);
 *   `release` tells nobody. So only another app's pass to this app, or its take from this app, posts a webhook here.
 */

/** The default owner: the app the sandbox's webhook belongs to. */
export const THIS_APP = "this_app";
/** Meta's Business AI agent: the `ai_agent` role, the owner after `release` and after a pass to `ai_agent`. */
export const BUSINESS_AI = "business_ai";

export type ThreadAction = "pass" | "take" | "release";

function keyOf(phoneNumberId: string, user: SandboxUser): string {
  return `${phoneNumberId}:${user.key}`;
}

/** Who owns the user's conversation with this number: `this_app`, `business_ai` or another app id. */
export function conversationOwner(state: SandboxState, phoneNumberId: string, user: SandboxUser): string {
  return state.conversationOwners.get(keyOf(phoneNumberId, user)) ?? THIS_APP;
}

/** Sets the owner; `this_app` drops the entry (the default). */
export function setConversationOwner(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  owner: string,
): void {
  if (owner === THIS_APP) state.conversationOwners.delete(keyOf(phoneNumberId, user));
  else state.conversationOwners.set(keyOf(phoneNumberId, user), owner);
}

/** The field a user message of this conversation is posted on: `standby` when another app owns it. */
export function inboundField(state: SandboxState, phoneNumberId: string, user: SandboxUser): MessagesField {
  return conversationOwner(state, phoneNumberId, user) === THIS_APP ? "messages" : "standby";
}

/** The number's escalation partner app: `this_app` unless the configuration names another one. */
export function escalationPartnerOf(state: SandboxState, phoneNumberId: string): string {
  return state.config.escalationPartners[phoneNumberId] ?? THIS_APP;
}

/** Sets the number's escalation partner; `this_app` drops the entry (the default). A new object: see `numbers`. */
export function setEscalationPartner(state: SandboxState, phoneNumberId: string, app: string): void {
  const { [phoneNumberId]: _previous, ...others } = state.config.escalationPartners;
  state.config.escalationPartners = app === THIS_APP ? others : { ...others, [phoneNumberId]: app };
}

/** An app's role for this number: the AI agent, the number's escalation partner, or any other partner app. */
export function roleOf(state: SandboxState, phoneNumberId: string, app: string): ThreadRole {
  if (app === BUSINESS_AI) return "ai_agent";
  return app === escalationPartnerOf(state, phoneNumberId) ? "escalation_partner" : "partner";
}

/**
 * A thread-control request from one app's side: pass to `target`, take, or release (to the AI agent). Meta's rules,
 * read as ownership checks (meta-late-2026 §5; the reference names the actions, not every refusal):
 * - `pass`: the actor owns the thread, and the target is another app;
 * - `take`: only the number's escalation partner, and not while it already owns the thread;
 * - `release`: the actor owns the thread; the Business AI agent becomes the automatic responder again.
 */
export type ThreadRequest = { action: "pass"; target: string } | { action: "take" } | { action: "release" };

/** Why a request is refused; each side words it (Graph in English, the control API in Portuguese). */
export type ThreadRefusal =
  | { reason: "not_owner"; owner: string }
  | { reason: "same_app" }
  | { reason: "not_escalation_partner"; partner: string }
  | { reason: "already_owner" };

export interface ThreadMove {
  previous: string;
  owner: string;
}

/** Checks a request against the thread's ownership and, when permitted, moves the thread. */
export function applyThreadControl(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  actor: string,
  request: ThreadRequest,
): { move: ThreadMove } | { refused: ThreadRefusal } {
  const previous = conversationOwner(state, phoneNumberId, user);
  let owner: string;
  if (request.action === "take") {
    const partner = escalationPartnerOf(state, phoneNumberId);
    if (actor !== partner) return { refused: { reason: "not_escalation_partner", partner } };
    if (previous === actor) return { refused: { reason: "already_owner" } };
    owner = actor;
  } else {
    if (previous !== actor) return { refused: { reason: "not_owner", owner: previous } };
    owner = request.action === "pass" ? request.target : BUSINESS_AI;
    if (owner === actor) return { refused: { reason: "same_app" } };
  }
  setConversationOwner(state, phoneNumberId, user, owner);
  return { move: { previous, owner } };
}

/**
 * The `messaging_handovers` notice this app gets for a move made by another app: `control_passed` when the thread
 * was passed to it, `control_taken` when it was taken from it; undefined otherwise (Meta tells only the new owner of
 * a pass and the previous owner of a take, and nobody of a release).
 */
export function handoverFor(action: ThreadAction, move: ThreadMove): "control_passed" | "control_taken" | undefined {
  if (action === "pass" && move.owner === THIS_APP) return "control_passed";
  if (action === "take" && move.previous === THIS_APP) return "control_taken";
  return undefined;
}

/**
 * The `messaging_handovers` webhook for a move: the number, the user as its inbound messages show it (the phone
 * only when it may be shared, the BSUID always, the parent BSUID when enabled), the roles before and after, and the
 * acting app's metadata when it gave one. Timestamp: the sandbox's clock, Unix seconds as a string.
 */
export function handoverPayload(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  notice: { type: "control_passed" | "control_taken"; move: ThreadMove; metadata?: string | undefined },
): MessagingHandoversPayload {
  const identity = identityOf(state, user, phoneNumberId);
  const sender: HandoverValue["sender"] = {
    ...(identity.phone === undefined ? {} : { phone_number: identity.phone }),
    user_id: identity.userId,
    ...(identity.parentUserId === undefined ? {} : { parent_user_id: identity.parentUserId }),
  };
  const change: HandoverChange = {
    previous_role: roleOf(state, phoneNumberId, notice.move.previous),
    current_role: roleOf(state, phoneNumberId, notice.move.owner),
  };
  if (notice.metadata !== undefined) change.metadata = notice.metadata;
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: state.wabaId,
        changes: [
          {
            field: "messaging_handovers",
            value: {
              messaging_product: "whatsapp",
              metadata: numberMetadata(phoneNumberId),
              type: notice.type,
              timestamp: String(Math.floor(state.now() / 1000)),
              sender,
              ...(notice.type === "control_passed" ? { control_passed: change } : { control_taken: change }),
            },
          },
        ],
      },
    ],
  };
}

/** Adds one of this app's thread-control actions to GET /_sandbox/thread-control. */
export function recordThreadControl(state: SandboxState, record: Omit<ThreadControlRecord, "at">): void {
  remember(state.threadControls, { ...record, at: new Date(state.now()).toISOString() }, state.config.historyLimit);
}

/**
 * A non-template send of this app while another app owns the thread (meta-late-2026 §5): the escalation partner
 * takes the thread by writing to the user, as with `take` (no webhook to this app). Another partner app's send
 * changes nothing, nor does a template (it is not a reply in the conversation).
 */
export function implicitTake(state: SandboxState, phoneNumberId: string, user: SandboxUser): void {
  if (escalationPartnerOf(state, phoneNumberId) !== THIS_APP) return;
  const previous = conversationOwner(state, phoneNumberId, user);
  if (previous === THIS_APP) return;
  setConversationOwner(state, phoneNumberId, user, THIS_APP);
  recordThreadControl(state, {
    source: "send",
    phone_number_id: phoneNumberId,
    action: "take",
    user_id: userIdOf(user, portfolioOf(state, phoneNumberId)),
    body: null,
    previous_owner: previous,
    owner: THIS_APP,
    status: 200,
    code: null,
  });
}
