// Two API processes (two pods behind a balancer) share 100 concurrent sends under one Idempotency-Key (spec 4.1): the
// key is reserved in PostgreSQL before the provider is called, so exactly one call reaches the provider sandbox, and
// every answer is that send's 200 (the first, then replays of it) or 409 `idempotency_in_flight` (spec 7: wait and
// repeat with the same key).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startApiPods, type ApiPods, type RunningApp } from "../src/index.ts";

const CALLS = 100;
const TO = "5511988887777";

let stack: ApiPods;

beforeAll(async () => {
  stack = await startApiPods({ count: 2 });
}, 120_000);
afterAll(() => stack?.stop());

interface Answer {
  pod: string;
  status: number;
  text: string;
  replayed: boolean;
}

describe("two API processes, one Idempotency-Key", () => {
  it("100 concurrent sends split across both reach the provider once; every answer is that 200 or 409 idempotency_in_flight", async () => {
    const { account, pods, watchdog } = stack;
    const startedAt = Date.now();
    const body = JSON.stringify({ to: TO, template: "hello_world", language: "en_US", client_ref: "pedido-dois-pods" });
    const send = async (pod: RunningApp): Promise<Answer> => {
      const res = await fetch(`${pod.url}/public/v1/messages`, {
        method: "POST",
        headers: { ...account.auth, "content-type": "application/json", "idempotency-key": "dois-pods-1" },
        body,
      });
      return {
        pod: pod.name,
        status: res.status,
        text: await res.text(),
        replayed: res.headers.get("idempotent-replayed") === "true",
      };
    };
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => send(pods[i % pods.length] as RunningApp)),
    );

    // Exactly one upstream call.
    const sent = await stack.sent();
    const requests = (await (await fetch(`${stack.sandbox.url}/_sandbox/requests`)).json()) as {
      method: string;
      path: string;
    }[];
    expect(sent.filter((s) => s.to === TO)).toHaveLength(1);
    expect(requests.filter((r) => r.method === "POST" && r.path.endsWith("/messages"))).toHaveLength(1);

    // Every answer is the one 200 (once as the original, otherwise replayed byte for byte) or the in-flight 409.
    expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    const ok = answers.filter((a) => a.status === 200);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(ok.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(ok.map((a) => a.text)).size).toBe(1);
    const original = JSON.parse(ok[0]?.text ?? "{}") as { data?: { message_id?: string } };
    expect(original.data?.message_id).toBe(sent.find((s) => s.to === TO)?.wamid);
    for (const a of inFlight)
      expect(JSON.parse(a.text)).toMatchObject({ success: false, error: { code: "idempotency_in_flight" } });

    // Once it settled, either pod answers the repeat with the same bytes, without calling the provider again.
    for (const pod of pods) {
      const again = await send(pod);
      expect(again).toMatchObject({ status: 200, text: ok[0]?.text, replayed: true });
    }
    expect(await stack.sent()).toHaveLength(1);
    watchdog.assertHealthy();

    const byPod = pods.map(
      (pod) => `${pod.name} ${answers.filter((a) => a.pod === pod.name && a.status === 200).length}×200`,
    );
    console.log(
      `two APIs, one Idempotency-Key: ${CALLS} concurrent sends → 1 upstream call; ${ok.length}×200 (1 original, ` +
        `${ok.length - 1} replays; ${byPod.join(", ")}), ${inFlight.length}×409 idempotency_in_flight, 0 other; ` +
        `duration ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
  }, 60_000);
});
