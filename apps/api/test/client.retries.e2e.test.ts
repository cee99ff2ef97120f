import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createGatewayClient, type RetryOptions } from "@pt-gateway/client";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// The client's retries against the real gateway and the provider sandbox: a send repeated with the same
// Idempotency-Key (generated when the caller gave none) and sent once; Retry-After honoured on 429, and not waited
// past the bound; a send the provider did not confirm never repeated.

interface Attempt {
  key: string | null;
  status: number;
  at: number;
}

let gateway: TestGateway;

beforeAll(async () => {
  // Two requests per key per second: the third within a second is 429 with Retry-After.
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "2", API_RATE_LIMIT_WINDOW_SECONDS: "1" } });
});
afterAll(async () => {
  await gateway.close();
});

/** A client on a fresh account (its own rate-limit budget) that records each attempt it sends. */
async function recordingClient(retry: RetryOptions = { baseDelayMs: 20 }) {
  const account: TestAccount = await createTestAccount(gateway.db);
  const attempts: Attempt[] = [];
  const client = createGatewayClient({
    baseUrl: gateway.apiUrl,
    apiKey: account.apiKey,
    retry,
    fetch: async (request) => {
      const key = request.headers.get("idempotency-key");
      const response = await fetch(request);
      attempts.push({ key, status: response.status, at: Date.now() });
      return response;
    },
  });
  return { client, attempts };
}

const TEMPLATE_SEND = {
  template: "pedido_confirmado",
  language: "pt_BR",
  variables: ["Maria", "12345", "3"],
  header_text: "12345",
};

const sentTo = async (to: string) => (await sandboxControl.sent(gateway)).filter((m) => m.body.to === to).length;

describe("@pt-gateway/client retries", () => {
  it("repeats a send refused before the provider (503 templates_unavailable) with the same generated Idempotency-Key, and it goes out once", async () => {
    // A fresh account: nothing cached, the send reads the template catalogue, which fails once.
    const { client, attempts } = await recordingClient();
    await sandboxControl.fault(gateway, { mode: "500", count: 1, route: "templates" });
    const { data, response } = await client.POST("/public/v1/messages", {
      body: { to: "5511987654401", ...TEMPLATE_SEND },
    });
    expect(response.status).toBe(200);
    expect(data?.data.status).toBe("sent");
    expect(attempts.map((a) => a.status)).toEqual([503, 200]);
    expect(attempts[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts[1]?.key).toBe(attempts[0]?.key);
    expect(await sentTo("5511987654401")).toBe(1);
  });

  it("keeps the caller's own Idempotency-Key", async () => {
    const { client, attempts } = await recordingClient();
    const { response } = await client.POST("/public/v1/messages", {
      params: { header: { "Idempotency-Key": "pedido-4402" } },
      body: { to: "5511987654402", ...TEMPLATE_SEND },
    });
    expect(response.status).toBe(200);
    expect(attempts).toMatchObject([{ key: "pedido-4402", status: 200 }]);
  });

  it("never repeats a send the provider did not confirm (503 send_unconfirmed)", async () => {
    const { client, attempts } = await recordingClient();
    await sandboxControl.fault(gateway, { mode: "500", count: 1, route: "messages" });
    const { error, response } = await client.POST("/public/v1/messages", {
      body: { to: "5511987654403", ...TEMPLATE_SEND },
    });
    expect(response.status).toBe(503);
    expect(error).toMatchObject({ error: { code: "send_unconfirmed" } });
    expect(attempts.map((a) => a.status)).toEqual([503]);
  });

  it("waits the Retry-After of a 429 and then gets the answer", async () => {
    const { client, attempts } = await recordingClient();
    for (let i = 0; i < 3; i++) expect((await client.GET("/public/v1/event-types")).response.status).toBe(200);
    const statuses = attempts.map((a) => a.status);
    expect(statuses).toEqual([200, 200, 429, 200]);
    // Retry-After is whole seconds (at least 1); the backoff alone (20 ms) would have repeated far sooner.
    const [refused, after] = [attempts[2], attempts[3]];
    expect((after?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it("returns a 429 whose Retry-After is longer than maxDelayMs instead of waiting", async () => {
    const { client, attempts } = await recordingClient({ baseDelayMs: 20, maxDelayMs: 100 });
    await client.GET("/public/v1/event-types");
    await client.GET("/public/v1/event-types");
    const started = Date.now();
    const { response, error } = await client.GET("/public/v1/event-types");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(error).toMatchObject({ error: { code: "api_rate_limited" } });
    expect(Date.now() - started).toBeLessThan(500);
    expect(attempts.map((a) => a.status)).toEqual([200, 200, 429]);
  });
});
