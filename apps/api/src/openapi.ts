import {
  BEARER_SECURITY_SCHEME,
  PUBLIC_API_TAG,
  SECURITY_SCHEME,
  WEBHOOK_OPERATIONS,
  generateOpenApiDocument,
  type OpenApiDocument,
  type OperationConfig,
  type PublicOperation,
} from "@gw/contracts";
import { PUBLIC_PREFIX, PUBLIC_ROUTES } from "./routes/public/index.ts";

/**
 * The OpenAPI 3.1 description of the public API (spec sections 2, 4–8): the operations each public route module
 * declares, under the public prefix, behind the bearer key, plus the signed webhooks. Only the routes behind the
 * key are operations here: the document itself and the /docs page are served outside that router, need no key
 * and are not part of the contract they describe.
 */

const INFO: OpenApiDocument["info"] = {
  title: "Messaging Gateway Public API and Webhook Specification",
  version: "1.0.0",
  description:
    "Send messages over a business messaging channel, validate phone formats, check the 24-hour window, read the template catalogue and manage the webhook delivery queue; " +
    "plus the signed webhook events pushed to the integrator's endpoint. Human-readable error messages are Portuguese sentences.",
};

/**
 * The authenticated public operations: full path, the bearer scheme with the operation's scope (its
 * `x-required-scope`, define-route.ts) and the public-api tag on each (spec 4, 5).
 */
function publicOperation(operation: PublicOperation): OperationConfig {
  const scope: unknown = operation["x-required-scope"];
  return {
    ...operation,
    path: `${PUBLIC_PREFIX}${operation.path}`,
    tags: [PUBLIC_API_TAG],
    security: [{ [SECURITY_SCHEME]: typeof scope === "string" ? [scope] : [] }],
  };
}

/** Builds the document; cheap enough to build once per process and serve as is. */
export function buildOpenApiDocument(): OpenApiDocument {
  return generateOpenApiDocument({
    info: INFO,
    servers: [{ url: "/", description: "This server" }],
    // Only the paths' tag: Swagger UI lists webhooks in a section of their own and would show an empty group.
    tags: [
      {
        name: PUBLIC_API_TAG,
        description:
          "Public API: every operation needs the bearer key holding the operation's scope (`x-required-scope`, the security requirement's scopes) and may answer 401, 403 `insufficient_scope` and 429.",
      },
    ],
    securitySchemes: { [SECURITY_SCHEME]: BEARER_SECURITY_SCHEME },
    paths: PUBLIC_ROUTES.flatMap((route) => route.operations.map(publicOperation)),
    webhooks: WEBHOOK_OPERATIONS,
  });
}
