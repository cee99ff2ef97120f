// Issue 35, item 1: API key scopes. Every public operation requires one scope, which the OpenAPI document states
// (`x-required-scope`, the security requirement's scopes, a sentence of the description); a key without it gets 403
// `insufficient_scope` naming the scope, before its request is read or validated; a key with only that scope gets
// past the check; a key made without scopes (every key before this release) holds them all.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { API_KEY_SCOPES, createApiKey, type ApiKeyScope } from "@gw/core/accounts";
import { testActor } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { buildOpenApiDocument } from "../src/openapi.ts";

/** The scope of each operation, written out here so that a route that changes its scope fails this test. */
const EXPECTED: Record<string, ApiKeyScope> = {
  sendMessage: "messages:send",
  markMessageRead: "messages:send",
  createCampaign: "messages:send",
  startCampaign: "messages:send",
  pauseCampaign: "messages:send",
  resumeCampaign: "messages:send",
  cancelCampaign: "messages:send",
  validatePhone: "messages:read",
  getWindow: "messages:read",
  getConversation: "messages:read",
  controlConversationThread: "messages:send",
  handOverConversation: "messages:send",
  getMessage: "messages:read",
  listNumbers: "messages:read",
  updateNumber: "messages:send",
  listTemplates: "messages:read",
  getMedia: "messages:read",
  listDeliveries: "messages:read",
  getDelivery: "messages:read",
  exportDeliveries: "messages:read",
  listCampaigns: "messages:read",
  getCampaign: "messages:read",
  listCampaignRecipients: "messages:read",
  exportCampaignRecipients: "messages:read",
  listOrders: "orders:write",
  getOrder: "orders:write",
  updateOrderStatus: "orders:write",
  uploadMedia: "media:write",
  listIntegrations: "integrations:manage",
  createIntegration: "integrations:manage",
  getIntegration: "integrations:manage",
  updateIntegration: "integrations:manage",
  deleteIntegration: "integrations:manage",
  rotateIntegrationSecret: "integrations:manage",
  getIntegrationHealth: "integrations:manage",
  enableIntegration: "integrations:manage",
  retryDelivery: "integrations:manage",
  retryFailedDeliveries: "integrations:manage",
  replayDeliveries: "integrations:manage",
  getDeliveryReplay: "integrations:manage",
  listEventTypes: "integrations:manage",
  getUsage: "usage:read",
};

interface Operation {
  operationId: string;
  method: "get" | "post" | "patch" | "delete";
  path: string;
  op: Record<string, unknown>;
}

function documentedOperations(): Operation[] {
  const paths = (buildOpenApiDocument().paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    (["get", "post", "patch", "delete"] as const).flatMap((method) => {
      const op = item[method];
      return op ? [{ operationId: String(op.operationId), method, path, op }] : [];
    }),
  );
}

/** A request path for the document's path: each parameter a well-formed value no row has. */
const concrete = (path: string) =>
  path
    .replace("{to}", "5511987654321")
    .replace("{message_id}", "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBGNzk5")
    .replace("{reference_id}", "pedido-inexistente")
    .replace(/\{[a-z_]+\}/g, "0b8c4d9a-7e63-4f1e-9a3c-2b5f6d7e8a90");

const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;

