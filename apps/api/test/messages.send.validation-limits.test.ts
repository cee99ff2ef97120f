import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Every limit of spec section 8 on the send body: the boundary value is accepted by validation, one past it
// is a 422 HTTPValidationError whose loc names the field. "Accepted" means no `detail`: the request may still
// be refused by a business rule (window closed, unknown template), which is not validation.
const base = { to: "+5511987654321", text: "oi" };
const pix = (over: Record<string, unknown> = {}) => ({
  reference_id: "r1",
  pix_code: "0".repeat(20),
  merchant_name: "Loja",
  key: "39580525000189",
  items: [{ name: "Bolo", amount: 100 }],
  ...over,
});

type Case = [
  name: string,
  ok: Record<string, unknown>,
  bad: Record<string, unknown>,
  loc: (string | number)[],
  type: string,
];
const cases: Case[] = [
  ["to max 32", { to: "1".repeat(32) }, { to: "1".repeat(33) }, ["body", "to"], "string_too_long"],
  ["to min 1", { to: "1" }, { to: "" }, ["body", "to"], "string_too_short"],
  ["text max 4096", { text: "a".repeat(4096) }, { text: "a".repeat(4097) }, ["body", "text"], "string_too_long"],
  [
    "template max 255",
    { template: "t".repeat(255) },
    { template: "t".repeat(256) },
    ["body", "template"],
    "string_too_long",
  ],
  [
    "language max 16",
    { language: "l".repeat(16) },
    { language: "l".repeat(17) },
    ["body", "language"],
    "string_too_long",
  ],
  [
    "variables max 20",
    { template: "x", variables: Array(20).fill("v") },
    { template: "x", variables: Array(21).fill("v") },
    ["body", "variables"],
    "too_long",
  ],
  [
    "variable_names max 20",
    { template: "x", variable_names: Array(20).fill("v") },
    { template: "x", variable_names: Array(21).fill("v") },
    ["body", "variable_names"],
    "too_long",
  ],
  [
    "header_text max 200",
    { header_text: "h".repeat(200) },
    { header_text: "h".repeat(201) },
    ["body", "header_text"],
    "string_too_long",
  ],
  [
    "button_url_param max 200",
    { button_url_param: "b".repeat(200) },
    { button_url_param: "b".repeat(201) },
    ["body", "button_url_param"],
    "string_too_long",
  ],
  [
    "coupon_code max 15",
    { coupon_code: "c".repeat(15) },
    { coupon_code: "c".repeat(16) },
    ["body", "coupon_code"],
    "string_too_long",
  ],
  [
    "otp_code max 15",
    { otp_code: "1".repeat(15) },
    { otp_code: "1".repeat(16) },
    ["body", "otp_code"],
    "string_too_long",
  ],
  [
    "button_url_index max 9",
    { button_url_index: 9 },
    { button_url_index: 10 },
    ["body", "button_url_index"],
    "less_than_equal",
  ],
  [
    "button_url_index min 0",
    { button_url_index: 0 },
    { button_url_index: -1 },
    ["body", "button_url_index"],
    "greater_than_equal",
  ],
  ["coupon_index max 9", { coupon_index: 9 }, { coupon_index: 10 }, ["body", "coupon_index"], "less_than_equal"],
  ["otp_index max 9", { otp_index: 9 }, { otp_index: 10 }, ["body", "otp_index"], "less_than_equal"],
  [
    "reply_to_message_id max 128",
    { reply_to_message_id: "r".repeat(128) },
    { reply_to_message_id: "r".repeat(129) },
    ["body", "reply_to_message_id"],
    "string_too_long",
  ],
  [
    "client_ref max 64",
    { client_ref: "c".repeat(64) },
    { client_ref: "c".repeat(65) },
    ["body", "client_ref"],
    "string_too_long",
  ],
  [
    "phone_number_id max 64",
    { phone_number_id: "9".repeat(64) },
    { phone_number_id: "9".repeat(65) },
    ["body", "phone_number_id"],
    "string_too_long",
  ],
  [
    "header_media.link min 8",
    { header_media: { link: "http://a" } },
    { header_media: { link: "http://" } },
    ["body", "header_media", "link"],
    "string_too_short",
  ],
  [
    "header_media.link http(s) only",
    { header_media: { link: "HTTPS://a.b/c" } },
    { header_media: { link: "ftp://a.b/c.pdf" } },
    ["body", "header_media", "link"],
    "string_pattern_mismatch",
  ],
  [
    "header_media.link max 2048",
    { header_media: { link: "https://a/" + "x".repeat(2038) } },
    { header_media: { link: "https://a/" + "x".repeat(2039) } },
    ["body", "header_media", "link"],
    "string_too_long",
  ],
  [
    "header_media.filename max 200",
    { header_media: { link: "https://a.b/c", filename: "f".repeat(200) } },
    { header_media: { link: "https://a.b/c", filename: "f".repeat(201) } },
    ["body", "header_media", "filename"],
    "string_too_long",
  ],
  [
    "header_media.type max 16",
    { header_media: { link: "https://a.b/c", type: "t".repeat(16) } },
    { header_media: { link: "https://a.b/c", type: "t".repeat(17) } },
    ["body", "header_media", "type"],
    "string_too_long",
  ],
  [
    "pix items max 30",
    { template: "x", pix_order: pix({ items: Array(30).fill({ name: "i", amount: 1 }) }) },
    { template: "x", pix_order: pix({ items: Array(31).fill({ name: "i", amount: 1 }) }) },
    ["body", "pix_order", "items"],
    "too_long",
  ],
  [
    "pix items min 1",
    { template: "x", pix_order: pix() },
    { template: "x", pix_order: pix({ items: [] }) },
    ["body", "pix_order", "items"],
    "too_short",
  ],
  [
    "pix quantity max 1000",
    { template: "x", pix_order: pix({ items: [{ name: "i", amount: 1, quantity: 1000 }] }) },
    { template: "x", pix_order: pix({ items: [{ name: "i", amount: 1, quantity: 1001 }] }) },
    ["body", "pix_order", "items", 0, "quantity"],
    "less_than_equal",
  ],
  [
    "pix quantity min 1",
    { template: "x", pix_order: pix({ items: [{ name: "i", amount: 1, quantity: 1 }] }) },
    { template: "x", pix_order: pix({ items: [{ name: "i", amount: 1, quantity: 0 }] }) },
    ["body", "pix_order", "items", 0, "quantity"],
    "greater_than_equal",
  ],
  [
    "pix item name max 60",
    { template: "x", pix_order: pix({ items: [{ name: "n".repeat(60), amount: 1 }] }) },
    { template: "x", pix_order: pix({ items: [{ name: "n".repeat(61), amount: 1 }] }) },
    ["body", "pix_order", "items", 0, "name"],
    "string_too_long",
  ],
  [
    "pix item amount min 0",
    { template: "x", pix_order: pix({ items: [{ name: "n", amount: 0 }] }) },
    { template: "x", pix_order: pix({ items: [{ name: "n", amount: -1 }] }) },
    ["body", "pix_order", "items", 0, "amount"],
    "greater_than_equal",
  ],
  [
    "pix reference_id max 64",
    { template: "x", pix_order: pix({ reference_id: "r".repeat(64) }) },
    { template: "x", pix_order: pix({ reference_id: "r".repeat(65) }) },
    ["body", "pix_order", "reference_id"],
    "string_too_long",
  ],
  [
    "pix pix_code min 20",
    { template: "x", pix_order: pix({ pix_code: "0".repeat(20) }) },
    { template: "x", pix_order: pix({ pix_code: "0".repeat(19) }) },
    ["body", "pix_order", "pix_code"],
    "string_too_short",
  ],
  [
    "pix pix_code max 1024",
    { template: "x", pix_order: pix({ pix_code: "0".repeat(1024) }) },
    { template: "x", pix_order: pix({ pix_code: "0".repeat(1025) }) },
    ["body", "pix_order", "pix_code"],
    "string_too_long",
  ],
  [
    "pix merchant_name max 120",
    { template: "x", pix_order: pix({ merchant_name: "m".repeat(120) }) },
    { template: "x", pix_order: pix({ merchant_name: "m".repeat(121) }) },
    ["body", "pix_order", "merchant_name"],
    "string_too_long",
  ],
  [
    "pix key max 120",
    { template: "x", pix_order: pix({ key: "k".repeat(120) }) },
    { template: "x", pix_order: pix({ key: "k".repeat(121) }) },
    ["body", "pix_order", "key"],
    "string_too_long",
  ],
  [
    "pix key_type enum",
    { template: "x", pix_order: pix({ key_type: "EVP" }) },
    { template: "x", pix_order: pix({ key_type: "IBAN" }) },
    ["body", "pix_order", "key_type"],
    "enum",
  ],
  [
    "pix tax min 0",
    { template: "x", pix_order: pix({ tax: 0 }) },
    { template: "x", pix_order: pix({ tax: -1 }) },
    ["body", "pix_order", "tax"],
    "greater_than_equal",
  ],
  [
    "pix total_amount min 0",
    { template: "x", pix_order: pix({ total_amount: 0 }) },
    { template: "x", pix_order: pix({ total_amount: -1 }) },
    ["body", "pix_order", "total_amount"],
    "greater_than_equal",
  ],
  [
    "pix goods_type enum",
    { template: "x", pix_order: pix({ goods_type: "physical-goods" }) },
    { template: "x", pix_order: pix({ goods_type: "services" }) },
    ["body", "pix_order", "goods_type"],
    "enum",
  ],
];

