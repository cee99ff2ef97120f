import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createApiKey, revokeApiKey } from "@gw/core/accounts";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { eventually, testActor } from "@gw/testkit";
import { sandboxControl } from "./support/sandbox-control.ts";

// Each error code of spec section 7 for the send endpoint, produced through HTTP: status, code and a
// Portuguese sentence.
const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;

function expectError(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  expect(res.body.error.message).toMatch(PORTUGUESE);
}

const pixOrder = {
  reference_id: "pedido-1",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  items: [{ name: "Bolo", amount: 5000 }],
};

describe("POST /public/v1/messages error codes", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const send = (body: Record<string, unknown>, acc: TestAccount = account) =>
    request(gateway.app).post("/public/v1/messages").set(acc.auth).send(body);

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000" },
      sandbox: { unreachable: ["5511900000001"] },
    });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  describe("401 invalid_api_key", () => {
    it.each([
      ["missing", undefined],
      ["malformed", "Token abc"],
      ["unknown", "Bearer pt_live_" + "x".repeat(43)],
      ["not our prefix", "Bearer sk_live_abc"],
    ])("%s key", async (_name, header) => {
      const req = request(gateway.app).post("/public/v1/messages");
      if (header) req.set("Authorization", header);
      expectError(await req.send({ to: "11987654321", text: "oi" }), 401, "invalid_api_key");
    });

    it("revoked key", async () => {
      const key = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
      const ok = await request(gateway.app)
        .post("/public/v1/validate")
        .set("Authorization", `Bearer ${key.key}`)
        .send({ to: "11987654321" });
      expect(ok.status).toBe(200);
      await revokeApiKey({ db: gateway.db }, { actor: testActor, keyId: key.id });
      // The key is in this pod's cache (API_KEY_CACHE_TTL_MS is 5 s); the revocation reaches it through PostgreSQL's
      // NOTIFY at commit, a few milliseconds later, well before the TTL would expire it.
      const revoked = await eventually(
        async () => {
          const res = await request(gateway.app)
            .post("/public/v1/validate")
            .set("Authorization", `Bearer ${key.key}`)
            .send({ to: "11987654321" });
          return res.status === 401 ? res : undefined;
        },
        { timeoutMs: 1_000, intervalMs: 20 },
      );
      expectError(revoked, 401, "invalid_api_key");
    });
  });

  it("400 empty_message, pix_needs_template, invalid_recipient", async () => {
    expectError(await send({ to: "11987654321" }), 400, "empty_message");
    expectError(await send({ to: "11987654321", text: "" }), 400, "empty_message");
    expectError(await send({ to: "11987654321", text: "oi", pix_order: pixOrder }), 400, "pix_needs_template");
    expectError(await send({ to: "12345", text: "oi" }), 400, "invalid_recipient");
    expectError(await send({ to: "(11) 8765-4321", text: "oi" }), 400, "invalid_recipient");
  });

  it("400 no_connected_number for a number of another account or an account without numbers", async () => {
    const other = await createTestAccount(gateway.db);
    expectError(
      await send({ to: "11987654321", text: "oi", phone_number_id: other.phoneNumberId }),
      400,
      "no_connected_number",
    );
  });

  it("422 outside_24h_window without calling the provider, then accepted once the contact writes", async () => {
    const before = (await sandboxControl.requests(gateway)).length;
    expectError(await send({ to: "11987650001", text: "oi" }), 422, "outside_24h_window");
    expect((await sandboxControl.requests(gateway)).length).toBe(before);

    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511987650001",
      type: "text",
      text: "olá",
    });
    const ok = await send({ to: "11987650001", text: "oi" });
    expect(ok.status).toBe(200);
  });

  it("422 recipient_unreachable from the provider's 131026", async () => {
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511900000001",
      type: "text",
      text: "olá",
    });
    expectError(await send({ to: "5511900000001", text: "oi" }), 422, "recipient_unreachable");
  });

  it.each([
    ["template_not_found: unknown name", { template: "nao_existe" }, "template_not_found"],
    [
      "template_not_found: wrong language",
      { template: "cupom_desconto", language: "es_ES", variables: ["A", "B"], coupon_code: "A" },
      "template_not_found",
    ],
    ["template_paused", { template: "aviso_promocao", variables: ["Maria"] }, "template_paused"],
    ["invalid_template: pending", { template: "novidades_semana", variables: ["Maria"] }, "invalid_template"],
    ["invalid_template: rejected", { template: "oferta_relampago", variables: ["a", "b"] }, "invalid_template"],
    [
      "template_params_mismatch",
      { template: "rastreio_pedido", variables: [], button_url_param: "X" },
      "template_params_mismatch",
    ],
    [
      "template_required_header_media",
      { template: "promo_imagem", variables: ["Maria"] },
      "template_required_header_media",
    ],
    [
      "template_header_mismatch",
      {
        template: "promo_imagem",
        variables: ["Maria"],
        header_media: { type: "document", link: "https://exemplo.com/a.pdf" },
      },
      "template_header_mismatch",
    ],
    ["template_format_unsupported", { template: "vitrine_carrossel" }, "template_format_unsupported"],
    ["invalid_otp", { template: "codigo_verificacao" }, "invalid_otp"],
    [
      "invalid_pix_order: pix on a template without order details",
      { template: "cupom_desconto", variables: ["A", "B"], coupon_code: "A", pix_order: pixOrder },
      "invalid_pix_order",
    ],
    [
      "invalid_pix_order: order-details template without pix_order",
      { template: "cobranca_pix", variables: ["Maria", "1"] },
      "invalid_pix_order",
    ],
    [
      "variable_too_long",
      { template: "rastreio_pedido", variables: ["x".repeat(1100)], button_url_param: "X" },
      "variable_too_long",
    ],
    [
      "variable_bad_format",
      { template: "rastreio_pedido", variables: ["linha 1\nlinha 2"], button_url_param: "X" },
      "variable_bad_format",
    ],
  ])("422 %s", async (_name, body, code) => {
    expectError(await send({ to: "11987654321", ...body }), 422, code);
  });

  it.each([
    [130472, "marketing_experiment"],
    [131049, "delivery_limited"],
    [131048, "account_restricted"],
    [131042, "payment_issue"],
    [131031, "account_restricted"],
    [368, "account_restricted"],
  ])("422 from the provider's %i: %s", async (metaCode, code) => {
    await sandboxControl.fault(gateway, { mode: "error", code: metaCode, count: 1, route: "messages" });
    expectError(await send({ to: "11987654321", template: "hello_world", language: "en_US" }), 422, code);
  });

  it("429 rate_limited from the provider's pair rate limit 131056", async () => {
    await sandboxControl.fault(gateway, { mode: "error", code: 131056, count: 1, route: "messages" });
    const res = await send({ to: "11987654321", template: "hello_world", language: "en_US" });
    expectError(res, 429, "rate_limited");
    expect(res.headers["retry-after"]).toBe("30");
  });

  it("503 templates_unavailable when the catalogue cannot be read, repeatable with the same key", async () => {
    const fresh = await createTestAccount(gateway.db);
    await sandboxControl.fault(gateway, { mode: "500", count: 1, route: "templates" });
    const first = await request(gateway.app)
      .post("/public/v1/messages")
      .set(fresh.auth)
      .set("Idempotency-Key", "tpl-1")
      .send({ to: "11987654321", template: "hello_world", language: "en_US" });
    expectError(first, 503, "templates_unavailable");
    const again = await request(gateway.app)
      .post("/public/v1/messages")
      .set(fresh.auth)
      .set("Idempotency-Key", "tpl-1")
      .send({ to: "11987654321", template: "hello_world", language: "en_US" });
    expect(again.status).toBe(200);
  });
});

