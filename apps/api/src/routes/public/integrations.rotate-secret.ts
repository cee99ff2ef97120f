import {
  IntegrationPath,
  IntegrationRotateIn,
  IntegrationWithSecretOut,
  jsonResponse,
  requestValidation,
} from "@gw/contracts";
import { rotateIntegrationSecret } from "@gw/core/accounts";
import {
  integrationWithSecret,
  notInAccount,
  requireSecrets,
  withIntegrationRefusals,
  integrationChangeRefusals,
} from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** POST /public/v1/integrations/{integration_id}/rotate-secret (issue 29): the panel's and the CLI's rotation. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/integrations/{integration_id}/rotate-secret",
  operationId: "rotateIntegrationSecret",
  scope: "integrations:manage",
  summary: "Rotate an integration's signing secret",
  description: [
    "A new secret signs from now on; for `overlap_hours` (default 24) deliveries are also signed with the one it",
    "replaces (X-PT-Signature-Previous, or a second `v1,` value in webhook-signature), so a receiver still holding it",
    "keeps verifying; `overlap_hours: 0` ends the old one at once (a leaked secret). The new `signing_secret` is shown",
    "only in this answer. Body optional. Audited as `api.integration.secret_rotated`.",
  ].join(" "),
  request: {
    params: IntegrationPath,
    body: {
      schema: IntegrationRotateIn,
      examples: [
        { name: "overlap", summary: "The default overlap of 24 hours" },
        { name: "leaked", summary: "A leaked secret: no overlap" },
      ],
      required: false,
      whenAbsent: {},
    },
  },
  responses: {
    200: jsonResponse("Rotated; the new signing secret is shown this once.", IntegrationWithSecretOut),
    ...integrationChangeRefusals(true, requestValidation("path, body")),
  },
  async handler({ accountId, actor, params, body }, deps) {
    const secrets = requireSecrets(deps.secrets);
    const rotated = await withIntegrationRefusals(deps.logger, undefined, () =>
      rotateIntegrationSecret(
        { db: deps.db, secrets },
        { accountId, integrationId: params.integration_id, overlapHours: body.overlap_hours, actor },
      ),
    );
    if (!rotated) throw notInAccount();
    return integrationWithSecret(rotated);
  },
});
