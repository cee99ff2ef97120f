// Issue 35, item 6: a campaign's recipients claimed by a process that died are re-driven as soon as its process lease
// runs out (PROCESS_LEASE_TTL_MS, 6 s), as the API's Idempotency-Keys are, not CAMPAIGN_REDRIVE_AFTER_MS (90 s) after
// their claim; a live process's claims are never taken while its lease holds. With a worker in this process and the
// production bounds for the time rule (90 s) and the BullMQ lock (30 s), so only the lease can explain a re-drive
// within seconds. (fault.worker-killed-in-flight kills a real worker process and measures the same.)
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { eventually, silentLogger } from "@gw/testkit";
import { startCampaignStack } from "@gw/test-stack";
import { createCampaignWorker, type CampaignWorker } from "../src/index.ts";
import {
  addNumber,
  addressee,
  campaignStatus,
  recipients,
  sandboxSends,
  startedCampaign,
  workerConfig,
  type Stack,
} from "./support.ts";

let stack: Stack;
let worker: CampaignWorker | null = null;

beforeAll(async () => {
  stack = await startCampaignStack();
}, 30_000);

afterAll(async () => {
  await worker?.stop();
  await stack.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function recipientRows(campaignId: string) {
  const { rows } = await stack.db.sql.query<{ contact: string; status: string; claim_owner: string | null }>(
    `SELECT contact, status, claim_owner FROM campaign_recipients WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

describe("a campaign's recipients claimed by other processes", () => {
  it("are re-driven at once when their process's lease ran out or is gone, and only once a live one's lease lapses", async () => {
    const number = await addNumber(stack, 20);
    const campaignId = await startedCampaign(stack, number, recipients(6, 21_000));
    // Three other processes: one whose lease is gone (deleted, or purged long after its death), one whose lease
    // expired a moment ago (killed), one alive (renewing its lease, as every worker does every 2 s).
    const [gone, expired, live] = [randomUUID(), randomUUID(), randomUUID()];
    await stack.db.sql.query(
      `INSERT INTO process_leases (owner, service, host, expires_at) VALUES
         ($1, 'campaign-worker', 'morto', now() - interval '1 second'),
         ($2, 'campaign-worker', 'vivo', now() + interval '6 seconds')`,
      [expired, live],
    );
    const renewal = setInterval(() => {
      stack.db.sql
        .query(`UPDATE process_leases SET expires_at = now() + interval '6 seconds' WHERE owner = $1`, [live])
        .catch(() => undefined);
    }, 1_000);
    try {
      // Their claims, made just now: far inside the 90 s after which anyone's claim is re-driven.
      const contacts = (await recipientRows(campaignId)).map((r) => r.contact);
      const claimedBy: [number, string][] = [
        [0, gone],
        [1, gone],
        [2, expired],
        [3, live],
      ];
      for (const [index, owner] of claimedBy)
        await stack.db.sql.query(
          `UPDATE campaign_recipients SET status = 'sending', reserved_at = now(), attempts = 1, claim_owner = $3
           WHERE campaign_id = $1 AND contact = $2`,
          [campaignId, contacts[index], owner],
        );

      worker = createCampaignWorker(
        workerConfig(stack, {
          META_TIMEOUT_MS: "10000",
          CAMPAIGN_REDRIVE_AFTER_MS: "90000",
          CAMPAIGN_LOCK_DURATION_MS: "30000",
          CAMPAIGN_STALLED_INTERVAL_MS: "15000",
        }),
        { logger: silentLogger, db: stack.db },
      );
      await worker.start();

      // The dead processes' recipients go out with the queued ones, within seconds.
      const liveContact = contacts[3];
      await eventually(
        async () =>
          (await recipientRows(campaignId)).every((r) => r.contact === liveContact || r.status === "sent") || null,
        { timeoutMs: 10_000, intervalMs: 100, what: "os destinatários dos processos mortos enviados" },
      );
      // The live process's recipient is still its own a while later: not re-driven, not sent by this worker.
      await sleep(3_000);
      expect((await recipientRows(campaignId)).find((r) => r.contact === liveContact)).toEqual({
        contact: liveContact,
        status: "sending",
        claim_owner: live,
      });
      expect((await sandboxSends(stack, number)).map(addressee)).not.toContain(liveContact);
    } finally {
      // The live process dies: it renews its lease no more.
      clearInterval(renewal);
    }
    // Its recipient is re-driven once the lease runs out (6 s), long before the 90 s of the time rule.
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: "a campanha terminar",
    });
    const sends = (await sandboxSends(stack, number)).map(addressee);
    expect(sends).toHaveLength(6);
    expect(new Set(sends).size).toBe(6);
    expect((await recipientRows(campaignId)).map((r) => r.status)).toEqual(Array(6).fill("sent"));
  }, 60_000);
});
