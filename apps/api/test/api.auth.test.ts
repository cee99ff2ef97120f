import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { createApiKey, revokeApiKey } from "@gw/core/accounts";
import { eventually, testActor } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";

// Spec 5.1/5.2 and 7: every public endpoint is behind `Authorization: Bearer <API_KEY>`; a missing, invalid
// or revoked key is 401 `invalid_api_key` with the error envelope and a Portuguese sentence.
const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;

type Method = "get" | "post";
interface Route {
  name: string;
  method: Method;
  path: string;
  body?: Record<string, unknown>;
}

const ROUTES: Route[] = [
  {
    name: "POST /public/v1/messages",
    method: "post",
    path: "/public/v1/messages",
    body: { to: "11987654321", template: "hello_world", language: "en_US" },
  },
  { name: "POST /public/v1/validate", method: "post", path: "/public/v1/validate", body: { to: "11987654321" } },
  { name: "GET /public/v1/window/{to}", method: "get", path: "/public/v1/window/5511987654321" },
  { name: "GET /public/v1/templates", method: "get", path: "/public/v1/templates" },
  { name: "GET /public/v1/deliveries", method: "get", path: "/public/v1/deliveries" },
  { name: "GET /public/v1/deliveries/{id}", method: "get", path: "/public/v1/deliveries/1" },
  { name: "POST /public/v1/deliveries/{id}/retry", method: "post", path: "/public/v1/deliveries/1/retry" },
  { name: "POST /public/v1/deliveries/retry-failed", method: "post", path: "/public/v1/deliveries/retry-failed" },
];

const wellFormedUnknownKey = () => "pt_live_" + randomBytes(32).toString("base64url");

