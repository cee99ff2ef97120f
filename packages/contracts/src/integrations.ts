import { z } from "zod";
import { IdempotencyKeyHeader } from "./messages.ts";
import { PAYLOAD_VERSIONS, WEBHOOK_EVENT_NAMES } from "./webhooks.ts";

/** Issue 21, item 3: an integration's endpoint health, and its manual re-enable. */
export const IntegrationPath = z.object({
  integration_id: z.uuid({ error: "deve ser o id (UUID) de uma integração" }),
});

const LatencyOut = z
  .object({ p50: z.int(), p95: z.int(), p99: z.int() })
  .describe("Duration of the attempts (request sent to answer, or to the error), in ms; null without attempts");

const LastErrorOut = z
  .object({
    at: z.string().describe("When the attempt started"),
    status_code: z.int().nullable().describe("HTTP status answered; null when there was no answer"),
    error_kind: z.string().describe("Why it failed: http_status, timeout, connection_refused, dns, tls, ..."),
    message: z.string().describe("Portuguese explanation of error_kind"),
    body: z.string().nullable().describe("The first 500 characters of what the endpoint answered"),
  })
  .describe("The window's most recent failed attempt; null when none failed");

const HealthWindowOut = z.object({
  since: z.string().describe("Start of the window (exclusive)"),
  attempts: z.int(),
  succeeded: z.int().describe("Attempts answered 2xx"),
  failed: z.int(),
  success_rate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe("succeeded / attempts (4 decimals); null without attempts"),
  latency_ms: LatencyOut.nullable(),
  last_error: LastErrorOut.nullable(),
});

/** The example's last failure, the same in both windows (it is within the last hour). */
const EXAMPLE_LAST_ERROR = {
  at: "2026-11-30T11:42:07.118Z",
  status_code: 503,
  error_kind: "http_status",
  message: "O endpoint respondeu com um status fora da faixa 2xx.",
  body: "Service Unavailable",
};

const HEALTH_EXAMPLE = {
  success: true,
  data: {
    integration_id: "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
    url: "https://loja.example.com.br/webhooks/whatsapp",
    active: true,
    disabled_at: null,
    disabled_reason: null,
    waiting_deliveries: 0,
    last_hour: {
      since: "2026-11-30T11:00:00.000Z",
      attempts: 412,
      succeeded: 409,
      failed: 3,
      success_rate: 0.9927,
      latency_ms: { p50: 84, p95: 310, p99: 1210 },
      last_error: EXAMPLE_LAST_ERROR,
    },
    last_day: {
      since: "2026-11-29T12:00:00.000Z",
      attempts: 9120,
      succeeded: 9101,
      failed: 19,
      success_rate: 0.9979,
      latency_ms: { p50: 79, p95: 280, p99: 940 },
      last_error: EXAMPLE_LAST_ERROR,
    },
  },
};

export const IntegrationHealthOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      integration_id: z.string(),
      url: z.string(),
      active: z.boolean().describe("False: paused by the account (new events create no deliveries for it)"),
      disabled_at: z
        .string()
        .nullable()
        .describe("Set when the gateway disabled it: every attempt failed for the configured time (default 5 days)"),
      disabled_reason: z.string().nullable().describe("Why, in Portuguese, with the last error"),
      waiting_deliveries: z.int().describe("Deliveries waiting for the re-enable (0 while enabled)"),
      last_hour: HealthWindowOut,
      last_day: HealthWindowOut,
    }),
  })
  .meta({ id: "IntegrationHealthOut", examples: [HEALTH_EXAMPLE] });

export const IntegrationEnableOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      integration_id: z.string(),
      was_disabled: z.boolean().describe("False: it was not disabled, nothing changed"),
      resumed: z.int().describe("Waiting deliveries put back in the queue, each with a fresh budget of attempts"),
    }),
  })
  .meta({
    id: "IntegrationEnableOut",
    examples: [
      {
        success: true,
        data: { integration_id: "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5", was_disabled: true, resumed: 1520 },
      },
    ],
  });

// Issue 29, item 3: integrations over the API (list, create, read, update, delete, rotate the secret), for what the
// panel's Integrações section and `pnpm gateway integration` manage.

