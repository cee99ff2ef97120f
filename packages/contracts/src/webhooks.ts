import { z } from "zod";
import { CONVERSATION_HANDLERS, CONVERSATION_STATUSES, ConversationAssignee, THREAD_HOLDERS } from "./conversations.ts";
import { MESSAGE_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES } from "./statuses.ts";

/**
 * The signed webhook events the gateway POSTs to the integrator (spec 2.7, 6.1–6.3), as zod schemas. They describe
 * the events for the OpenAPI document (and tests); the sender builds the bodies in @gw/core, the integrator side
 * parses them with @gw/receiver.
 */

const isoUtc = (description: string) => z.string().describe(`ISO 8601 UTC; ${description}`);

/**
 * The events an integration can select. `account.update` (issue 18), `order.updated` (issue 28),
 * `conversation.handover` (issue 37) and `conversation.updated` (issue 39) are opt-in: an integration gets them only
 * when it selects them, and a new integration's form does not pre-select them.
 */
export const WEBHOOK_EVENT_NAMES = [
  "message.status",
  "message.received",
  "account.update",
  "order.updated",
  "conversation.handover",
  "conversation.updated",
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** Spec 6.1; header names as sent (HTTP header names are case-insensitive). */
export const WebhookRequestHeaders = z.object({
  "X-PT-Timestamp": z
    .string()
    .regex(/^\d{1,12}$/)
    .describe("Unix timestamp in seconds; part of the signature; changes on every attempt")
    .meta({ example: "1767225600" }),
  "X-PT-Signature": z
    .string()
    .regex(/^sha256=[0-9a-f]{64}$/)
    .describe(
      '`sha256=` plus the lowercase-hex HMAC-SHA256 of `X-PT-Timestamp + "." + raw body` with the signing secret (spec 5.4)',
    ),
  "X-PT-Delivery-Id": z
    .string()
    .describe("Id of this delivery; repeats across retries of the same event (equals `delivery_id` of the body)"),
  "X-PT-Attempt": z
    .string()
    .regex(/^[1-9]\d*$/)
    .describe("Attempt number, starting at 1"),
  "X-PT-Event": z
    .enum(WEBHOOK_EVENT_NAMES)
    .describe(
      "`message.status`, `message.received`, `account.update` or `order.updated`; check `event` in the signed body too",
    ),
});

export const MessageStatusError = z.object({
  code: z.int().describe("The provider's error number, e.g. 131026"),
  message: z.string(),
  reason: z.string().describe("The service's stable code (spec 7), e.g. recipient_unreachable"),
});

/**
 * Meta's per-message pricing (since July 2025), verbatim: values are kept as Meta sends them, new ones included.
 * `type` says whether it is charged (`regular`) or free (`free_customer_service`, `free_entry_point`...).
 */
export const MessagePricing = z
  .object({
    pricing_model: z.string().nullable().describe("`PMP` (per-message pricing)"),
    category: z
      .string()
      .nullable()
      .describe("marketing, marketing_lite, utility, authentication, authentication-international, service, ..."),
    type: z.string().nullable().describe("regular (charged), free_customer_service, free_entry_point, ..."),
  })
  .meta({ id: "MessagePricing" });

/** Spec 6.2. */
export const MessageStatusData = z
  .object({
    message_id: z.string().describe("Same id returned by the send"),
    status: z.enum(MESSAGE_STATUSES),
    status_rank: z
      .int()
      .min(1)
      .max(4)
      .describe(
        "sent=2, delivered=3, read=4, failed=1 (a separate outcome: never handle it by numeric comparison; spec 3.1)",
      ),
    to: z.string().describe("Recipient as named in the send: a phone's digits, or a BSUID; same name as in the send"),
    recipient_user_id: z
      .string()
      .nullable()
      .describe(
        "The recipient's WhatsApp business-scoped user id (BSUID), when known (Meta reports it on every status but failed ones of a send to a phone). Added in 2026",
      ),
    error: MessageStatusError.nullable().describe("Only when status is failed, otherwise null"),
    phone_number_id: z.string().describe("Business number"),
    client_ref: z.string().nullable().describe("Reference given at send"),
    campaign_id: z.string().nullable().describe("Filled when the message left from a panel campaign"),
    pricing: MessagePricing.nullable().describe(
      "What the provider reported it will charge for the message, once per message: on the first status that carried it (`sent` or `delivered`), null on the others. Added in 2026",
    ),
  })
  .meta({ id: "MessageStatusData" });

/** The 11 values of `message.received` `type` (spec 6.3). */
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

const VERSION_2 = "Payload version 2 only: absent from the bodies of an integration on version 1 (the default)";
const v2 = (description: string) => `${description}. ${VERSION_2}`;

/** The button or list row a contact tapped on an interactive message the business sent (issue 27). */
export const ReceivedInteractive = z
  .object({
    type: z.enum(["button_reply", "list_reply"]).describe("A reply button or a list row"),
    id: z.string().describe("The `id` the send gave the button or row: the option chosen"),
    title: z.string().nullable().describe("Its title, as the contact saw it (also in `text`)"),
    description: z.string().nullable().describe("The list row's description; null for a button or a row without one"),
  })
  .meta({ id: "ReceivedInteractive" });

/** A tap on a template's quick-reply button. */
export const ReceivedButton = z
  .object({
    payload: z
      .string()
      .nullable()
      .describe("The payload the template send set for the button; Meta sends the label when none was set"),
    text: z.string().nullable().describe("The button's label (also in `text`)"),
  })
  .meta({ id: "ReceivedButton" });

/** A location the contact shared. */
export const ReceivedLocation = z
  .object({
    latitude: z.number().min(-90).max(90).describe("Decimal degrees"),
    longitude: z.number().min(-180).max(180).describe("Decimal degrees"),
    name: z.string().nullable().describe("The place's name, when the contact shared one"),
    address: z.string().nullable(),
    url: z.string().nullable().describe("Usually only for a business's location"),
  })
  .meta({ id: "ReceivedLocation" });

const labelled = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ ...shape, type: z.string().nullable().describe("`HOME`, `WORK`, `CELL`... as the card says") });

