import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// PostgreSQL text cannot hold U+0000. A NUL in an id made its lookup fail (500 internal_error), and one in
// `client_ref` failed the commit of a send the provider had already accepted: answered 200, journaled, never
// recorded, its Idempotency-Key in flight for ever. A lone surrogate (JSON's "\ud800") is stored as U+FFFD, so
// the client_ref of later events differed from the one sent. Both are refused before anything runs.
// Found by fuzz.endpoints.test.ts.

const NUL_REFUSAL = { msg: "O texto não pode conter o caractere nulo (U+0000).", type: "value_error" };
const SURROGATE_REFUSAL = {
  msg: "O texto contém um caractere Unicode inválido (metade de um par substituto).",
  type: "value_error",
};
const CONTACT = "5511987650301";
const PIX_ORDER = {
  reference_id: "pedido-1",
  pix_code: "00020101021226700014br.gov.bcb.pix2548pix",
  merchant_name: "Loja Exemplo",
  key: "39580525000189",
  items: [{ name: "Bolo", amount: 5000 }],
};

describe("a NUL or a lone surrogate in any input is a 422 at its place, before anything runs", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway();
    account = await createTestAccount(gateway.db);
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: CONTACT, type: "text", text: "oi" });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each([
    ["/public/v1/window/%00", ["path", "to"], "\u0000"],
    ["/public/v1/window/11987654321?phone_number_id=1%00", ["query", "phone_number_id"], "1\u0000"],
    ["/public/v1/templates?phone_number_id=%002", ["query", "phone_number_id"], "\u00002"],
  ])("GET %s", async (path, loc, input) => {
    const res = await request(gateway.app).get(path).set(account.auth);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: { detail: [{ loc, input, ...NUL_REFUSAL }] },
    });
  });

  it.each([
    ["/public/v1/validate", { to: "11987654321\u0000" }, ["body", "to"], NUL_REFUSAL],
    ["/public/v1/validate", { to: "11987654321", country: "\udfff" }, ["body", "country"], SURROGATE_REFUSAL],
    [
      "/public/v1/messages",
      { to: CONTACT, text: "oi", phone_number_id: "102290129340398\u0000" },
      ["body", "phone_number_id"],
      NUL_REFUSAL,
    ],
    [
      "/public/v1/messages",
      { to: CONTACT, template: "cobranca_pix", pix_order: { ...PIX_ORDER, reference_id: "pedido\u00001" } },
      ["body", "pix_order", "reference_id"],
      NUL_REFUSAL,
    ],
    [
      "/public/v1/messages",
      { to: CONTACT, text: "oi", client_ref: "pedido\ud8001" },
      ["body", "client_ref"],
      SURROGATE_REFUSAL,
    ],
    ["/public/v1/messages", { to: CONTACT, text: "oi \udc00" }, ["body", "text"], SURROGATE_REFUSAL],
  ])("POST %s %j", async (path, body, loc, refusal) => {
    const res = await request(gateway.app).post(path).set(account.auth).send(body);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: { detail: [{ loc, input: expect.any(String), ...refusal }] },
    });
  });

  it("a send with a NUL in client_ref reaches neither the provider nor the key; without it, the same key sends", async () => {
    const sentBefore = (await sandboxControl.sent(gateway)).length;
    const refused = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Idempotency-Key", "nul-no-client-ref")
      .send({ to: CONTACT, text: "oi", client_ref: "pedido\u00001" });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 422,
      body: { detail: [{ loc: ["body", "client_ref"], input: "pedido\u00001", ...NUL_REFUSAL }] },
    });
    expect((await sandboxControl.sent(gateway)).length).toBe(sentBefore);

    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set("Idempotency-Key", "nul-no-client-ref")
      .send({ to: CONTACT, text: "oi", client_ref: "pedido-1" });
    expect(sent.status).toBe(200);
    const { rows } = await gateway.db.sql.query<{ client_ref: string }>(
      `SELECT client_ref FROM messages WHERE wamid = $1`,
      [sent.body.data.message_id],
    );
    expect(rows).toEqual([{ client_ref: "pedido-1" }]);
  });
});
