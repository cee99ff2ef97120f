import { z } from "zod";
import { generateOpenApiDocument } from "./openapi.ts";
import { WEBHOOK_OPERATIONS } from "./webhooks.openapi.ts";
import {
  AccountUpdateEvent,
  ConversationHandoverEvent,
  ConversationUpdatedEvent,
  OrderUpdatedEvent,
  MessageReceivedEvent,
  MessageStatusEvent,
  WEBHOOK_EVENT_NAMES,
  type WebhookEventName,
} from "./webhooks.ts";

/**
 * The catalogue of webhook events (issue 21, `GET /public/v1/event-types`, the panel's Integrações page): each event
 * the gateway sends, with a Portuguese description, the JSON Schema of its signed body and an example. The schemas
 * are not written here: they are the OpenAPI document's own (the same zod schemas through the same generator,
 * `generateOpenApiDocument`), made self-contained by putting each component they use in place of its `$ref`.
 */

interface EventTypeSource {
  /** Portuguese: shown to people (the panel) and returned by the API as is. */
  description: string;
  schema: z.ZodType;
}

/** Keyed by event name, so a new name in WEBHOOK_EVENT_NAMES does not compile until it has its entry. */
const SOURCES: Record<WebhookEventName, EventTypeSource> = {
  "message.status": {
    description:
      "Mudança de status de uma mensagem enviada pela plataforma: enviada, entregue, lida ou falhou (com o erro). " +
      "Traz o client_ref da mensagem, o campaign_id quando ela saiu de uma campanha e o preço informado pela Meta.",
    schema: MessageStatusEvent,
  },
  "message.received": {
    description:
      "Mensagem que um contato enviou a um número da empresa (texto, mídia, localização, botão...). Abre a janela de " +
      "24 h: window_expires_at diz até quando cabe uma resposta em texto livre. Quando a Meta não compartilha o " +
      "telefone, from é nulo e a resposta vai para from_user_id. Na versão 2 do conteúdo (escolhida na integração), " +
      "traz também a opção escolhida, o botão de template, a localização, os contatos, a reação, o anúncio de " +
      "origem, os indicadores de encaminhamento e o SHA-256 da mídia.",
    schema: MessageReceivedEvent,
  },
  "account.update": {
    description:
      "Aviso da Meta sobre a conta (WABA) ou um de seus números — bloqueio, restrição, qualidade, vazão, mudança de " +
      "categoria de template — com o que o gateway fez (effects). Só chega às integrações que escolheram este evento.",
    schema: AccountUpdateEvent,
  },
  "order.updated": {
    description:
      "Mudança de um pedido Pix: status enviado ao cliente (order_status aceito pela Meta) ou o resultado informado " +
      "pela Meta para uma mensagem do pedido (entregue, lida, falhou). Só chega às integrações que escolheram este evento.",
    schema: OrderUpdatedEvent,
  },
  "conversation.handover": {
    description:
      "A Meta passou a conversa de um cliente entre apps (Conversation Routing): control_passed quando outro app (o " +
      "agente de IA da Meta, por exemplo) passou a conversa a este gateway; control_taken quando o parceiro de " +
      "escalonamento a tomou. Só chega às integrações que escolheram este evento.",
    schema: ConversationHandoverEvent,
  },
  "conversation.updated": {
    description:
      "Quem atende o cliente mudou: um bot pediu uma pessoa (handler human) ou a pessoa devolveu a conversa ao bot " +
      "(handler bot). Só chega às integrações que escolheram este evento.",
    schema: ConversationUpdatedEvent,
  },
};

export const EventTypeOut = z
  .object({
    name: z.enum(WEBHOOK_EVENT_NAMES).describe("The event's name: `event` of the body and `X-PT-Event`"),
    description: z.string().describe("What the event means, in Portuguese"),
    schema: z
      .record(z.string(), z.unknown())
      .describe(
        "JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of the signed body: the document's schema with each component it uses put in place of its `$ref` (no reference left)",
      ),
    example: z.record(z.string(), z.unknown()).describe("An example body, valid against `schema`"),
  })
  .meta({ id: "EventTypeOut" });

export const EventTypeListOut = z
  .object({ success: z.literal(true), data: z.object({ event_types: z.array(EventTypeOut) }) })
  .meta({ id: "EventTypeListOut" });

export type EventTypeOut = z.infer<typeof EventTypeOut>;
type JsonObject = Record<string, unknown>;

const COMPONENT_REF = "#/components/schemas/";

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * One webhook's body schema from the document with every `$ref` to a component replaced by the component itself:
 * a schema with no reference at all, which any JSON Schema validator takes alone (and which an OpenAPI validator
 * does not try to resolve inside the document's examples). The event schemas are not recursive; one that were
 * would stop here.
 */
function inlined(node: unknown, components: JsonObject, seen: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlined(item, components, seen));
  if (!isObject(node)) return node;
  const { $ref, ...rest } = node;
  if (typeof $ref === "string" && $ref.startsWith(COMPONENT_REF)) {
    const name = $ref.slice(COMPONENT_REF.length);
    if (seen.includes(name)) throw new Error(`recursive webhook schema: ${[...seen, name].join(" → ")}`);
    const target = components[name];
    if (!isObject(target)) throw new Error(`component ${name} not in the document`);
    // Keywords beside the $ref (a description) apply on top of the component's.
    return {
      ...(inlined(target, components, [...seen, name]) as JsonObject),
      ...(inlined(rest, components, seen) as JsonObject),
    };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(value, components, seen)]));
}

let catalogue: readonly EventTypeOut[] | undefined;

/**
 * Every webhook event, in WEBHOOK_EVENT_NAMES' order. Built once per process from the webhooks' OpenAPI
 * operations (WEBHOOK_OPERATIONS) by the document's generator; the example is the event schema's own.
 */
export function webhookEventTypes(): readonly EventTypeOut[] {
  catalogue ??= buildCatalogue();
  return catalogue;
}

function buildCatalogue(): readonly EventTypeOut[] {
  const document = generateOpenApiDocument({
    info: { title: "webhook events", version: "1" },
    servers: [],
    tags: [],
    securitySchemes: {},
    paths: [],
    webhooks: WEBHOOK_OPERATIONS,
  }) as unknown as JsonObject;
  const webhooks = isObject(document.webhooks) ? document.webhooks : {};
  const components =
    isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  return WEBHOOK_EVENT_NAMES.map((name) => {
    const source = SOURCES[name];
    const operation = isObject(webhooks[name]) ? webhooks[name].post : undefined;
    const content = isObject(operation) && isObject(operation.requestBody) ? operation.requestBody.content : undefined;
    const json = isObject(content) ? content["application/json"] : undefined;
    if (!isObject(json)) throw new Error(`webhook ${name} has no JSON body in WEBHOOK_OPERATIONS`);
    const example = source.schema.parse(source.schema.meta()?.example);
    if (!isObject(example)) throw new Error(`webhook ${name} has no example`);
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...(inlined(json.schema, components) as JsonObject),
    };
    return { name, description: source.description, schema, example };
  });
}
