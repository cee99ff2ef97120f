import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { createAccount, createApiKey } from "@gw/core/accounts";
import { FIXTURE_TEMPLATES } from "@gw/provider-sandbox";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";
import { testActor } from "@gw/testkit";

const ITEM_FIELDS = [
  "id",
  "name",
  "language",
  "status",
  "category",
  "sub_category",
  "quality_score",
  "rejected_reason",
  "message_send_ttl_seconds",
  "sendable",
  "api_supported",
  "api_unsupported_reason",
  "header",
  "parameter_format",
  "body",
  "footer",
  "buttons",
  "body_text",
  "variables_count",
  "variable_names",
  "header_format",
  "components",
].sort();

describe("GET /public/v1/templates", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  const get = (query: string, acc: TestAccount = account) =>
    request(gateway.app).get(`/public/v1/templates${query}`).set(acc.auth);

  beforeAll(async () => {
    // A small provider page size: the catalogue is read across several pages.
    gateway = await startTestGateway({
      env: { API_RATE_LIMIT_POINTS: "10000", TEMPLATE_CACHE_TTL_SECONDS: "0", META_TEMPLATES_PAGE_SIZE: "5" },
    });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("lists only APPROVED templates by default, every field of spec 2.5 present", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const templates = res.body.data.templates as ({ name: string; language: string } & Record<string, unknown>)[];
    const approved = FIXTURE_TEMPLATES.filter((t) => t.status === "APPROVED");
    expect(templates.map((t) => `${t.name}/${t.language}`).sort()).toEqual(
      approved.map((t) => `${t.name}/${t.language}`).sort(),
    );
    for (const t of templates) {
      expect(Object.keys(t).sort()).toEqual(ITEM_FIELDS);
      expect(t.sendable).toBe(true);
    }
  });

  it("ALL returns every status; rejected_reason NONE becomes null; compatibility copies match the structured fields", async () => {
    const res = await get("?status=ALL");
    interface Item {
      name: string;
      body_text: string;
      variables_count: number;
      variable_names: string[];
      header_format: string | null;
      body: { text: string; variables_count: number; variable_names: string[] };
      header: { format: string } | null;
    }
    const templates = res.body.data.templates as Item[];
    expect(templates).toHaveLength(FIXTURE_TEMPLATES.length);
    const rejected = templates.find((t) => t.name === "oferta_relampago");
    expect(rejected).toMatchObject({ status: "REJECTED", rejected_reason: "INVALID_FORMAT", sendable: false });
    const pending = templates.find((t) => t.name === "novidades_semana");
    expect(pending).toMatchObject({ status: "PENDING", rejected_reason: null, sendable: false });
    for (const t of templates) {
      expect(t.body_text).toBe(t.body.text);
      expect(t.variables_count).toBe(t.body.variables_count);
      expect(t.variable_names).toEqual(t.body.variable_names);
      expect(t.header_format).toBe(t.header?.format ?? null);
    }
    const paused = await get("?status=PAUSED");
    expect(paused.body.data.templates.map((t: { name: string }) => t.name)).toEqual(["aviso_promocao"]);
  });

  it("400 invalid_template_status for an unknown filter", async () => {
    const res = await get("?status=APROVADO");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_template_status");
  });

  it("ignores a GET body, even one that is not JSON", async () => {
    const res = await request(gateway.app)
      .get("/public/v1/templates")
      .set(account.auth)
      .set("Content-Type", "application/json")
      .send("{não é json");
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it("400 no_connected_number for an account without numbers", async () => {
    const bare = await createAccount({ db: gateway.db }, { actor: testActor, name: "sem número" });
    const key = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: bare.id });
    const res = await request(gateway.app).get("/public/v1/templates").set("Authorization", `Bearer ${key.key}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("no_connected_number");
  });

  it("503 templates_unavailable when page 2 of the provider listing fails (no partial catalogue)", async () => {
    await sandboxControl.fault(gateway, { mode: "500", count: 1, after: 1, route: "templates" });
    const res = await get("?status=ALL");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("templates_unavailable");
    expect(res.body.data).toBeUndefined();
  });
});

describe("POST /public/v1/validate and GET /public/v1/window/{to}", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it.each([
    [{ to: "+55 11 98765-4321" }, { to: "5511987654321", valid: true, country: "BR", type: "mobile" }],
    [{ to: "11987654321" }, { to: "5511987654321", valid: true, country: "BR", type: "mobile" }],
    [{ to: "(11) 3333-4444" }, { to: "551133334444", valid: true, country: "BR", type: "fixed_line" }],
    [{ to: "(11) 8765-4321" }, { to: "1187654321", valid: false, country: null }],
    [{ to: "(00) 98765-4321" }, { to: "00987654321", valid: false }],
    [
      { to: "650 555 1234", country: "US" },
      { to: "16505551234", valid: true, country: "US" },
    ],
  ])("validate %j", async (body, expected) => {
    const res = await request(gateway.app).post("/public/v1/validate").set(account.auth).send(body);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject(expected);
  });

  it("window: closed for a contact that never wrote; only the contact's messages count; the greatest expiry wins", async () => {
    const never = await request(gateway.app).get("/public/v1/window/11987001122").set(account.auth);
    expect(never.status).toBe(200);
    expect(never.body.data).toMatchObject({ open: false, expires_at: null, last_inbound_at: null });

    const now = Math.floor(Date.now() / 1000);
    const from = "5511987001133";
    const newer = now - 60;
    const older = now - 3600;
    for (const timestamp of [newer, older]) {
      const sent = await fetch(`${gateway.sandbox.url}/_sandbox/inbound`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          phone_number_id: account.phoneNumberId,
          from,
          type: "text",
          text: "oi",
          timestamp: String(timestamp),
        }),
      });
      expect(((await sent.json()) as { webhook_status: number }).webhook_status).toBe(200);
    }
    const res = await request(gateway.app)
      .get(`/public/v1/window/${encodeURIComponent("+55 11 98700-1133")}`)
      .set(account.auth);
    expect(res.body.data).toMatchObject({
      open: true,
      to: "5511987001133",
      phone_number_id: account.phoneNumberId,
      last_inbound_at: new Date(newer * 1000).toISOString(),
      expires_at: new Date((newer + 86_400) * 1000).toISOString(),
    });
  });

  it("window: expired when the contact last wrote more than 24 h ago", async () => {
    const from = "5511987001144";
    const old = Math.floor(Date.now() / 1000) - 25 * 3600;
    await fetch(`${gateway.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: account.phoneNumberId,
        from,
        type: "text",
        text: "oi",
        timestamp: String(old),
      }),
    });
    const res = await request(gateway.app).get(`/public/v1/window/${from}`).set(account.auth);
    expect(res.body.data).toMatchObject({ open: false, expires_at: new Date((old + 86_400) * 1000).toISOString() });
  });
});
