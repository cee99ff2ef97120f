import type { Logger } from "@gw/logger";

/** Template states Meta reports on GET /message_templates. */
export type TemplateStatus =
  | "APPROVED"
  | "PENDING"
  | "REJECTED"
  | "PAUSED"
  | "DISABLED"
  | "IN_APPEAL"
  | "PENDING_DELETION"
  | "LIMIT_EXCEEDED"
  | "ARCHIVED";

/** Quality of a template (`quality_score.score`) or of a business number (`quality_rating`), as Meta reports it. */
export type QualityScore = "GREEN" | "YELLOW" | "RED" | "UNKNOWN";

export type TemplateCategory = "MARKETING" | "UTILITY" | "AUTHENTICATION";

/**
 * Meta's sub-category of the order-status templates (meta-late-2026 §1): UTILITY, BODY and an optional FOOTER; sent
 * with an `order_status` component, in or out of the customer-service window.
 */
export const ORDER_STATUS_SUB_CATEGORY = "ORDER_STATUS";

export interface TemplateButton {
  type: "QUICK_REPLY" | "URL" | "PHONE_NUMBER" | "COPY_CODE" | "ORDER_DETAILS" | "FLOW" | "CATALOG";
  text?: string;
  url?: string;
  phone_number?: string;
  /** URL buttons: the full example URL; COPY_CODE: the example code. */
  example?: string[];
}

export interface TemplateComponent {
  type: "HEADER" | "BODY" | "FOOTER" | "BUTTONS" | "CAROUSEL";
  format?: "TEXT" | "IMAGE" | "VIDEO" | "GIF" | "DOCUMENT" | "LOCATION";
  text?: string;
  add_security_recommendation?: boolean;
  code_expiration_minutes?: number;
  example?: {
    header_text?: string[];
    header_handle?: string[];
    header_text_named_params?: { param_name: string; example: string }[];
    body_text?: string[][];
    body_text_named_params?: { param_name: string; example: string }[];
  };
  buttons?: TemplateButton[];
  cards?: { components: TemplateComponent[] }[];
}

/** One item of Meta's GET /{WABA-ID}/message_templates (one name in one language). */
export interface SandboxTemplate {
  id: string;
  name: string;
  language: string;
  status: TemplateStatus;
  category: TemplateCategory;
  sub_category?: string;
  parameter_format: "POSITIONAL" | "NAMED";
  components: TemplateComponent[];
  quality_score: { score: QualityScore; date: number };
  /** "NONE" unless rejected, as Meta reports it. */
  rejected_reason: string;
  message_send_ttl_seconds?: number;
  library_template_name?: string;
}

/**
 * Meta's messaging limit tiers (unique users reached outside a customer-service window per 24 h). TIER_1K is the
 * per-number tier of before October 2025 (the sandbox's default, kept for compatibility); TIER_2K and TIER_NOT_SET
 * are values of the portfolio limit (`max_daily_conversations_per_business`, `whatsapp_business_manager_messaging_limit`).
 */
export const MESSAGING_LIMIT_TIERS = [
  "TIER_50",
  "TIER_250",
  "TIER_1K",
  "TIER_2K",
  "TIER_10K",
  "TIER_100K",
  "TIER_UNLIMITED",
  "TIER_NOT_SET",
] as const;
export type MessagingLimitTier = (typeof MESSAGING_LIMIT_TIERS)[number];

/** What GET /{phone-number-id} reports for one business number; set through POST /_sandbox/numbers. */
export interface PhoneNumberSettings {
  display_phone_number: string;
  verified_name: string;
  quality_rating: QualityScore;
  messaging_limit_tier: MessagingLimitTier;
  throughput_level: "STANDARD" | "HIGH" | "NOT_APPLICABLE";
}

/**
 * A business portfolio, as the sandbox models it: every business number belongs to one (the default portfolio
 * unless `numberPortfolios` says otherwise), BSUIDs are scoped to it, and it holds the contact book.
 */
export interface PortfolioSettings {
  /** Meta's contact book: phones exchanged with any of its numbers stay shareable in webhooks. Default true. */
  contactBook: boolean;
  /** Parent BSUIDs (`parent_user_id`, `from_parent_user_id`, `recipient_parent_user_id`) in webhooks. Default false. */
  parentUserIds: boolean;
  /** The portfolio messaging limit its numbers report unless set per number (business_capability_update). */
  messagingLimit?: MessagingLimitTier;
}

/** Meta's pair rate limit (131056), as the sandbox applies it: a sliding window per business number and contact. */
export interface PairRate {
  max: number;
  windowMs: number;
}

export interface StatusDelays {
  sent: number;
  delivered: number;
  read: number;
}

