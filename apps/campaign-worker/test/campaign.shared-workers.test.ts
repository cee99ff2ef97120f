// One campaign sent by two campaign worker processes at once (its shares, CAMPAIGN_SHARES): each claims batches of
// recipients (FOR UPDATE SKIP LOCKED), the number's pacing is shared in Redis, and a worker SIGKILLed with a batch
// claimed and sends in flight leaves nothing sent twice: the other re-drives its rows (same Idempotency-Key) and
// the statuses Meta posts record the sends it never recorded (events/adopt.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, freePort } from "@gw/testkit";
import { startCampaignStack, spawnApp, type AppProcess } from "@gw/test-stack";
import {
  addNumber,
  addressee,
  campaignStatus,
  pacing,
  recipientStatuses,
  recipients,
  sandboxControl,
  sandboxSends,
  startedCampaign,
  startStatusApi,
  workerSettings,
  type Stack,
} from "./support.ts";

let stack: Stack;
let statusApi: { close(): Promise<void> };
const workers: AppProcess[] = [];

beforeAll(async () => {
  stack = await startCampaignStack({
    sandbox: { autoStatuses: true, statusDelaysMs: { sent: 50, delivered: 100, read: 150 } },
  });
  // The API receives Meta's statuses: a send a killed worker never recorded is recorded from them.
  statusApi = await startStatusApi(stack);
}, 30_000);

// Each test starts its own two workers: a failed test's must not take shares of the next one's campaign.
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
});

afterAll(async () => {
  await statusApi.close();
  await stack.close();
});

interface Worker {
  process: AppProcess;
  /** The sends this worker's provider accepted, by its own /metrics. */
  sent(): Promise<number>;
}

async function spawnWorker(overrides: Record<string, string> = {}): Promise<Worker> {
  const port = await freePort();
  const app = spawnApp(
    "campaign-worker",
    workerSettings(stack, {
      LOG_LEVEL: "info",
      CAMPAIGN_WORKER_PORT: String(port),
      CAMPAIGN_SHARES: "2",
      // One share per process at a time: each of the two processes holds one of the campaign's two shares, instead of
      // the first to start taking both while the other waits for a tick to hand one back.
      CAMPAIGN_WORKER_CONCURRENCY: "1",
      // Long enough that only the dead worker's rows are re-driven, never a live worker's.
      META_TIMEOUT_MS: "4000",
      CAMPAIGN_REDRIVE_AFTER_MS: "12000",
      // Ticks that hand their campaign back often: each worker must still take its share again.
      CAMPAIGN_TICK_BUDGET_MS: "2000",
      ...overrides,
    }),
  );
  workers.push(app);
  await eventually(() => app.output().includes("campaign worker started"), {
    // Two tsx start-ups on a busy machine.
    timeoutMs: 60_000,
    what: "o worker iniciar",
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${app.output().slice(-2_000)}`);
  });
  return {
    process: app,
    async sent() {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^gw_campaign_messages_sent_total (\d+)/m.exec(text)?.[1] ?? "0");
    },
  };
}

function perRecipient(sends: Awaited<ReturnType<typeof sandboxSends>>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const send of sends) counts.set(addressee(send), (counts.get(addressee(send)) ?? 0) + 1);
  return counts;
}

describe("one campaign shared by two worker processes", () => {
  it("both workers send part of it, every recipient exactly once, and the number's rate holds across both", async () => {
    const RECIPIENTS = 120;
    const RATE = 20;
    const number = await addNumber(stack, RATE);
    const [a, b] = [await spawnWorker(), await spawnWorker()];
    const campaignId = await startedCampaign(stack, number, recipients(RECIPIENTS, 11_000));
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: "a campanha terminar",
    });

    const sends = await sandboxSends(stack, number);
    expect([...perRecipient(sends).entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(sends).toHaveLength(RECIPIENTS);
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: RECIPIENTS });
    // Both did work, and between them exactly the campaign.
    const [sentByA, sentByB] = [await a.sent(), await b.sent()];
    expect(sentByA).toBeGreaterThan(0);
    expect(sentByB).toBeGreaterThan(0);
    expect(sentByA + sentByB).toBe(RECIPIENTS);
    // One pacing for the number, whichever process sends: never more than its rate, give or take the transport's
    // jitter between the turn and the provider's clock (support.pacing); two processes pacing apart would reach twice.
    const { busiest, allowed } = pacing(
      sends.map((s) => Date.parse(s.at)),
      RATE,
    );
    expect(busiest).toBeLessThanOrEqual(allowed);
  }, 180_000);

  it("a worker SIGKILLed with a batch claimed and sends in flight: the other finishes the campaign, nothing twice", async () => {
    const RECIPIENTS = 80;
    const number = await addNumber(stack, 20);
    // Meta accepts every send at once (its statuses follow) and answers it late: the kill finds sends in flight.
    await sandboxControl(stack, "faults", { mode: "slow", route: "messages", delay_ms: 1_500, count: 10_000 });
    const [victim, survivor] = [await spawnWorker(), await spawnWorker()];
    const campaignId = await startedCampaign(stack, number, recipients(RECIPIENTS, 12_000));
    await eventually(async () => (await victim.sent()) >= 5 && (await survivor.sent()) >= 5, {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: "os dois workers enviarem",
    });
    // Rows the victim holds `sending` (claimed, waiting for a turn, or at Meta): the batch it dies with.
    const { rows: inFlight } = await stack.db.sql.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM campaign_recipients WHERE campaign_id = $1 AND status = 'sending'`,
      [campaignId],
    );
    victim.process.child.kill("SIGKILL");
    await victim.process.exited;
    expect(inFlight[0]?.count).toBeGreaterThan(0);
    const survivorBefore = await survivor.sent();

    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: "a campanha terminar",
    });
    const sends = await sandboxSends(stack, number);
    expect([...perRecipient(sends).entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(await survivor.sent()).toBeGreaterThan(survivorBefore);
    // Every recipient Meta accepted is recorded sent with that message (by a worker, or from its status). One whose
    // provider call the victim had begun but that never reached Meta cannot be told from one Meta took without a
    // status yet: it fails `send_unconfirmed` and is never resent (the send rule). Nothing else is left unsent.
    const { rows } = await stack.db.sql.query<{
      contact: string;
      status: string;
      wamid: string | null;
      error_code: string | null;
    }>(`SELECT contact, status, wamid, error_code FROM campaign_recipients WHERE campaign_id = $1`, [campaignId]);
    expect(rows).toHaveLength(RECIPIENTS);
    const wamidOf = new Map(sends.map((s) => [addressee(s), s.wamid]));
    const wrong = rows.filter((r) =>
      wamidOf.has(r.contact)
        ? !(r.status === "sent" && r.wamid === wamidOf.get(r.contact))
        : !(r.status === "failed" && r.error_code === "send_unconfirmed"),
    );
    expect(wrong).toEqual([]);
    expect(sends.length).toBeGreaterThanOrEqual(RECIPIENTS - inFlight[0]!.count);
  }, 240_000);
});