/** A shared contact card, normalised: every list present (maybe empty), every missing text null. */
export const ReceivedContact = z
  .object({
    formatted_name: z.string().nullable().describe("The card's full name"),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    birthday: z.string().nullable().describe("`YYYY-MM-DD`, as the card says"),
    phones: z.array(
      labelled({
        phone: z.string().nullable().describe("As written on the card (`+55 11 99999-0000`)"),
        wa_id: z.string().nullable().describe("The WhatsApp id (digits) when the number is on WhatsApp"),
      }),
    ),
    emails: z.array(labelled({ email: z.string().nullable() })),
    urls: z.array(labelled({ url: z.string().nullable() })),
    addresses: z.array(
      labelled({
        street: z.string().nullable(),
        city: z.string().nullable(),
        state: z.string().nullable(),
        zip: z.string().nullable(),
        country: z.string().nullable(),
        country_code: z.string().nullable(),
      }),
    ),
    organization: z
      .object({
        company: z.string().nullable(),
        department: z.string().nullable(),
        title: z.string().nullable(),
      })
      .nullable(),
    origin: z
      .string()
      .nullable()
      .optional()
      .describe(
        "Why it was shared (issue 37): `contact_request`, the customer's own card, in answer to the business's `request_contact_info` (the phone is then theirs: see `contact_phone`); `other`, any card shared unprompted; null when Meta gives none",
      ),
  })
  .meta({ id: "ReceivedContact" });

/** A reaction to a message the business sent; `type` is `unsupported` (the 11 types stay as they are). */
export const ReceivedReaction = z
  .object({
    message_id: z.string().describe("The business message reacted to (its `message_id` from the send)"),
    emoji: z.string().nullable().describe("The emoji; null when the contact removed their reaction"),
  })
  .meta({ id: "ReceivedReaction" });

