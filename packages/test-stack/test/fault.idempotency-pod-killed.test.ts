// Issue 25, item 2, with real processes: two API pods behind a balancer, 16 integrators sending with an
// Idempotency-Key per message while Meta (the sandbox) holds each answer for 2 s, and one pod SIGKILLed with sends in
// flight. Each integrator whose call was cut repeats it with the same key on the other pod. Before, those repeats got
// `409 idempotency_in_flight` without Retry-After until the reservation went stale (META_TIMEOUT_MS + 60 s, 75 s by
// default). Now the dead pod's lease runs out within seconds and every repeat settles: a replay, `503
// send_unconfirmed` (the call reached Meta and was never answered) or a fresh send (it never reached Meta), within
// 10 s of the kill; every 409 meanwhile carries Retry-After, and Meta receives no message twice. The pods run with
// the default lease and stale settings.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually } from "@gw/testkit";
import { kill, startApiPods, type ApiPods, type RunningApp } from "../src/index.ts";

const CLIENTS = 16;
/** How long the sandbox holds each send's answer (the send is recorded at once, as Meta would have taken it). */
const HOLD_MS = 2_000;
/** The issue's bound: every repeat of a key the dead pod held has its final answer within this of the kill. */
const SETTLE_BOUND_MS = 10_000;
/** A key still in flight this long after the kill is given up (and fails the test). */
const GIVE_UP_AFTER_MS = 30_000;
/** Time-scaled repeats (a real integrator would honour Retry-After; this one asks often, to see the settle time). */
const REPEAT_PAUSE_MS = 250;

interface Attempt {
  pod: string;
  status: number | null;
  code: string | null;
  retryAfter: string | null;
  /** When the request was made, and when its answer came. */
  startedAt: number;
  at: number;
}

interface Message {
  key: string;
  to: string;
  attempts: Attempt[];
  /** The final answer: 200 (sent or replayed) or 503 send_unconfirmed; null until then. */
  final: Attempt | null;
  messageId: string | null;
  replayed: boolean;
}

let stack: ApiPods;