export interface SandboxOptions {
  /** Signs X-Hub-Signature-256 of every webhook. */
  appSecret: string;
  /** When set, Graph calls must carry `Authorization: Bearer <token>` (or `?access_token=`), else Meta's 401 / code 190. */
  accessToken?: string;
  /** The gateway's provider webhook; statuses and inbound messages are POSTed there. */
  webhookUrl?: string;
  /** After an accepted send; default {sent: 50, delivered: 150, read: 300}. */
  statusDelaysMs?: StatusDelays;
  /** Default true. */
  autoStatuses?: boolean;
  /** Recipients refused synchronously with 131026. */
  unreachable?: string[];
  /** Recipients accepted, then `sent`, then `failed` with errors[0].code 131026. */
  failAfterSend?: string[];
  /** Default true: free text (and interactive) to a contact who did not write in the last 24 h -> 131047. */
  enforceWindow?: boolean;
  /** Recipients (phones or BSUIDs) whose WhatsApp takes no order messages: order_details and order_status -> 2040. */
  paymentsUnsupported?: string[];
  /** Accepted sends per second per phone_number_id (sliding 1 s window); over it -> 130429, HTTP 400 as Meta. */
  rateLimitPerSecond?: number;
  /** Per phone_number_id, its own messaging rate instead of `rateLimitPerSecond` (Meta's 80/s, 20/s, up to 1000/s). */
  numberRates?: Record<string, number>;
  /** Meta's pair rate: at most `max` accepted sends from one number to one contact within `windowMs`, else 131056. */
  pairRate?: PairRate;
  /** Default: FIXTURE_TEMPLATES. */
  templates?: SandboxTemplate[];
  /** Listing page size when `limit` is absent; default 25 (Meta's default). */
  pageSize?: number;
  /** Per phone_number_id, what GET /{phone-number-id} reports instead of the defaults (GREEN, TIER_1K...). */
  numbers?: Record<string, Partial<PhoneNumberSettings>>;
  /** WABA id put in `entry[0].id` of webhooks; default "102290129340398". */
  wabaId?: string;
  /** The business portfolio of every number not in `numberPortfolios`; default "102290129340300". */
  portfolioId?: string;
  /** Per portfolio id: contact book and parent BSUIDs (defaults: contact book on, parent BSUIDs off). */
  portfolios?: Record<string, Partial<PortfolioSettings>>;
  /** Per phone_number_id, the portfolio it belongs to (else `portfolioId`). */
  numberPortfolios?: Record<string, string>;
  /** ISO countries whose authentication templates are priced `authentication-international`; default none. */
  authenticationInternational?: string[];
  /**
   * Per phone_number_id, the app with the `escalation_partner` role in Conversation Routing (`this_app` or another
   * app's id; never `business_ai`, the AI agent); default `this_app` for every number.
   */
  escalationPartners?: Record<string, string>;
  /**
   * WABA ids not onboarded to the Marketing Messages API (`/marketing_messages`); default none (every WABA onboarded).
   * Their sends fall back to Cloud API (`marketing` pricing), or are refused with 131055 under `product_policy: STRICT`.
   */
  marketingMessagesNotOnboarded?: string[];
  /** Default true: a webhook answered with anything but 2xx (or not answered) is sent again on RETRY_WAITS_MS. */
  webhookRetries?: boolean;
  /** Factor applied to every wait of the retry schedule; default 1 (Meta's pace), e.g. 0.001 in tests. */
  webhookRetryScale?: number;
  /** Statuses due within this many ms for one business number share a payload (max 100); default 0 = one each. */
  statusBatchMs?: number;
  /** Newest entries kept in `sent`, `requests` and `webhooks`; default 10000. */
  historyLimit?: number;
  /** Per-attempt webhook timeout; default 10000 (Meta's). For tests only. */
  webhookTimeoutMs?: number;
  /** Clock in ms, for tests of the 24 h window and the rate limit; default Date.now. */
  now?: () => number;
  logger?: Logger;
}

/** The part of the options that POST /_sandbox/config may change at run time. */
export interface RuntimeConfig {
  webhookUrl: string | undefined;
  statusDelaysMs: StatusDelays;
  autoStatuses: boolean;
  unreachable: string[];
  failAfterSend: string[];
  enforceWindow: boolean;
  paymentsUnsupported: string[];
  rateLimitPerSecond: number | undefined;
  numberRates: Record<string, number>;
  pairRate: PairRate | undefined;
  templates: SandboxTemplate[];
  pageSize: number;
  numbers: Record<string, Partial<PhoneNumberSettings>>;
  portfolioId: string;
  portfolios: Record<string, Partial<PortfolioSettings>>;
  numberPortfolios: Record<string, string>;
  authenticationInternational: string[];
  escalationPartners: Record<string, string>;
  marketingMessagesNotOnboarded: string[];
  webhookRetries: boolean;
  webhookRetryScale: number;
  statusBatchMs: number;
  historyLimit: number;
}
