import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Dispatcher } from "@gw/dispatcher";
import { createCampaignQueue } from "@gw/jobs";
import { eventually } from "@gw/testkit";
import {
  createGatewayClient,
  iterateCampaignRecipients,
  iterateCampaigns,
  iterateDeliveries,
  uploadMedia,
  type components,
  type GatewayClient,
} from "@pt-gateway/client";
import { documentOperations } from "../../../packages/client/src/generate.ts";
import { buildOpenApiDocument } from "../src/openapi.ts";
import {
  contactWrites,
  createTestAccount,
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

/** One entry per operationId of the document (in its order). */
const CASES: Record<string, Case> = {
  sendMessage: {
    status: 200,
    run: ({ client }) => client.POST("/public/v1/messages", { body: { to: CONTACT, ...TEMPLATE_SEND } }),
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
});
