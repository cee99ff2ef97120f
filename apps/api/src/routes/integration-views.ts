import {
  RequestValidationError,
  errorResponse,
  payloadTooLarge,
  requestValidation,
  type OperationResponse,
  resourcePathRefusals,
  unreadableRequest,
} from "@gw/contracts";
import { IntegrationUrlError, SecretUnreadableError, type IntegrationSummary, type SecretBox } from "@gw/core/accounts";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";

// What the integration routes (routes/public/integrations.*.ts, issue 29) share: the view they answer, the refusals
// of a URL, and the key ring the secret's operations need.

/** An integration as the API shows it: the contract's fields, named one by one (nothing the contract lacks). */
export function integrationOut(integration: IntegrationSummary) {
  return {
    id: integration.id,
    url: integration.url,
    events: integration.events,
    active: integration.active,
    signature_scheme: integration.signature_scheme,
    deliver_in_order: integration.deliver_in_order,
    payload_version: integration.payload_version,
    disabled_at: integration.disabled_at,
    disabled_reason: integration.disabled_reason,
    previous_secret_expires_at: integration.previous_secret_expires_at,
    created_at: integration.created_at,
    updated_at: integration.updated_at,
  };
}

/** With its signing secret: only the answers to a creation and a rotation. */
export function integrationWithSecret(integration: IntegrationSummary & { signing_secret: string }) {
  return { ...integrationOut(integration), signing_secret: integration.signing_secret };
}

export const notInAccount = () =>
  new ApiError("not_found", { message: "A integração não foi encontrada nesta conta." });

/** The key ring, or 503: a deployment that did not give the API SECRETS_KEYS cannot seal or open a secret. */
export function requireSecrets(secrets: SecretBox | null): SecretBox {
  if (secrets) return secrets;
  throw new ApiError("service_unavailable", {
    message:
      "Esta instalação do gateway não habilitou a gestão de integrações pela API (falta SECRETS_KEYS na API); use o painel.",
  });
}

/**
 * A URL refused as the panel refuses it (the SSRF guard at registration, userinfo, a URL the account already has): a
 * 422 HTTPValidationError at `body.url` with the panel's Portuguese sentence and the reason in `ctx`.
 */
export function urlRefused(error: IntegrationUrlError, url: string): RequestValidationError {
  return new RequestValidationError([
    { loc: ["body", "url"], msg: error.message, type: "value_error", input: url, ctx: { reason: error.reason } },
  ]);
}

/** Runs a service that may refuse the URL or find its stored secret unreadable, and says so in the API's words. */
export async function withIntegrationRefusals<T>(logger: Logger, url: string | undefined, run: () => Promise<T>) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof IntegrationUrlError) throw urlRefused(error, url ?? "");
    if (error instanceof SecretUnreadableError) {
      // The operators' side names the place, never a value.
      logger.error("integration signing secret cannot be decrypted", {
        integrationId: error.place.id,
        field: error.place.field,
        keyId: error.keyId,
        reason: error.reason,
      });
      throw new ApiError("service_unavailable", {
        message:
          "O segredo guardado desta integração não pôde ser decifrado; nada foi alterado. Troque o segredo com overlap_hours 0 ou avise a operação do gateway.",
      });
    }
    throw error;
  }
}

export const integrationNotFound: OperationResponse = errorResponse("Integration not in this account.", ["not_found"]);
/** The refusals of a route on one integration that takes no body: an unreadable path, an id not in the account. */
export const integrationPathRefusals = resourcePathRefusals(integrationNotFound, "path: an id that is not a UUID");
export const secretsUnavailable: OperationResponse = errorResponse(
  "The deployment gave the API no key ring (SECRETS_KEYS), or the integration's stored secret cannot be opened.",
  ["service_unavailable"],
);
export const urlValidation = (what: string): OperationResponse =>
  requestValidation(
    `${what}; also a URL the panel would refuse (\`value_error\` at \`url\`, \`ctx.reason\`: \`scheme\` for anything but https://, \`address_refused\` for a loopback, private, link-local or reserved address or \`localhost\`, \`userinfo\`, \`invalid_url\`, \`url_taken\`)`,
  );

/**
 * The refusals of a route that changes an integration from a body (and needs the key ring): `named`, one named in
 * the path (so also an unreadable path and an id not in the account); `validated`, the 422.
 */
export function integrationChangeRefusals(named: boolean, validated: OperationResponse) {
  return {
    400: unreadableRequest(
      named ? "The path or the body" : "The body (an encoding that does not inflate, or cut short)",
    ),
    ...(named ? { 404: integrationNotFound } : {}),
    413: payloadTooLarge,
    422: validated,
    503: secretsUnavailable,
  };
}
