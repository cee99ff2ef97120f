import { isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import { logs, remember, type SandboxState } from "../state.ts";
import { portfolioOf, userIdOf, userOf } from "../users.ts";
import { checkMessagingProduct } from "./envelope.ts";
import { MetaError, type GraphResult } from "./errors.ts";

/**
 * POST /{phone-number-id}/messages with `status: "read"` (meta-2026 §4): marks an inbound message read, and with
 * `typing_indicator: {type: "text"}` also shows the typing indicator. Answers `{success: true}`; no wamid, no status
 * webhook, not counted against the number's rate (whether Meta counts it is unverified). The call is recorded for
 * GET /_sandbox/read-marks. A message id this number never received is refused with code 100 (Meta's answer for an
 * unknown id is not documented; assumed).
 */
export function markMessageRead(state: SandboxState, phoneNumberId: string, body: JsonRecord): GraphResult {
  try {
    checkMessagingProduct(body);
    if (body.status !== "read")
      throw new MetaError(100, `Param status must be one of {READ} - got "${shown(body.status)}".`);
    if (!nonEmptyString(body.message_id)) throw new MetaError(100, "The parameter message_id is required.");
    let typing: "text" | null = null;
    if (body.typing_indicator !== undefined) {
      const indicator = body.typing_indicator;
      const kind = isRecord(indicator) ? indicator.type : indicator;
      if (kind !== "text") {
        throw new MetaError(100, `Param typing_indicator['type'] must be one of {TEXT} - got "${shown(kind)}".`);
      }
      typing = "text";
    }
    const inbound = state.inboundMessages.get(body.message_id);
    if (!inbound || inbound.phoneNumberId !== phoneNumberId) {
      throw new MetaError(
        100,
        `Invalid parameter message_id: ${body.message_id} is not a message this number received.`,
      );
    }
    const user = userOf(state, inbound.user);
    remember(
      state.readMarks,
      {
        phone_number_id: phoneNumberId,
        message_id: body.message_id,
        user_id: user ? userIdOf(user, portfolioOf(state, phoneNumberId)) : "",
        typing_indicator: typing,
        at: new Date(state.now()).toISOString(),
      },
      state.config.historyLimit,
    );
    if (logs(state, "info"))
      state.logger.info("sandbox message marked read", { phoneNumberId, messageId: body.message_id, typing });
    return { status: 200, body: { success: true } };
  } catch (error) {
    if (!(error instanceof MetaError)) throw error;
    return error.toResult();
  }
}
