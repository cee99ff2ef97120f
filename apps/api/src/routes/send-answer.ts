import type { AcceptedMessage, SendOutcome } from "@gw/core/messages";
import { ApiError } from "@gw/errors";
import type { Response } from "express";
import { sendRaw } from "../http/respond.ts";
import type { ApiMetrics } from "../metrics.ts";
import { ANSWERED } from "./define-route.ts";

/** The `outcome` label of the sends counter: sent, replayed, send_unconfirmed or the refusal's code. */
function metricOutcome(outcome: SendOutcome): string {
  if (outcome.kind === "refused") return outcome.error.code;
  if (outcome.replayed) return "replayed";
  return outcome.kind === "sent" ? "sent" : "send_unconfirmed";
}

/**
 * Runs a send through the send service and answers it, the same way for `POST /messages` and an order's status: the
 * sends counter, a refusal thrown to the error handler, `Idempotent-Replayed` on a repeat, and the settled answer —
 * 200 with the route's own body (`sentBody`, null when the message lacks what the route reports) or 503
 * send_unconfirmed. Rendered only from the outcome the key stores, so a replay is byte for byte the first answer.
 */
export async function answerSend(
  deps: { metrics: ApiMetrics },
  res: Response,
  send: () => Promise<SendOutcome>,
  sentBody: (message: AcceptedMessage) => string | null,
): Promise<typeof ANSWERED> {
  let outcome: SendOutcome;
  try {
    outcome = await send();
  } catch (error) {
    deps.metrics.sends.inc({ outcome: (error as { code?: string }).code ?? "error" });
    throw error;
  }
  deps.metrics.sends.inc({ outcome: metricOutcome(outcome) });
  if (outcome.kind === "refused") throw outcome.error;
  if (outcome.replayed) res.setHeader("Idempotent-Replayed", "true");
  const body = outcome.kind === "sent" ? sentBody(outcome.message) : null;
  if (body !== null) {
    sendRaw(res, 200, body);
    return ANSWERED;
  }
  const { error } = new ApiError("send_unconfirmed").toBody();
  const messageId = outcome.kind === "unconfirmed" ? outcome.messageId : null;
  sendRaw(res, 503, JSON.stringify({ success: false, error: messageId ? { ...error, message_id: messageId } : error }));
  return ANSWERED;
}