/** How an integration's webhooks are signed (@gw/signer's SIGNATURE_SCHEMES; the contracts do not depend on it). */
export const INTEGRATION_SIGNATURE_SCHEMES = ["pt", "standard-webhooks"] as const;
export const INTEGRATIONS_MAX_LIMIT = 200;
/** The longest URL the panel's form takes; the API takes the same. */
export const INTEGRATION_URL_MAX_LENGTH = 2048;
/** A rotation's overlap: the CLI's bound (one week). */
export const ROTATION_MAX_OVERLAP_HOURS = 168;
export const ROTATION_DEFAULT_OVERLAP_HOURS = 24;

const INTEGRATION_EXAMPLE = {
  id: "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5",
  url: "https://loja.example.com.br/webhooks/whatsapp",
  events: ["message.status", "message.received"],
  active: true,
  signature_scheme: "pt",
  deliver_in_order: false,
  payload_version: 2,
  disabled_at: null,
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: "2026-11-30T12:00:00.000Z",
  updated_at: "2026-11-30T12:00:00.000Z",
};
const SECRET_EXAMPLE = "whsec_Q2hhdmUtZGUtZXhlbXBsby1uYW8tdXNlLWVtLXByb2R1Y2Fv";

const events = () =>
  z
    .array(z.enum(WEBHOOK_EVENT_NAMES))
    .min(1)
    .max(20)
    .describe(
      "Events delivered to it (repeats are ignored): `message.status`, `message.received`; `account.update`, `order.updated`, `conversation.handover` and `conversation.updated` only when chosen",
    );
const schemeField = () =>
  z
    .enum(INTEGRATION_SIGNATURE_SCHEMES)
    .describe(
      "`pt`: X-PT-Timestamp and X-PT-Signature (spec 5); `standard-webhooks`: webhook-id, webhook-timestamp and webhook-signature (standardwebhooks.com), the secret shown as `whsec_` plus base64",
    );
const orderField = () =>
  z
    .boolean()
    .describe(
      "Ordered delivery per message (and per contact's inbound messages): a later event waits until the earlier one is delivered or failed",
    );
/**
 * Issue 38, item 2: which `message.received` body the integration gets. A new integration made over the API gets 2
 * when the field is absent (an added default for a new resource); an existing one keeps its own.
 */
const NEW_INTEGRATION_PAYLOAD_VERSION = 2;
const payloadVersionField = (absent = "") =>
  z
    .literal(PAYLOAD_VERSIONS)
    // The generator writes a multi-value literal as its first value: the enum is stated here.
    .meta({ type: "integer", enum: [...PAYLOAD_VERSIONS] })
    .describe(
      `Which \`message.received\` body it gets: 1, the contract's (spec 6.3); 2, the same members followed by version 2's (\`interactive\` with the id of the list row or reply button tapped, \`button\`, \`location\`, \`contacts\`, \`reaction\`, \`referral\`, \`forwarded\`, \`media_sha256\`, \`media_voice\`)${absent}`,
    );
const urlField = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(INTEGRATION_URL_MAX_LENGTH)
    .describe(
      "The endpoint that receives the signed POSTs: https:// on a public address (a loopback, private, link-local or reserved address, `localhost`, user and password in the URL are refused: 422 `value_error` at `url`)",
    );

export const IntegrationObject = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean().describe("False: paused by the account (new events create no deliveries for it)"),
    signature_scheme: z.enum(INTEGRATION_SIGNATURE_SCHEMES),
    deliver_in_order: z.boolean(),
    payload_version: payloadVersionField(),
    disabled_at: z
      .string()
      .nullable()
      .describe("Set when the gateway disabled it (every attempt failed for the configured time): re-enable it"),
    disabled_reason: z.string().nullable().describe("Why, in Portuguese"),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe("Until then deliveries are also signed with the secret a rotation replaced; null when none"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Integration" });

export const IntegrationOut = z
  .object({ success: z.literal(true), data: IntegrationObject })
  .meta({ id: "IntegrationOut", examples: [{ success: true, data: INTEGRATION_EXAMPLE }] });

export const IntegrationWithSecretOut = z
  .object({
    success: z.literal(true),
    data: IntegrationObject.extend({
      signing_secret: z
        .string()
        .describe(
          "The signing secret, shown only in this answer (creation, rotation): keep it now; it is never shown again over the API",
        ),
    }),
  })
  .meta({
    id: "IntegrationWithSecretOut",
    examples: [{ success: true, data: { ...INTEGRATION_EXAMPLE, signing_secret: SECRET_EXAMPLE } }],
  });

export const IntegrationListOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      integrations: z.array(IntegrationObject),
      next_cursor: z.string().nullable().describe("Repeat with `cursor=next_cursor` until it is null"),
    }),
  })
  .meta({
    id: "IntegrationListOut",
    examples: [{ success: true, data: { integrations: [INTEGRATION_EXAMPLE], next_cursor: null } }],
  });

