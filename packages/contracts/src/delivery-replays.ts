import { z } from "zod";
import { DELIVERY_STATUSES } from "./deliveries.ts";
import { RequestValidationError, type RequestLocation } from "./validation.ts";
import { WEBHOOK_EVENT_NAMES } from "./webhooks.ts";

/**
 * Issue 21: replay of deliveries by time range (POST /deliveries/replay, GET /deliveries/replays/{id}) and the
 * delivery log's CSV export (GET /deliveries/export). Ranges are instants (ISO 8601 with an offset), `since` included,
 * `until` excluded, at most DELIVERY_RANGE_MAX_DAYS apart.
 */
export const DELIVERY_RANGE_MAX_DAYS = 31;
/** The delivery statuses a replay sends again (pending and delivering ones are on their way already). */
export const REPLAYABLE_STATUSES = ["failed", "delivered"] as const;
export const REPLAY_STATES = ["pending", "running", "completed"] as const;

const instant = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .describe(`${what} (ISO 8601 with an offset: \`2026-11-01T00:00:00-03:00\`)`);

const integrationId = () => z.guid().describe("Only the deliveries of this integration (one of the account's)");

export const DeliveryReplayIn = z
  .object({
    since: instant("Deliveries created at or after this instant"),
    until: instant(
      `Deliveries created before this instant; a future one, or none, counts as now. At most ${DELIVERY_RANGE_MAX_DAYS} days after \`since\``,
    ).optional(),
    event: z.enum(WEBHOOK_EVENT_NAMES).optional().describe("Only this event"),
    status: z
      .enum(REPLAYABLE_STATUSES)
      .optional()
      .describe("Only deliveries in this status; both `failed` and `delivered` when absent"),
    integration_id: integrationId().optional(),
  })
  .meta({
    id: "DeliveryReplayIn",
    examples: [
      { since: "2026-11-20T00:00:00-03:00", until: "2026-11-21T00:00:00-03:00" },
      {
        since: "2026-11-20T09:00:00Z",
        until: "2026-11-20T12:00:00Z",
        event: "message.status",
        status: "failed",
        integration_id: "9b2f4c1e-3a7d-4e8b-9c0d-1f2e3a4b5c6d",
      },
    ],
  });
export type DeliveryReplayIn = z.output<typeof DeliveryReplayIn>;

export const DeliveryReplayPath = z.object({ replay_id: z.string().min(1).max(64) });

export const DeliveryExportQuery = z.object({
  since: instant("Deliveries created at or after this instant"),
  until: instant(
    `Deliveries created before this instant; absent: now. At most ${DELIVERY_RANGE_MAX_DAYS} days after \`since\``,
  ).optional(),
  status: z.enum(DELIVERY_STATUSES).optional().describe("Only this status, as on the deliveries list"),
  event: z.enum(WEBHOOK_EVENT_NAMES).optional().describe("Only this event"),
  integration_id: integrationId().optional(),
});

/**
 * `since` before `until`, at most DELIVERY_RANGE_MAX_DAYS apart: otherwise 422 HTTPValidationError (`value_error`)
 * at the field to change. A future `until` is allowed here (the replay takes it as now).
 */
export function checkRange(location: RequestLocation, range: { since: Date; until: Date }): void {
  if (range.since.getTime() >= range.until.getTime())
    throw new RequestValidationError([
      {
        loc: [location, "since"],
        msg: "O início do período deve ser anterior ao fim.",
        type: "value_error",
        input: range.since.toISOString(),
      },
    ]);
  if (range.until.getTime() - range.since.getTime() > DELIVERY_RANGE_MAX_DAYS * 86_400_000)
    throw new RequestValidationError([
      {
        loc: [location, "until"],
        msg: `O período pode ter no máximo ${DELIVERY_RANGE_MAX_DAYS} dias.`,
        type: "value_error",
        input: range.until.toISOString(),
        ctx: { max_days: DELIVERY_RANGE_MAX_DAYS },
      },
    ]);
}

const REPLAY_EXAMPLE = {
  success: true,
  data: {
    id: "3f1c2b7a-8d4e-4f5a-9b6c-7d8e9f0a1b2c",
    status: "running",
    since: "2026-11-20T03:00:00.000Z",
    until: "2026-11-21T03:00:00.000Z",
    event: null,
    statuses: ["failed", "delivered"],
    integration_id: null,
    matched: 1250,
    queued: 500,
    created_at: "2026-11-27T12:00:00.000Z",
    started_at: "2026-11-27T12:00:00.150Z",
    updated_at: "2026-11-27T12:00:01.020Z",
    completed_at: null,
    requested_by: "api_key:7a9e6c3d-2b1f-4e8a-9c0d-5e6f7a8b9c0d",
  },
};

export const DeliveryReplayOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      id: z.string().describe("The replay's id: follow it with GET /deliveries/replays/{replay_id}"),
      status: z
        .enum(REPLAY_STATES)
        .describe("`pending` until its job starts, `running` while batches are re-queued, then `completed`"),
      since: z.string(),
      until: z.string().describe("The range's end as applied (a future `until` is now)"),
      event: z.string().nullable(),
      statuses: z.array(z.enum(REPLAYABLE_STATUSES)),
      integration_id: z.string().nullable(),
      matched: z.int().nullable().describe("Deliveries that matched when the job started; null while `pending`"),
      queued: z.int().describe("Deliveries put back in the queue so far (each gets a new attempt, same delivery_id)"),
      created_at: z.string(),
      started_at: z.string().nullable(),
      updated_at: z.string(),
      completed_at: z.string().nullable(),
      requested_by: z.string().describe("Who asked: `api_key:<id>` or `panel:<e-mail>`"),
    }),
  })
  .meta({ id: "DeliveryReplayOut", examples: [REPLAY_EXAMPLE] });
