import {
  IntegrationCreateHeaders,
  IntegrationCreateIn,
  IntegrationWithSecretOut,
  SendConflictHeaders,
  SendResponseHeaders,
  errorResponse,
  jsonResponse,
  refusalOrValidation,
} from "@gw/contracts";
import { createIntegration } from "@gw/core/accounts";
import {
  integrationWithSecret,
  requireSecrets,
  withIntegrationRefusals,
  integrationChangeRefusals,
} from "../integration-views.ts";
import { defineRoute } from "../define-route.ts";

/** POST /public/v1/integrations (issue 29): register an endpoint, as the panel's Integrações form does. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/integrations",
  operationId: "createIntegration",
  scope: "integrations:manage",
  summary: "Register a webhook integration",
  description: [
    "The URL is checked as the panel checks it: https:// only, and a host that is a loopback, private, link-local or",
    "reserved address, or `localhost`, is refused (the dispatcher checks every resolved address again at each attempt);",
    "a URL the account already has is refused too (`url_taken`: change it with PATCH). The answer carries the",
    "`signing_secret`, shown only here and at a rotation: keep it now. With `Idempotency-Key`, a repeat with the same",
    "key and body (after a connection error or a 5xx) gets the first answer again, `signing_secret` included, while the",
    "key lives, with `Idempotent-Replayed: true`. An account has at most MAX_INTEGRATIONS_PER_ACCOUNT integrations",
    "(10 by default; `integration_limit_reached` beyond). `payload_version` absent: 2, so a tap on a list row or reply",
    "button arrives with its id (`interactive.id`); 1 keeps the contract's original `message.received` body. Audited as",
    "`api.integration.saved`.",
  ].join(" "),
  request: {
    headers: IntegrationCreateHeaders,
    body: {
      schema: IntegrationCreateIn,
      examples: [
        { name: "default", summary: "The message events, signed with X-PT-Signature" },
        { name: "standard", summary: "Standard Webhooks, delivered in order per message" },
        { name: "version1", summary: "The contract's original message.received body (payload version 1)" },
      ],
    },
  },
  responses: {
    201: {
      ...jsonResponse(
        "Registered; the signing secret is shown this once (and to a repeat with its Idempotency-Key).",
        IntegrationWithSecretOut,
      ),
      headers: SendResponseHeaders,
    },
    409: errorResponse(
      "Idempotency-Key in use: still in progress (honour `Retry-After` and repeat with the same key), or used with another body or operation.",
      ["idempotency_in_flight", "idempotency_conflict", "idempotency_legacy_unverified"],
      SendConflictHeaders,
    ),
    ...integrationChangeRefusals(
      false,
      refusalOrValidation(
        "The account has as many integrations as it may (`integration_limit_reached`, error envelope); or the body or the Idempotency-Key header is invalid, or the URL one the panel would refuse — `HTTPValidationError` (`value_error` at `url`, `ctx.reason`: `scheme` for anything but https://, `address_refused` for a loopback, private, link-local or reserved address or `localhost`, `userinfo`, `invalid_url`, `url_taken`).",
        ["integration_limit_reached"],
      ),
    ),
  },
  async handler({ accountId, actor, headers, body, res }, deps) {
    const secrets = requireSecrets(deps.secrets);
    const { integration, replayed } = await withIntegrationRefusals(deps.logger, body.url, () =>
      createIntegration(
        {
          db: deps.db,
          policy: deps.integrationPolicy,
          secrets,
          queue: deps.queue,
          logger: deps.logger,
          keys: deps.integrationKeys,
          maxIntegrationsPerAccount: deps.config.MAX_INTEGRATIONS_PER_ACCOUNT,
        },
        {
          accountId,
          url: body.url,
          events: body.events,
          active: body.active,
          deliverInOrder: body.deliver_in_order,
          signatureScheme: body.signature_scheme,
          payloadVersion: body.payload_version,
          idempotencyKey: headers["idempotency-key"],
          actor,
        },
      ),
    );
    if (replayed) res.setHeader("Idempotent-Replayed", "true");
    return integrationWithSecret(integration);
  },
});
