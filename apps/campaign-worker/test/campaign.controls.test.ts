import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { cancelCampaign, pauseCampaign, resumeCampaign } from "@gw/core/campaigns";
import { createNumberThroughput } from "@gw/core/throughput";
import { createCampaignQueue, wakeCampaigns, type CampaignQueue } from "@gw/jobs";
import { eventually, silentLogger } from "@gw/testkit";
import { createCampaignWorker, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import {
  addressee,
  addNumber,
  campaignStatus,
  recipientStatuses,
  recipients,
  sandboxRequests,
  sandboxSends,
  startedCampaign,
  workerConfig,
  type SandboxSend,
  type Stack,
} from "./support.ts";

// Controls and Meta's throughput refusals, with a worker in this process against the provider sandbox: pause and
// resume, cancel, the number backing off after 130429 (and recovering), and a recipient spaced out after 131056.

let stack: Stack;
let worker: CampaignWorker;
let queue: CampaignQueue;

beforeAll(async () => {
  stack = await startCampaignStack();
  worker = createCampaignWorker(workerConfig(stack), { logger: silentLogger, db: stack.db });
  await worker.start();
  queue = createCampaignQueue(stack.redis, stack.prefix);
});

afterAll(async () => {
  await worker.stop();
  await queue.close();
  await stack.close();
});

const who = () => ({ accountId: stack.accountId, actor: { id: "test", origin: "api" as const } });
const controls = () => ({
  db: stack.db,
  logger: silentLogger,
  wake: (c: Parameters<typeof wakeCampaigns>[1]) => wakeCampaigns(queue, c),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the sandbox accepted from `number`, counted until two reads `quietMs` apart agree. */
async function settledSends(number: string, quietMs = 1_200): Promise<number> {
  let before = (await sandboxSends(stack, number)).length;
  for (;;) {
    await sleep(quietMs);
    const after = (await sandboxSends(stack, number)).length;
    if (after === before) return after;
    before = after;
  }
}

function expectEachOnce(sends: SandboxSend[]): void {
  const seen = new Map<string, number>();
  for (const send of sends) seen.set(addressee(send), (seen.get(addressee(send)) ?? 0) + 1);
  expect([...seen.entries()].filter(([, n]) => n > 1)).toEqual([]);
}

describe("campaign controls", () => {
  it("pause stops the sends within a moment and keeps the rest queued; resume finishes them, each recipient once", async () => {
    const number = await addNumber(stack, 30);
    const campaignId = await startedCampaign(stack, number, recipients(120));
    await eventually(async () => (await sandboxSends(stack, number)).length >= 25, {
      timeoutMs: 15_000,
      what: "os primeiros envios",
    });
    await pauseCampaign(controls(), { ...who(), campaignId });

    const whilePaused = await settledSends(number);
    expect(whilePaused).toBeLessThan(120);
    expect(await campaignStatus(stack, campaignId)).toBe("paused");
    // Nothing is left reserved: what was claimed but not sent went back to the queue.
    const paused = await recipientStatuses(stack, campaignId);
    expect(paused).toEqual({ sent: whilePaused, queued: 120 - whilePaused });
    await sleep(1_000);
    expect((await sandboxSends(stack, number)).length).toBe(whilePaused);

    await resumeCampaign(controls(), { ...who(), campaignId });
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 20_000,
      what: "a campanha terminar",
    });
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: 120 });
    const sends = await sandboxSends(stack, number);
    expect(sends).toHaveLength(120);
    expectEachOnce(sends);
  }, 45_000);

  it("cancel stops the campaign for good: the recipients not yet sent end cancelled, none is sent afterwards", async () => {
    const number = await addNumber(stack, 30);
    const campaignId = await startedCampaign(stack, number, recipients(120, 1_000));
    await eventually(async () => (await sandboxSends(stack, number)).length >= 25, {
      timeoutMs: 15_000,
      what: "os primeiros envios",
    });
    const cancelled = await cancelCampaign(controls(), { ...who(), campaignId });
    expect(cancelled.status).toBe("cancelled");

    const sent = await settledSends(number);
    await eventually(async () => (await recipientStatuses(stack, campaignId)).sending === undefined, {
      what: "nenhum destinatário reservado",
    });
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent, cancelled: 120 - sent });
    expect(sent).toBeLessThan(120);
    expectEachOnce(await sandboxSends(stack, number));
    expect(await campaignStatus(stack, campaignId)).toBe("cancelled");
  }, 45_000);
});

describe("Meta's throughput refusals during a campaign", () => {
  it("130429: the number backs off (far fewer refusals than without it), every recipient is sent, and it recovers", async () => {
    // The number says 60/s; Meta (the sandbox) takes 20/s. Paced at 57/s without back-off, about 2 of every 3
    // requests would be refused (some 180 for 90 sends).
    const number = await addNumber(stack, 60);
    await fetch(`${stack.sandboxUrl}/_sandbox/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rateLimitPerSecond: 20 }),
    });
    const throughput = createNumberThroughput({ redis: stack.redis, keyPrefix: stack.prefix });
    try {
      const campaignId = await startedCampaign(stack, number, recipients(90, 2_000));
      const lowest = await eventually(
        async () => {
          const { factor } = await throughput.state(number);
          return factor < 1 ? factor : null;
        },
        { timeoutMs: 10_000, intervalMs: 20, what: "o número reduzir a vazão" },
      );
      expect(lowest).toBeLessThanOrEqual(0.5);
      await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
        timeoutMs: 30_000,
        what: "a campanha terminar",
      });
      expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: 90 });
      const requests = await sandboxRequests(stack, number);
      const refused = requests.filter((r) => r.status === 400).length;
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(20);
      expectEachOnce(await sandboxSends(stack, number));
      // Recovery: a quarter of the rate back per quiet second (THROUGHPUT_COOLDOWN_MS=1000), whatever the low.
      await eventually(async () => (await throughput.state(number)).factor === 1, {
        timeoutMs: 8_000,
        what: "a vazão voltar ao normal",
      });
    } finally {
      await fetch(`${stack.sandboxUrl}/_sandbox/config`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rateLimitPerSecond: null }),
      });
    }
  }, 45_000);

  it("131056: the recipient is spaced out (sent again only after the pair spacing), not failed", async () => {
    const number = await addNumber(stack, 30);
    await fetch(`${stack.sandboxUrl}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mode: "error", code: 131056, route: "messages", count: 1 }),
    });
    const campaignId = await startedCampaign(stack, number, recipients(1, 3_000));
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 15_000,
      what: "a campanha terminar",
    });
    const { rows } = await stack.db.sql.query<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM campaign_recipients WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(rows).toEqual([{ status: "sent", attempts: 2 }]);
    const [refused, accepted] = await sandboxRequests(stack, number);
    expect(refused?.status).toBe(400);
    expect(accepted?.status).toBe(200);
    // THROUGHPUT_PAIR_SPACING_MS=1500 between the refusal and the next try.
    expect(Date.parse(accepted?.at ?? "") - Date.parse(refused?.at ?? "")).toBeGreaterThanOrEqual(1_400);
  }, 30_000);
});
