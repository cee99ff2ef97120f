import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Dispatcher } from "@gw/dispatcher";
import { createCampaignQueue } from "@gw/jobs";
import { revealIntegrationSecret } from "@gw/core/accounts";
import { eventually, testActor, testSecretBox } from "@gw/testkit";
import {
  createGatewayClient,
  iterateCampaignRecipients,
  iterateCampaigns,
  iterateDeliveries,
  iterateOrders,
  uploadMedia,
  type components,
  type GatewayClient,
} from "@pt-gateway/client";
import { documentOperations } from "../../../packages/client/src/generate.ts";
import { buildOpenApiDocument } from "../src/openapi.ts";
import {
  contactWrites,
  createTestAccount,
  seedIntegration,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";
import { startReceiver } from "./support/receiver.ts";

// Every operation of the OpenAPI document, called through the typed client (@pt-gateway/client) against the real
// gateway (API + provider sandbox + dispatcher + a verifying receiver): each answer has the case's status and
// validates against the schema the document gives for it. CASES has one entry per operationId, and the first test
// fails when the document has an operation without one: a new operation needs its client-driven case here.

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** What openapi-fetch answers (`data` on success, `error` otherwise), as the runner checks it. */
interface Answer {
  response: Response;
  data?: unknown;
  error?: unknown;
}

interface Context {
  client: GatewayClient;
  gateway: TestGateway;
  account: TestAccount;
  /** Fixtures made on first use and shared by the cases. */
  inboundMessageId: () => Promise<string>;
  deliveredDeliveryId: () => Promise<number>;
  draftCampaign: () => Promise<{ id: string; accepted: number }>;
  integrationId: () => Promise<string>;
  /** A Pix order sent to CONTACT (whose window is open), by its reference_id. */
  openOrder: () => Promise<string>;
}

/** The last hour, up to a minute from now: the range of the replay and export cases. */
const lastHour = () => ({
  since: new Date(Date.now() - 3_600_000).toISOString(),
  until: new Date(Date.now() + 60_000).toISOString(),
});

interface Case {
  /** The documented status the call must answer with. */
  status: number;
  run(context: Context): Promise<Answer>;
}

const CONTACT = "5511987653001";
/** A real one-page PDF (the sandbox's sample). */
const PDF = readFileSync(new URL("../../provider-sandbox/src/media/samples/document.pdf", import.meta.url));
const TEMPLATE_SEND = {
  template: "pedido_confirmado",
  language: "pt_BR",
  variables: ["Maria", "12345", "3"],
  header_text: "12345",
};
const ROWS = [
  { to: "5511987653101", variables: ["Maria", "1", "2"], header_text: "1", client_ref: "c-1" },
  { to: "5511987653102", variables: ["João", "2", "2"], header_text: "2", client_ref: "c-2" },
];

/** A `pix_order` send with a reference of its own (a reference is taken once per account). */
async function pixOrderSend(client: GatewayClient, referenceId: string) {
  const { data, error } = await client.POST("/public/v1/messages", {
    body: {
      to: CONTACT,
      template: "cobranca_pix",
      variables: ["Maria", "12345"],
      pix_order: {
        reference_id: referenceId,
        pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
        merchant_name: "Loja Exemplo",
        key: "39580525000189",
        items: [{ name: "Bolo", amount: 5000 }],
      },
    },
  });
  if (!data) throw new Error(`pedido não enviado: ${JSON.stringify(error)}`);
  return data.data;
}

async function newCampaign(client: GatewayClient, name: string) {
  const { data } = await client.POST("/public/v1/campaigns", {
    body: { name, template: "pedido_confirmado", language: "pt_BR", recipients: ROWS },
  });
  if (!data) throw new Error("campanha não criada");
  return { id: data.data.id, accepted: data.data.accepted_recipients };
}

async function startedCampaign(client: GatewayClient, name: string) {
  const campaign = await newCampaign(client, name);
  const { response } = await client.POST("/public/v1/campaigns/{campaign_id}/start", {
    params: { path: { campaign_id: campaign.id } },
    body: { accepted_recipients: campaign.accepted },
  });
  expect(response.status).toBe(200);
  return campaign;
}

/**
 * An integration registered through the API, paused (no deliveries to a host that does not exist), on a public
 * https URL: the stack's API has production's URL policy, so the receiver's loopback URL is not one it takes.
 */
async function apiIntegration(client: GatewayClient, name: string) {
  const { data, error } = await client.POST("/public/v1/integrations", {
    body: { url: `https://${name}-${randomUUID()}.example.com.br/webhooks`, events: ["message.status"], active: false },
  });
  if (!data) throw new Error(`integração não criada: ${JSON.stringify(error)}`);
  return data.data;
}

/** One entry per operationId of the document (in its order). */
const CASES: Record<string, Case> = {
  sendMessage: {
    status: 200,
    run: ({ client }) => client.POST("/public/v1/messages", { body: { to: CONTACT, ...TEMPLATE_SEND } }),
  },
  getMessage: {
    status: 200,
    run: async ({ client }) => {
      const { data } = await client.POST("/public/v1/messages", { body: { to: CONTACT, ...TEMPLATE_SEND } });
      if (!data) throw new Error("mensagem não enviada");
      return client.GET("/public/v1/messages/{message_id}", {
        params: { path: { message_id: data.data.message_id } },
      });
    },
  },
  markMessageRead: {
    status: 200,
    run: async ({ client, inboundMessageId }) =>
      client.POST("/public/v1/messages/{message_id}/read", {
        params: { path: { message_id: await inboundMessageId() } },
        body: { typing: false },
      }),
  },
  validatePhone: {
    status: 200,
    run: ({ client }) => client.POST("/public/v1/validate", { body: { to: "(11) 98765-4321", country: "BR" } }),
  },
  getWindow: {
    status: 200,
    run: async ({ client, inboundMessageId }) => {
      await inboundMessageId();
      return client.GET("/public/v1/window/{to}", { params: { path: { to: CONTACT } } });
    },
  },
  listTemplates: {
    status: 200,
    run: ({ client }) => client.GET("/public/v1/templates", { params: { query: { status: "ALL" } } }),
  },
  listDeliveries: {
    status: 200,
    run: async ({ client, deliveredDeliveryId }) => {
      await deliveredDeliveryId();
      return client.GET("/public/v1/deliveries", { params: { query: { limit: 1 } } });
    },
  },
  retryFailedDeliveries: {
    status: 200,
    run: ({ client }) => client.POST("/public/v1/deliveries/retry-failed"),
  },
  getDelivery: {
    status: 200,
    run: async ({ client, deliveredDeliveryId }) =>
      client.GET("/public/v1/deliveries/{delivery_id}", {
        params: { path: { delivery_id: await deliveredDeliveryId() } },
      }),
  },
  retryDelivery: {
    status: 200,
    run: async ({ client, deliveredDeliveryId }) =>
      client.POST("/public/v1/deliveries/{delivery_id}/retry", {
        params: { path: { delivery_id: await deliveredDeliveryId() } },
      }),
  },
  exportDeliveries: {
    status: 200,
    run: async ({ client, deliveredDeliveryId }) => {
      await deliveredDeliveryId();
      return client.GET("/public/v1/deliveries/export", { params: { query: lastHour() }, parseAs: "text" });
    },
  },
  replayDeliveries: {
    status: 202,
    run: ({ client }) => client.POST("/public/v1/deliveries/replay", { body: { ...lastHour(), status: "delivered" } }),
  },
  getDeliveryReplay: {
    status: 200,
    run: async ({ client }) => {
      const { data } = await client.POST("/public/v1/deliveries/replay", { body: { ...lastHour(), status: "failed" } });
      if (!data) throw new Error("reenvio não criado");
      return client.GET("/public/v1/deliveries/replays/{replay_id}", { params: { path: { replay_id: data.data.id } } });
    },
  },
  listIntegrations: {
    status: 200,
    run: async ({ client }) => {
      await apiIntegration(client, "lista");
      return client.GET("/public/v1/integrations", { params: { query: { limit: 1 } } });
    },
  },
  createIntegration: {
    status: 201,
    run: ({ client }) =>
      client.POST("/public/v1/integrations", {
        body: {
          url: `https://criada-${randomUUID()}.example.com.br/webhooks`,
          events: ["message.status", "message.received"],
          active: false,
          signature_scheme: "standard-webhooks",
          deliver_in_order: true,
        },
      }),
  },
  getIntegration: {
    status: 200,
    run: async ({ client, integrationId }) =>
      client.GET("/public/v1/integrations/{integration_id}", {
        params: { path: { integration_id: await integrationId() } },
      }),
  },
  updateIntegration: {
    status: 200,
    run: async ({ client }) =>
      client.PATCH("/public/v1/integrations/{integration_id}", {
        params: { path: { integration_id: (await apiIntegration(client, "editada")).id } },
        body: { events: ["message.status", "account.update"], signature_scheme: "standard-webhooks" },
      }),
  },
  deleteIntegration: {
    status: 200,
    run: async ({ client }) =>
      client.DELETE("/public/v1/integrations/{integration_id}", {
        params: { path: { integration_id: (await apiIntegration(client, "removida")).id } },
      }),
  },
  rotateIntegrationSecret: {
    status: 200,
    run: async ({ client }) =>
      client.POST("/public/v1/integrations/{integration_id}/rotate-secret", {
        params: { path: { integration_id: (await apiIntegration(client, "rotacionada")).id } },
        body: { overlap_hours: 0 },
      }),
  },
  getIntegrationHealth: {
    status: 200,
    run: async ({ client, integrationId }) =>
      client.GET("/public/v1/integrations/{integration_id}/health", {
        params: { path: { integration_id: await integrationId() } },
      }),
  },
  enableIntegration: {
    status: 200,
    run: async ({ client, integrationId }) =>
      client.POST("/public/v1/integrations/{integration_id}/enable", {
        params: { path: { integration_id: await integrationId() } },
      }),
  },
  listEventTypes: {
    status: 200,
    run: ({ client }) => client.GET("/public/v1/event-types"),
  },
  createCampaign: {
    status: 201,
    run: ({ client }) =>
      client.POST("/public/v1/campaigns", {
        body: { name: "Cliente", template: "pedido_confirmado", language: "pt_BR", recipients: ROWS },
      }),
  },
  listCampaigns: {
    status: 200,
    run: async ({ client, draftCampaign }) => {
      await draftCampaign();
      return client.GET("/public/v1/campaigns", { params: { query: { limit: 1 } } });
    },
  },
  getCampaign: {
    status: 200,
    run: async ({ client, draftCampaign }) =>
      client.GET("/public/v1/campaigns/{campaign_id}", {
        params: { path: { campaign_id: (await draftCampaign()).id } },
      }),
  },
  listCampaignRecipients: {
    status: 200,
    run: async ({ client, draftCampaign }) =>
      client.GET("/public/v1/campaigns/{campaign_id}/recipients", {
        params: { path: { campaign_id: (await draftCampaign()).id }, query: { limit: 1 } },
      }),
  },
  exportCampaignRecipients: {
    status: 200,
    run: async ({ client, draftCampaign }) =>
      client.GET("/public/v1/campaigns/{campaign_id}/recipients/export", {
        params: { path: { campaign_id: (await draftCampaign()).id } },
        parseAs: "text",
      }),
  },
  startCampaign: {
    status: 200,
    run: async ({ client }) => {
      const campaign = await newCampaign(client, "Início");
      return client.POST("/public/v1/campaigns/{campaign_id}/start", {
        params: { path: { campaign_id: campaign.id } },
        body: { accepted_recipients: campaign.accepted },
      });
    },
  },
  pauseCampaign: {
    status: 200,
    run: async ({ client }) => {
      const campaign = await startedCampaign(client, "Pausa");
      return client.POST("/public/v1/campaigns/{campaign_id}/pause", {
        params: { path: { campaign_id: campaign.id } },
      });
    },
  },
  resumeCampaign: {
    status: 200,
    run: async ({ client }) => {
      const campaign = await startedCampaign(client, "Retomada");
      const path = { campaign_id: campaign.id };
      expect(
        (await client.POST("/public/v1/campaigns/{campaign_id}/pause", { params: { path } })).response.status,
      ).toBe(200);
      return client.POST("/public/v1/campaigns/{campaign_id}/resume", { params: { path } });
    },
  },
  cancelCampaign: {
    status: 200,
    run: async ({ client }) => {
      const campaign = await newCampaign(client, "Cancelada");
      return client.POST("/public/v1/campaigns/{campaign_id}/cancel", {
        params: { path: { campaign_id: campaign.id } },
      });
    },
  },
  listOrders: {
    status: 200,
    run: async ({ client, openOrder }) => {
      await openOrder();
      return client.GET("/public/v1/orders", { params: { query: { status: "pending", limit: 10 } } });
    },
  },
  getOrder: {
    status: 200,
    run: async ({ client, openOrder }) =>
      client.GET("/public/v1/orders/{reference_id}", { params: { path: { reference_id: await openOrder() } } }),
  },
  updateOrderStatus: {
    status: 200,
    run: async ({ client, inboundMessageId }) => {
      // Its own order: the status moves it, and the other cases read a pending one.
      await inboundMessageId();
      const referenceId = `conformidade-status-${randomUUID()}`;
      await pixOrderSend(client, referenceId);
      return client.POST("/public/v1/orders/{reference_id}/status", {
        params: { path: { reference_id: referenceId }, header: { "Idempotency-Key": randomUUID() } },
        body: { order_status: "processing", payment_status: "captured", description: "Separando os itens" },
      });
    },
  },
  getConversation: {
    status: 200,
    run: ({ client }) =>
      client.GET("/public/v1/conversations/{recipient}", { params: { path: { recipient: CONTACT } } }),
  },
  controlConversationThread: {
    status: 200,
    // Another customer: the pass leaves the Business AI agent holding this one at the sandbox.
    run: ({ client }) =>
      client.POST("/public/v1/conversations/{recipient}/thread-control", {
        params: { path: { recipient: "5511987650999" } },
        body: { action: "pass", target_role: "ai_agent" },
      }),
  },
  handOverConversation: {
    status: 200,
    run: ({ client }) =>
      client.POST("/public/v1/conversations/{recipient}/handover", {
        params: { path: { recipient: "5511987650998" } },
        body: { to: "human", note: "cliente pediu um atendente" },
      }),
  },
  listNumbers: {
    status: 200,
    run: ({ client }) => client.GET("/public/v1/numbers"),
  },
  updateNumber: {
    status: 200,
    run: async ({ client }) => {
      const { data } = await client.GET("/public/v1/numbers");
      const number = data?.data.numbers[0];
      if (!number) throw new Error("conta sem número");
      // Set to what it is: the other cases' sends keep their route.
      return client.PATCH("/public/v1/numbers/{phone_number_id}", {
        params: { path: { phone_number_id: number.phone_number_id } },
        body: { marketing_messages: number.marketing_messages },
      });
    },
  },
  getUsage: {
    status: 200,
    run: ({ client }) => client.GET("/public/v1/usage"),
  },
  uploadMedia: {
    status: 201,
    run: ({ client }) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(PDF)], { type: "application/pdf" }), "boleto.pdf");
      return client.POST("/public/v1/media", {
        body: {} as components["schemas"]["MediaUploadIn"],
        bodySerializer: () => form,
      });
    },
  },
  getMedia: {
    status: 200,
    run: async ({ client }) => {
      const uploaded = await uploadMedia(client, { file: PDF, filename: "boleto.pdf", mimeType: "application/pdf" });
      return client.GET("/public/v1/media/{media_id}", {
        params: { path: { media_id: uploaded.media_id } },
        parseAs: "text",
      });
    },
  },
};

