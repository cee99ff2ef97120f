import { z } from "zod";
import { WEBHOOK_EVENT_NAMES } from "./webhooks.ts";

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "failed"] as const;
export const DELIVERIES_MAX_LIMIT = 200;

/**
 * An integer read from a path or query string, as pydantic reads one: decimal digits with an optional sign
 * and surrounding blanks. `z.coerce.number()` would also take "0x5" and "5e0" (JavaScript's Number()).
 */
export function urlInt(schema: z.ZodInt) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value),
    schema,
  );
}

export const DeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: urlInt(z.int().min(1).max(DELIVERIES_MAX_LIMIT)).default(50),
  before_id: urlInt(z.int().min(1)).optional(),
});

export const DeliveryPath = z.object({ delivery_id: urlInt(z.int().min(1)) });

export const DeliveryOut = z
  .object({
    id: z.int(),
    event: z.enum(WEBHOOK_EVENT_NAMES),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().describe("Attempts made so far (X-PT-Attempt of the last one)"),
    next_attempt_at: z.string().nullable(),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable().describe("Body the endpoint answered on the last attempt, also on 2xx"),
    last_error_kind: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    occurred_at: z.string(),
    endpoint_url: z.string(),
    envelope: z.record(z.string(), z.unknown()).describe("The signed body, parsed"),
  })
  .meta({ id: "DeliveryOut" });

/** A delivery as GET /deliveries/{id} shows it, and one row of the list (without the envelope). */
export type DeliveryDetail = z.input<typeof DeliveryOut>;
export type DeliveryListItem = Omit<DeliveryDetail, "envelope">;

export const DeliveryListOut = z
  .object({
    success: z.literal(true),
    data: z.object({ deliveries: z.array(DeliveryOut.omit({ envelope: true })), next_before_id: z.int().nullable() }),
  })
  .meta({ id: "DeliveryListOut" });

export const DeliveryDetailOut = z
  .object({ success: z.literal(true), data: DeliveryOut })
  .meta({ id: "DeliveryDetailOut" });

export const RetryOut = z
  .object({
    success: z.literal(true),
    data: z.object({ id: z.int(), status: z.literal("pending"), next_attempt: z.int() }),
  })
  .meta({ id: "RetryOut" });

export const RetryFailedOut = z
  .object({ success: z.literal(true), data: z.object({ requeued: z.int() }) })
  .meta({ id: "RetryFailedOut" });
