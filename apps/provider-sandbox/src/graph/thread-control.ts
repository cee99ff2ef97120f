import {
  applyThreadControl,
  BUSINESS_AI,
  conversationOwner,
  escalationPartnerOf,
  recordThreadControl,
  THIS_APP,
  type ThreadRefusal,
  type ThreadRequest,
} from "../conversation-owners.ts";
import { charLength, isRecord, shown, type JsonRecord } from "../json.ts";
import { logs, type SandboxState, type SandboxUser } from "../state.ts";
import { portfolioOf, userIdOf } from "../users.ts";
import { checkMessagingProduct } from "./envelope.ts";
import { MetaError, type GraphResult } from "./errors.ts";
import { checkAddressee, parseBody, recipientOf } from "./messages.ts";

/*
 * POST /{version}/{phone-number-id}/thread_control (Conversation Routing, meta-late-2026 §5): this app passes,
 * takes or releases a user's thread. The rules are `applyThreadControl`'s; a refusal is code 2494191 (the code is
 * the sandbox's, Meta's is not in the reference). None of this app's own calls posts a webhook to it: Meta tells
 * the new owner of a pass and the previous owner of a take, and nobody of a release.
 */

const ACTIONS = ["pass", "take", "release"] as const;
type Action = (typeof ACTIONS)[number];
const METADATA_MAX = 2000;
/** The members of a thread_control body; any other one is refused (100), so a typo does not pass unnoticed. */
const MEMBERS = new Set([
  "messaging_product",
  "recipient_type",
  "to",
  "recipient",
  "action",
  "control_pass",
  "metadata",
]);

/** The request as checked: who, and what this app asks for. */
interface ThreadControlCall {
  user: SandboxUser;
  request: ThreadRequest;
}

function checkAction(body: JsonRecord): Action {
  if (body.action === undefined) throw new MetaError(100, "The parameter action is required.");
  const action = ACTIONS.find((a) => a === body.action);
  if (!action)
    throw new MetaError(100, `Param action must be one of {PASS, TAKE, RELEASE} - got "${shown(body.action)}".`);
  return action;
}

/** `control_pass` is only for `pass`, and names the target role: `ai_agent`, the only one Meta documents. */
function checkControlPass(body: JsonRecord, action: Action): boolean {
  const pass = body.control_pass;
  if (pass === undefined) return false;
  if (action !== "pass") throw new MetaError(100, "Param control_pass is only allowed with action pass.");
  if (!isRecord(pass)) throw new MetaError(100, "Param control_pass must be an object.");
  for (const key of Object.keys(pass)) {
    if (key !== "target_role") throw new MetaError(100, `Param control_pass['${key}'] is not allowed.`);
  }
  if (pass.target_role === undefined)
    throw new MetaError(100, "The parameter control_pass['target_role'] is required.");
  if (pass.target_role !== "ai_agent") {
    throw new MetaError(
      100,
      `Param control_pass['target_role'] must be one of {AI_AGENT} - got "${shown(pass.target_role)}".`,
    );
  }
  return true;
}

/** Checks the body like Meta's parameter checks (100), then the user (131009 for an unknown BSUID, as /messages). */
function checkCall(state: SandboxState, phoneNumberId: string, body: JsonRecord): ThreadControlCall {
  checkMessagingProduct(body);
  for (const key of Object.keys(body)) {
    if (!MEMBERS.has(key)) throw new MetaError(100, `Param ${key} is not allowed for thread_control.`);
  }
  if (body.recipient_type !== undefined && body.recipient_type !== "individual") {
    throw new MetaError(100, `Param recipient_type must be one of {INDIVIDUAL} - got "${shown(body.recipient_type)}".`);
  }
  // Unlike /messages, where `to` wins, a thread names its user once.
  if (body.to !== undefined && body.recipient !== undefined) {
    throw new MetaError(100, "Params to and recipient cannot be used together: name the user with exactly one.");
  }
  const addressee = checkAddressee(body);
  const action = checkAction(body);
  const toAiAgent = checkControlPass(body, action);
  const metadata = body.metadata;
  if (metadata !== undefined && typeof metadata !== "string")
    throw new MetaError(100, "Param metadata must be a string.");
  if (metadata !== undefined && charLength(metadata) > METADATA_MAX) {
    throw new MetaError(100, `Param metadata must be at most ${METADATA_MAX} characters long.`);
  }
  const user = recipientOf(state, phoneNumberId, addressee);
  const request: ThreadRequest =
    action === "pass"
      ? { action, target: toAiAgent ? BUSINESS_AI : escalationPartnerOf(state, phoneNumberId) }
      : { action };
  return { user, request };
}

/** Meta's messages are English: the refusal's details say which rule the call broke. */
function refusalDetails(request: ThreadRequest, refusal: ThreadRefusal): string {
  const reason = ((): string => {
    switch (refusal.reason) {
      case "not_owner":
        return "this app does not own the thread";
      case "same_app":
        // Only a pass without control_pass can name this app itself: it is the number's escalation partner.
        return "this app is the escalation partner of this phone number, so there is no escalation partner to pass the thread to";
      case "not_escalation_partner":
        return "only the escalation partner of this phone number can take the thread";
      case "already_owner":
        return "this app already owns the thread";
    }
  })();
  return `Thread control action not permitted: ${reason} (action ${request.action}).`;
}

/** POST /{version}/{phone-number-id}/thread_control: answers `{messaging_product, success: true}` or Meta's error. */
export function handleThreadControl(state: SandboxState, phoneNumberId: string, raw: string): GraphResult {
  let body: JsonRecord | null = null;
  let user: SandboxUser | undefined;
  const record = (result: GraphResult, code: number | null, previous: string | null, owner: string | null) => {
    recordThreadControl(state, {
      source: "graph",
      phone_number_id: phoneNumberId,
      action: typeof body?.action === "string" ? body.action : null,
      user_id: user ? userIdOf(user, portfolioOf(state, phoneNumberId)) : null,
      body,
      previous_owner: previous,
      owner,
      status: result.status,
      code,
    });
    return result;
  };
  try {
    body = parseBody(raw);
    const call = checkCall(state, phoneNumberId, body);
    user = call.user;
    const outcome = applyThreadControl(state, phoneNumberId, call.user, THIS_APP, call.request);
    if ("refused" in outcome) throw new MetaError(2494191, refusalDetails(call.request, outcome.refused));
    if (logs(state, "info"))
      state.logger.info("sandbox thread control", { phoneNumberId, action: call.request.action, ...outcome.move });
    const result = { status: 200, body: { messaging_product: "whatsapp", success: true } };
    return record(result, null, outcome.move.previous, outcome.move.owner);
  } catch (error) {
    if (!(error instanceof MetaError)) throw error;
    if (logs(state, "info"))
      state.logger.info("sandbox thread control refused", { phoneNumberId, code: error.code, details: error.details });
    const owner = user ? conversationOwner(state, phoneNumberId, user) : null;
    return record(error.toResult(), error.code, owner, owner);
  }
}