const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;
const OPERATIONS = documentOperations(document);
const BASE = "https://gateway.test/openapi.json";
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (!isJson(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `${BASE}${v}` : absoluteRefs(v),
    ]),
  );
}
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: BASE, components: document.components as Json });

/** The request each call sent (method and path), to prove a case called its own operation. */
const sent: { method: string; path: string }[] = [];

let gateway: TestGateway;
let dispatcher: Dispatcher;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let context: Context;

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
  let secret = "";
  receiver = await startReceiver(() => secret);
  const account = await createTestAccount(gateway.db, { integrationUrl: receiver.url });
  secret = account.signingSecret ?? "";
  dispatcher = await startTestDispatcher(gateway);
  const client = createGatewayClient({
    baseUrl: gateway.apiUrl,
    apiKey: account.apiKey,
    fetch: (request) => {
      sent.push({ method: request.method, path: new URL(request.url).pathname });
      return fetch(request);
    },
  });
  const inboundMessageId = once(async () => {
    const answer = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: CONTACT,
      type: "text",
      text: "Oi!",
    });
    expect(answer.webhook_status).toBe(200);
    return answer.id;
  });
  const deliveredDeliveryId = once(async () => {
    await inboundMessageId();
    return eventually(async () => {
      for await (const delivery of iterateDeliveries(client, { status: "delivered" })) return delivery.id;
      throw new Error("nenhuma entrega entregue ainda");
    });
  });
  context = {
    client,
    gateway,
    account,
    inboundMessageId,
    deliveredDeliveryId,
    draftCampaign: once(() => newCampaign(client, "Rascunho")),
    openOrder: once(async () => {
      await inboundMessageId();
      const referenceId = `conformidade-${randomUUID()}`;
      await pixOrderSend(client, referenceId);
      return referenceId;
    }),
    integrationId: once(async () => {
      const integration = await gateway.db.integration.findFirstOrThrow({ where: { accountId: account.accountId } });
      return integration.id;
    }),
  };
});

