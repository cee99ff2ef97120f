// Account and number health (issue 18 §4): Meta's account_update, phone_number_quality_update,
// business_capability_update and template webhooks, emitted by the provider sandbox (or posted as Meta sends them),
// ingested like every provider webhook: stored once, acted on (rates, campaign pauses, sending blocks), audited,
// forwarded as account.update to the integrations that opted in, and listed for the panel.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AccountUpdateEvent } from "@gw/contracts";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { eventually, isolatedDatabase, silentLogger, testActor, testSecretBox } from "@gw/testkit";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  createAccountDirectory,
  setIntegration,
  type AccountDirectory,
} from "../src/accounts/index.ts";
import { getCampaign, pauseCampaign, resumeCampaign } from "../src/campaigns/index.ts";
import {
  countUnreadAccountEvents,
  liftSendingBlock,
  listAccountEvents,
  listWabaHealth,
  markAccountEventRead,
  markAllAccountEventsRead,
} from "../src/health/index.ts";
import { ingestProviderWebhook } from "../src/ingest/index.ts";
import { control, createPanelAccount, startIngestingSandbox, type IngestingSandbox } from "./sandbox-ingest.ts";

let db: Db;
let dropDatabase: () => Promise<void>;
let gateway: IngestingSandbox;
let directory: AccountDirectory;
let stopFollowing: () => Promise<void>;

type PanelAccount = Awaited<ReturnType<typeof createPanelAccount>>;

beforeAll(async () => {
  // A database of its own: a campaign worker another suite runs sweeps every running campaign of the shared one.
  ({ db, drop: dropDatabase } = await isolatedDatabase());
  gateway = await startIngestingSandbox(db);
  // A pod's directory that trusts a number for a minute: only the announcement can make it see a change sooner.
  directory = createAccountDirectory(db, {
    apiKeyTtlMs: 5_000,
    unknownKeyTtlMs: 0,
    numberTtlMs: 60_000,
    maxEntries: 100,
  });
  stopFollowing = directory.followRevocations();
});

afterAll(async () => {
  await stopFollowing();
  await gateway.close();
  await dropDatabase();
});

/** The account's numbers as the sandbox reports them (display number = the one registered). */
async function accountWithNumbers(numbers: number, users = 1): Promise<PanelAccount> {
  const account = await createPanelAccount(db, { numbers, users });
  for (const [i, phoneNumberId] of account.phoneNumberIds.entries())
    await control(gateway.sandbox, "/numbers", {
      phone_number_id: phoneNumberId,
      display_phone_number: `+55 11 4000-000${i}`,
    });
  return account;
}

async function campaignOf(account: PanelAccount, phoneNumberId: string, status: string): Promise<string> {
  const campaign = await db.campaign.create({
    data: {
      accountId: account.accountId,
      name: `Campanha ${status}`,
      phoneNumberId,
      templateName: "hello_world",
      templateLanguage: "en_US",
      status,
      createdBy: "test",
      acceptedRecipients: 1,
      ...(status === "running" ? { startedAt: new Date() } : {}),
      ...(status === "scheduled" ? { startAt: new Date(Date.now() + 3_600_000) } : {}),
    },
  });
  return campaign.id;
}

async function statusOf(campaignId: string): Promise<{ status: string; pauseReason: string | null }> {
  const row = await db.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  return { status: row.status, pauseReason: row.pauseReason };
}

async function events(account: PanelAccount) {
  const [userId] = account.userIds as [string];
  return (await listAccountEvents({ db }, { accountId: account.accountId, userId, limit: 50 })).events;
}

async function audit(account: PanelAccount, action: string) {
  return db.auditEntry.findMany({ where: { accountId: account.accountId, action }, orderBy: { id: "asc" } });
}

/** Meta's webhook for one health change, as Meta posts it. */
function healthPayload(wabaId: string, field: string, value: Record<string, unknown>, time: number): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [{ id: wabaId, time, changes: [{ field, value }] }],
  });
}

