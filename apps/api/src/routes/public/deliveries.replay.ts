import {
  DeliveryReplayIn,
  DeliveryReplayOut,
  DeliveryReplayPath,
  RequestValidationError,
  checkRange,
  errorResponse,
  jsonResponse,
  payloadTooLarge,
  requestValidation,
  unreadableRequest,
  resourcePathRefusals,
} from "@gw/contracts";
import { createDeliveryReplay, getDeliveryReplay } from "@gw/core/deliveries";
import { defineRoute, routeModule } from "../define-route.ts";

/** Issue 21: replay the account's deliveries of a time range, and follow the replay. */
export const { register, operations } = routeModule(
  defineRoute({
    method: "post",
    path: "/deliveries/replay",
    operationId: "replayDeliveries",
    scope: "integrations:manage",
    summary: "Resend the deliveries of a time range",
    description:
      "Every delivery created in [`since`, `until`) (`until` absent: now) that matches the filters and is `failed` or `delivered` (and still within its retention) is sent again: same `delivery_id` and signed body, new attempts (`X-PT-Attempt` keeps counting) with a fresh budget of automatic attempts, each signed when it is made. The work runs in the background in short batches; follow it with `GET /deliveries/replays/{replay_id}`. Audited (`api.delivery_replay.created`, then `api.webhook.retry` per batch). Limited per account (`REPLAYS_PER_ACCOUNT` per `REPLAYS_WINDOW_SECONDS`, 10 per hour by default, shared with the panel): past it, 429 `api_rate_limited` with `Retry-After`.",
    request: {
      body: {
        schema: DeliveryReplayIn,
        examples: [
          { name: "day", summary: "One day (São Paulo), every event and status" },
          { name: "filtered", summary: "Three hours of failed message.status deliveries of one integration" },
        ],
        // Refused field by field, like an empty object.
        whenAbsent: {},
      },
    },
    responses: {
      202: jsonResponse("The replay, recorded; its job starts at once.", DeliveryReplayOut),
      400: unreadableRequest("The body (an encoding that does not inflate, or cut short)"),
      413: payloadTooLarge,
      422: requestValidation(
        "body; also `since` not before `until`, a range over 31 days, or an `integration_id` that is not the account's (`value_error`)",
      ),
    },
    async handler({ accountId, actor, body }, deps) {
      // Absent, `until` is now (issue 29): the range ends where a future one would.
      const range = { since: body.since, until: body.until ?? new Date() };
      checkRange("body", range);
      const outcome = await createDeliveryReplay(deps.replays, {
        accountId,
        actor,
        since: range.since,
        until: range.until,
        event: body.event,
        statuses: body.status === undefined ? undefined : [body.status],
        integrationId: body.integration_id,
      });
      if (outcome.kind === "refused") {
        const input = outcome.field === "integration_id" ? body.integration_id : range[outcome.field].toISOString();
        throw new RequestValidationError([
          { loc: ["body", outcome.field], msg: outcome.message, type: "value_error", input },
        ]);
      }
      return outcome.replay;
    },
  }),
  defineRoute({
    method: "get",
    path: "/deliveries/replays/{replay_id}",
    operationId: "getDeliveryReplay",
    scope: "integrations:manage",
    summary: "Progress of a replay",
    description: "Status, how many deliveries matched and how many were put back in the queue so far, and when.",
    request: { params: DeliveryReplayPath },
    responses: {
      200: jsonResponse("The replay.", DeliveryReplayOut),
      ...resourcePathRefusals(errorResponse("Replay not in this account.", ["not_found"])),
    },
    handler: ({ accountId, params }, deps) => getDeliveryReplay(deps, { accountId, replayId: params.replay_id }),
  }),
);