describe("public API authentication (spec 5, 7)", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  let revokedKey: string;
  let revokedKeyId: string;

  beforeAll(async () => {
    // Over a hundred refused keys from one address here: the per-address limit is another test's subject.
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000", API_AUTH_FAILURES_PER_IP: "10000" } });
    account = await createTestAccount(gateway.db);
    const revoked = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    await revokeApiKey({ db: gateway.db }, { actor: testActor, keyId: revoked.id });
    revokedKey = revoked.key;
    revokedKeyId = revoked.id;
  });
  afterAll(async () => {
    await gateway.close();
  });

  const call = (route: Route, authorization: string | undefined) => {
    const req = request(gateway.app)[route.method](route.path);
    if (authorization !== undefined) req.set("Authorization", authorization);
    return route.body ? req.send(route.body) : req;
  };

  const BAD_CREDENTIALS: [string, () => string | undefined][] = [
    ["no Authorization header", () => undefined],
    ["a non-Bearer scheme carrying a valid key (Basic)", () => `Basic ${account.apiKey}`],
    ["a non-Bearer scheme carrying a valid key (Token)", () => `Token ${account.apiKey}`],
    ["a valid key without any scheme", () => account.apiKey],
    ["`Bearer ` with nothing", () => "Bearer "],
    ["`Bearer` alone", () => "Bearer"],
    ["a malformed key: wrong prefix", () => "Bearer sk_live_" + randomBytes(32).toString("base64url")],
    ["a malformed key: right prefix, too short", () => "Bearer pt_live_abc"],
    ["a malformed key: right prefix, one character too many", () => `Bearer ${account.apiKey}x`],
    ["a malformed key: invalid characters", () => "Bearer pt_live_" + "!".repeat(43)],
    ["a malformed key: two tokens", () => `Bearer ${account.apiKey} ${account.apiKey}`],
    ["a well-formed but unknown key", () => `Bearer ${wellFormedUnknownKey()}`],
    ["a revoked key", () => `Bearer ${revokedKey}`],
  ];

  describe.each(ROUTES.map((r) => [r.name, r] as const))("%s", (_name, route) => {
    it.each(BAD_CREDENTIALS)("401 invalid_api_key for %s", async (_case, header) => {
      const res = await call(route, header());
      expect({ status: res.status, success: res.body?.success, code: res.body?.error?.code }).toEqual({
        status: 401,
        success: false,
        code: "invalid_api_key",
      });
      expect(Object.keys(res.body as object).sort()).toEqual(["error", "success"]);
      expect(typeof res.body.error.message).toBe("string");
      expect(res.body.error.message).toMatch(PORTUGUESE);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
    });
  });

  it("a valid key is accepted on every route (the answer is the route's own, never 401)", async () => {
    // The window must be open for nothing but the template send; the template send needs no window.
    await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: "5511987654321",
      type: "text",
      text: "oi",
    });
    const statuses: Record<string, number> = {};
    for (const route of ROUTES) statuses[route.name] = (await call(route, `Bearer ${account.apiKey}`)).status;
    expect(statuses).toEqual({
      "POST /public/v1/messages": 200,
      "POST /public/v1/validate": 200,
      "GET /public/v1/window/{to}": 200,
      "GET /public/v1/templates": 200,
      "GET /public/v1/deliveries": 200,
      // Authenticated, but delivery 1 is not in this account.
      "GET /public/v1/deliveries/{id}": 404,
      "POST /public/v1/deliveries/{id}/retry": 404,
      "POST /public/v1/deliveries/retry-failed": 200,
    });
  });

  it("the Bearer scheme name is case-insensitive (RFC 7235) and surrounding spaces are tolerated", async () => {
    const route = ROUTES[1];
    if (!route) throw new Error("route missing");
    expect((await call(route, `bearer ${account.apiKey}`)).status).toBe(200);
    expect((await call(route, `Bearer   ${account.apiKey}`)).status).toBe(200);
  });

  it("a key stops working as soon as it is revoked, and the other keys of the account keep working", async () => {
    const route = ROUTES[1];
    if (!route) throw new Error("route missing");
    const extra = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    expect((await call(route, `Bearer ${extra.key}`)).status).toBe(200);
    await revokeApiKey({ db: gateway.db }, { actor: testActor, keyId: extra.id });
    const refused = await call(route, `Bearer ${extra.key}`);
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({
      status: 401,
      code: "invalid_api_key",
    });
    expect((await call(route, `Bearer ${account.apiKey}`)).status).toBe(200);
  });

  it("a successful authentication records last_used_at; a refused one does not", async () => {
    const fresh = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    const unused = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    const before = await gateway.db.apiKey.findUniqueOrThrow({ where: { id: fresh.id } });
    expect(before.lastUsedAt).toBeNull();

    const startedAt = Date.now();
    const ok = await request(gateway.app)
      .post("/public/v1/validate")
      .set("Authorization", `Bearer ${fresh.key}`)
      .send({ to: "11987654321" });
    expect(ok.status).toBe(200);
    const finishedAt = Date.now();
    // The write is off the request path: poll for it.
    const usedAt = await eventually(
      async () => (await gateway.db.apiKey.findUniqueOrThrow({ where: { id: fresh.id } })).lastUsedAt,
    );
    expect(usedAt.getTime()).toBeGreaterThanOrEqual(startedAt - 1);
    expect(usedAt.getTime()).toBeLessThanOrEqual(finishedAt + 1);

    // Refused calls: the revoked key (never used successfully) and a key that was never presented.
    const refused = await request(gateway.app)
      .post("/public/v1/validate")
      .set("Authorization", `Bearer ${revokedKey}`)
      .send({ to: "11987654321" });
    expect(refused.status).toBe(401);
    // A later, successful call with another key is our barrier: its own write has landed by the time we look.
    const barrier = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    expect(
      (await request(gateway.app).get("/public/v1/deliveries").set("Authorization", `Bearer ${barrier.key}`)).status,
    ).toBe(200);
    await eventually(async () => (await gateway.db.apiKey.findUniqueOrThrow({ where: { id: barrier.id } })).lastUsedAt);
    expect((await gateway.db.apiKey.findUniqueOrThrow({ where: { id: revokedKeyId } })).lastUsedAt).toBeNull();
    expect((await gateway.db.apiKey.findUniqueOrThrow({ where: { id: unused.id } })).lastUsedAt).toBeNull();
    // The account's own key was used above, and its row tells so.
    expect((await gateway.db.apiKey.findUniqueOrThrow({ where: { id: account.keyId } })).lastUsedAt).toBeInstanceOf(
      Date,
    );
  });

  it("the database holds only the SHA-256 of a key, never the key itself, even after the key was used", async () => {
    const key = await createApiKey({ db: gateway.db }, { actor: testActor, accountId: account.accountId });
    // Use it on every route, including the send (audit, idempotency, messages) and a retry (audit).
    for (const route of ROUTES) await call(route, `Bearer ${key.key}`);
    await request(gateway.app)
      .post("/public/v1/messages")
      .set("Authorization", `Bearer ${key.key}`)
      .set("Idempotency-Key", `auth-${randomBytes(4).toString("hex")}`)
      .send({ to: "11987654321", template: "hello_world", language: "en_US" });
    await eventually(async () => (await gateway.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt);

    const row = await gateway.db.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.keyHash).toBe(createHash("sha256").update(key.key, "utf8").digest("hex"));
    expect(row.keyHash).not.toContain(key.key);
    expect(key.key.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.length).toBeLessThan(key.key.length - 20);

    // Every row of every table of the schema, as text: the raw key (and its secret part) appears nowhere.
    const tables = await gateway.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`;
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["api_keys", "audit_entries", "idempotency_keys", "messages"]),
    );
    const secretPart = key.key.slice("pt_live_".length);
    const leaks: string[] = [];
    for (const { table_name } of tables) {
      const [hit] = await gateway.db.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM "${table_name.replaceAll('"', '""')}" t WHERE strpos(t::text, $1) > 0 OR strpos(t::text, $2) > 0`,
        key.key,
        secretPart,
      );
      if (hit && hit.n > 0n) leaks.push(`${table_name}: ${hit.n}`);
    }
    expect(leaks).toEqual([]);
  });
});
