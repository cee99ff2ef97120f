import { IntegrationCreateIn, IntegrationWithSecretOut, jsonResponse } from "@gw/contracts";
import { setIntegration } from "@gw/core/accounts";
import {
  integrationWithSecret,
  requireSecrets,
  urlValidation,
  withIntegrationRefusals,
  integrationChangeRefusals,
} from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** POST /public/v1/integrations (issue 29): register an endpoint, as the panel's Integrações form does. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/integrations",
  operationId: "createIntegration",
  summary: "Register a webhook integration",
  description: [
    "The URL is checked as the panel checks it: https:// only, and a host that is a loopback, private, link-local or",
    "reserved address, or `localhost`, is refused (the dispatcher checks every resolved address again at each attempt);",
    "a URL the account already has is refused too (`url_taken`: change it with PATCH). The answer carries the",
    "`signing_secret`, shown only here and at a rotation: keep it now. Audited as `api.integration.saved`.",
  ].join(" "),
  request: {
    body: {
      schema: IntegrationCreateIn,
      examples: [
        { name: "default", summary: "The message events, signed with X-PT-Signature" },
        { name: "standard", summary: "Standard Webhooks, delivered in order per message" },
      ],
    },
  },
  responses: {
    201: jsonResponse("Registered; the signing secret is shown this once.", IntegrationWithSecretOut),
    ...integrationChangeRefusals(false, urlValidation("body")),
  },
  async handler({ accountId, actor, body }, deps) {
    const secrets = requireSecrets(deps.secrets);
    const created = await withIntegrationRefusals(deps.logger, body.url, () =>
      setIntegration(
        { db: deps.db, policy: deps.integrationPolicy, secrets, queue: deps.queue, logger: deps.logger },
        {
          accountId,
          url: body.url,
          events: body.events,
          active: body.active,
          deliverInOrder: body.deliver_in_order,
          signatureScheme: body.signature_scheme,
          onlyNew: true,
          actor,
        },
      ),
    );
    return integrationWithSecret(created);
  },
});