describe("account and number health events", () => {
  it("stores every event once per account, unknown events included, and a redelivery in another payload changes nothing", async () => {
    const account = await accountWithNumbers(1);
    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "SOMETHING_META_ADDS_LATER" });
    await control(gateway.sandbox, "/account-update", {
      waba_id: account.wabaId,
      event: "VOLUME_BASED_PRICING_TIER_UPDATE",
    });
    const alert = {
      entity_type: "PHONE_NUMBER",
      entity_id: account.phoneNumberIds[0],
      alert_info: { alert_severity: "WARNING", alert_status: "ACTIVE", alert_type: "PROFILE_PICTURE_LOST" },
    };
    const body = (spacing: string) =>
      JSON.stringify(JSON.parse(healthPayload(account.wabaId, "account_alerts", alert, 1767225600)), null, spacing);
    expect(await ingestProviderWebhook(gateway.deps, body(""))).toMatchObject({ accountEvents: 1, quarantined: 0 });
    // The same change in other bytes (another payload hash): not stored again.
    expect(await ingestProviderWebhook(gateway.deps, body("  "))).toMatchObject({ duplicate: false, quarantined: 0 });

    const stored = await events(account);
    expect(stored.map((e) => [e.field, e.event])).toEqual([
      ["account_alerts", null],
      ["account_update", "VOLUME_BASED_PRICING_TIER_UPDATE"],
      ["account_update", "SOMETHING_META_ADDS_LATER"],
    ]);
    expect(stored[0]).toMatchObject({
      waba_id: account.wabaId,
      value: alert,
      occurred_at: new Date(1767225600 * 1000).toISOString(),
      effects: { sending_blocked: null, paused_campaign_ids: [], messaging_rate_per_second: null },
      read: false,
    });
    expect(stored[1]?.value).toMatchObject({ volume_tier_info: { tier: "25000001:50000000" } });
  });

  it("a tier upgrade raises the number's pacing rate to 1,000/s at once on a pod that cached it, audited by meta", async () => {
    const account = await accountWithNumbers(2);
    const [upgraded, other] = account.phoneNumberIds as [string, string];
    expect((await directory.resolveNumber(account.accountId, upgraded))?.messagingRatePerSecond).toBe(80);

    const answer = await control<{ payload: { entry: { changes: { value: unknown }[] }[] } }>(
      gateway.sandbox,
      "/numbers/quality-update",
      { phone_number_id: upgraded, waba_id: account.wabaId, event: "THROUGHPUT_UPGRADE" },
    );
    expect(answer.payload.entry[0]?.changes[0]?.value).toMatchObject({ display_phone_number: "551140000000" });

    // The directory trusts the number for a minute: seeing 1,000 now proves the announcement dropped it.
    await eventually(
      async () => (await directory.resolveNumber(account.accountId, upgraded))?.messagingRatePerSecond === 1000,
      { timeoutMs: 3_000, what: "a nova vazão no diretório" },
    );
    const numbers = await db.businessNumber.findMany({
      where: { accountId: account.accountId },
      orderBy: { displayNumber: "asc" },
    });
    expect(
      numbers.map((n) => [n.phoneNumberId, n.messagingRatePerSecond, n.reportedThroughput, n.healthEvent]),
    ).toEqual([
      [upgraded, 1000, "HIGH", "THROUGHPUT_UPGRADE"],
      [other, 80, null, null],
    ]);
    expect(numbers[0]?.reportedMessagingLimit).toBe("TIER_UNLIMITED");
    const [entry] = await audit(account, "system.number.messaging_rate_changed");
    expect(entry).toMatchObject({ actor: "meta", target: `number:${upgraded}` });
    expect(entry?.details).toMatchObject({ from: 80, to: 1000, event: "THROUGHPUT_UPGRADE" });
    const [stored] = await events(account);
    expect(stored).toMatchObject({
      phone_number_id: upgraded,
      display_number: "+55 11 4000-0000",
      effects: { messaging_rate_per_second: 1000, paused_campaign_ids: [], sending_blocked: null },
    });
    expect(entry?.details).toMatchObject({ account_event_id: String(stored?.id) });

    // Meta says it again (another event time): already at 1,000, nothing to change or audit.
    await control(gateway.sandbox, "/numbers/quality-update", {
      phone_number_id: upgraded,
      waba_id: account.wabaId,
      event: "THROUGHPUT_UPGRADE",
      current_limit: "TIER_UNLIMITED",
    });
    expect(await audit(account, "system.number.messaging_rate_changed")).toHaveLength(1);
  });

  it("a quality drop pauses that number's running and scheduled campaigns with the reason, and nothing else", async () => {
    const account = await accountWithNumbers(2);
    const [dropped, other] = account.phoneNumberIds as [string, string];
    const running = await campaignOf(account, dropped, "running");
    const scheduled = await campaignOf(account, dropped, "scheduled");
    const draft = await campaignOf(account, dropped, "draft");
    const otherNumber = await campaignOf(account, other, "running");

    await control(gateway.sandbox, "/numbers/quality-update", {
      phone_number_id: dropped,
      waba_id: account.wabaId,
      event: "FLAGGED",
    });

    const reason =
      "Pausada automaticamente: a Meta informou que a qualidade do número +55 11 4000-0000 caiu (evento FLAGGED). Confira a qualidade na página Números antes de retomar.";
    expect(await statusOf(running)).toEqual({ status: "paused", pauseReason: reason });
    expect(await statusOf(scheduled)).toEqual({ status: "paused", pauseReason: reason });
    expect(await statusOf(draft)).toEqual({ status: "draft", pauseReason: null });
    expect(await statusOf(otherNumber)).toEqual({ status: "running", pauseReason: null });
    const view = await getCampaign({ db }, { accountId: account.accountId, campaignId: running });
    expect(view).toMatchObject({ status: "paused", pause_reason: reason });
    const paused = await audit(account, "system.campaign.paused");
    expect(paused.map((e) => [e.actor, e.target, (e.details as { from: string }).from])).toEqual([
      ["meta", `campaign:${running}`, "running"],
      ["meta", `campaign:${scheduled}`, "scheduled"],
    ]);
    expect((await events(account))[0]?.effects?.paused_campaign_ids.sort()).toEqual([running, scheduled].sort());

    // A person resumes it: the reason goes; a person's pause has none.
    const controls = { db, logger: silentLogger };
    const who = { accountId: account.accountId, actor: testActor };
    expect(await resumeCampaign(controls, { ...who, campaignId: running })).toMatchObject({ pause_reason: null });
    expect(await pauseCampaign(controls, { ...who, campaignId: running })).toMatchObject({
      status: "paused",
      pause_reason: null,
    });
  });

  it("a quality of RED in the payload is a drop too; other events of the field change no campaign", async () => {
    const account = await accountWithNumbers(1);
    const [number] = account.phoneNumberIds as [string];
    const running = await campaignOf(account, number, "running");
    const post = (value: Record<string, unknown>, time: number) =>
      ingestProviderWebhook(gateway.deps, healthPayload(account.wabaId, "phone_number_quality_update", value, time));
    await post(
      { display_phone_number: "55 11 4000 0000", event: "ONBOARDING", max_daily_conversations_per_business: 2000 },
      1767225601,
    );
    await post({ display_phone_number: "551140000000", event: "UNFLAGGED", quality_rating: "GREEN" }, 1767225602);
    expect(await statusOf(running)).toEqual({ status: "running", pauseReason: null });
    await post(
      { display_phone_number: "+55 (11) 4000-0000", event: "QUALITY_UPDATE", current_quality: "red" },
      1767225603,
    );
    expect(await statusOf(running)).toMatchObject({ status: "paused" });
    expect((await statusOf(running)).pauseReason).toContain("(qualidade RED)");
    const row = await db.businessNumber.findUniqueOrThrow({ where: { phoneNumberId: number } });
    expect([row.reportedQuality, row.reportedMessagingLimit, row.healthEvent]).toEqual([
      "RED",
      "TIER_2K",
      "QUALITY_UPDATE",
    ]);
  });

  it("a restriction or a violation pauses every campaign of the WABA's numbers; sends are not blocked", async () => {
    const account = await accountWithNumbers(2);
    const [first, second] = account.phoneNumberIds as [string, string];
    const a = await campaignOf(account, first, "running");
    const b = await campaignOf(account, second, "scheduled");
    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "ACCOUNT_RESTRICTION" });
    const reason = `Pausada automaticamente: a Meta restringiu a conta WhatsApp Business ${account.wabaId} (ACCOUNT_RESTRICTION: RESTRICTED_BIZ_INITIATED_MESSAGING).`;
    expect(await statusOf(a)).toEqual({ status: "paused", pauseReason: reason });
    expect(await statusOf(b)).toEqual({ status: "paused", pauseReason: reason });
    expect((await directory.resolveNumber(account.accountId, first))?.sendingBlock).toBeNull();

    const c = await campaignOf(account, first, "running");
    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "ACCOUNT_VIOLATION" });
    expect((await statusOf(c)).pauseReason).toBe(
      `Pausada automaticamente: a Meta registrou uma violação de política na conta WhatsApp Business ${account.wabaId} (ACCOUNT_VIOLATION: SCAM).`,
    );
  });

  it("a ban blocks the WABA's sends at once and pauses its campaigns; a reinstatement lifts the block, campaigns stay paused", async () => {
    const account = await accountWithNumbers(1);
    const [number] = account.phoneNumberIds as [string];
    const running = await campaignOf(account, number, "running");
    expect((await directory.resolveNumber(account.accountId, number))?.sendingBlock).toBeNull();

    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "DISABLED_UPDATE" });
    const cause = `a Meta desativou a conta WhatsApp Business ${account.wabaId} (DISABLED_UPDATE: DISABLE)`;
    // Cached for a minute, yet blocked within moments: the announcement reached this pod's directory.
    await eventually(async () => (await directory.resolveNumber(account.accountId, number))?.sendingBlock != null, {
      timeoutMs: 3_000,
      what: "o bloqueio no diretório",
    });
    expect((await directory.resolveNumber(account.accountId, number))?.sendingBlock).toMatchObject({
      wabaId: account.wabaId,
      event: "DISABLED_UPDATE",
      reason: cause,
    });
    expect(await statusOf(running)).toEqual({
      status: "paused",
      pauseReason: `Pausada automaticamente: ${cause}. Os envios da conta estão bloqueados até a Meta reativá-la ou reconectá-la.`,
    });
    expect(await listWabaHealth({ db }, { accountId: account.accountId, blockedOnly: true })).toEqual([
      expect.objectContaining({
        waba_id: account.wabaId,
        sending_block_event: "DISABLED_UPDATE",
        sending_block_reason: cause,
      }),
    ]);
    // Resuming is refused while every send would be.
    const controls = { db, logger: silentLogger };
    const who = { accountId: account.accountId, actor: testActor };
    const refused = await resumeCampaign(controls, { ...who, campaignId: running }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("account_disabled");
    expect((refused as ApiError).message).toContain(cause);

    await control(gateway.sandbox, "/account-update", {
      waba_id: account.wabaId,
      event: "DISABLED_UPDATE",
      ban_info: { waba_ban_state: "REINSTATE", waba_ban_date: "November 20, 2026" },
    });
    await eventually(async () => (await directory.resolveNumber(account.accountId, number))?.sendingBlock === null, {
      timeoutMs: 3_000,
      what: "o fim do bloqueio no diretório",
    });
    expect(await statusOf(running)).toMatchObject({ status: "paused" });
    expect(await listWabaHealth({ db }, { accountId: account.accountId, blockedOnly: true })).toEqual([]);
    expect((await audit(account, "system.account.sending_blocked")).map((e) => e.target)).toEqual([
      `waba:${account.wabaId}`,
    ]);
    expect((await audit(account, "system.account.sending_unblocked")).map((e) => e.details)).toEqual([
      expect.objectContaining({ blocked_by: "DISABLED_UPDATE" }),
    ]);
    expect((await events(account)).map((e) => e.effects?.sending_blocked)).toEqual([false, true]);
    expect(await resumeCampaign(controls, { ...who, campaignId: running })).toMatchObject({ status: "running" });
  });

  it("offboarding events block; a partner added back lifts only its own removal; a late older ban never blocks again", async () => {
    const account = await accountWithNumbers(1);
    const [number] = account.phoneNumberIds as [string];
    const post = (value: Record<string, unknown>, time: number) =>
      ingestProviderWebhook(gateway.deps, healthPayload(account.wabaId, "account_update", value, time));
    const blocked = async () =>
      (await listWabaHealth({ db }, { accountId: account.accountId, blockedOnly: true })).length > 0;

    await post({ event: "PARTNER_REMOVED", waba_info: { waba_id: account.wabaId } }, 1767225600);
    expect(await blocked()).toBe(true);
    await post({ event: "PARTNER_APP_INSTALLED" }, 1767225601); // not what removed it
    expect(await blocked()).toBe(true);
    await post({ event: "PARTNER_ADDED", waba_info: { waba_id: account.wabaId } }, 1767225602);
    expect(await blocked()).toBe(false);

    await post({ event: "ACCOUNT_DELETED" }, 1767225610);
    await post({ event: "PARTNER_ADDED" }, 1767225611);
    expect(await blocked()).toBe(true);
    await post({ event: "ACCOUNT_RECONNECTED" }, 1767225620);
    expect(await blocked()).toBe(false);
    // Delivered late: older than the reconnection already applied.
    await post({ event: "ACCOUNT_OFFBOARDED" }, 1767225615);
    expect(await blocked()).toBe(false);
    await post({ event: "PARTNER_APP_UNINSTALLED" }, 1767225630);
    expect(await blocked()).toBe(true);
    // SCHEDULE_FOR_DISABLE is a warning: nothing stops yet.
    await post({ event: "DISABLED_UPDATE", ban_info: { waba_ban_state: "SCHEDULE_FOR_DISABLE" } }, 1767225640);
    expect((await events(account))[0]?.effects?.sending_blocked).toBeNull();

    // The operator lifts what Meta never lifted.
    expect(
      await liftSendingBlock({ db }, { accountId: account.accountId, wabaId: account.wabaId, actor: testActor }),
    ).toBe(true);
    expect(await blocked()).toBe(false);
    expect(
      await liftSendingBlock({ db }, { accountId: account.accountId, wabaId: account.wabaId, actor: testActor }),
    ).toBe(false);
    expect((await directory.resolveNumber(account.accountId, number))?.sendingBlock ?? null).toBeNull();
  });

  it("business_capability_update keeps the portfolio's limit, given as a tier or as Meta's integer", async () => {
    const account = await accountWithNumbers(1);
    await control(gateway.sandbox, "/business-capability", {
      waba_id: account.wabaId,
      max_daily_conversations_per_business: "TIER_10K",
      max_phone_numbers_per_waba: 25,
    });
    expect(await listWabaHealth({ db }, { accountId: account.accountId })).toEqual([
      expect.objectContaining({ waba_id: account.wabaId, messaging_limit: "TIER_10K", max_phone_numbers: 25 }),
    ]);
    await control(gateway.sandbox, "/business-capability", {
      waba_id: account.wabaId,
      max_daily_conversations_per_business: 2000,
    });
    const [health] = await listWabaHealth({ db }, { accountId: account.accountId });
    expect(health).toMatchObject({ messaging_limit: "TIER_2K", sending_blocked_at: null });
    expect((await events(account)).map((e) => e.value.max_daily_conversations_per_business)).toEqual([
      2000,
      "TIER_10K",
    ]);
  });

  it("creates one signed account.update delivery per active integration that opted in, with the documented data", async () => {
    const account = await accountWithNumbers(1);
    const policy = DEVELOPMENT_INTEGRATION_POLICY;
    const subscribed = await setIntegration(
      { db, policy, secrets: testSecretBox() },
      { accountId: account.accountId, url: "http://127.0.0.1:9/health", events: ["account.update"], actor: testActor },
    );
    const messagesOnly = await setIntegration(
      { db, policy, secrets: testSecretBox() },
      {
        accountId: account.accountId,
        url: "http://127.0.0.1:9/messages",
        events: ["message.status", "message.received"],
        actor: testActor,
      },
    );
    await setIntegration(
      { db, policy, secrets: testSecretBox() },
      {
        accountId: account.accountId,
        url: "http://127.0.0.1:9/paused",
        events: ["account.update"],
        active: false,
        actor: testActor,
      },
    );
    await control(gateway.sandbox, "/templates/category", {
      waba_id: account.wabaId,
      name: "hello_world",
      category: "MARKETING",
      impending: true,
    });
    const deliveries = await db.delivery.findMany({ where: { accountId: account.accountId } });
    expect(deliveries.map((d) => [d.integrationId, d.event, d.status])).toEqual([
      [subscribed.id, "account.update", "pending"],
    ]);
    expect(deliveries.some((d) => d.integrationId === messagesOnly.id)).toBe(false);
    const envelope = AccountUpdateEvent.parse(JSON.parse(deliveries[0]?.body ?? "{}"));
    const [stored] = await events(account);
    expect(envelope).toMatchObject({
      event: "account.update",
      delivery_id: String(deliveries[0]?.id),
      data: {
        account_event_id: String(stored?.id),
        waba_id: account.wabaId,
        field: "template_category_update",
        event: null,
        phone_number_id: null,
        value: { message_template_name: "hello_world", correct_category: "MARKETING" },
        effects: { sending_blocked: null, paused_campaign_ids: [], messaging_rate_per_second: null },
      },
    });
  });

  it("lists per user: unread counts, marks read (audited), keeps accounts apart", async () => {
    const account = await accountWithNumbers(1, 2);
    const stranger = await accountWithNumbers(1);
    const [owner, viewer] = account.userIds as [string, string];
    const [strangerUser] = stranger.userIds as [string];
    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "MM_LITE_TERMS_SIGNED" });
    await control(gateway.sandbox, "/account-update", { waba_id: account.wabaId, event: "AD_ACCOUNT_LINKED" });
    const who = { accountId: account.accountId, actor: testActor };
    expect(await countUnreadAccountEvents({ db }, { accountId: account.accountId, userId: owner })).toBe(2);
    const [latest, first] = await events(account);
    await markAccountEventRead({ db }, { ...who, userId: owner, eventId: first?.id ?? 0 });
    expect(await countUnreadAccountEvents({ db }, { accountId: account.accountId, userId: owner })).toBe(1);
    expect(await countUnreadAccountEvents({ db }, { accountId: account.accountId, userId: viewer })).toBe(2);
    const unread = await listAccountEvents(
      { db },
      { accountId: account.accountId, userId: owner, unreadOnly: true, limit: 10 },
    );
    expect(unread.events.map((e) => e.id)).toEqual([latest?.id]);
    const page = await listAccountEvents({ db }, { accountId: account.accountId, userId: owner, limit: 1 });
    expect(page.next_cursor).toBe(String(latest?.id));
    expect(
      (
        await listAccountEvents(
          { db },
          { accountId: account.accountId, userId: owner, limit: 1, cursor: page.next_cursor },
        )
      ).events.map((e) => e.id),
    ).toEqual([first?.id]);
    expect(await markAllAccountEventsRead({ db }, { ...who, userId: owner })).toBe(1);
    expect((await audit(account, "system.account_event.read")).map((e) => e.target)).toEqual([
      `account_event:${first?.id}`,
    ]);
    expect(await audit(account, "system.account_event.read_all")).toHaveLength(1);

    // Another account's user sees, counts and marks nothing of this one.
    expect(
      (await listAccountEvents({ db }, { accountId: account.accountId, userId: strangerUser, limit: 10 })).events,
    ).toEqual([]);
    const refused = await markAccountEventRead(
      { db },
      { accountId: stranger.accountId, userId: strangerUser, actor: testActor, eventId: first?.id ?? 0 },
    ).catch((e: unknown) => e);
    expect((refused as ApiError).code).toBe("not_found");
  });
});