describe("API key scopes", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  /** Per scope: a key with every other scope, and a key with only that one. */
  const without = new Map<ApiKeyScope, string>();
  const only = new Map<ApiKeyScope, string>();

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
    for (const scope of API_KEY_SCOPES) {
      const others = API_KEY_SCOPES.filter((other) => other !== scope);
      const lacking = await createApiKey(
        { db: gateway.db },
        { actor: testActor, accountId: account.accountId, scopes: others },
      );
      const single = await createApiKey(
        { db: gateway.db },
        { actor: testActor, accountId: account.accountId, scopes: [scope] },
      );
      without.set(scope, lacking.key);
      only.set(scope, single.key);
    }
  });
  afterAll(async () => {
    await gateway.close();
  });

  const call = (operation: Operation, key: string) => {
    const req = request(gateway.app)[operation.method](concrete(operation.path)).set("Authorization", `Bearer ${key}`);
    return operation.method === "post" || operation.method === "patch" ? req.send({}) : req;
  };

  it("the document states each operation's scope: x-required-scope, the security requirement and the description", () => {
    const operations = documentedOperations();
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const { operationId, op } of operations) {
      const scope = EXPECTED[operationId];
      expect({ operationId, scope: op["x-required-scope"], security: op.security }).toEqual({
        operationId,
        scope,
        security: [{ ChaveDeApi: [scope] }],
      });
      expect({ operationId, mentions: String(op.description).includes(`\`${scope}\``) }).toEqual({
        operationId,
        mentions: true,
      });
      const responses = op.responses as Record<string, { description: string }>;
      expect({ operationId, forbidden: responses["403"]?.description }).toEqual({
        operationId,
        forbidden: expect.stringContaining("`insufficient_scope`"),
      });
    }
  });

  it.each(Object.entries(EXPECTED))(
    "%s: a key without %s gets 403 insufficient_scope naming it; a key with only that scope, or made without scopes, gets past the check",
    async (operationId, scope) => {
      const operation = documentedOperations().find((candidate) => candidate.operationId === operationId);
      if (!operation) throw new Error(`${operationId} is not documented`);

      const refused = await call(operation, without.get(scope)!);
      expect({ operationId, status: refused.status }).toEqual({ operationId, status: 403 });
      const body = refused.body as { success: boolean; error: { code: string; message: string } };
      expect(Object.keys(body).sort()).toEqual(["error", "success"]);
      expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
      expect(body).toMatchObject({ success: false, error: { code: "insufficient_scope" } });
      expect(body.error.message).toContain(scope);
      expect(body.error.message).toMatch(PORTUGUESE);

      const allowed = await call(operation, only.get(scope)!);
      expect({ operationId, status: allowed.status, passed: ![401, 403].includes(allowed.status) }).toEqual({
        operationId,
        status: allowed.status,
        passed: true,
      });
      // A key created without scopes (every key made before scopes) holds them all.
      const legacy = await call(operation, account.apiKey);
      expect({ operationId, status: legacy.status, passed: ![401, 403].includes(legacy.status) }).toEqual({
        operationId,
        status: legacy.status,
        passed: true,
      });
    },
  );

  it("checks the scope after the key (401 first) and before reading the request (403, not 400, 404 or 422)", async () => {
    const lacking = without.get("integrations:manage")!;
    const malformed = await request(gateway.app)
      .post("/public/v1/integrations")
      .set("Authorization", `Bearer ${lacking}`)
      .set("Content-Type", "application/json")
      .send("{not json");
    expect(malformed.status).toBe(403);
    const unknown = await request(gateway.app)
      .delete("/public/v1/integrations/not-a-uuid")
      .set("Authorization", `Bearer ${lacking}`);
    expect(unknown.status).toBe(403);
    const unauthenticated = await request(gateway.app).post("/public/v1/integrations").send({});
    expect(unauthenticated.status).toBe(401);
    // An unknown route is still 404 for any valid key.
    const notARoute = await request(gateway.app)
      .get("/public/v1/nada-aqui")
      .set("Authorization", `Bearer ${only.get("usage:read")!}`);
    expect(notARoute.status).toBe(404);
  });

  it("a checkout plugin's key (messages:send, orders:write) cannot register, repoint, rotate or delete an integration", async () => {
    const plugin = await createApiKey(
      { db: gateway.db },
      { actor: testActor, accountId: account.accountId, scopes: ["messages:send", "orders:write"] },
    );
    const auth = { Authorization: `Bearer ${plugin.key}` };
    const created = await request(gateway.app)
      .post("/public/v1/integrations")
      .set(account.auth)
      .send({ url: "https://loja-escopos.example.com.br/webhooks", events: ["message.received"] });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    const before = await gateway.db.integration.findUniqueOrThrow({ where: { id } });

    const attempts = await Promise.all([
      request(gateway.app)
        .post("/public/v1/integrations")
        .set(auth)
        .send({ url: "https://atacante.example.com/webhooks", events: ["message.received"] }),
      request(gateway.app)
        .patch(`/public/v1/integrations/${id}`)
        .set(auth)
        .send({ url: "https://atacante.example.com/webhooks" }),
      request(gateway.app).post(`/public/v1/integrations/${id}/rotate-secret`).set(auth).send({ overlap_hours: 0 }),
      request(gateway.app).delete(`/public/v1/integrations/${id}`).set(auth),
    ]);
    expect(attempts.map((answer) => [answer.status, (answer.body as { error: { code: string } }).error.code])).toEqual(
      Array.from({ length: 4 }, () => [403, "insufficient_scope"]),
    );
    const after = await gateway.db.integration.findUniqueOrThrow({ where: { id } });
    expect(after).toEqual(before);
    expect(await gateway.db.integration.count({ where: { accountId: account.accountId } })).toBe(1);
  });
});
