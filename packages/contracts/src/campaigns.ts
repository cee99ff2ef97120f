import { z } from "zod";
import { recipientField } from "./messages.ts";
import { errorResponse } from "./openapi.ts";
import { MESSAGE_STATUSES } from "./statuses.ts";

/** Campaigns: bulk template sends paced at the number's rate (docs/decisions.md, "Campaigns"). */

export const CAMPAIGN_STATUSES = ["draft", "scheduled", "running", "paused", "completed", "cancelled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Where a recipient ended (or is): each recipient is counted once, in its furthest state. */
export const RECIPIENT_OUTCOMES = ["queued", "sending", ...MESSAGE_STATUSES, "skipped", "cancelled"] as const;
export type RecipientOutcome = (typeof RECIPIENT_OUTCOMES)[number];
/** Rows of one campaign (a JSON list or a CSV upload). */
export const CAMPAIGN_MAX_RECIPIENTS = 100_000;
/**
 * Bytes of a campaign's CSV file (the API's `text/csv` body after any Content-Encoding, the panel's upload): what
 * 100 000 real rows need. A generous real row is about 190 bytes: a phone as people type it (`"+55 (11) 98765-4321"`,
 * 21 with its quotes), three variables of up to 32 bytes (a full name with accents, an order number, an amount),
 * a `client_ref` of up to 64 and the separators and CRLF (8); 100 000 of them are 19 MB, under 20 MiB
 * (20 971 520 bytes, 209 per row). The rows of a file are kept in memory while they are validated, so this bounds
 * what one upload can take from the process.
 */
export const CAMPAIGN_CSV_MAX_BYTES = 20 * 1024 * 1024;
/**
 * Fields one CSV line may have: the columns are at most 29 (to, variable_1…20 and the 8 others), and spreadsheets
 * add empty fields at the end of some lines. A line of separators is refused at the 65th field, not at its end.
 */
export const CAMPAIGN_CSV_MAX_FIELDS = 64;
/** Characters one CSV field may have: the longest value a send takes (a body-only template's variable). */
export const CAMPAIGN_CSV_MAX_FIELD_LENGTH = 32_768;
export const CAMPAIGNS_MAX_LIMIT = 200;
export const CAMPAIGN_RECIPIENTS_MAX_LIMIT = 1_000;

/** An integer read from a query string or path, as pydantic reads one (see deliveries.ts). */
function urlInt(schema: z.ZodInt) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value),
    schema,
  );
}

const optionalText = (max: number) => z.string().max(max).nullish();

export const CampaignHeaderMediaIn = z
  .object({
    type: z.enum(["image", "video", "document"]).nullish().describe("The template's header format when absent"),
    link: z
      .string()
      .min(8)
      .max(2048)
      .regex(/^https?:\/\/\S+$/i)
      .describe("A PUBLIC http(s) URL the provider downloads without login"),
    filename: z.string().max(200).nullish(),
  })
  // No component id: its only use is nullable, and zod-to-openapi would make the component itself nullable.
  .describe("Header media of this recipient's send");

/** One recipient with its own template parameters; the CSV columns carry the same fields (see CampaignCsvColumns). */
export const CampaignRecipientIn = z
  .object({
    to: recipientField().describe("A phone number (any formatting) or a WhatsApp business-scoped user id (BSUID)"),
    variables: z.array(z.string()).max(20).nullish().describe("Filled in order into {{1}}, {{2}}, ... of the body"),
    header_text: optionalText(200),
    header_media: CampaignHeaderMediaIn.nullish(),
    button_url_param: optionalText(200),
    button_url_index: z.int().min(0).max(9).nullish(),
    coupon_code: optionalText(15),
    client_ref: optionalText(64).describe("Caller reference, echoed in message.status events"),
  })
  .meta({ id: "CampaignRecipientIn" });
export type CampaignRecipientIn = z.infer<typeof CampaignRecipientIn>;

const campaignFields = {
  name: z.string().trim().min(1).max(120),
  template: z.string().min(1).max(255).describe("Template name (an APPROVED template of the number's WABA)"),
  language: z.string().min(1).max(16).default("pt_BR"),
  phone_number_id: optionalText(64).describe("Business number that sends; the account's default number otherwise"),
  start_at: z.iso
    .datetime({ offset: true })
    .nullish()
    .describe("ISO 8601; the campaign waits until then once started (default: at once)"),
};

