import { IntegrationOut, IntegrationPath, IntegrationUpdateIn, jsonResponse } from "@gw/contracts";
import { getIntegration, updateIntegration } from "@gw/core/accounts";
import {
  integrationOut,
  notInAccount,
  requireSecrets,
  urlValidation,
  withIntegrationRefusals,
  integrationChangeRefusals,
} from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** PATCH /public/v1/integrations/{integration_id} (issue 29): the panel's edit form, field by field. */
export const { register, operations } = defineRoute({
  method: "patch",
  path: "/integrations/{integration_id}",
  operationId: "updateIntegration",
  scope: "integrations:manage",
  summary: "Change an integration",
  description: [
    "Only the fields given change. The URL is checked as at registration (the current one too, as the panel's edit",
    "form does). `active: false` pauses it (new events create no deliveries for it), `true` resumes it; switching",
    "`deliver_in_order` off releases the deliveries it held. Changing `signature_scheme` changes the headers of the",
    "next attempts, with the same secret. Changing `payload_version` changes the `message.received` body of the events",
    "that come after it (a delivery already made keeps its body). The secret is never shown here. Audited as",
    "`api.integration.updated`.",
  ].join(" "),
  request: {
    params: IntegrationPath,
    body: {
      schema: IntegrationUpdateIn,
      examples: [
        { name: "events", summary: "Also receive account.update" },
        { name: "pause", summary: "Pause it" },
        { name: "version2", summary: "Receive the id of the option tapped (payload version 2)" },
      ],
    },
  },
  responses: {
    200: jsonResponse("The integration as saved.", IntegrationOut),
    ...integrationChangeRefusals(true, urlValidation("path, body (at least one field)")),
  },
  async handler({ accountId, actor, params, body }, deps) {
    const current = await getIntegration(deps, { accountId, integrationId: params.integration_id });
    if (!current) throw notInAccount();
    const secrets = requireSecrets(deps.secrets);
    const saved = await withIntegrationRefusals(deps.logger, body.url ?? current.url, () =>
      // Only the fields given: the others are read from the row as locked by the edit (a concurrent edit stays).
      updateIntegration(
        { db: deps.db, policy: deps.integrationPolicy, secrets, queue: deps.queue, logger: deps.logger },
        {
          accountId,
          integrationId: current.id,
          ...(body.url === undefined ? {} : { url: body.url }),
          ...(body.events === undefined ? {} : { events: body.events }),
          ...(body.active === undefined ? {} : { active: body.active }),
          ...(body.deliver_in_order === undefined ? {} : { deliverInOrder: body.deliver_in_order }),
          ...(body.signature_scheme === undefined ? {} : { signatureScheme: body.signature_scheme }),
          ...(body.payload_version === undefined ? {} : { payloadVersion: body.payload_version }),
          actor,
        },
      ),
    );
    return integrationOut(saved);
  },
});
