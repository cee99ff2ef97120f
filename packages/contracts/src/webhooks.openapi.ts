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

interface NamedExample {
  summary: string;
  value: unknown;
}

function webhook(
  event: string,
  operationId: string,
  summary: string,
  description: string,
  schema: z.ZodType,
  examples?: Record<string, NamedExample>,
): OperationConfig {
  return {
    method: "post",
    path: event,
    operationId,
    summary,
    description: `${description} ${VERIFY}`,
    tags: [WEBHOOKS_TAG],
    request: {
      headers: WebhookRequestHeaders,
      body: { required: true, content: { "application/json": { schema, ...(examples ? { examples } : {}) } } },
    },
    responses: ACKNOWLEDGEMENT,
  };
}

/** Since 2026 a user with a WhatsApp username may write without sharing the phone: `from` is null. */
const RECEIVED_EXAMPLES: Record<string, NamedExample> = {
  phone: {
    summary: "A contact whose phone Meta shares (`from`), with the BSUID Meta adds to every message",
    value: MessageReceivedEvent.parse(MessageReceivedEvent.meta()?.example),
  },
  username_only: {
    summary: "A user known only by a business-scoped user id (BSUID): reply with `to` = `from_user_id`",
    value: {
      event: "message.received",
      occurred_at: "2026-11-20T14:00:01.000Z",
      delivery_id: "2207",
      data: {
        message_id: "wamid.HBgLQlIuMTUwMjU3NjM5NDY1NTg0MxUCABIYFjND",
        from: null,
        from_user_id: "BR.1502576394655843",
        from_parent_user_id: null,
        from_username: "padaria.fa",
        phone_number_id: "100000000000001",
        type: "text",
        text: "Tem pão de queijo hoje?",
        media_id: null,
        media_mime: null,
        media_filename: null,
        reply_to_message_id: null,
        contact_name: "Fernanda",
        occurred_at: "2026-11-20T14:00:00.000Z",
        window_expires_at: "2026-11-21T14:00:00.000Z",
      },
    },
  },
};

const STATUS_EXAMPLES: Record<string, NamedExample> = {
  failed: {
    summary: "A send that failed (`error` filled; no pricing: nothing is charged)",
    value: MessageStatusEvent.parse(MessageStatusEvent.meta()?.example),
  },
  delivered_to_bsuid: {
    summary: "A reply sent to a BSUID, delivered, with the pricing Meta reported",
    value: {
      event: "message.status",
      occurred_at: "2026-11-20T14:02:03.000Z",
      delivery_id: "2209",
      data: {
        message_id: "wamid.HBgLQlIuMTUwMjU3NjM5NDY1NTg0MxUCABEYEjQ5",
        status: "delivered",
        status_rank: 3,
        to: "BR.1502576394655843",
        recipient_user_id: "BR.1502576394655843",
        error: null,
        phone_number_id: "100000000000001",
        client_ref: "pedido-2207",
        campaign_id: null,
        pricing: { pricing_model: "PMP", category: "service", type: "free_customer_service" },
      },
    },
  },
};

/** Spec 6: the signed POSTs the gateway sends to the integrator's endpoint, as OpenAPI `webhooks`. */
export const WEBHOOK_OPERATIONS: readonly OperationConfig[] = [
  webhook(
    "message.status",
    "onMessageStatus",
    "Status change of a sent message",
    "Delivery, read or failure of a message sent by the platform.",
    MessageStatusEvent,
    STATUS_EXAMPLES,
  ),
  webhook(
    "message.received",
    "onMessageReceived",
    "Message from a contact",
    "A contact wrote to a business number (must be enabled explicitly). Events may arrive out of order. The sender is `from` (phone) and, since 2026, `from_user_id` (BSUID); `from` is null when Meta withheld the phone.",
    MessageReceivedEvent,
    RECEIVED_EXAMPLES,
  ),
];