describe("POST /public/v1/messages field limits (spec 8)", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each(cases)("%s", async (_name, ok, bad, loc, type) => {
    const accepted = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ ...base, ...ok });
    expect(accepted.body.detail).toBeUndefined();

    const refused = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ ...base, ...bad });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, type, msg: expect.any(String) })]),
    );
  });

  it("Idempotency-Key: 64 characters accepted, 65 refused with loc header", async () => {
    const accepted = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Idempotency-Key", "k".repeat(64))
      .send(base);
    expect(accepted.body.detail).toBeUndefined();
    const refused = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Idempotency-Key", "k".repeat(65))
      .send(base);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({
      loc: ["header", "idempotency-key"],
      type: "string_too_long",
      ctx: { max_length: 64 },
    });
  });

  it("a missing `to` is `missing`; unknown fields are ignored; malformed JSON is 422 json_invalid, not 500", async () => {
    const missing = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ text: "oi", unknown_field: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ["body", "to"], msg: "Campo obrigatório.", type: "missing" }]);

    const malformed = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Content-Type", "application/json")
      .send('{"to": "1",');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });

    const notObject = await request(gateway.app).post("/public/v1/messages").set(account.auth).send([1, 2]);
    expect(notObject.status).toBe(422);
    expect(notObject.body.detail[0]).toMatchObject({ loc: ["body"], type: "model_attributes_type" });
  });

  it("validate: to 1..32 and country max 2", async () => {
    const ok = await request(gateway.app)
      .post("/public/v1/validate")
      .set(account.auth)
      .send({ to: "1".repeat(32), country: "BR" });
    expect(ok.status).toBe(200);
    const longTo = await request(gateway.app)
      .post("/public/v1/validate")
      .set(account.auth)
      .send({ to: "1".repeat(33) });
    expect(longTo.body.detail[0]).toMatchObject({ loc: ["body", "to"], type: "string_too_long" });
    const longCountry = await request(gateway.app)
      .post("/public/v1/validate")
      .set(account.auth)
      .send({ to: "11987654321", country: "BRA" });
    expect(longCountry.body.detail[0]).toMatchObject({ loc: ["body", "country"], type: "string_too_long" });
  });

  it("deliveries: limit default 50, maximum 200, unknown status refused with loc query", async () => {
    const ok = await request(gateway.app).get("/public/v1/deliveries?limit=200").set(account.auth);
    expect(ok.status).toBe(200);
    const over = await request(gateway.app).get("/public/v1/deliveries?limit=201").set(account.auth);
    expect(over.status).toBe(422);
    expect(over.body.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "less_than_equal", ctx: { le: 200 } });
    const notInt = await request(gateway.app).get("/public/v1/deliveries?limit=abc").set(account.auth);
    expect(notInt.body.detail[0]).toMatchObject({ loc: ["query", "limit"], type: "int_parsing" });
    const status = await request(gateway.app).get("/public/v1/deliveries?status=lost").set(account.auth);
    expect(status.status).toBe(422);
    expect(status.body.detail[0]).toMatchObject({ loc: ["query", "status"], type: "enum" });
  });
});