/** The click-to-WhatsApp ad or post the conversation started from, as Meta reported it (every field may be null). */
export const ReceivedReferral = z
  .object({
    source_type: z.string().nullable().describe("`ad` or `post`"),
    source_id: z.string().nullable().describe("The ad's or post's id"),
    source_url: z.string().nullable(),
    headline: z.string().nullable(),
    body: z.string().nullable(),
    media_type: z.string().nullable().describe("`image` or `video`"),
    image_url: z.string().nullable(),
    video_url: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    ctwa_clid: z
      .string()
      .nullable()
      .describe("Click id for conversion reporting; null for WhatsApp Status placements (Meta omits it)"),
    welcome_message: z.string().nullable().describe("The ad's welcome message text"),
  })
  .meta({ id: "ReceivedReferral" });

/** Issue 28: the customer's one-click card answer to a Pix order (Meta's `interactive.payment_method`). */
export const ReceivedPaymentMethod = z
  .object({
    payment_method: z.string().describe("Meta's payment method, e.g. `offsite_card_pay`"),
    reference_id: z.string().describe("The order's reference_id"),
    payment_timestamp: z.int().nullable().describe("Unix seconds, when Meta gave it"),
    last_four_digits: z.string().nullable().describe("The card's last four digits"),
    credential_id: z.string().nullable().describe("The card credential to charge through the PSP"),
  })
  .meta({ id: "ReceivedPaymentMethod" });

/**
 * What payload version 2 adds to `message.received` (issue 27): written on every event of a version-2 integration
 * (null or false when not applicable), never on version 1. Optional in the schema: a version-1 body has none.
 */
const MessageReceivedMembers = {
  interactive: ReceivedInteractive.nullable()
    .optional()
    .describe(v2("The reply button or list row tapped (`type` interactive); null otherwise")),
  button: ReceivedButton.nullable()
    .optional()
    .describe(v2("The template quick-reply button tapped (`type` button); null otherwise")),
  location: ReceivedLocation.nullable()
    .optional()
    .describe(v2("The location shared (`type` location); null otherwise")),
  contacts: z
    .array(ReceivedContact)
    .nullable()
    .optional()
    .describe(v2("The contact cards shared (`type` contacts), up to 257; null otherwise")),
  reaction: ReceivedReaction.nullable()
    .optional()
    .describe(v2("A reaction (`type` unsupported, `text` null) or its removal (`emoji` null); null otherwise")),
  referral: ReceivedReferral.nullable()
    .optional()
    .describe(v2("The click-to-WhatsApp ad or post the message came from (any type); null otherwise")),
  forwarded: z
    .boolean()
    .optional()
    .describe(v2("The contact forwarded the message (true also when frequently forwarded)")),
  frequently_forwarded: z.boolean().optional().describe(v2("Forwarded more than five times")),
  media_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional()
    .describe(v2("Lowercase hex SHA-256 of the received file, as Meta reported it; null when no file came")),
  media_voice: z
    .boolean()
    .nullable()
    .optional()
    .describe(v2("For an audio: whether it was recorded in WhatsApp (a voice note); null for other types")),
  contact_phone: z
    .string()
    .nullable()
    .optional()
    .describe(
      v2(
        "The customer's phone as the gateway knows them (issue 37): the one Meta's webhooks showed, or the one they shared answering a `request_contact_info`, also while Meta withholds it here (`from` null); null when never shared",
      ),
    ),
  standby: z
    .boolean()
    .optional()
    .describe(
      v2(
        "The message came on Meta's `standby` field: another app (such as Meta's Business AI agent) owns the conversation now (issue 37). It is stored and delivered like any other; a reply may need the conversation back first",
      ),
    ),
  handler: z
    .enum(CONVERSATION_HANDLERS)
    .optional()
    .describe(
      v2(
        "Who answers this customer on the business's side (issue 39): `bot`, or `human` after a handover to a person (POST /conversations/{recipient}/handover); a bot should stay quiet while it is `human`",
      ),
    ),
  payment_method: ReceivedPaymentMethod.nullable()
    .optional()
    .describe(
      v2(
        "The customer's one-click card answer to a Pix order (`type` interactive, `interactive` null; issue 28); absent on every other message",
      ),
    ),
};

