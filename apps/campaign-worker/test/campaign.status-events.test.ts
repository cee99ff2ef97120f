import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { exportCampaignRecipients, getCampaign, listCampaignRecipients } from "@gw/core/campaigns";
import { createDispatcher, loadDispatcherConfig, type Dispatcher } from "@gw/dispatcher";
import {
  eventually,
  reply,
  silentLogger,
  startReceiver,
  testActor,
  testSecretBox,
  testSecretsKeys,
  type Receiver,
} from "@gw/testkit";
import { createCampaignWorker, type CampaignWorker } from "../src/index.ts";
import { startCampaignStack } from "@gw/test-stack";
import { addNumber, recipients, startStatusApi, startedCampaign, workerConfig, type Stack } from "./support.ts";

// End to end: a campaign's messages leave through the campaign worker, the provider (sandbox) reports sent,
// delivered and read to the API's webhook, and the integrator receives message.status events that carry the
// campaign's id; the campaign's progress, recipient list and CSV export read delivered and read from them.

let stack: Stack;
let statusApi: { close(): Promise<void> };
let dispatcher: Dispatcher;
let worker: CampaignWorker;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startCampaignStack({
    sandbox: { autoStatuses: true, statusDelaysMs: { sent: 20, delivered: 40, read: 60 } },
  });
  const shared = {
    DATABASE_URL: stack.databaseUrl,
    DATABASE_POOL_SIZE: "4",
    REDIS_URL: stack.redisUrl,
    REDIS_KEY_PREFIX: stack.prefix,
  };
  statusApi = await startStatusApi(stack);
  dispatcher = createDispatcher(
    loadDispatcherConfig({
      ...shared,
      DISPATCHER_PORT: "0",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: testSecretsKeys(),
    }),
    { logger: silentLogger },
  );
  await dispatcher.start();
  worker = createCampaignWorker(workerConfig(stack), { logger: silentLogger, db: stack.db });
  await worker.start();
  receiver = await startReceiver((_req, res) => reply(res, 200, "ok"));
}, 30_000);

afterAll(async () => {
  await worker.stop();
  await dispatcher.stop();
  await statusApi.close();
  await receiver.close();
  await stack.close();
});

interface StatusEvent {
  event: string;
  data: { message_id: string; status: string; to: string; client_ref: string | null; campaign_id: string | null };
}

describe("campaign messages' statuses", () => {
  it("reach the integrator as message.status with campaign_id, and the campaign's progress follows them", async () => {
    await setIntegration(
      { db: stack.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { actor: testActor, accountId: stack.accountId, url: receiver.url, events: ["message.status"] },
    );
    const number = await addNumber(stack, 80);
    const rows = recipients(3, 500);
    const campaignId = await startedCampaign(stack, number, rows);

    const events = await eventually(
      () => {
        const received = receiver.requests.map((r) => JSON.parse(r.body) as StatusEvent);
        return received.filter((e) => e.data.status === "read").length === 3 ? received : null;
      },
      { timeoutMs: 20_000, what: "os status lidos das 3 mensagens" },
    );
    expect(events.filter((e) => e.event === "message.status")).toHaveLength(9);
    for (const event of events) expect(event.data.campaign_id).toBe(campaignId);
    expect(new Set(events.map((e) => e.data.client_ref))).toEqual(new Set(rows.map((r) => r.client_ref)));

    // The recipients' outcome is read from the same statuses.
    const account = { accountId: stack.accountId, campaignId };
    const campaign = await getCampaign({ db: stack.db }, account);
    expect(campaign.status).toBe("completed");
    expect(campaign.progress).toMatchObject({ read: 3, sent: 0, delivered: 0, queued: 0, failed: 0 });
    expect(campaign.eta_seconds).toBeNull();
    // Its cost: estimated as every recipient charged at the utility rate, and what Meta's pricing says it was (the
    // sandbox charges utility templates outside the customer-service window).
    expect(campaign.estimated_cost).toEqual({
      currency: "BRL",
      amount_brl: "0.1092",
      rate_brl: "0.0364",
      category: "utility",
      recipients: 3,
    });
    expect(campaign.running_cost).toEqual({
      currency: "BRL",
      amount_brl: "0.1092",
      priced_messages: 3,
      charged_messages: 3,
      failed_messages: 0,
      fallback_messages: 0,
    });
    const { recipients: listed } = await listCampaignRecipients({ db: stack.db }, { ...account, limit: 10 });
    expect(listed.map((r) => r.status)).toEqual(["read", "read", "read"]);
    expect(new Set(listed.map((r) => r.message_id))).toEqual(new Set(events.map((e) => e.data.message_id)));

    let csv = "";
    for await (const chunk of await exportCampaignRecipients({ db: stack.db }, { ...account, actor: testActor }))
      csv += chunk;
    const lines = csv.trimEnd().split("\r\n");
    // Every text cell quoted (csvLine), numbers bare.
    expect(lines[0]).toBe(
      '"row","to","client_ref","status","message_id","error_code","error_message","attempts","updated_at"',
    );
    expect(lines.slice(1).map((line) => line.split(",").slice(0, 4))).toEqual(
      rows.map((r, i) => [String(i + 1), `"${r.to}"`, `"${r.client_ref}"`, '"read"']),
    );
  }, 40_000);
});
