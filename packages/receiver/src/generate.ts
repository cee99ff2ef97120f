import { generateOpenApiDocument, MESSAGE_STATUS_RANK, WEBHOOK_OPERATIONS, type OperationConfig } from "@gw/contracts";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { format, resolveConfig } from "prettier";

/**
 * The receiver's generated file, `schema.ts`, from the webhook schemas of @gw/contracts (the ones the OpenAPI
 * document shows): their types (openapi-typescript, as the client's), and the vocabulary the parser checks at run
 * time: the events, the statuses and the received message types. `pnpm client:generate` writes it with the client's
 * files; the drift test (packages/receiver/test/receiver.schema.drift.test.ts) fails until it is run. Not part of the
 * package's exports.
 */

export const GENERATED_FILE = "schema.ts";

const BANNER =
  "// Generated from the webhook schemas of @gw/contracts by `pnpm client:generate`. Do not edit: events.ts refines it.\n";

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The document's webhooks and the component schemas they reach (nothing of the public API's paths). */
function webhooksDocument(webhooks: readonly OperationConfig[]): Json {
  const document = generateOpenApiDocument({
    info: { title: "Messaging Gateway webhooks", version: "1.0.0" },
    servers: [],
    tags: [],
    securitySchemes: {},
    paths: [],
    webhooks,
  }) as unknown as Json;
  const components = isJson(document.components) ? document.components : {};
  const schemas = isJson(components.schemas) ? components.schemas : {};
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isJson(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const name =
        key === "$ref" && typeof value === "string" ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : null;
      if (name && !reached.has(name)) {
        reached.add(name);
        visit(schemas[name]);
      } else visit(value);
    }
  };
  visit(document.webhooks);
  return {
    ...document,
    components: { schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))) },
  };
}

/** The `enum` of a component schema's property, for the constants the parser checks against. */
function enumOf(document: Json, schema: string, property: string): unknown[] {
  const components = document.components as { schemas: Record<string, unknown> };
  const node = components.schemas[schema];
  const properties = isJson(node) && isJson(node.properties) ? node.properties : {};
  const values = isJson(properties[property]) ? properties[property].enum : undefined;
  if (!Array.isArray(values)) throw new Error(`${schema}.${property} has no enum in the webhook schemas`);
  return values;
}

function constant(doc: string, name: string, values: unknown[] | Record<string, unknown>): string {
  return `\n/** ${doc} */\nexport const ${name} = ${JSON.stringify(values)} as const;\n`;
}

/** The text of the receiver's `schema.ts` for the given webhooks (by default, the contract's). */
export async function generateReceiverSchema(
  webhooks: readonly OperationConfig[] = WEBHOOK_OPERATIONS,
): Promise<string> {
  const document = webhooksDocument(webhooks);
  // Only the schemas: the webhooks' headers and answers are for the document's readers. defaultNonNullable off, as
  // the client's: a field with a default stays optional.
  const { openapi, info, components } = document;
  const schemasOnly = structuredClone({ openapi, info, components }) as unknown as OpenAPI3;
  const types = astToString(await openapiTS(schemasOnly, { defaultNonNullable: false }));
  const vocabulary =
    constant("The events the gateway POSTs (the document's webhooks).", "WEBHOOK_EVENTS", [
      ...Object.keys(isJson(document.webhooks) ? document.webhooks : {}),
    ]) +
    constant(
      "`message.status` statuses (spec 6.2).",
      "MESSAGE_STATUSES",
      enumOf(document, "MessageStatusData", "status"),
    ) +
    constant(
      "Each `message.status` status's `status_rank` (spec 3.1; `failed` is never compared by rank).",
      "MESSAGE_STATUS_RANK",
      MESSAGE_STATUS_RANK,
    ) +
    constant(
      "`message.received` message types (spec 6.3).",
      "MESSAGE_RECEIVED_TYPES",
      enumOf(document, "MessageReceivedData", "type"),
    ) +
    constant(
      "`order.updated` order statuses (issue 28).",
      "ORDER_STATUSES",
      enumOf(document, "OrderUpdatedData", "order_status"),
    ) +
    constant(
      "`order.updated` payment statuses (issue 28).",
      "PAYMENT_STATUSES",
      enumOf(document, "OrderUpdatedData", "payment_status"),
    ) +
    constant(
      "`conversation.handover` holders (issue 37).",
      "THREAD_HOLDERS",
      enumOf(document, "ConversationHandoverData", "holder"),
    ) +
    constant(
      "`conversation.updated` handlers (issue 39).",
      "CONVERSATION_HANDLERS",
      enumOf(document, "ConversationUpdatedData", "handler"),
    );
  const config = (await resolveConfig(new URL(`./${GENERATED_FILE}`, import.meta.url))) ?? {};
  return format(`${BANNER}${types}${vocabulary}`, { ...config, parser: "typescript" });
}