/** The version-2 members as the gateway writes them: every one present. */
export type MessageReceivedV2Members = {
  [K in keyof typeof MessageReceivedMembers]-?: Exclude<z.output<(typeof MessageReceivedMembers)[K]>, undefined>;
};

/** Which `message.received` body an integration gets: 1, the contract's; 2, with MessageReceivedMembers. */
export const PAYLOAD_VERSIONS = [1, 2] as const;
export type PayloadVersion = (typeof PAYLOAD_VERSIONS)[number];

/** Spec 6.3, and the additive members of payload version 2. */
export const MessageReceivedData = z
  .object({
    message_id: z.string().describe("Id of the received message"),
    from: z
      .string()
      .nullable()
      .describe(
        "Phone of the contact who sent the message; null only when the provider withheld it (a user with a WhatsApp username who has not shared the number: answer to `from_user_id`)",
      ),
    from_user_id: z
      .string()
      .nullable()
      .describe(
        "The sender's WhatsApp business-scoped user id (BSUID, e.g. `BR.1502576394655843`), on every message since 2026; send to it when `from` is null. Added in 2026",
      ),
    from_parent_user_id: z
      .string()
      .nullable()
      .describe("The sender's parent BSUID (`BR.ENT.…`), when the business enabled them. Added in 2026"),
    from_username: z
      .string()
      .nullable()
      .describe("The sender's WhatsApp username, when set: display only, it can change. Added in 2026"),
    phone_number_id: z.string().describe("Business number"),
    type: z.enum(MESSAGE_RECEIVED_TYPES),
    text: z
      .string()
      .nullable()
      .describe("The text, a media caption, or the label of a received button/option; null when no text"),
    media_id: z
      .string()
      .nullable()
      .describe("Present when a file came; not a public URL and not permanently available"),
    media_mime: z.string().nullable(),
    media_filename: z.string().nullable(),
    reply_to_message_id: z.string().nullable().describe("Id of the message quoted by the contact"),
    contact_name: z.string().nullable(),
    occurred_at: isoUtc("time of the received message as given by the provider"),
    window_expires_at: isoUtc(
      "until when the received message allows a free-text reply; keep the greatest per contact and business number",
    ),
    ...MessageReceivedMembers,
  })
  .meta({ id: "MessageReceivedData" });

/** What the gateway did about an account or number health event (issue 18). */
export const AccountUpdateEffects = z
  .object({
    sending_blocked: z
      .boolean()
      .nullable()
      .describe(
        "For a ban, deletion or disconnection (DISABLED_UPDATE with DISABLE, ACCOUNT_DELETED, ACCOUNT_OFFBOARDED, PARTNER_REMOVED, PARTNER_APP_UNINSTALLED) and for a reinstatement or reconnection (DISABLED_UPDATE with REINSTATE, ACCOUNT_RECONNECTED, PARTNER_ADDED, PARTNER_APP_INSTALLED): whether sends from the WABA's numbers are refused now (`account_disabled`); null for every other event",
      ),
    paused_campaign_ids: z
      .array(z.string())
      .describe(
        "Campaigns the gateway paused because of this event (a number's quality dropped to low, the account was restricted, disabled, banned or disconnected), each with its `pause_reason`; they stay paused until someone resumes them",
      ),
    messaging_rate_per_second: z
      .int()
      .nullable()
      .describe(
        "The number's new messaging rate when this event changed it (1000 after THROUGHPUT_UPGRADE), else null",
      ),
  })
  .meta({ id: "AccountUpdateEffects" });

