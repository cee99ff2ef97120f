import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import { addBusinessNumber, createAccountDirectory } from "@gw/core/accounts";
import { getCampaign, resumeCampaign } from "@gw/core/campaigns";
import { ingestProviderWebhook, type IngestDeps } from "@gw/core/ingest";
import { eventually, silentLogger, testActor } from "@gw/testkit";
import { createCampaignWorker, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import {
  WABA_ID,
  campaignStatus,
  recipientStatuses,
  recipients,
  sandboxSends,
  startedCampaign,
  unsentRecipients,
  workerConfig,
  type Stack,
} from "./support.ts";

// Meta's health webhooks during a running campaign (issue 18 §4), with a worker in this process: a quality drop to
// low pauses the number's campaign, which stops sending within a moment and keeps the rest queued, with the
// reason shown, while a campaign of another number goes on; a throughput upgrade raises the pace of a running
// campaign at once. The webhook is ingested as the API's provider route does.

let stack: Stack;
let worker: CampaignWorker;
let ingest: IngestDeps;

beforeAll(async () => {
  stack = await startCampaignStack();
  // A provider call that outlasts its deadline is `send_unconfirmed` by design (campaign.crash tests it); on a loaded
  // machine the in-process sandbox can stall past the suite's 2 s, which is not what this file is about.
  worker = createCampaignWorker(workerConfig(stack, { META_TIMEOUT_MS: "10000", CAMPAIGN_REDRIVE_AFTER_MS: "17000" }), {
    logger: silentLogger,
    db: stack.db,
  });
  await worker.start();
  ingest = {
    db: stack.db,
    outbox: { dispatch: () => Promise.resolve() },
    logger: silentLogger,
    directory: createAccountDirectory(stack.db),
  };
});

afterAll(async () => {
  await worker.stop();
  await stack.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A number of the stack's account in WABA_ID, displayed as `display`, at `ratePerSecond`. */
async function numberDisplayed(display: string, ratePerSecond: number): Promise<string> {
  const phoneNumberId = `1${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  await addBusinessNumber(
    { db: stack.db },
    { actor: testActor, accountId: stack.accountId, phoneNumberId, wabaId: WABA_ID, displayNumber: display },
  );
  await stack.db.businessNumber.update({ where: { phoneNumberId }, data: { messagingRatePerSecond: ratePerSecond } });
  return phoneNumberId;
}

/** Meta's phone_number_quality_update for the number Meta displays as `displayDigits`. */
function qualityUpdate(displayDigits: string, event: string): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        time: Math.floor(Date.now() / 1000),
        changes: [{ field: "phone_number_quality_update", value: { display_phone_number: displayDigits, event } }],
      },
    ],
  });
}

describe("health events during a running campaign", () => {
  it("a quality drop pauses the number's running campaign: sends stop, the rest waits queued with the reason; another number's campaign goes on", async () => {
    const dropped = await numberDisplayed("+55 11 4100-0001", 30);
    const healthy = await numberDisplayed("+55 11 4100-0002", 30);
    const campaignId = await startedCampaign(stack, dropped, recipients(150, 10_000));
    const otherId = await startedCampaign(stack, healthy, recipients(40, 20_000));
    await eventually(async () => (await sandboxSends(stack, dropped)).length >= 20, {
      timeoutMs: 15_000,
      what: "os primeiros envios",
    });

    const result = await ingestProviderWebhook(ingest, qualityUpdate("551141000001", "FLAGGED"));
    expect(result).toMatchObject({ accountEvents: 1, quarantined: 0 });
    expect(await campaignStatus(stack, campaignId)).toBe("paused");

    // The worker sees the pause within its status poll (0.5 s); a send already on its way finishes.
    await sleep(1_500);
    const whilePaused = (await sandboxSends(stack, dropped)).length;
    await sleep(1_500);
    expect((await sandboxSends(stack, dropped)).length).toBe(whilePaused);
    expect(whilePaused).toBeLessThan(150);
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: whilePaused, queued: 150 - whilePaused });
    const view = await getCampaign({ db: stack.db }, { accountId: stack.accountId, campaignId });
    expect(view.pause_reason).toBe(
      "Pausada automaticamente: a Meta informou que a qualidade do número +55 11 4100-0001 caiu (evento FLAGGED). Confira a qualidade na página Números antes de retomar.",
    );

    await eventually(async () => (await campaignStatus(stack, otherId)) === "completed", {
      timeoutMs: 15_000,
      what: "a campanha do outro número terminar",
    });
    expect(await unsentRecipients(stack, otherId)).toEqual([]);
    expect(await recipientStatuses(stack, otherId)).toEqual({ sent: 40 });

    // A person resumes it once the number is looked at: the rest goes out, each recipient once.
    await resumeCampaign(
      { db: stack.db, logger: silentLogger },
      { accountId: stack.accountId, actor: testActor, campaignId },
    );
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 20_000,
      what: "a campanha terminar",
    });
    expect(await unsentRecipients(stack, campaignId)).toEqual([]);
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: 150 });
  }, 60_000);

  it("a tier upgrade raises the pacing rate of a running campaign: what is left goes out at once instead of at 5/s", async () => {
    const number = await numberDisplayed("+55 11 4100-0003", 5);
    const campaignId = await startedCampaign(stack, number, recipients(80, 30_000));
    await eventually(async () => (await sandboxSends(stack, number)).length >= 5, {
      timeoutMs: 15_000,
      what: "os primeiros envios",
    });
    const upgradedAt = Date.now();
    expect(await ingestProviderWebhook(ingest, qualityUpdate("551141000003", "THROUGHPUT_UPGRADE"))).toMatchObject({
      accountEvents: 1,
    });
    // At 5/s the 70-odd recipients left need some 15 s; the worker's directory drops the number at once.
    await eventually(async () => (await campaignStatus(stack, campaignId)) === "completed", {
      timeoutMs: 6_000,
      what: "a campanha terminar na vazão nova",
    });
    expect(Date.now() - upgradedAt).toBeLessThan(6_000);
    expect(await unsentRecipients(stack, campaignId)).toEqual([]);
    expect(await recipientStatuses(stack, campaignId)).toEqual({ sent: 80 });
    const row = await stack.db.businessNumber.findUniqueOrThrow({ where: { phoneNumberId: number } });
    expect(row.messagingRatePerSecond).toBe(1000);
  }, 60_000);
});
