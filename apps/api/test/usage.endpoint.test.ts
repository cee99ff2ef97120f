import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { eventually } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { at, servedDocument, type Json, type ServedDocument } from "./support/openapi-schema.ts";
import { sandboxControl } from "./support/sandbox-control.ts";

// GET /public/v1/usage end to end: sends through the API to the provider sandbox, whose `sent` statuses carry
// Meta's pricing; the ledger counts them by category and type and prices the charged ones with the default rate
// card. Its answers and refusals are checked against the OpenAPI document, and so is the documented example.

let gateway: TestGateway;
let account: TestAccount;
let document: ServedDocument;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
  account = await createTestAccount(gateway.db);
  document = await servedDocument(gateway);
});

afterAll(async () => {
  await gateway.close();
});

function schemaFor(status: number) {
  const content = at(document.json, "paths", "/public/v1/usage", "get", "responses", String(status), "content");
  return document.compile(at(content, "application/json", "schema"));
}

/** GET /usage with `query`, answered with `status` and a body valid against the document's schema for it. */
async function usage(query: string, status: number, auth = account.auth) {
  const res = await request(gateway.app).get(`/public/v1/usage${query}`).set(auth);
  expect({ query, status: res.status }).toEqual({ query, status });
  const validate = schemaFor(status);
  expect({ query, errors: validate(res.body) ? null : validate.errors }).toEqual({ query, errors: null });
  return res.body as { data: Json & { rows: Json[]; totals: Json } } & { detail?: Json[] };
}

async function send(body: Json): Promise<void> {
  const res = await request(gateway.app).post("/public/v1/messages").set(account.auth).send(body);
  expect({
    to: body.to,
    template: body.template,
    status: res.status,
    error: res.status === 200 ? null : res.body,
  }).toEqual({
    to: body.to,
    template: body.template,
    status: 200,
    error: null,
  });
}

const phone = () => `55119${String(randomBytes(4).readUInt32BE(0) % 100_000_000).padStart(8, "0")}`;
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());

describe("GET /public/v1/usage", () => {
  it("prices the sandbox's statuses end to end as Meta reports them since October 2026: regular charged at each category's rate", async () => {
    // Authentication to an Indian number is authentication-international (meta-2026 §2.2).
    // One recipient's message is accepted, priced on `sent`, then fails: Meta charges only delivered messages.
    const inWindow = phone();
    const outOfWindow = phone();
    const unreachable = phone();
    await sandboxControl.config(gateway, { authenticationInternational: ["IN"], failAfterSend: [unreachable] });
    await contactWrites(gateway, { phone_number_id: account.phoneNumberId, from: inWindow, type: "text", text: "oi" });
    const order = { template: "pedido_confirmado", variables: ["Maria", "123", "3"], header_text: "123" };
    await send({
      to: outOfWindow,
      template: "cupom_desconto",
      variables: ["PROMO10", "10%"],
      coupon_code: "PROMO10",
      coupon_index: 1,
    });
    await send({
      to: unreachable,
      template: "cupom_desconto",
      variables: ["PROMO10", "10%"],
      coupon_code: "PROMO10",
      coupon_index: 1,
    });
    await send({ to: outOfWindow, ...order });
    await send({ to: inWindow, ...order });
    await send({ to: inWindow, text: "Seu pedido saiu para entrega." });
    await send({ to: outOfWindow, template: "codigo_verificacao", otp_code: "123456" });
    await send({ to: "919876543210", template: "codigo_verificacao", otp_code: "654321" });

    // From yesterday, so a run across São Paulo's midnight still sees every send.
    const day = today();
    const yesterday = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const body = await eventually(
      async () => {
        const answer = await usage(`?since=${yesterday}&until=${day}&group_by=category,type`, 200);
        return answer.data.totals.messages === 7 && answer.data.totals.failed_messages === 1 ? answer : null;
      },
      { what: "the pricing of the seven sends' sent statuses, and the failure of one" },
    );
    const row = (category: string, type: string, counts: [number, number, number], cost: string) => ({
      category,
      type,
      messages: counts[0],
      charged_messages: counts[1],
      failed_messages: counts[2],
      cost_brl: cost,
      fallback_messages: 0,
    });
    // [messages, charged, failed]
    expect(body.data.rows).toEqual([
      row("authentication", "regular", [1, 1, 0], "0.0364"),
      row("authentication-international", "regular", [1, 1, 0], "0.0364"),
      row("marketing", "regular", [2, 1, 1], "0.3350"),
      // Since 1 Oct 2026 Meta charges the service message and the utility template inside the window too: the
      // sandbox's pricing blocks say `regular`, and the ledger prices what they say (issue 37).
      row("service", "regular", [1, 1, 0], "0.0364"),
      row("utility", "regular", [2, 2, 0], "0.0728"),
    ]);
    const totals = { messages: 7, charged_messages: 6, failed_messages: 1, cost_brl: "0.5170", fallback_messages: 0 };
    expect(body.data).toMatchObject({
      currency: "BRL",
      time_zone: "America/Sao_Paulo",
      since: yesterday,
      until: day,
      group_by: ["category", "type"],
      phone_number_id: null,
      totals,
    });

    // Defaults: the 30 days up to today, by day; the number filter keeps this number's messages only.
    const byDay = await usage("", 200);
    expect(byDay.data).toMatchObject({ group_by: ["day"], totals });
    expect(Date.parse(String(byDay.data.until)) - Date.parse(String(byDay.data.since))).toBe(29 * 86_400_000);
    expect(byDay.data.rows.map((row) => Object.keys(row)[0])).toEqual(byDay.data.rows.map(() => "day"));
    expect((await usage(`?phone_number_id=${account.phoneNumberId}&group_by=number`, 200)).data.rows).toEqual([
      { phone_number_id: account.phoneNumberId, ...totals },
    ]);
    expect((await usage("?phone_number_id=1999&group_by=number", 200)).data.rows).toEqual([]);

    // Another account sees none of it.
    const other = await createTestAccount(gateway.db);
    expect((await usage("", 200, other.auth)).data.totals).toEqual({
      messages: 0,
      charged_messages: 0,
      failed_messages: 0,
      cost_brl: "0.0000",
      fallback_messages: 0,
    });
  });

  it("refuses a bad query with 422 HTTPValidationError naming the field", async () => {
    const cases: [string, string, RegExp][] = [
      ["?since=2026-02-30", "since", /padrão|date/i],
      ["?until=28/11/2026", "until", /padrão|date/i],
      ["?since=2026-11-28&until=2026-11-01", "since", /anterior à final/],
      ["?since=2025-01-01&until=2026-01-02", "since", /no máximo 366 dias; este tem 367/],
      ["?group_by=week", "group_by", /padrão/],
      ["?group_by=day,", "group_by", /padrão/],
    ];
    for (const [query, field, message] of cases) {
      const body = await usage(query, 422);
      const issue = body.detail?.[0] ?? {};
      expect({ query, loc: issue.loc, matches: message.test(String(issue.msg)) }).toEqual({
        query,
        loc: ["query", field],
        matches: true,
      });
    }
    // Exactly 366 days is accepted.
    await usage("?since=2025-01-01&until=2026-01-01", 200);
    const res = await request(gateway.app).get("/public/v1/usage");
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 401, code: "invalid_api_key" });
  });

  it("documents an example answer that is valid against its own schema", () => {
    const schema = at(document.json, "components", "schemas", "UsageOut");
    const examples = schema.examples as unknown[];
    expect(examples.length).toBeGreaterThan(0);
    const validate = schemaFor(200);
    for (const example of examples) expect(validate(example) ? null : validate.errors).toBeNull();
  });
});
