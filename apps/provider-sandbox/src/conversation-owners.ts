import type { SandboxState, SandboxUser } from "./state.ts";
import type { MessagesField } from "./webhooks.ts";

/*
 * Conversation Routing (meta-late-2026 §5), minimal: each conversation (business number, user) has one owner app.
 * The sandbox only models what the gateway can observe: whether this app owns it (user messages on `messages`) or
 * another app does, e.g. Meta's Business AI agent (user messages on `standby`). Thread control (pass/take/release)
 * and `messaging_handovers` are not modelled yet.
 */

/** The default owner: the app the sandbox's webhook belongs to. */
export const THIS_APP = "this_app";

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
