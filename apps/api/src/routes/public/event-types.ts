import { EventTypeListOut, webhookEventTypes } from "@gw/contracts";
import { defineRoute } from "../define-route.ts";

/** GET /public/v1/event-types: the catalogue of webhook events (issue 21), the same for every account. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/event-types",
  operationId: "listEventTypes",
  scope: "integrations:manage",
  summary: "Webhook event catalogue",
  description:
    "Every event the gateway can POST to an integration (the document's `webhooks`), with a Portuguese description, the JSON Schema of its signed body and an example. The schemas are the document's own webhook schemas with their components put in place (no `$ref`).",
  responses: {
    200: {
      description: "The catalogue.",
      content: {
        "application/json": {
          schema: EventTypeListOut,
          examples: {
            catalogue: {
              summary: "The events this version sends",
              value: { success: true, data: { event_types: webhookEventTypes() } },
            },
          },
        },
      },
    },
  },
  handler: () => ({ event_types: [...webhookEventTypes()] }),
});
