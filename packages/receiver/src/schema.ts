// Generated from the webhook schemas of @gw/contracts by `pnpm client:generate`. Do not edit: events.ts refines it.
export type paths = Record<string, never>;
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /**
     * @example {
     *       "event": "message.status",
     *       "occurred_at": "2026-01-01T12:00:05.000Z",
     *       "delivery_id": "1042",
     *       "data": {
     *         "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ2",
     *         "status": "failed",
     *         "status_rank": 1,
     *         "to": "5511987654321",
     *         "recipient_user_id": null,
     *         "error": {
     *           "code": 131026,
     *           "message": "Message undeliverable",
     *           "reason": "recipient_unreachable"
     *         },
     *         "phone_number_id": "100000000000001",
     *         "client_ref": "pedido-1234",
     *         "campaign_id": null,
     *         "pricing": null
     *       }
     *     }
     */
    MessageStatusEvent: {
      /** @enum {string} */
      event: "message.status";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["MessageStatusData"];
    };
    MessageStatusData: {
      /** @description Same id returned by the send */
      message_id: string;
      /** @enum {string} */
      status: "sent" | "delivered" | "read" | "failed";
      /** @description sent=2, delivered=3, read=4, failed=1 (a separate outcome: never handle it by numeric comparison; spec 3.1) */
      status_rank: number;
      /** @description Recipient as named in the send: a phone's digits, or a BSUID; same name as in the send */
      to: string;
      /** @description The recipient's WhatsApp business-scoped user id (BSUID), when known (Meta reports it on every status but failed ones of a send to a phone). Added in 2026 */
      recipient_user_id: string | null;
      /** @description Only when status is failed, otherwise null */
      error: {
        /** @description The provider's error number, e.g. 131026 */
        code: number;
        message: string;
        /** @description The service's stable code (spec 7), e.g. recipient_unreachable */
        reason: string;
      } | null;
      /** @description Business number */
      phone_number_id: string;
      /** @description Reference given at send */
      client_ref: string | null;
      /** @description Filled when the message left from a panel campaign */
      campaign_id: string | null;
      /** @description What the provider reported it will charge for the message, once per message: on the first status that carried it (`sent` or `delivered`), null on the others. Added in 2026 */
      pricing: {
        /** @description `PMP` (per-message pricing) */
        pricing_model: string | null;
        /** @description marketing, marketing_lite, utility, authentication, authentication-international, service, ... */
        category: string | null;
        /** @description regular (charged), free_customer_service, free_entry_point, ... */
        type: string | null;
      } | null;
    };
    /**
     * @example {
     *       "event": "message.received",
     *       "occurred_at": "2026-01-01T12:00:01.000Z",
     *       "delivery_id": "1041",
     *       "data": {
     *         "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNB",
     *         "from": "5511987654321",
     *         "from_user_id": "BR.1502576394655843",
     *         "from_parent_user_id": null,
     *         "from_username": null,
     *         "phone_number_id": "100000000000001",
     *         "type": "text",
     *         "text": "Oi!",
     *         "media_id": null,
     *         "media_mime": null,
     *         "media_filename": null,
     *         "reply_to_message_id": null,
     *         "contact_name": "Maria",
     *         "occurred_at": "2026-01-01T12:00:00.000Z",
     *         "window_expires_at": "2026-01-02T12:00:00.000Z"
     *       }
     *     }
     */
    MessageReceivedEvent: {
      /** @enum {string} */
      event: "message.received";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["MessageReceivedData"];
    };
    MessageReceivedData: {
      /** @description Id of the received message */
      message_id: string;
      /** @description Phone of the contact who sent the message; null only when the provider withheld it (a user with a WhatsApp username who has not shared the number: answer to `from_user_id`) */
      from: string | null;
      /** @description The sender's WhatsApp business-scoped user id (BSUID, e.g. `BR.1502576394655843`), on every message since 2026; send to it when `from` is null. Added in 2026 */
      from_user_id: string | null;
      /** @description The sender's parent BSUID (`BR.ENT.…`), when the business enabled them. Added in 2026 */
      from_parent_user_id: string | null;
      /** @description The sender's WhatsApp username, when set: display only, it can change. Added in 2026 */
      from_username: string | null;
      /** @description Business number */
      phone_number_id: string;
      /** @enum {string} */
      type:
        | "text"
        | "image"
        | "audio"
        | "video"
        | "document"
        | "sticker"
        | "location"
        | "contacts"
        | "button"
        | "interactive"
        | "unsupported";
      /** @description The text, a media caption, or the label of a received button/option; null when no text */
      text: string | null;
      /** @description Present when a file came; not a public URL and not permanently available */
      media_id: string | null;
      media_mime: string | null;
      media_filename: string | null;
      /** @description Id of the message quoted by the contact */
      reply_to_message_id: string | null;
      contact_name: string | null;
      /** @description ISO 8601 UTC; time of the received message as given by the provider */
      occurred_at: string;
      /** @description ISO 8601 UTC; until when the received message allows a free-text reply; keep the greatest per contact and business number */
      window_expires_at: string;
      /** @description The reply button or list row tapped (`type` interactive); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      interactive?: {
        /**
         * @description A reply button or a list row
         * @enum {string}
         */
        type: "button_reply" | "list_reply";
        /** @description The `id` the send gave the button or row: the option chosen */
        id: string;
        /** @description Its title, as the contact saw it (also in `text`) */
        title: string | null;
        /** @description The list row's description; null for a button or a row without one */
        description: string | null;
      } | null;
      /** @description The template quick-reply button tapped (`type` button); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      button?: {
        /** @description The payload the template send set for the button; Meta sends the label when none was set */
        payload: string | null;
        /** @description The button's label (also in `text`) */
        text: string | null;
      } | null;
      /** @description The location shared (`type` location); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      location?: {
        /** @description Decimal degrees */
        latitude: number;
        /** @description Decimal degrees */
        longitude: number;
        /** @description The place's name, when the contact shared one */
        name: string | null;
        address: string | null;
        /** @description Usually only for a business's location */
        url: string | null;
      } | null;
      /** @description The contact cards shared (`type` contacts), up to 257; null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      contacts?: components["schemas"]["ReceivedContact"][] | null;
      /** @description A reaction (`type` unsupported, `text` null) or its removal (`emoji` null); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      reaction?: {
        /** @description The business message reacted to (its `message_id` from the send) */
        message_id: string;
        /** @description The emoji; null when the contact removed their reaction */
        emoji: string | null;
      } | null;
      /** @description The click-to-WhatsApp ad or post the message came from (any type); null otherwise. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      referral?: {
        /** @description `ad` or `post` */
        source_type: string | null;
        /** @description The ad's or post's id */
        source_id: string | null;
        source_url: string | null;
        headline: string | null;
        body: string | null;
        /** @description `image` or `video` */
        media_type: string | null;
        image_url: string | null;
        video_url: string | null;
        thumbnail_url: string | null;
        /** @description Click id for conversion reporting; null for WhatsApp Status placements (Meta omits it) */
        ctwa_clid: string | null;
        /** @description The ad's welcome message text */
        welcome_message: string | null;
      } | null;
      /** @description The contact forwarded the message (true also when frequently forwarded). Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      forwarded?: boolean;
      /** @description Forwarded more than five times. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      frequently_forwarded?: boolean;
      /** @description Lowercase hex SHA-256 of the received file, as Meta reported it; null when no file came. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      media_sha256?: string | null;
      /** @description For an audio: whether it was recorded in WhatsApp (a voice note); null for other types. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      media_voice?: boolean | null;
      /** @description The customer's phone as the gateway knows them (issue 37): the one Meta's webhooks showed, or the one they shared answering a `request_contact_info`, also while Meta withholds it here (`from` null); null when never shared. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      contact_phone?: string | null;
      /** @description The message came on Meta's `standby` field: another app (such as Meta's Business AI agent) owns the conversation now (issue 37). It is stored and delivered like any other; a reply may need the conversation back first. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      standby?: boolean;
      /**
       * @description Who answers this customer on the business's side (issue 39): `bot`, or `human` after a handover to a person (POST /conversations/{recipient}/handover); a bot should stay quiet while it is `human`. Payload version 2 only: absent from the bodies of an integration on version 1 (the default)
       * @enum {string}
       */
      handler?: "bot" | "human";
      /** @description The customer's one-click card answer to a Pix order (`type` interactive, `interactive` null; issue 28); absent on every other message. Payload version 2 only: absent from the bodies of an integration on version 1 (the default) */
      payment_method?: {
        /** @description Meta's payment method, e.g. `offsite_card_pay` */
        payment_method: string;
        /** @description The order's reference_id */
        reference_id: string;
        /** @description Unix seconds, when Meta gave it */
        payment_timestamp: number | null;
        /** @description The card's last four digits */
        last_four_digits: string | null;
        /** @description The card credential to charge through the PSP */
        credential_id: string | null;
      } | null;
    };
    ReceivedContact: {
      /** @description The card's full name */
      formatted_name: string | null;
      first_name: string | null;
      last_name: string | null;
      /** @description `YYYY-MM-DD`, as the card says */
      birthday: string | null;
      phones: {
        /** @description As written on the card (`+55 11 99999-0000`) */
        phone: string | null;
        /** @description The WhatsApp id (digits) when the number is on WhatsApp */
        wa_id: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      emails: {
        email: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      urls: {
        url: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      addresses: {
        street: string | null;
        city: string | null;
        state: string | null;
        zip: string | null;
        country: string | null;
        country_code: string | null;
        /** @description `HOME`, `WORK`, `CELL`... as the card says */
        type: string | null;
      }[];
      organization: {
        company: string | null;
        department: string | null;
        title: string | null;
      } | null;
      /** @description Why it was shared (issue 37): `contact_request`, the customer's own card, in answer to the business's `request_contact_info` (the phone is then theirs: see `contact_phone`); `other`, any card shared unprompted; null when Meta gives none */
      origin?: string | null;
    };
    /**
     * @example {
     *       "event": "account.update",
     *       "occurred_at": "2026-11-20T14:10:02.000Z",
     *       "delivery_id": "2301",
     *       "data": {
     *         "account_event_id": "57",
     *         "waba_id": "100000000000001",
     *         "field": "phone_number_quality_update",
     *         "event": "THROUGHPUT_UPGRADE",
     *         "phone_number_id": "200000000000002",
     *         "occurred_at": "2026-11-20T14:10:00.000Z",
     *         "value": {
     *           "display_phone_number": "15550000000",
     *           "event": "THROUGHPUT_UPGRADE",
     *           "max_daily_conversations_per_business": "TIER_UNLIMITED"
     *         },
     *         "effects": {
     *           "sending_blocked": null,
     *           "paused_campaign_ids": [],
     *           "messaging_rate_per_second": 1000
     *         }
     *       }
     *     }
     */
    AccountUpdateEvent: {
      /** @enum {string} */
      event: "account.update";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["AccountUpdateData"];
    };
    AccountUpdateData: {
      /** @description The gateway's id of the stored event (the same on every retry) */
      account_event_id: string;
      /** @description The WhatsApp Business Account the event is about (Meta's `entry[].id`) */
      waba_id: string;
      /** @description Meta's webhook field: account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update or account_alerts */
      field: string;
      /** @description `value.event` as Meta sent it (DISABLED_UPDATE, ACCOUNT_RESTRICTION, THROUGHPUT_UPGRADE, ...), values the gateway does not know included; null when the field carries none (capability, template and alert updates) */
      event: string | null;
      /** @description The business number a phone_number_quality_update is about (matched by its display number), else null */
      phone_number_id: string | null;
      /** @description ISO 8601 UTC; Meta's time of the change (`entry[].time`), else when the gateway received it */
      occurred_at: string;
      /** @description Meta's `value`, exactly as sent (new keys included) */
      value: {
        [key: string]: unknown;
      };
      effects: components["schemas"]["AccountUpdateEffects"];
    };
    AccountUpdateEffects: {
      /** @description For a ban, deletion or disconnection (DISABLED_UPDATE with DISABLE, ACCOUNT_DELETED, ACCOUNT_OFFBOARDED, PARTNER_REMOVED, PARTNER_APP_UNINSTALLED) and for a reinstatement or reconnection (DISABLED_UPDATE with REINSTATE, ACCOUNT_RECONNECTED, PARTNER_ADDED, PARTNER_APP_INSTALLED): whether sends from the WABA's numbers are refused now (`account_disabled`); null for every other event */
      sending_blocked: boolean | null;
      /** @description Campaigns the gateway paused because of this event (a number's quality dropped to low, the account was restricted, disabled, banned or disconnected), each with its `pause_reason`; they stay paused until someone resumes them */
      paused_campaign_ids: string[];
      /** @description The number's new messaging rate when this event changed it (1000 after THROUGHPUT_UPGRADE), else null */
      messaging_rate_per_second: number | null;
    };
    /**
     * @example {
     *       "event": "order.updated",
     *       "occurred_at": "2026-12-04T10:00:02.000Z",
     *       "delivery_id": "3101",
     *       "data": {
     *         "reference_id": "pedido-12345",
     *         "phone_number_id": "100000000000001",
     *         "to": "5511987654321",
     *         "order_status": "processing",
     *         "payment_status": "captured",
     *         "payment_timestamp": 1780001000,
     *         "description": "Separando os itens",
     *         "trigger": "status_sent",
     *         "updated_at": "2026-12-04T10:00:01.000Z",
     *         "message": {
     *           "message_id": "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ3",
     *           "kind": "order_status",
     *           "order_status": "processing",
     *           "payment_status": "captured",
     *           "message_status": null,
     *           "error": null
     *         }
     *       }
     *     }
     */
    OrderUpdatedEvent: {
      /** @enum {string} */
      event: "order.updated";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["OrderUpdatedData"];
    };
    OrderUpdatedData: {
      /** @description The order's reference_id */
      reference_id: string;
      /** @description The business number the order was sent from */
      phone_number_id: string;
      /** @description The customer as the Pix send named them: phone digits or a BSUID */
      to: string;
      /**
       * @description The order's status now
       * @enum {string}
       */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description The order's payment status now
       * @enum {string}
       */
      payment_status: "pending" | "captured" | "failed";
      payment_timestamp: number | null;
      /** @description The description of the order's last status message */
      description: string | null;
      /**
       * @description `status_sent`: the provider accepted an order_status message and the order moved; `message_status`: the provider reported a status (sent, delivered, read, failed) of one of the order's messages. A failure does not move the order back
       * @enum {string}
       */
      trigger: "status_sent" | "message_status";
      /** @description ISO 8601 UTC; when the order last changed */
      updated_at: string;
      message: components["schemas"]["OrderUpdatedMessage"];
    };
    OrderUpdatedMessage: {
      /** @description The order's message (its order_details or an order_status) */
      message_id: string;
      /** @enum {string} */
      kind: "order_details" | "order_status";
      /**
       * @description The order status the message carried
       * @enum {string}
       */
      order_status: "pending" | "processing" | "partially_shipped" | "shipped" | "completed" | "canceled";
      /**
       * @description The payment status the message carried; null when it carried no payment object
       * @enum {string|null}
       */
      payment_status: "pending" | "captured" | "failed" | null;
      /**
       * @description The provider's last status of the message; null until it reports one
       * @enum {string|null}
       */
      message_status: "sent" | "delivered" | "read" | "failed" | null;
      /** @description Only when message_status is failed, otherwise null */
      error: {
        /** @description The provider's error number, e.g. 131026 */
        code: number;
        message: string;
        /** @description The service's stable code (spec 7), e.g. recipient_unreachable */
        reason: string;
      } | null;
    };
    /**
     * @example {
     *       "event": "conversation.handover",
     *       "occurred_at": "2026-12-07T15:00:01.000Z",
     *       "delivery_id": "4201",
     *       "data": {
     *         "type": "control_passed",
     *         "phone_number_id": "100000000000001",
     *         "recipient": "5511987654321",
     *         "phone": "5511987654321",
     *         "user_id": "BR.1502576394655843",
     *         "holder": "gateway",
     *         "previous_role": "ai_agent",
     *         "current_role": "escalation_partner",
     *         "metadata": "cliente pediu um atendente",
     *         "occurred_at": "2026-12-07T15:00:00.000Z"
     *       }
     *     }
     */
    ConversationHandoverEvent: {
      /** @enum {string} */
      event: "conversation.handover";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["ConversationHandoverData"];
    };
    ConversationHandoverData: {
      /**
       * @description `control_passed`: another app (Meta's Business AI agent, say) passed the conversation to this gateway's app; `control_taken`: the escalation partner took it from this gateway's app
       * @enum {string}
       */
      type: "control_passed" | "control_taken";
      /** @description The business number of the conversation */
      phone_number_id: string;
      /** @description The customer as the conversation endpoints and sends take them: phone digits when Meta shared the phone, else the BSUID */
      recipient: string;
      /** @description The customer's phone digits; null when Meta withheld it */
      phone: string | null;
      /** @description The customer's BSUID; null when Meta sent none */
      user_id: string | null;
      /**
       * @description Who holds the conversation now: `gateway` after control_passed, `another_app` after control_taken
       * @enum {string}
       */
      holder: "gateway" | "another_app" | "released";
      /** @description Meta's role of the previous holder (`ai_agent`, ...), as sent */
      previous_role: string | null;
      /** @description Meta's role of the holder now (`escalation_partner`, ...), as sent */
      current_role: string | null;
      /** @description What the app that passed the conversation wrote for the new holder */
      metadata: string | null;
      /** @description ISO 8601 UTC; Meta's time of the change, else when the gateway received it */
      occurred_at: string;
    };
    /**
     * @example {
     *       "event": "conversation.updated",
     *       "occurred_at": "2026-12-07T15:10:00.000Z",
     *       "delivery_id": "4301",
     *       "data": {
     *         "change": "handover",
     *         "phone_number_id": "100000000000001",
     *         "recipient": "5511987654321",
     *         "phone": "5511987654321",
     *         "user_id": "BR.1502576394655843",
     *         "handler": "human",
     *         "note": "cliente pediu para falar com um atendente",
     *         "status": "open",
     *         "assignee": null,
     *         "by": "api",
     *         "occurred_at": "2026-12-07T15:10:00.000Z"
     *       }
     *     }
     */
    ConversationUpdatedEvent: {
      /** @enum {string} */
      event: "conversation.updated";
      /** @description ISO 8601 UTC; when the event entered the queue; fixed across attempts */
      occurred_at: string;
      /** @description Id of this delivery; repeats on retries of the same event */
      delivery_id: string;
      data: components["schemas"]["ConversationUpdatedData"];
    };
    ConversationUpdatedData: {
      /**
       * @description `handover`: the handler changed (a bot asked for a person, or the person gave it back; a person's reply in the panel makes it `human` too); `assigned`, `unassigned`: the panel assigned it to a user or took the assignment away (an assignment makes it `human`); `closed`, `reopened`: closed in the panel (back to the bot), reopened in the panel or by the customer writing again
       * @enum {string}
       */
      change: "handover" | "assigned" | "unassigned" | "closed" | "reopened";
      /** @description The business number of the conversation */
      phone_number_id: string;
      /** @description The customer as the conversation endpoints and sends take them: phone digits, else the BSUID */
      recipient: string;
      /** @description The customer's phone digits; null when the gateway does not know it */
      phone: string | null;
      /** @description The customer's BSUID; null when the gateway does not know it */
      user_id: string | null;
      /**
       * @description Who answers the customer now
       * @enum {string}
       */
      handler: "bot" | "human";
      /** @description What the last handover said */
      note: string | null;
      /**
       * @description `open`, or `closed` (closing gives the conversation back to the bot)
       * @enum {string}
       */
      status: "open" | "closed";
      /** @description The panel user the conversation is assigned to; null when none */
      assignee: {
        /** @description The panel user's id */
        id: string;
        /** @description The panel user's name */
        name: string;
      } | null;
      /**
       * @description Where the change was made: `customer` when the customer's message reopened it
       * @enum {string}
       */
      by: "api" | "panel" | "customer";
      /** @description ISO 8601 UTC; when the gateway recorded the change */
      occurred_at: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;

/** The events the gateway POSTs (the document's webhooks). */
export const WEBHOOK_EVENTS = [
  "message.status",
  "message.received",
  "account.update",
  "order.updated",
  "conversation.handover",
  "conversation.updated",
] as const;

/** `message.status` statuses (spec 6.2). */
export const MESSAGE_STATUSES = ["sent", "delivered", "read", "failed"] as const;

/** Each `message.status` status's `status_rank` (spec 3.1; `failed` is never compared by rank). */
export const MESSAGE_STATUS_RANK = { failed: 1, sent: 2, delivered: 3, read: 4 } as const;

/** `message.received` message types (spec 6.3). */
export const MESSAGE_RECEIVED_TYPES = [
  "text",
  "image",
  "audio",
  "video",
  "document",
  "sticker",
  "location",
  "contacts",
  "button",
  "interactive",
  "unsupported",
] as const;

/** `order.updated` order statuses (issue 28). */
export const ORDER_STATUSES = [
  "pending",
  "processing",
  "partially_shipped",
  "shipped",
  "completed",
  "canceled",
] as const;

/** `order.updated` payment statuses (issue 28). */
export const PAYMENT_STATUSES = ["pending", "captured", "failed"] as const;

/** `conversation.handover` holders (issue 37). */
export const THREAD_HOLDERS = ["gateway", "another_app", "released"] as const;

/** `conversation.updated` handlers (issue 39). */
export const CONVERSATION_HANDLERS = ["bot", "human"] as const;