const CREATE_EXAMPLE = {
  name: "Black Friday clientes VIP",
  template: "pedido_confirmado",
  language: "pt_BR",
  start_at: "2026-11-27T09:00:00-03:00",
  recipients: [
    { to: "5511987654321", variables: ["Maria", "12345", "3"], header_text: "12345", client_ref: "cliente-1" },
    { to: "+55 21 99876-5432", variables: ["João", "12346", "1"], header_text: "12346", client_ref: "cliente-2" },
  ],
};

/** POST /campaigns with a JSON body. */
export const CampaignCreateIn = z
  .object({
    ...campaignFields,
    recipients: z.array(CampaignRecipientIn).min(1).max(CAMPAIGN_MAX_RECIPIENTS),
  })
  .meta({ id: "CampaignCreateIn", examples: [CREATE_EXAMPLE] });
export type CampaignCreateIn = z.infer<typeof CampaignCreateIn>;

/** POST /campaigns with a `text/csv` body: the campaign's fields go in the query string. */
export const CampaignCsvQuery = z.object(campaignFields);

/** Most body variables of a template send (spec 8), hence variable_1 … variable_20 in a campaign CSV. */
export const CAMPAIGN_CSV_MAX_VARIABLES = 20;

/**
 * The CSV's named columns (header row, any order, case-insensitive); only `to` is required. Besides them,
 * `variable_1` … `variable_20` (CAMPAIGN_CSV_VARIABLE_COLUMN).
 */
export const CAMPAIGN_CSV_NAMED_COLUMNS = [
  "to",
  "header_text",
  "header_media_link",
  "header_media_type",
  "header_media_filename",
  "button_url_param",
  "button_url_index",
  "coupon_code",
  "client_ref",
] as const;

/** A body variable's column: variable_1 … variable_20. */
export const CAMPAIGN_CSV_VARIABLE_COLUMN = /^variable_([1-9]|1\d|20)$/;

/** Every column, as the documentation lists them. */
export const CAMPAIGN_CSV_COLUMNS: readonly string[] = [
  "to",
  `variable_1 … variable_${CAMPAIGN_CSV_MAX_VARIABLES}`,
  ...CAMPAIGN_CSV_NAMED_COLUMNS.slice(1),
];

export const CampaignPath = z.object({ campaign_id: z.guid() });

export const CampaignStartIn = z
  .object({
    accepted_recipients: z
      .int()
      .min(0)
      .describe("The accepted recipient count the creation reported: the campaign starts only if it is still that"),
  })
  .meta({ id: "CampaignStartIn", examples: [{ accepted_recipients: 4998 }] });

export const CampaignsQuery = z.object({
  limit: urlInt(z.int().min(1).max(CAMPAIGNS_MAX_LIMIT)).default(50),
  before_id: z.guid().optional().describe("next_before_id of the previous page"),
});

export const CampaignRecipientsQuery = z.object({
  status: z.enum(RECIPIENT_OUTCOMES).optional(),
  limit: urlInt(z.int().min(1).max(CAMPAIGN_RECIPIENTS_MAX_LIMIT)).default(100),
  after_id: urlInt(z.int().min(0)).optional().describe("next_after_id of the previous page"),
});

const count = z.int().min(0);
export const CampaignProgressOut = z
  .object({
    queued: count,
    sending: count,
    sent: count,
    delivered: count,
    read: count,
    failed: count,
    skipped: count,
    cancelled: count,
  })
  .describe(
    "Recipients by outcome, each counted once in its furthest state (a read message is in `read`, not in `delivered`)",
  )
  .meta({ id: "CampaignProgressOut" });

export const CampaignRejectedRowOut = z
  .object({
    row: z.int().min(1).describe("1-based position in the list (in a CSV, the data row: the header is not counted)"),
    to: z.string(),
    code: z
      .string()
      .describe(
        "invalid_recipient, duplicate_recipient, invalid_parameter, csv_extra_fields or a template pre-check code (template_params_mismatch, variable_too_long, ...)",
      ),
    message: z.string().describe("Portuguese sentence"),
  })
  .meta({ id: "CampaignRejectedRowOut" });