afterAll(async () => {
  const queue = createCampaignQueue(gateway.redis, gateway.redisPrefix);
  await queue.obliterate({ force: true });
  await queue.close();
  await dispatcher.stop();
  await receiver.close();
  await gateway.close();
});

describe("every OpenAPI operation through @pt-gateway/client", () => {
  it("has a client-driven case for each operationId of the document, and none for an operation it lacks", () => {
    const ids = OPERATIONS.map((operation) => operation.operationId);
    expect({
      withoutCase: ids.filter((id) => !(id in CASES)),
      notInDocument: Object.keys(CASES).filter((id) => !ids.includes(id)),
    }).toEqual({ withoutCase: [], notInDocument: [] });
  });

  it.each(OPERATIONS.map((operation) => [operation.operationId, operation] as const))(
    "%s answers its documented status with a body valid against the document",
    async (operationId, operation) => {
      const testCase = CASES[operationId];
      if (!testCase) throw new Error(`sem caso para ${operationId}: acrescente-o em CASES`);
      sent.length = 0;
      const answer = await testCase.run(context);
      const body = answer.data ?? answer.error;
      expect({
        operationId,
        status: answer.response.status,
        body: answer.response.status === testCase.status ? null : body,
      }).toEqual({
        operationId,
        status: testCase.status,
        body: null,
      });
      const pattern = new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      expect(sent.some((r) => r.method === operation.method.toUpperCase() && pattern.test(r.path))).toBe(true);
      const content = (document.paths as Json)[operation.path] as Json;
      const responses = (content[operation.method] as Json).responses as Json;
      const media = ((responses[String(testCase.status)] as Json).content ?? {}) as Json;
      const json = media["application/json"];
      if (isJson(json)) {
        const validate = ajv.compile(absoluteRefs(json.schema) as Json);
        expect({ operationId, errors: validate(body) ? null : validate.errors }).toEqual({ operationId, errors: null });
      } else {
        expect(typeof body).toBe("string");
      }
    },
  );
});

