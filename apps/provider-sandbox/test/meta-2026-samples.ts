/**
 * The sample payloads of /work/shared/reference/meta-2026.md, copied as published there (placeholder ids), and a
 * comparison of shapes: the sandbox's webhooks must have the same keys with the same nesting and value types.
 */

/** §1.4: inbound text from a user with a username, phone not shareable, parent BSUIDs enabled. */
export const INBOUND_USERNAME_ONLY = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      changes: [
        {
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "15550000000", phone_number_id: "200000000000002" },
            contacts: [
              {
                profile: { name: "Sheena Nelson", username: "realsheenanelson" },
                user_id: "US.10000000000000000001",
                parent_user_id: "US.ENT.20000000000000000002",
              },
            ],
            messages: [
              {
                from_user_id: "US.10000000000000000001",
                from_parent_user_id: "US.ENT.20000000000000000002",
                id: "wamid.PLACEHOLDER1",
                timestamp: "1780000000",
                type: "text",
                text: { body: "Does it come in another color?" },
              },
            ],
          },
        },
      ],
    },
  ],
};

/** §1.5: delivered, sent to the BSUID, phone not shareable. */
export const STATUS_DELIVERED_TO_BSUID = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      changes: [
        {
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "15550000000", phone_number_id: "200000000000002" },
            contacts: [
              {
                profile: { name: "Pablo M.", username: "pablomorales" },
                user_id: "US.10000000000000000001",
                parent_user_id: "US.ENT.20000000000000000002",
              },
            ],
            statuses: [
              {
                id: "wamid.PLACEHOLDER2",
                status: "delivered",
                timestamp: "1780000100",
                recipient_user_id: "US.10000000000000000001",
                recipient_parent_user_id: "US.ENT.20000000000000000002",
                pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "marketing" },
              },
            ],
          },
        },
      ],
    },
  ],
};

/** §1.5: failed, sent to a phone number (no contacts, no recipient_user_id). */
export const STATUS_FAILED_TO_PHONE = {
  id: "wamid.PLACEHOLDER3",
  status: "failed",
  timestamp: "1780000200",
  recipient_id: "15551230000",
  errors: [
    {
      code: 131049,
      title: "This message was not delivered to maintain healthy ecosystem engagement.",
      message: "This message was not delivered to maintain healthy ecosystem engagement.",
      error_data: {
        details: "In order to maintain a healthy ecosystem engagement, the message failed to be delivered.",
      },
      href: "/documentation/business-messaging/whatsapp/support/error-codes",
    },
  ],
};

/** §2.2: a `sent` status of a phone-addressed marketing template. */
export const STATUS_SENT_WITH_PRICING = {
  id: "wamid.PLACEHOLDER6",
  status: "sent",
  timestamp: "1780000400",
  recipient_id: "15551230000",
  recipient_user_id: "US.10000000000000000001",
  pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "marketing" },
};

/** §1.6: the request and the answer of a send addressed by BSUID. */
export const SEND_TO_BSUID = {
  messaging_product: "whatsapp",
  recipient_type: "individual",
  recipient: "US.10000000000000000001",
  type: "text",
  text: { body: "Hello" },
};
export const SEND_TO_BSUID_ANSWER = {
  messaging_product: "whatsapp",
  contacts: [{ input: "US.10000000000000000001", user_id: "US.10000000000000000001" }],
  messages: [{ id: "wamid.PLACEHOLDER4" }],
};

/** §1.7: the system message of a BSUID change. */
export const SYSTEM_USER_CHANGED_USER_ID = {
  from: "15551230000",
  id: "wamid.PLACEHOLDER5",
  timestamp: "1780000300",
  type: "system",
  system: {
    body: "User Sheena Nelson changed from US.10000000000000000001 to US.10000000000000000009",
    user_id: "US.10000000000000000009",
    type: "user_changed_user_id",
  },
};

/**
 * meta-late-2026 §4: since Aug 2026 the BSUID-change message also carries `previous_user_id` (and
 * `previous_parent_user_id` where parent BSUIDs are on). That file publishes no sample: this is §1.7's with the field.
 */
