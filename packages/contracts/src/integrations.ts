import { z } from "zod";

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
      last_error: {
        at: "2026-11-30T11:42:07.118Z",
        status_code: 503,
        error_kind: "http_status",
        message: "O endpoint respondeu com um status fora da faixa 2xx.",
        body: "Service Unavailable",
      },
    },
    last_day: {
      since: "2026-11-29T12:00:00.000Z",
      attempts: 9120,
      succeeded: 9101,
      failed: 19,
      success_rate: 0.9979,
      latency_ms: { p50: 79, p95: 280, p99: 940 },
      last_error: {
        at: "2026-11-30T11:42:07.118Z",
        status_code: 503,
        error_kind: "http_status",
        message: "O endpoint respondeu com um status fora da faixa 2xx.",
        body: "Service Unavailable",
      },
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