describe("the client's pagination iterators", () => {
  it("walk every page of deliveries, campaigns and a campaign's recipients, following the cursors", async () => {
    const { client } = context;
    await context.deliveredDeliveryId();
    const everyDelivery: number[] = [];
    for await (const delivery of iterateDeliveries(client)) everyDelivery.push(delivery.id);
    const paged: number[] = [];
    for await (const delivery of iterateDeliveries(client, { limit: 1 })) paged.push(delivery.id);
    expect(everyDelivery.length).toBeGreaterThan(1);
    expect(paged).toEqual(everyDelivery);

    const campaigns: string[] = [];
    for await (const campaign of iterateCampaigns(client, { limit: 2 })) campaigns.push(campaign.id);
    const single = await client.GET("/public/v1/campaigns", { params: { query: { limit: 100 } } });
    expect(campaigns).toEqual(single.data?.data.campaigns.map((campaign) => campaign.id));
    expect(campaigns.length).toBeGreaterThan(2);

    const recipients: string[] = [];
    for await (const recipient of iterateCampaignRecipients(client, (await context.draftCampaign()).id, { limit: 1 }))
      recipients.push(recipient.to);
    expect(recipients).toEqual(ROWS.map((row) => row.to));
  });

  it("walk every page of the account's orders, newest first, following next_before_id", async () => {
    const { client } = context;
    await context.openOrder();
    await pixOrderSend(client, `paginacao-${randomUUID()}`);
    const orders: number[] = [];
    for await (const order of iterateOrders(client, { limit: 1 })) orders.push(order.id);
    const allOrders = await client.GET("/public/v1/orders", { params: { query: { limit: 200 } } });
    expect(orders).toEqual(allOrders.data?.data.orders.map((order) => order.id));
    expect(orders.length).toBeGreaterThan(1);
  });
});