export const SYSTEM_USER_CHANGED_USER_ID_LATE_2026 = {
  ...SYSTEM_USER_CHANGED_USER_ID,
  system: { ...SYSTEM_USER_CHANGED_USER_ID.system, previous_user_id: "US.10000000000000000001" },
};

/** §1.7: the user_id_update webhook. */
export const USER_ID_UPDATE = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      changes: [
        {
          field: "user_id_update",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "15550000000", phone_number_id: "200000000000002" },
            contacts: [{ profile: { name: "Sheena Nelson" }, wa_id: "15551230000" }],
            user_id_update: [
              {
                wa_id: "15551230000",
                detail: "User id for Sheena Nelson has been updated.",
                user_id: { previous: "US.10000000000000000001", current: "US.10000000000000000009" },
                parent_user_id: { previous: "US.ENT.20000000000000000002", current: "US.ENT.20000000000000000008" },
                timestamp: "1780000300",
              },
            ],
          },
        },
      ],
    },
  ],
};

/** §3.1: account_update, DISABLED_UPDATE. */
export const ACCOUNT_UPDATE_DISABLED = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      time: 1780000500,
      changes: [
        {
          field: "account_update",
          value: {
            event: "DISABLED_UPDATE",
            ban_info: { waba_ban_state: "SCHEDULE_FOR_DISABLE", waba_ban_date: "June 1, 2026" },
          },
        },
      ],
    },
  ],
};

/** §3.2: phone_number_quality_update, THROUGHPUT_UPGRADE. */
export const QUALITY_THROUGHPUT_UPGRADE = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      time: 1780000600,
      changes: [
        {
          field: "phone_number_quality_update",
          value: {
            display_phone_number: "15550000000",
            event: "THROUGHPUT_UPGRADE",
            max_daily_conversations_per_business: "TIER_UNLIMITED",
          },
        },
      ],
    },
  ],
};

/** §3.3: business_capability_update. */
export const BUSINESS_CAPABILITY = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      time: 1780000700,
      changes: [
        {
          field: "business_capability_update",
          value: { max_daily_conversations_per_business: "TIER_10K", max_phone_numbers_per_waba: 25 },
        },
      ],
    },
  ],
};

/** §3.4: message_template_components_update. */
export const TEMPLATE_COMPONENTS = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      time: 1780000800,
      changes: [
        {
          field: "message_template_components_update",
          value: {
            message_template_id: 300000000000003,
            message_template_name: "order_confirmation",
            message_template_language: "en_US",
            message_template_element: "Thanks for your order, {{1}}!",
            message_template_buttons: [
              {
                message_template_button_type: "URL",
                message_template_button_text: "Track",
                message_template_button_url: "https://example.com/t",
              },
            ],
          },
        },
      ],
    },
  ],
};

/** §3.5: template_category_update, completed. */
export const TEMPLATE_CATEGORY_COMPLETED = {
  object: "whatsapp_business_account",
  entry: [
    {
      id: "100000000000001",
      time: 1780000900,
      changes: [
        {
          field: "template_category_update",
          value: {
            message_template_id: 300000000000004,
            message_template_name: "welcome_template",
            message_template_language: "en_US",
            previous_category: "UTILITY",
            new_category: "MARKETING",
          },
        },
      ],
    },
  ],
};

/** §3.5: the impending shape, as the text describes it (Meta's page has no example of it). */
export const TEMPLATE_CATEGORY_IMPENDING_KEYS = [
  "category_update_timestamp",
  "correct_category",
  "message_template_id",
  "message_template_language",
  "message_template_name",
  "new_category",
];

/** §4: the answer to mark-as-read and typing indicators. */
export const MARK_READ_ANSWER = { success: true };

/**
 * The shape of a JSON value: objects become their keys (sorted) with the shapes of their values, arrays the shape of
 * their first item, anything else its type. Two payloads with the same shape have the same keys, the same nesting and
 * the same value types (ids and texts may differ).
 */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, shapeOf(inner)]),
    );
  }
  return value === null ? "null" : typeof value;
}
