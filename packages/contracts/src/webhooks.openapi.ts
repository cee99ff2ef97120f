import { WEBHOOKS_TAG, type OperationConfig } from "./openapi.ts";
import { SignedWebhookRequestHeaders } from "./webhook-signatures.ts";
import {
  AccountUpdateEvent,
  ConversationHandoverEvent,
  ConversationUpdatedEvent,
  MessageReceivedEvent,
  MessageStatusEvent,
  OrderUpdatedEvent,
} from "./webhooks.ts";
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
  "lowercase hex; refuse (401) when |now − X-PT-Timestamp| > 300 s; compare in constant time. Deduplicate on integration + `delivery_id`. " +
  "An integration set to the Standard Webhooks scheme sends `webhook-id`, `webhook-timestamp` and `webhook-signature` instead of " +
  "`X-PT-Timestamp` and `X-PT-Signature`: verify them with an official Standard Webhooks library and the `whsec_` secret.";

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
      headers: SignedWebhookRequestHeaders,
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
  list_reply_version_2: {
    summary: "Payload version 2: the list row the contact tapped (`interactive.id`), every member of version 2 present",
    value: {
      event: "message.received",
      occurred_at: "2026-12-02T10:00:01.000Z",
      delivery_id: "3101",
      data: {
        message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjRE",
        from: "5511987654321",
        from_user_id: "BR.1502576394655843",
        from_parent_user_id: null,
        from_username: null,
        phone_number_id: "100000000000001",
        type: "interactive",
        text: "Segunda via do boleto",
        media_id: null,
        media_mime: null,
        media_filename: null,
        reply_to_message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjRD",
        contact_name: "Maria",
        occurred_at: "2026-12-02T10:00:00.000Z",
        window_expires_at: "2026-12-03T10:00:00.000Z",
        interactive: {
          type: "list_reply",
          id: "opcao-7",
          title: "Segunda via do boleto",
          description: "PDF do boleto do mês",
        },
        button: null,
        location: null,
        contacts: null,
        reaction: null,
        referral: null,
        forwarded: false,
        frequently_forwarded: false,
        media_sha256: null,
        media_voice: null,
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

/** Issue 18: a block and a pause, as an integrator subscribed to `account.update` gets them. */
const ACCOUNT_UPDATE_EXAMPLES: Record<string, NamedExample> = {
  throughput_upgrade: {
    summary: "Meta moved a number to high throughput: its pacing rate became 1,000 messages/s",
    value: AccountUpdateEvent.parse(AccountUpdateEvent.meta()?.example),
  },
  disabled: {
    summary: "Meta disabled the WABA: sends are refused with `account_disabled` and its running campaign paused",
    value: {
      event: "account.update",
      occurred_at: "2026-11-20T15:00:01.000Z",
      delivery_id: "2302",
      data: {
        account_event_id: "58",
        waba_id: "100000000000001",
        field: "account_update",
        event: "DISABLED_UPDATE",
        phone_number_id: null,
        occurred_at: "2026-11-20T15:00:00.000Z",
        value: {
          event: "DISABLED_UPDATE",
          ban_info: { waba_ban_state: "DISABLE", waba_ban_date: "November 20, 2026" },
        },
        effects: {
          sending_blocked: true,
          paused_campaign_ids: ["5b0c7d1e-8f7a-4c1e-9a51-2f1f0a9c3d11"],
          messaging_rate_per_second: null,
        },
      },
    },
  },
  category_change: {
    summary: "A template's category will change in 24 h (its price changes): stored and forwarded, nothing else",
    value: {
      event: "account.update",
      occurred_at: "2026-11-20T16:00:01.000Z",
      delivery_id: "2303",
      data: {
        account_event_id: "59",
        waba_id: "100000000000001",
        field: "template_category_update",
        event: null,
        phone_number_id: null,
        occurred_at: "2026-11-20T16:00:00.000Z",
        value: {
          message_template_id: 300000000000004,
          message_template_name: "boas_vindas",
          message_template_language: "pt_BR",
          new_category: "UTILITY",
          correct_category: "MARKETING",
          category_update_timestamp: 1795276800,
        },
        effects: { sending_blocked: null, paused_campaign_ids: [], messaging_rate_per_second: null },
      },
    },
  },
};

/** Issue 28: an order moved by our status message, then Meta's delivery of it, as a subscribed integrator gets them. */
const ORDER_UPDATED_EXAMPLES: Record<string, NamedExample> = {
  status_sent: {
    summary: "The provider accepted an order_status (payment captured, processing): the order moved",
    value: OrderUpdatedEvent.parse(OrderUpdatedEvent.meta()?.example),
  },
  message_status: {
    summary: "The provider delivered that order_status message to the customer",
    value: {
      event: "order.updated",
      occurred_at: "2026-12-04T10:00:06.000Z",
      delivery_id: "3102",
      data: {
        reference_id: "pedido-12345",
        phone_number_id: "100000000000001",
        to: "5511987654321",
        order_status: "processing",
        payment_status: "captured",
        payment_timestamp: 1780001000,
        description: "Separando os itens",
        trigger: "message_status",
        updated_at: "2026-12-04T10:00:01.000Z",
        message: {
          message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ3",
          kind: "order_status",
          order_status: "processing",
          payment_status: "captured",
          message_status: "delivered",
          error: null,
        },
      },
    },
  },
};

/** Issue 37: Meta's Business AI agent passes a customer to the gateway's app, then the escalation partner takes it. */
const CONVERSATION_HANDOVER_EXAMPLES: Record<string, NamedExample> = {
  control_passed: {
    summary: "Meta's Business AI agent passed the conversation to this gateway's app",
    value: ConversationHandoverEvent.parse(ConversationHandoverEvent.meta()?.example),
  },
  control_taken: {
    summary: "The escalation partner took the conversation from this gateway's app (a customer known only by BSUID)",
    value: {
      event: "conversation.handover",
      occurred_at: "2026-12-07T16:30:01.000Z",
      delivery_id: "4202",
      data: {
        type: "control_taken",
        phone_number_id: "100000000000001",
        recipient: "BR.1502576394655843",
        phone: null,
        user_id: "BR.1502576394655843",
        holder: "another_app",
        previous_role: "partner",
        current_role: "escalation_partner",
        metadata: null,
        occurred_at: "2026-12-07T16:30:00.000Z",
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
  webhook(
    "account.update",
    "onAccountUpdate",
    "Account or number health reported by Meta",
    "Meta reported a change to the WhatsApp Business Account or one of its numbers (account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update, account_alerts): `value` as Meta sent it, events the gateway does not know included, and `effects`, what the gateway did (sends blocked or unblocked, campaigns paused, a number's rate raised). Opt-in: only integrations that selected `account.update` get it. Events of one WABA may arrive out of order: order them by `occurred_at`.",
    AccountUpdateEvent,
    ACCOUNT_UPDATE_EXAMPLES,
  ),
  webhook(
    "order.updated",
    "onOrderUpdated",
    "A Pix order changed",
    "Issue 28: the provider accepted an order_status message and the order moved (`trigger: status_sent`), or reported a status of one of the order's messages (`trigger: message_status`; a failure does not move the order back). Not sent when the order is created. Carries the order's status pair and the message, not the items or the history (read them with `GET /public/v1/orders/{reference_id}`). Opt-in: only integrations that selected `order.updated` get it.",
    OrderUpdatedEvent,
    ORDER_UPDATED_EXAMPLES,
  ),
  webhook(
    "conversation.handover",
    "onConversationHandover",
    "Meta moved a conversation between apps",
    "Issue 37 (Conversation Routing): Meta's `messaging_handovers` notification. `control_passed`: another app (Meta's Business AI agent, say) passed the conversation to this gateway's app, so the customer's messages come as plain `message.received` again; `control_taken`: the escalation partner took it, and the customer's messages reach version-2 integrations with `standby: true`. The gateway's own `POST /conversations/{recipient}/thread-control` produces none (Meta notifies the other app), nor does a release. Opt-in: only integrations that selected `conversation.handover` get it.",
    ConversationHandoverEvent,
    CONVERSATION_HANDOVER_EXAMPLES,
  ),
  webhook(
    "conversation.updated",
    "onConversationUpdated",
    "A conversation changed on the business's side",
    "Issue 39: who answers a customer changed. `change: handover`: a bot asked for a person (`handler: human`), or the person gave the conversation back (`handler: bot`), through `POST /conversations/{recipient}/handover`. `assigned`, `unassigned`, `closed` and `reopened` are reserved for the panel's inbox. A person's hold that lapses (the account's timeout) sends nothing: the next `message.received` says `handler: bot`. Opt-in: only integrations that selected `conversation.updated` get it.",
    ConversationUpdatedEvent,
    {
      handover: {
        summary: "A bot asked for a person",
        value: ConversationUpdatedEvent.parse(ConversationUpdatedEvent.meta()?.example),
      },
    },
  ),
];