/** Whether `body` is valid against what the document says `method path` answers with `status`. */
function validAgainstDocument(path: string, method: string, status: number, body: unknown) {
  const operation = ((document.paths as Json)[path] as Json)[method] as Json;
  const media = (((operation.responses as Json)[String(status)] as Json).content as Json)["application/json"] as Json;
  const validate = ajv.compile(absoluteRefs(media.schema) as Json);
  return validate(body) ? null : validate.errors;
}

describe("integrations over the API (issue 29, item 3)", () => {
  it("refuses the URLs the panel refuses (SSRF guard, scheme, userinfo, a URL taken) with 422 at body.url", async () => {
    const { client } = context;
    const taken = await apiIntegration(client, "tomada");
    const refused: [string, string][] = [
      ["https://127.0.0.1/webhooks", "address_refused"],
      ["https://169.254.169.254/latest/meta-data", "address_refused"],
      ["https://10.0.0.7/webhooks", "address_refused"],
      ["https://[::1]/webhooks", "address_refused"],
      ["https://[::ffff:127.0.0.1]/webhooks", "address_refused"],
      ["https://2130706433/webhooks", "address_refused"],
      ["https://localhost/webhooks", "address_refused"],
      ["https://api.localhost/webhooks", "address_refused"],
      ["http://loja.example.com.br/webhooks", "scheme"],
      ["ftp://loja.example.com.br/webhooks", "scheme"],
      ["https://usuario:senha@loja.example.com.br/webhooks", "userinfo"],
      ["não é uma url", "invalid_url"],
      [taken.url, "url_taken"],
    ];
    for (const [url, reason] of refused) {
      const { response, error } = await client.POST("/public/v1/integrations", {
        body: { url, events: ["message.status"] },
      });
      const detail = (error as { detail?: { loc: unknown[]; type: string; msg: string; ctx?: Json }[] }).detail;
      expect({ url, status: response.status, loc: detail?.[0]?.loc, reason: detail?.[0]?.ctx?.reason }).toEqual({
        url,
        status: 422,
        loc: ["body", "url"],
        reason,
      });
      expect(detail?.[0]?.msg).toMatch(/integração/);
      expect(validAgainstDocument("/public/v1/integrations", "post", 422, error)).toBeNull();
    }
    // An edit to a refused URL is refused the same way, and leaves the integration as it was.
    const { response, error } = await client.PATCH("/public/v1/integrations/{integration_id}", {
      params: { path: { integration_id: taken.id } },
      body: { url: "https://192.168.0.10/webhooks" },
    });
    expect(response.status).toBe(422);
    expect((error as { detail: { ctx: Json }[] }).detail[0]!.ctx).toEqual({ reason: "address_refused" });
    const { data } = await client.GET("/public/v1/integrations/{integration_id}", {
      params: { path: { integration_id: taken.id } },
    });
    expect(data?.data.url).toBe(taken.url);
    // Nothing refused was stored.
    const stored = await context.gateway.db.integration.findMany({ where: { accountId: context.account.accountId } });
    expect(stored.filter((row) => refused.slice(0, -1).some(([url]) => row.url === url))).toEqual([]);
  });

  it("shows the signing secret once, at creation and at rotation, and it is the secret stored to sign deliveries", async () => {
    const { client, gateway, account } = context;
    const created = await apiIntegration(client, "segredo");
    expect(created.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const reveal = async () =>
      (
        await revealIntegrationSecret(
          { db: gateway.db, secrets: testSecretBox() },
          { accountId: account.accountId, integrationId: created.id, actor: testActor },
        )
      )?.signing_secret;
    expect(await reveal()).toBe(created.signing_secret);

    const path = { integration_id: created.id };
    const got = await client.GET("/public/v1/integrations/{integration_id}", { params: { path } });
    const listed = await client.GET("/public/v1/integrations", { params: { query: { limit: 200 } } });
    const patched = await client.PATCH("/public/v1/integrations/{integration_id}", {
      params: { path },
      body: { events: ["message.received"], deliver_in_order: true },
    });
    const health = await client.GET("/public/v1/integrations/{integration_id}/health", { params: { path } });
    for (const answer of [got, listed, patched, health]) {
      expect(answer.response.status).toBe(200);
      expect(JSON.stringify(answer.data)).not.toContain(created.signing_secret);
      expect(JSON.stringify(answer.data)).not.toContain("signing_secret");
    }
    expect(patched.data?.data).toMatchObject({ events: ["message.received"], deliver_in_order: true, active: false });

    const rotated = await client.POST("/public/v1/integrations/{integration_id}/rotate-secret", { params: { path } });
    expect(rotated.response.status).toBe(200);
    const secret = rotated.data?.data.signing_secret ?? "";
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.signing_secret);
    expect(await reveal()).toBe(secret);
    // Without a body the overlap is the default 24 hours: the replaced secret still signs until then.
    const until = Date.parse(rotated.data?.data.previous_secret_expires_at ?? "");
    expect(until - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const again = await client.GET("/public/v1/integrations/{integration_id}", { params: { path } });
    expect(JSON.stringify(again.data)).not.toContain(secret);
  });

  it("shows payload_version in every view: 2 for a creation without it, 1 when asked, changed by PATCH; an existing integration keeps its own", async () => {
    const { gateway } = context;
    // An account of its own: the file's account is near its cap of integrations.
    const account = await createTestAccount(gateway.db);
    const client = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: account.apiKey });
    // Issue 38, item 2: a creation without the field gets 2 (an added default for a new resource).
    const defaulted = await apiIntegration(client, "versao-padrao");
    expect(defaulted.payload_version).toBe(2);
    const { data: one } = await client.POST("/public/v1/integrations", {
      body: {
        url: `https://versao-1-${randomUUID()}.example.com.br/webhooks`,
        events: ["message.received"],
        active: false,
        payload_version: 1,
      },
    });
    expect(one?.data.payload_version).toBe(1);
    const stored = async (id: string) =>
      (await gateway.db.integration.findUniqueOrThrow({ where: { id } })).payloadVersion;
    expect([await stored(defaulted.id), await stored(one?.data.id ?? "")]).toEqual([2, 1]);

    const path = { integration_id: defaulted.id };
    const got = await client.GET("/public/v1/integrations/{integration_id}", { params: { path } });
    const listed = await client.GET("/public/v1/integrations", { params: { query: { limit: 200 } } });
    const rotated = await client.POST("/public/v1/integrations/{integration_id}/rotate-secret", {
      params: { path },
      body: { overlap_hours: 0 },
    });
    expect([
      got.data?.data.payload_version,
      listed.data?.data.integrations.find((integration) => integration.id === defaulted.id)?.payload_version,
      listed.data?.data.integrations.find((integration) => integration.id === one?.data.id)?.payload_version,
      rotated.data?.data.payload_version,
    ]).toEqual([2, 2, 1, 2]);
    expect(validAgainstDocument("/public/v1/integrations", "get", 200, listed.data)).toBeNull();

    const back = await client.PATCH("/public/v1/integrations/{integration_id}", {
      params: { path },
      body: { payload_version: 1 },
    });
    expect(back.data?.data).toMatchObject({ payload_version: 1, events: ["message.status"], active: false });
    expect(await stored(defaulted.id)).toBe(1);
    const audit = await gateway.db.auditEntry.findFirst({
      where: { accountId: account.accountId, target: `integration:${defaulted.id}`, action: "api.integration.updated" },
    });
    expect(audit?.details).toMatchObject({ payload_version: 1 });
    const refused = await client.PATCH("/public/v1/integrations/{integration_id}", {
      params: { path },
      body: { payload_version: 3 as 2 },
    });
    expect(refused.response.status).toBe(422);
    expect((refused.error as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual(["body", "payload_version"]);
    expect(await stored(defaulted.id)).toBe(1);

    // One saved before (the panel, the CLI: version 1) keeps it when the API changes something else.
    const earlier = await seedIntegration(gateway.db, {
      accountId: account.accountId,
      url: `https://anterior-${randomUUID()}.example.com.br/webhooks`,
      events: ["message.status"],
    });
    const earlierPath = { integration_id: earlier.integrationId };
    expect(
      (await client.GET("/public/v1/integrations/{integration_id}", { params: { path: earlierPath } })).data?.data
        .payload_version,
    ).toBe(1);
    const paused = await client.PATCH("/public/v1/integrations/{integration_id}", {
      params: { path: earlierPath },
      body: { active: false },
    });
    expect(paused.data?.data).toMatchObject({ active: false, payload_version: 1 });
  });

  it("audits each change with the api. prefix in the key's name, and keeps other accounts' integrations out", async () => {
    const { client, gateway, account } = context;
    const created = await apiIntegration(client, "auditada");
    const path = { integration_id: created.id };
    await client.PATCH("/public/v1/integrations/{integration_id}", { params: { path }, body: { active: true } });
    await client.POST("/public/v1/integrations/{integration_id}/rotate-secret", {
      params: { path },
      body: { overlap_hours: 0 },
    });

    const stranger = await createTestAccount(gateway.db);
    const theirs = createGatewayClient({ baseUrl: gateway.apiUrl, apiKey: stranger.apiKey });
    expect((await theirs.GET("/public/v1/integrations/{integration_id}", { params: { path } })).response.status).toBe(
      404,
    );
    expect(
      (await theirs.PATCH("/public/v1/integrations/{integration_id}", { params: { path }, body: { active: false } }))
        .response.status,
    ).toBe(404);
    expect(
      (await theirs.POST("/public/v1/integrations/{integration_id}/rotate-secret", { params: { path } })).response
        .status,
    ).toBe(404);
    expect(
      (await theirs.DELETE("/public/v1/integrations/{integration_id}", { params: { path } })).response.status,
    ).toBe(404);
    const theirList = await theirs.GET("/public/v1/integrations");
    expect(theirList.data?.data.integrations).toEqual([]);

    const deleted = await client.DELETE("/public/v1/integrations/{integration_id}", { params: { path } });
    expect(deleted.data?.data).toEqual({ id: created.id, deleted: true, deliveries_removed: 0 });
    expect(await gateway.db.integration.findUnique({ where: { id: created.id } })).toBeNull();
    expect((await client.GET("/public/v1/integrations/{integration_id}", { params: { path } })).response.status).toBe(
      404,
    );

    const audit = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, target: `integration:${created.id}` },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["api.integration.saved", `api_key:${account.keyId}`],
      ["api.integration.updated", `api_key:${account.keyId}`],
      ["api.integration.secret_rotated", `api_key:${account.keyId}`],
      ["api.integration.deleted", `api_key:${account.keyId}`],
    ]);
    expect(audit.every((entry) => !JSON.stringify(entry.details).includes("whsec_"))).toBe(true);
  });

  it("takes `until` as now when the delivery export and the replay leave it out", async () => {
    const { client } = context;
    await context.deliveredDeliveryId();
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const exported = await client.GET("/public/v1/deliveries/export", {
      params: { query: { since } },
      parseAs: "text",
    });
    expect(exported.response.status).toBe(200);
    expect(String(exported.data).split("\r\n").filter(Boolean).length).toBeGreaterThan(1);
    const before = Date.now();
    const replayed = await client.POST("/public/v1/deliveries/replay", { body: { since, status: "failed" } });
    const after = Date.now();
    expect(replayed.response.status).toBe(202);
    const until = Date.parse(replayed.data?.data.until ?? "");
    expect(until).toBeGreaterThanOrEqual(before);
    expect(until).toBeLessThanOrEqual(after);
  });
});