/** Money in the API: reais as a decimal string with four decimals (Meta prints its rates with four). */
const brl = () => z.string().regex(/^\d+\.\d{4}$/);

export const CampaignCostEstimateOut = z
  .object({
    currency: z.literal("BRL"),
    amount_brl: brl().describe("accepted_recipients × rate_brl"),
    rate_brl: brl().describe("The rate card's price of one charged message of `category` when the campaign starts"),
    category: z.string().describe("Pricing category of the template (marketing when the rate card has no rate for it)"),
    recipients: z.int().min(0),
  })
  .describe(
    "An upper bound: every accepted recipient charged once. Meta charges only delivered messages, lowers utility and authentication rates by volume tier, and until 30 Sep 2026 did not charge utility templates inside an open customer-service window",
  )
  .meta({ id: "CampaignCostEstimateOut" });

export const CampaignRunningCostOut = z
  .object({
    currency: z.literal("BRL"),
    amount_brl: brl().describe("Estimated cost of the messages Meta charged so far, at the rate card's rates"),
    priced_messages: z.int().min(0).describe("Messages Meta reported a pricing for"),
    charged_messages: z.int().min(0).describe("Of them, pricing.type `regular` and not failed afterwards"),
    failed_messages: z
      .int()
      .min(0)
      .describe("Priced messages that failed afterwards: Meta charges only delivered ones"),
    fallback_messages: z
      .int()
      .min(0)
      .describe("Charged messages of a category without a rate, estimated at the marketing rate"),
  })
  .describe("What the campaign's messages cost so far, from the pricing of their status webhooks")
  .meta({ id: "CampaignRunningCostOut" });

export const CampaignOut = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    phone_number_id: z.string(),
    template: z.string(),
    language: z.string(),
    template_category: z.string().nullable(),
    start_at: z.string().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    pause_reason: z
      .string()
      .nullable()
      .describe(
        "Why the gateway paused the campaign by itself (Meta reported that the number's quality dropped to low, or that the account was restricted, disabled, banned or disconnected), in Portuguese; null when a person paused it or it is not paused. Added in 2026",
      ),
    total_rows: z.int().describe("Rows given"),
    accepted_recipients: z.int().describe("Rows that passed validation: the campaign's recipients"),
    rejected_count: z.int(),
    progress: CampaignProgressOut,
    rate_per_second: z.number().describe("The number's rate in force (lower while it backs off after a 130429)"),
    eta_seconds: z.int().nullable().describe("Time the queued recipients need at that rate; null when none are left"),
    estimated_completion_at: z.string().nullable().describe("ISO 8601 UTC; running or scheduled campaigns only"),
    estimated_cost: CampaignCostEstimateOut,
  })
  .meta({ id: "CampaignOut" });

export const CampaignDetailOut = z
  .object({
    success: z.literal(true),
    data: CampaignOut.extend({ rejected_rows: z.array(CampaignRejectedRowOut), running_cost: CampaignRunningCostOut }),
  })
  .meta({ id: "CampaignDetailOut" });

export const CampaignListOut = z
  .object({
    success: z.literal(true),
    data: z.object({ campaigns: z.array(CampaignOut), next_before_id: z.string().nullable() }),
  })
  .meta({ id: "CampaignListOut" });

export const CampaignRecipientOut = z
  .object({
    id: z.int(),
    row: z.int(),
    to: z.string(),
    client_ref: z.string().nullable(),
    status: z.enum(RECIPIENT_OUTCOMES),
    message_id: z.string().nullable().describe("The message_id of its message.status events"),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    attempts: z.int(),
    updated_at: z.string(),
  })
  .meta({ id: "CampaignRecipientOut" });

export const CampaignRecipientListOut = z
  .object({
    success: z.literal(true),
    data: z.object({ recipients: z.array(CampaignRecipientOut), next_after_id: z.int().nullable() }),
  })
  .meta({ id: "CampaignRecipientListOut" });

export const campaignNotFound = errorResponse("Campaign not in this account.", ["not_found"]);