/** Issue 18: one of Meta's account and number health webhooks, as Meta sent it, with what the gateway did. */
export const AccountUpdateData = z
  .object({
    account_event_id: z.string().describe("The gateway's id of the stored event (the same on every retry)"),
    waba_id: z.string().describe("The WhatsApp Business Account the event is about (Meta's `entry[].id`)"),
    field: z
      .string()
      .describe(
        "Meta's webhook field: account_update, phone_number_quality_update, business_capability_update, message_template_components_update, template_category_update or account_alerts",
      ),
    event: z
      .string()
      .nullable()
      .describe(
        "`value.event` as Meta sent it (DISABLED_UPDATE, ACCOUNT_RESTRICTION, THROUGHPUT_UPGRADE, ...), values the gateway does not know included; null when the field carries none (capability, template and alert updates)",
      ),
    phone_number_id: z
      .string()
      .nullable()
      .describe(
        "The business number a phone_number_quality_update is about (matched by its display number), else null",
      ),
    occurred_at: isoUtc("Meta's time of the change (`entry[].time`), else when the gateway received it"),
    value: z.record(z.string(), z.unknown()).describe("Meta's `value`, exactly as sent (new keys included)"),
    effects: AccountUpdateEffects,
  })
  .meta({ id: "AccountUpdateData" });

/** Issue 28: the message of a Pix order whose acceptance or status changed the order's event. */
export const OrderUpdatedMessage = z
  .object({
    message_id: z.string().describe("The order's message (its order_details or an order_status)"),
    kind: z.enum(["order_details", "order_status"]),
    order_status: z.enum(ORDER_STATUSES).describe("The order status the message carried"),
    payment_status: z
      .enum(PAYMENT_STATUSES)
      .nullable()
      .describe("The payment status the message carried; null when it carried no payment object"),
    message_status: z
      .enum(MESSAGE_STATUSES)
      .nullable()
      .describe("The provider's last status of the message; null until it reports one"),
    error: MessageStatusError.nullable().describe("Only when message_status is failed, otherwise null"),
  })
  .meta({ id: "OrderUpdatedMessage" });

/** Issue 28: a Pix order changed (opt-in event). */
export const OrderUpdatedData = z
  .object({
    reference_id: z.string().describe("The order's reference_id"),
    phone_number_id: z.string().describe("The business number the order was sent from"),
    to: z.string().describe("The customer as the Pix send named them: phone digits or a BSUID"),
    order_status: z.enum(ORDER_STATUSES).describe("The order's status now"),
    payment_status: z.enum(PAYMENT_STATUSES).describe("The order's payment status now"),
    payment_timestamp: z.int().nullable(),
    description: z.string().nullable().describe("The description of the order's last status message"),
    trigger: z
      .enum(["status_sent", "message_status"])
      .describe(
        "`status_sent`: the provider accepted an order_status message and the order moved; `message_status`: the provider reported a status (sent, delivered, read, failed) of one of the order's messages. A failure does not move the order back",
      ),
    updated_at: isoUtc("when the order last changed"),
    message: OrderUpdatedMessage,
  })
  .meta({ id: "OrderUpdatedData" });

/** Issue 37: Meta's `messaging_handovers` notification, as the gateway reports it (opt-in event). */
export const ConversationHandoverData = z
  .object({
    type: z
      .enum(["control_passed", "control_taken"])
      .describe(
        "`control_passed`: another app (Meta's Business AI agent, say) passed the conversation to this gateway's app; `control_taken`: the escalation partner took it from this gateway's app",
      ),
    phone_number_id: z.string().describe("The business number of the conversation"),
    recipient: z
      .string()
      .describe(
        "The customer as the conversation endpoints and sends take them: phone digits when Meta shared the phone, else the BSUID",
      ),
    phone: z.string().nullable().describe("The customer's phone digits; null when Meta withheld it"),
    user_id: z.string().nullable().describe("The customer's BSUID; null when Meta sent none"),
    holder: z
      .enum(THREAD_HOLDERS)
      .describe("Who holds the conversation now: `gateway` after control_passed, `another_app` after control_taken"),
    previous_role: z.string().nullable().describe("Meta's role of the previous holder (`ai_agent`, ...), as sent"),
    current_role: z.string().nullable().describe("Meta's role of the holder now (`escalation_partner`, ...), as sent"),
    metadata: z.string().nullable().describe("What the app that passed the conversation wrote for the new holder"),
    occurred_at: isoUtc("Meta's time of the change, else when the gateway received it"),
  })
  .meta({ id: "ConversationHandoverData" });
