import { WEBHOOKS_TAG, type OperationConfig } from "./openapi.ts";
import { MessageReceivedEvent, MessageStatusEvent, WebhookRequestHeaders } from "./webhooks.ts";
import type { z } from "zod";

/** Spec 6.4, 6.5: what the integrator's answer means. */
const ACKNOWLEDGEMENT: OperationConfig["responses"] = {
  "2XX": {
    description:
      "Accepted: persist the event durably before answering; the body is recorded (`last_error`) but not interpreted.",
  },
  default: {
    description:
      "Any other answer (or a time-out after 10 s, or a redirect) puts the delivery in the retry queue: 30 s, 2 min, 10 min, 1 h, 6 h and 24 h (±20 %).",
  },
};

const VERIFY =
  'Verify `X-PT-Signature` over the ORIGINAL body bytes: HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret, ' +
  "lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`.";

function webhook(
  event: string,
  operationId: string,
  summary: string,
  description: string,
  schema: z.ZodType,
): OperationConfig {
  return {
    method: "post",
    path: event,
    operationId,
    summary,
    description: `${description} ${VERIFY}`,
    tags: [WEBHOOKS_TAG],
    request: { headers: WebhookRequestHeaders, body: { required: true, content: { "application/json": { schema } } } },
    responses: ACKNOWLEDGEMENT,
  };
}

/** Spec 6: the signed POSTs the gateway sends to the integrator's endpoint, as OpenAPI `webhooks`. */
export const WEBHOOK_OPERATIONS: readonly OperationConfig[] = [
  webhook(
    "message.status",
    "onMessageStatus",
    "Status change of a sent message",
    "Delivery, read or failure of a message sent by the platform.",
    MessageStatusEvent,
  ),
  webhook(
    "message.received",
    "onMessageReceived",
    "Message from a contact",
    "A contact wrote to a business number (must be enabled explicitly). Events may arrive out of order.",
    MessageReceivedEvent,
  ),
];