beforeAll(async () => {
  stack = await startApiPods({ count: 2 });
}, 120_000);
afterAll(() => stack?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("an API pod SIGKILLed with sends in flight", () => {
  it("every repeat of its keys on the other pod settles within 10 s, each 409 meanwhile has Retry-After, and Meta gets no duplicate", async () => {
    const { account, pods, watchdog } = stack;
    const [doomed, survivor] = pods as [RunningApp, RunningApp];
    expect(await stack.fault({ mode: "slow", route: "messages", delay_ms: HOLD_MS, count: 100_000 })).toBe(200);

    const messages: Message[] = [];
    /** Calls to each pod that have not answered yet. */
    const open = new Map<string, number>(pods.map((pod) => [pod.name, 0]));
    let sending = true;
    let killedAt = 0;

    const call = async (pod: RunningApp, message: Message): Promise<Attempt> => {
      const startedAt = Date.now();
      open.set(pod.name, (open.get(pod.name) ?? 0) + 1);
      try {
        const res = await fetch(`${pod.url}/public/v1/messages`, {
          method: "POST",
          headers: { ...account.auth, "content-type": "application/json", "idempotency-key": message.key },
          body: JSON.stringify({ to: message.to, template: "hello_world", language: "en_US" }),
          signal: AbortSignal.timeout(60_000),
        });
        const body = (await res.json()) as { data?: { message_id?: string }; error?: { code?: string } };
        if (res.status === 200) {
          message.messageId = body.data?.message_id ?? null;
          message.replayed = res.headers.get("idempotent-replayed") === "true";
        }
        return {
          pod: pod.name,
          status: res.status,
          code: body.error?.code ?? null,
          retryAfter: res.headers.get("retry-after"),
          startedAt,
          at: Date.now(),
        };
      } catch {
        return { pod: pod.name, status: null, code: "connection", retryAfter: null, startedAt, at: Date.now() };
      } finally {
        open.set(pod.name, (open.get(pod.name) ?? 1) - 1);
      }
    };

    /** One message as the spec asks: repeated with its key after a connection error or a 409 in flight. */
    const deliver = async (message: Message, first: RunningApp): Promise<void> => {
      let pod = first;
      for (;;) {
        const attempt = await call(pod, message);
        message.attempts.push(attempt);
        if (attempt.status !== null && attempt.code !== "idempotency_in_flight") {
          message.final = attempt;
          return;
        }
        // The balancer sends the repeat to a pod that is up.
        if (attempt.status === null) pod = survivor;
        // Well past the bound (on the previous release, such a key stayed in flight for 75 s): left unsettled.
        if (killedAt > 0 && Date.now() - killedAt > GIVE_UP_AFTER_MS) return;
        await sleep(REPEAT_PAUSE_MS);
      }
    };

    const client = async (index: number): Promise<void> => {
      for (let n = 0; sending; n++) {
        const message: Message = {
          key: `pod-morto-${index}-${n}`,
          to: `55119${String(index).padStart(2, "0")}${String(n).padStart(6, "0")}`,
          attempts: [],
          final: null,
          messageId: null,
          replayed: false,
        };
        messages.push(message);
        // Half of each client's messages go to the pod about to die.
        await deliver(message, pods[(index + n) % 2] as RunningApp);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));

    // Once the stream has run a while, with sends in flight on the doomed pod (held by the sandbox: past their mark).
    await eventually(() => (open.get(doomed.name) ?? 0) >= 6 && messages.length >= CLIENTS * 3, {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: "sends in flight on the pod about to be killed",
    });
    sending = false;
    watchdog.release(doomed);
    killedAt = Date.now();
    await kill(doomed);
    const inFlightAtKill = messages.filter((m) => m.final === null).length;
    await Promise.all(clients);
    watchdog.assertHealthy();

    // The keys the dead pod held: a call of theirs to it was cut.
    const cut = messages.filter((m) => m.attempts.some((a) => a.pod === doomed.name && a.status === null));
    expect(cut.length).toBeGreaterThan(0);
    const unsettled = messages.filter((m) => m.final === null).map((m) => m.key);
    expect(unsettled).toEqual([]);
    // Final answers only: the send (200, fresh or replayed) or 503 send_unconfirmed (never resent).
    const finals = messages.map((m) => `${m.final?.status} ${m.final?.code ?? ""}`.trim());
    expect(finals.filter((f) => f !== "200" && f !== "503 send_unconfirmed")).toEqual([]);
    // Every 409 carried its Retry-After: whole seconds, at least 1.
    const conflicts = messages.flatMap((m) => m.attempts.filter((a) => a.status === 409));
    expect(
      conflicts.filter((a) => a.code !== "idempotency_in_flight" || !/^[1-9]\d*$/.test(a.retryAfter ?? "")),
    ).toEqual([]);
    // Settled within the issue's bound of the kill: the repeat that got the final answer was made by then (the key
    // no longer in flight). A fresh send's answer then comes when Meta gives it (held 2 s here).
    const settleMs = cut.map((m) => (m.final?.startedAt ?? Number.POSITIVE_INFINITY) - killedAt);
    const slowest = Math.max(...settleMs);
    expect(slowest).toBeLessThanOrEqual(SETTLE_BOUND_MS);
    const answeredMs = Math.max(...cut.map((m) => (m.final?.at ?? Number.POSITIVE_INFINITY) - killedAt));

    // Meta saw each message (one recipient each) at most once; a 200 names the one it saw.
    const sent = await stack.sent();
    const byRecipient = new Map<string, string[]>();
    for (const s of sent) byRecipient.set(s.to, [...(byRecipient.get(s.to) ?? []), s.wamid]);
    expect([...byRecipient].filter(([, wamids]) => wamids.length > 1)).toEqual([]);
    for (const m of messages.filter((x) => x.final?.status === 200))
      expect({ key: m.key, wamids: byRecipient.get(m.to) }).toEqual({ key: m.key, wamids: [m.messageId] });

    const count = (f: (m: Message) => boolean) => cut.filter(f).length;
    const sorted = [...settleMs].sort((a, b) => a - b);
    const retryAfters = conflicts.map((a) => Number(a.retryAfter));
    process.stdout.write(
      `pod killed with ${inFlightAtKill} sends unanswered: ${cut.length} keys cut, all settled on ${survivor.name} ` +
        `within ${(slowest / 1000).toFixed(1)} s of the SIGKILL (median ${((sorted[Math.floor(sorted.length / 2)] ?? 0) / 1000).toFixed(1)} s; ` +
        `last final answer ${(answeredMs / 1000).toFixed(1)} s): ` +
        `${count((m) => m.final?.status === 503)}× 503 send_unconfirmed, ${count((m) => m.final?.status === 200 && m.replayed)}× 200 replayed, ` +
        `${count((m) => m.final?.status === 200 && !m.replayed)}× 200 sent fresh; ${conflicts.length}× 409 meanwhile, each with Retry-After ` +
        `(${retryAfters.length ? `${Math.min(...retryAfters)}–${Math.max(...retryAfters)} s` : "none"}); ` +
        `${messages.length} messages, ${sent.length} reached Meta, none twice\n`,
    );
  }, 180_000);
});
