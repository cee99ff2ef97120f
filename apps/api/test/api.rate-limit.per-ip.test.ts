import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { clientAddressKey } from "@gw/http";

// Refused API keys are limited per client address, before the key is looked up: past API_AUTH_FAILURES_PER_IP
// refusals in the window, the address gets 429 `api_rate_limited` with Retry-After and its keys cost no lookup.
// Successful calls never count (integrators behind one NAT address are not limited by each other's traffic).
// The address is the socket's unless TRUST_PROXY_HOPS says how many proxies' X-Forwarded-For to believe.

const LIMIT = 3;
const fakeKey = () => `Bearer pt_live_${randomBytes(32).toString("base64url")}`;

/** Counts the key lookups that reach the directory (the cache in front of the database). */
function countLookups(gateway: TestGateway): { count: () => number; restore: () => void } {
  const directory = gateway.deps.directory;
  const authenticate = directory.authenticate.bind(directory);
  let calls = 0;
  directory.authenticate = (key) => {
    calls++;
    return authenticate(key);
  };
  return { count: () => calls, restore: () => (directory.authenticate = authenticate) };
}

describe("per-address limit of refused API keys, behind one proxy (TRUST_PROXY_HOPS=1)", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({
      env: { API_AUTH_FAILURES_PER_IP: String(LIMIT), API_AUTH_FAILURES_WINDOW_SECONDS: "60", TRUST_PROXY_HOPS: "1" },
    });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  const templates = (from: string, authorization: string) =>
    request(gateway.app).get("/public/v1/templates").set("X-Forwarded-For", from).set("Authorization", authorization);

  it("after the limit of refusals the address gets 429 api_rate_limited with Retry-After, before any key lookup", async () => {
    const from = "203.0.113.10";
    for (let i = 0; i < LIMIT; i++) expect((await templates(from, fakeKey())).status).toBe(401);

    const lookups = countLookups(gateway);
    try {
      for (const authorization of [fakeKey(), account.auth.Authorization]) {
        const limited = await templates(from, authorization);
        expect({ status: limited.status, body: limited.body }).toEqual({
          status: 429,
          body: { success: false, error: { code: "api_rate_limited", message: expect.stringMatching(/endereço/) } },
        });
        const retryAfter = Number(limited.headers["retry-after"]);
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      }
      // Neither the fake key nor the valid one was looked up.
      expect(lookups.count()).toBe(0);
    } finally {
      lookups.restore();
    }
  });

  it("another address is not affected", async () => {
    const from = "203.0.113.11";
    for (let i = 0; i < LIMIT; i++) expect((await templates("203.0.113.12", fakeKey())).status).toBe(401);
    expect((await templates(from, account.auth.Authorization)).status).toBe(200);
    expect((await templates(from, fakeKey())).status).toBe(401);
  });

  it("successful calls never count: many valid calls, then the address still has its whole budget of refusals", async () => {
    const from = "203.0.113.13";
    for (let i = 0; i < LIMIT * 4; i++) expect((await templates(from, account.auth.Authorization)).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await templates(from, fakeKey())).status).toBe(401);
    expect((await templates(from, account.auth.Authorization)).status).toBe(429);
  });

  it("only the hop our proxy added is believed: a forged X-Forwarded-For entry does not change the address", async () => {
    const forged = () => `${randomBytes(1)[0]}.${randomBytes(1)[0]}.1.1, 203.0.113.14`;
    for (let i = 0; i < LIMIT; i++) expect((await templates(forged(), fakeKey())).status).toBe(401);
    expect((await templates(forged(), account.auth.Authorization)).status).toBe(429);
  });

  it("every endpoint is behind it (the check runs before the key check of the whole public router)", async () => {
    const from = "203.0.113.15";
    for (let i = 0; i < LIMIT; i++) expect((await templates(from, fakeKey())).status).toBe(401);
    const validate = await request(gateway.app)
      .post("/public/v1/validate")
      .set("X-Forwarded-For", from)
      .set(account.auth)
      .send({ to: "11987654321" });
    expect(validate.status).toBe(429);
  });
});

describe("without proxies (TRUST_PROXY_HOPS=0, the default) X-Forwarded-For is ignored", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_AUTH_FAILURES_PER_IP: String(LIMIT) } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("refusals sent with a different X-Forwarded-For each time all count against the socket's address", async () => {
    expect(gateway.config.TRUST_PROXY_HOPS).toBe(0);
    for (let i = 0; i < LIMIT; i++) {
      const res = await request(gateway.app)
        .get("/public/v1/deliveries")
        .set("X-Forwarded-For", `198.51.100.${i + 1}`)
        .set("Authorization", fakeKey());
      expect(res.status).toBe(401);
    }
    const limited = await request(gateway.app)
      .get("/public/v1/deliveries")
      .set("X-Forwarded-For", "198.51.100.200")
      .set(account.auth);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("api_rate_limited");
  });
});

describe("the address a limit counts", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:ffff::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
  ])("%s counts as %s", (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });
});