describe("429 rate limits", () => {
  let gateway: TestGateway;
  afterAll(async () => {
    await gateway.close();
  });

  it("api_rate_limited with Retry-After once a key exceeds its budget, shared through Redis", async () => {
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "3", API_RATE_LIMIT_WINDOW_SECONDS: "60" },
      sandbox: { rateLimitPerSecond: 1 },
    });
    const account = await createTestAccount(gateway.db);
    for (let i = 0; i < 3; i++)
      expect(
        (await request(gateway.app).post("/public/v1/validate").set(account.auth).send({ to: "11987654321" })).status,
      ).toBe(200);
    const limited = await request(gateway.app)
      .post("/public/v1/validate")
      .set(account.auth)
      .send({ to: "11987654321" });
    expectError(limited, 429, "api_rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Another key of the same account has its own budget.
    const other = await createTestAccount(gateway.db);
    expect(
      (await request(gateway.app).post("/public/v1/validate").set(other.auth).send({ to: "11987654321" })).status,
    ).toBe(200);
  });

  it("rate_limited with Retry-After when the provider throttles (130429)", async () => {
    const account = await createTestAccount(gateway.db);
    const body = { to: "11987654321", template: "hello_world", language: "en_US" };
    // Validation calls above used the API budget of another key; this one has 3 requests.
    const first = await request(gateway.app).post("/public/v1/messages").set(account.auth).send(body);
    expect(first.status).toBe(200);
    const second = await request(gateway.app).post("/public/v1/messages").set(account.auth).send(body);
    expectError(second, 429, "rate_limited");
    expect(second.headers["retry-after"]).toBe("30");
  });
});