export type ConversationHandoverData = z.infer<typeof ConversationHandoverData>;

/** Issue 39: what changed in a conversation on the business's side. */
export const CONVERSATION_CHANGES = ["handover", "assigned", "unassigned", "closed", "reopened"] as const;

/** Issue 39: a conversation's handler, assignee or state changed (opt-in event). */
export const ConversationUpdatedData = z
  .object({
    change: z
      .enum(CONVERSATION_CHANGES)
      .describe(
        "`handover`: the handler changed (a bot asked for a person, or the person gave it back; a person's reply in the panel makes it `human` too); `assigned`, `unassigned`: the panel assigned it to a user or took the assignment away (an assignment makes it `human`); `closed`, `reopened`: closed in the panel (back to the bot), reopened in the panel or by the customer writing again",
      ),
    phone_number_id: z.string().describe("The business number of the conversation"),
    recipient: z
      .string()
      .describe("The customer as the conversation endpoints and sends take them: phone digits, else the BSUID"),
    phone: z.string().nullable().describe("The customer's phone digits; null when the gateway does not know it"),
    user_id: z.string().nullable().describe("The customer's BSUID; null when the gateway does not know it"),
    handler: z.enum(CONVERSATION_HANDLERS).describe("Who answers the customer now"),
    note: z.string().nullable().describe("What the last handover said"),
    status: z
      .enum(CONVERSATION_STATUSES)
      .describe("`open`, or `closed` (closing gives the conversation back to the bot)"),
    assignee: ConversationAssignee.nullable().describe(
      "The panel user the conversation is assigned to; null when none",
    ),
    by: z
      .enum(["api", "panel", "customer"])
      .describe("Where the change was made: `customer` when the customer's message reopened it"),
    occurred_at: isoUtc("when the gateway recorded the change"),
  })
  .meta({ id: "ConversationUpdatedData" });
export type ConversationUpdatedData = z.infer<typeof ConversationUpdatedData>;

/** Spec 2.7, one envelope per event so each webhook documents its own `data`. */
const envelope = <E extends string, D extends z.ZodType>(event: E, data: D) =>
  z.object({
    event: z.literal(event),
    occurred_at: isoUtc("when the event entered the queue; fixed across attempts"),
    delivery_id: z.string().describe("Id of this delivery; repeats on retries of the same event"),
    data,
  });

export const MessageStatusEvent = envelope("message.status", MessageStatusData).meta({
  id: "MessageStatusEvent",
  example: {
    event: "message.status",
    occurred_at: "2026-01-01T12:00:05.000Z",
    delivery_id: "1042",
    data: {
      message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ2",
      status: "failed",
      status_rank: 1,
      to: "5511987654321",
      recipient_user_id: null,
      error: { code: 131026, message: "Message undeliverable", reason: "recipient_unreachable" },
      phone_number_id: "100000000000001",
      client_ref: "pedido-1234",
      campaign_id: null,
      pricing: null,
    },
  },
});

export const MessageReceivedEvent = envelope("message.received", MessageReceivedData).meta({
  id: "MessageReceivedEvent",
  example: {
    event: "message.received",
    occurred_at: "2026-01-01T12:00:01.000Z",
    delivery_id: "1041",
    data: {
      message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNB",
      from: "5511987654321",
      from_user_id: "BR.1502576394655843",
      from_parent_user_id: null,
      from_username: null,
      phone_number_id: "100000000000001",
      type: "text",
      text: "Oi!",
      media_id: null,
      media_mime: null,
      media_filename: null,
      reply_to_message_id: null,
      contact_name: "Maria",
      occurred_at: "2026-01-01T12:00:00.000Z",
      window_expires_at: "2026-01-02T12:00:00.000Z",
    },
  },
});