export const IntegrationDeleteOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      id: z.string(),
      deleted: z.literal(true),
      deliveries_removed: z.int().describe("Its deliveries, removed with it (pending ones are never attempted)"),
    }),
  })
  .meta({
    id: "IntegrationDeleteOut",
    examples: [{ success: true, data: { id: INTEGRATION_EXAMPLE.id, deleted: true, deliveries_removed: 42 } }],
  });

const queryBool = () =>
  z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean());

export const IntegrationsQuery = z.object({
  active: queryBool().optional().describe("`true`: only active integrations; `false`: only paused ones"),
  limit: z
    .preprocess(
      (value) => (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value),
      z.int().min(1).max(INTEGRATIONS_MAX_LIMIT),
    )
    .default(50),
  cursor: z
    .string()
    .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i)
    .optional()
    .describe("next_cursor of the previous page"),
});

export const IntegrationCreateIn = z
  .object({
    url: urlField(),
    events: events(),
    active: z.boolean().default(true).describe("False: saved paused"),
    signature_scheme: schemeField().default("pt"),
    deliver_in_order: orderField().default(false),
    payload_version: payloadVersionField(". Absent: 2")
      .default(NEW_INTEGRATION_PAYLOAD_VERSION)
      .meta({ default: NEW_INTEGRATION_PAYLOAD_VERSION }),
  })
  .meta({
    id: "IntegrationCreateIn",
    examples: [
      { url: "https://loja.example.com.br/webhooks/whatsapp", events: ["message.status", "message.received"] },
      {
        url: "https://loja.example.com.br/webhooks/standard",
        events: ["message.status"],
        signature_scheme: "standard-webhooks",
        deliver_in_order: true,
      },
      {
        url: "https://loja.example.com.br/webhooks/v1",
        events: ["message.received"],
        payload_version: 1,
      },
    ],
  });

/** POST /integrations' headers (issue 35, item 2): the Idempotency-Key of the sends, for one creation. */
export const IntegrationCreateHeaders = z.object({
  "Idempotency-Key": IdempotencyKeyHeader.optional().describe(
    "A unique value per creation; repeat it with the same body after a connection error or a 5xx to get the first answer again, `signing_secret` included, while the key lives (48 hours by default)",
  ),
});

export const IntegrationUpdateIn = z
  .object({
    url: urlField().optional(),
    events: events().optional(),
    active: z.boolean().optional().describe("False pauses it, true resumes it"),
    signature_scheme: schemeField().optional(),
    deliver_in_order: orderField().optional(),
    payload_version: payloadVersionField(". Absent: unchanged").optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      "Informe ao menos um campo para alterar: url, events, active, signature_scheme, deliver_in_order ou payload_version.",
  })
  .meta({
    id: "IntegrationUpdateIn",
    examples: [
      { events: ["message.status", "message.received", "account.update"] },
      { active: false },
      { payload_version: 2 },
    ],
  });

export const IntegrationRotateIn = z
  .object({
    overlap_hours: z
      .number()
      .min(0)
      .max(ROTATION_MAX_OVERLAP_HOURS)
      .default(ROTATION_DEFAULT_OVERLAP_HOURS)
      .describe(
        "For how many hours deliveries are also signed with the secret being replaced (X-PT-Signature-Previous, or a second `v1,` value in webhook-signature); 0 ends it at once (a leaked secret)",
      ),
  })
  .meta({ id: "IntegrationRotateIn", examples: [{}, { overlap_hours: 0 }] });
