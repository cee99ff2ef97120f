// Hardening item 3 with real processes: Meta pages the template catalogue slowly while the integrator repeats the
// send with the same Idempotency-Key after the reservation went stale. Before: the first call, still waiting for the
// catalogue, sent anyway once it came, and so did the repeat that had freed its stale reservation (two messages
// for one key). Now a call gives up before the provider at half the stale bound (its key freed, nothing sent), and
// a call whose reservation was taken over can no longer mark it: exactly one upstream send.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startApiPods, type ApiPods, type RunningApp } from "../src/index.ts";

const TO = "5511988884444";
const STALE_AFTER_MS = 3_000;
const CATALOGUE_DELAY_MS = 4_000;

let stack: ApiPods;

beforeAll(async () => {
  stack = await startApiPods({
    count: 1,
    // A catalogue page may take longer than the stale bound; a send gives up before the provider at half of it.
    apiEnv: { META_TIMEOUT_MS: "8000", IDEMPOTENCY_STALE_AFTER_MS: String(STALE_AFTER_MS) },
  });
}, 120_000);
afterAll(() => stack?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a slow template catalogue and a repeat of the same key", () => {
  it("reaches Meta once: the first call gives up before the provider, the repeat sends, later repeats replay it", async () => {
    const { account, pods } = stack;
    const [api] = pods as [RunningApp];
    expect(await stack.fault({ mode: "slow", route: "templates", delay_ms: CATALOGUE_DELAY_MS, count: 1 })).toBe(200);
    const send = async () => {
      const res = await fetch(`${api.url}/public/v1/messages`, {
        method: "POST",
        headers: { ...account.auth, "content-type": "application/json", "idempotency-key": "catalogo-lento-1" },
        body: JSON.stringify({ to: TO, template: "hello_world", language: "en_US", client_ref: "lento" }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown>, at: Date.now() };
    };

    const startedAt = Date.now();
    const first = send();
    // After the first reservation went stale, while the catalogue is still on its way.
    await sleep(STALE_AFTER_MS + 300);
    const repeat = await send();
    const original = await first;

    const sent = await stack.sent();
    expect(sent.filter((s) => s.to === TO)).toHaveLength(1);
    // The first call gave up before the provider (nothing sent, key freed), well before the stale bound.
    expect(original).toMatchObject({ status: 503, body: { error: { code: "templates_unavailable" } } });
    expect(original.at - startedAt).toBeLessThan(STALE_AFTER_MS);
    expect(repeat).toMatchObject({ status: 200, body: { data: { message_id: sent.find((s) => s.to === TO)?.wamid } } });

    const again = await send();
    expect(again).toMatchObject({ status: 200, body: repeat.body });
    expect(await stack.sent()).toHaveLength(1);
    stack.watchdog.assertHealthy();
  }, 60_000);
});