export const AccountUpdateEvent = envelope("account.update", AccountUpdateData).meta({
  id: "AccountUpdateEvent",
  example: {
    event: "account.update",
    occurred_at: "2026-11-20T14:10:02.000Z",
    delivery_id: "2301",
    data: {
      account_event_id: "57",
      waba_id: "100000000000001",
      field: "phone_number_quality_update",
      event: "THROUGHPUT_UPGRADE",
      phone_number_id: "200000000000002",
      occurred_at: "2026-11-20T14:10:00.000Z",
      value: {
        display_phone_number: "15550000000",
        event: "THROUGHPUT_UPGRADE",
        max_daily_conversations_per_business: "TIER_UNLIMITED",
      },
      effects: { sending_blocked: null, paused_campaign_ids: [], messaging_rate_per_second: 1000 },
    },
  },
});

export const OrderUpdatedEvent = envelope("order.updated", OrderUpdatedData).meta({
  id: "OrderUpdatedEvent",
  example: {
    event: "order.updated",
    occurred_at: "2026-12-04T10:00:02.000Z",
    delivery_id: "3101",
    data: {
      reference_id: "pedido-12345",
      phone_number_id: "100000000000001",
      to: "5511987654321",
      order_status: "processing",
      payment_status: "captured",
      payment_timestamp: 1780001000,
      description: "Separando os itens",
      trigger: "status_sent",
      updated_at: "2026-12-04T10:00:01.000Z",
      message: {
        message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ3",
        kind: "order_status",
        order_status: "processing",
        payment_status: "captured",
        message_status: null,
        error: null,
      },
    },
  },
});

export type MessageStatusEvent = z.infer<typeof MessageStatusEvent>;
export type OrderUpdatedEvent = z.infer<typeof OrderUpdatedEvent>;

export const ConversationHandoverEvent = envelope("conversation.handover", ConversationHandoverData).meta({
  id: "ConversationHandoverEvent",
  example: {
    event: "conversation.handover",
    occurred_at: "2026-12-07T15:00:01.000Z",
    delivery_id: "4201",
    data: {
      type: "control_passed",
      phone_number_id: "100000000000001",
      recipient: "5511987654321",
      phone: "5511987654321",
      user_id: "BR.1502576394655843",
      holder: "gateway",
      previous_role: "ai_agent",
      current_role: "escalation_partner",
      metadata: "cliente pediu um atendente",
      occurred_at: "2026-12-07T15:00:00.000Z",
    },
  },
});
export type ConversationHandoverEvent = z.infer<typeof ConversationHandoverEvent>;

export const ConversationUpdatedEvent = envelope("conversation.updated", ConversationUpdatedData).meta({
  id: "ConversationUpdatedEvent",
  example: {
    event: "conversation.updated",
    occurred_at: "2026-12-07T15:10:00.000Z",
    delivery_id: "4301",
    data: {
      change: "handover",
      phone_number_id: "100000000000001",
      recipient: "5511987654321",
      phone: "5511987654321",
      user_id: "BR.1502576394655843",
      handler: "human",
      note: "cliente pediu para falar com um atendente",
      status: "open",
      assignee: null,
      by: "api",
      occurred_at: "2026-12-07T15:10:00.000Z",
    },
  },
});
export type ConversationUpdatedEvent = z.infer<typeof ConversationUpdatedEvent>;
export type OrderUpdatedData = z.infer<typeof OrderUpdatedData>;
export type AccountUpdateEvent = z.infer<typeof AccountUpdateEvent>;
export type AccountUpdateData = z.infer<typeof AccountUpdateData>;
export type MessageReceivedEvent = z.infer<typeof MessageReceivedEvent>;
