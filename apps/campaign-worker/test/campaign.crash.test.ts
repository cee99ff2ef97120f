import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createRedis, type Redis } from "@gw/jobs";
import { eventually, startThrowawayRedis } from "@gw/testkit";
import { startCampaignStack, spawnApp, type AppProcess } from "@gw/test-stack";
import {
  addNumber,
  addressee,
  pacing,
  campaignStatus,
  recipientStatuses,
  recipients,
  sandboxSends,
  startedCampaign,
  workerSettings,
  type Stack,
} from "./support.ts";

// The acceptance run of the campaign worker's crash safety, in real time: 1 500 recipients at a number rate of 50/s
// (about 30 s of sending; a faster, time-scaled rate would time this busy machine rather than the gateway). Worker
// processes are spawned as a pod runs them (their bundle); the first is SIGKILLed a quarter of the way and Redis is
// FLUSHALLed before the next starts (a Redis of its own: FLUSHALL would wipe every other test's keys), the second is
// SIGKILLed later without a flush (its tick is taken over once its job lock expires). At the end, from the
// sandbox's own record of what it accepted: never more than the rate in any window, every recipient exactly one
// outcome, nobody sent twice. What it proves does not depend on the count: each kill lands mid-flight (checked
// below), every three seconds of sending are a window the pacing is held to (restarts and the flush included),
// and exactly-once is checked for every recipient. (It ran 5 000 recipients, about 2 minutes, until issue 26.)

const RECIPIENTS = 1_500;
const RATE = 50;

let throwaway: Awaited<ReturnType<typeof startThrowawayRedis>>;
let stack: Stack;
let flusher: Redis;
const workers: AppProcess[] = [];

beforeAll(async () => {
  throwaway = await startThrowawayRedis();
  stack = await startCampaignStack({ redisUrl: throwaway.url, sandboxProcess: true });
  flusher = createRedis(throwaway.url);
}, 30_000);

afterAll(async () => {
  for (const worker of workers) await worker.stop();
  flusher.disconnect();
  await stack.close();
  await throwaway.stop();
});

async function spawnWorker(): Promise<AppProcess> {
  const worker = spawnApp(
    "campaign-worker",
    workerSettings(stack, { LOG_LEVEL: "info", CAMPAIGN_SWEEP_INTERVAL_MS: "500" }),
  );
  workers.push(worker);
  await eventually(() => worker.output().includes("campaign worker started"), {
    timeoutMs: 20_000,
    what: "o worker iniciar",
  });
  return worker;
}

async function sentCount(campaignId: string): Promise<number> {
  return (await recipientStatuses(stack, campaignId)).sent ?? 0;
}

describe("a campaign across a worker SIGKILL and a Redis FLUSHALL", () => {
  it("paces at the number's rate, ends every recipient in exactly one outcome and sends nobody twice", async () => {
    const number = await addNumber(stack, RATE);
    const campaignId = await startedCampaign(stack, number, recipients(RECIPIENTS));

    const first = await spawnWorker();
    await eventually(async () => (await sentCount(campaignId)) >= RECIPIENTS / 4, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: "um quarto dos envios",
    });
    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    // Everything Redis held goes: the campaign's job, the number's turns, the template cache.
    expect(await flusher.flushall()).toBe("OK");
    const atFirstKill = await recipientStatuses(stack, campaignId);

    const second = await spawnWorker();
    await eventually(async () => (await sentCount(campaignId)) >= (RECIPIENTS * 3) / 5, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: "três quintos dos envios",
    });
    second.child.kill("SIGKILL");
    await second.exited;

    await spawnWorker();
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: "a campanha terminar",
    });

    // The kills happened mid-flight: the first left recipients reserved (and more queued).
    expect(atFirstKill.queued ?? 0).toBeGreaterThan(0);

    const { rows } = await stack.db.sql.query<{
      contact: string;
      status: string;
      wamid: string | null;
      error_code: string | null;
    }>(`SELECT contact, status, wamid, error_code FROM campaign_recipients WHERE campaign_id = $1`, [campaignId]);
    const sends = await sandboxSends(stack, number);

    // Nobody got two messages, and the sandbox got nothing for anyone outside the campaign.
    const sendsTo = new Map<string, string[]>();
    for (const send of sends) sendsTo.set(addressee(send), [...(sendsTo.get(addressee(send)) ?? []), send.wamid]);
    expect([...sendsTo.entries()].filter(([, wamids]) => wamids.length > 1)).toEqual([]);
    const contacts = new Set(rows.map((r) => r.contact));
    expect([...sendsTo.keys()].filter((to) => !contacts.has(to))).toEqual([]);

    // Every recipient ended in one outcome: sent, with the very message the sandbox accepted; or failed only as
    // send_unconfirmed (killed after reaching the provider and before recording its answer: never resent).
    expect(rows).toHaveLength(RECIPIENTS);
    const unexpected = rows.filter(
      (r) =>
        !(r.status === "sent" && r.wamid !== null && sendsTo.get(r.contact)?.[0] === r.wamid) &&
        !(r.status === "failed" && r.error_code === "send_unconfirmed" && (sendsTo.get(r.contact)?.length ?? 0) <= 1),
    );
    expect(unexpected).toEqual([]);
    const sent = rows.filter((r) => r.status === "sent").length;
    expect(sent).toBeGreaterThan(RECIPIENTS - 20);

    // Never more than the rate, as the provider saw it, give or take the transport's jitter (support.pacing): a
    // pacing fault (two processes each at the rate, a burst after the flush) shows as far more.
    const { busiest, allowed } = pacing(
      sends.map((s) => Date.parse(s.at)),
      RATE,
    );
    expect(busiest).toBeLessThanOrEqual(allowed);
  }, 300_000);
});
