import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { eventually } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

let gateway: TestGateway;
let account: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
  account = await createTestAccount(gateway.db);
});

afterAll(async () => {
  await gateway.close();
});

const validate = (body: Record<string, unknown>) =>
  request(gateway.app).post("/public/v1/validate").set(account.auth).send(body);

describe("POST /public/v1/validate with Brazilian numbers (spec 4.2)", () => {
  it.each([
    ["national with area code and punctuation", "(11) 98765-4321", "5511987654321", "mobile"],
    ["international with +", "+55 11 98765-4321", "5511987654321", "mobile"],
    ["international with 00", "0055 11 98765-4321", "5511987654321", "mobile"],
    ["digits that already carry 55", "5511987654321", "5511987654321", "mobile"],
    ["a landline", "(11) 3456-7890", "551134567890", "fixed_line"],
    ["WhatsApp's 12-digit id of an older account (no 9th digit)", "551187654321", "5511987654321", "mobile"],
    ["the same id with +", "+55 11 8765-4321", "5511987654321", "mobile"],
  ])("%s: %s is valid as %s", async (_what, to, digits, type) => {
    const res = await validate({ to });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { to: digits, valid: true, country: "BR", type } });
  });

  it.each([
    ["an 8-digit mobile typed without the 9 and without 55", "11 8765-4321"],
    ["an area code that does not exist", "(20) 98765-4321"],
    ["too short", "98765"],
  ])("%s: %s is valid:false, not an error", async (_what, to) => {
    const res = await validate({ to });
    expect(res.status).toBe(200);
    expect(res.body.data.valid).toBe(false);
  });

  it("an empty country means BR, like an absent one", async () => {
    for (const country of [undefined, null, "", "  "]) {
      const res = await validate({ to: "11987654321", ...(country === undefined ? {} : { country }) });
      expect(res.body.data).toMatchObject({ to: "5511987654321", valid: true, country: "BR" });
    }
  });
});

describe("a contact whose WhatsApp id has 12 digits", () => {
  it("opens the window of the number an integrator replies to, and the reply to data.from goes out", async () => {
    const waId = "551187650001";
    const inbound = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: waId,
      name: "Dona Antiga",
      type: "text",
      text: "Oi",
    });
    expect(inbound.webhook_status).toBe(200);

    for (const form of [waId, "5511987650001", "+55 11 98765-0001"]) {
      const window = await eventually(async () => {
        const res = await request(gateway.app)
          .get(`/public/v1/window/${encodeURIComponent(form)}`)
          .set(account.auth);
        return res.body.data?.open === true ? res.body.data : undefined;
      });
      expect(window).toMatchObject({ to: "5511987650001", open: true });
    }

    // The integrator answers to `from` as the message.received event gave it.
    const reply = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: waId, text: "Olá!" });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ to: "5511987650001", status: "sent" });
  });
});
