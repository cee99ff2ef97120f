// Template notices: Meta's message_template_status_update / message_template_quality_update webhooks, emitted by
// the provider sandbox, ingested like every provider webhook, and read per panel user with tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { testEnv, testActor } from "@gw/testkit";
import { ingestProviderWebhook } from "../src/ingest/index.ts";
import {
  countUnreadTemplateNotices,
  listTemplateNotices,
  markAllTemplateNoticesRead,
  markTemplateNoticeRead,
} from "../src/templates/index.ts";
import {
  control,
  createPanelAccount,
  startIngestingSandbox,
  uniqueDigits,
  type IngestingSandbox,
} from "./sandbox-ingest.ts";

let db: Db;
let gateway: IngestingSandbox;
let a: Awaited<ReturnType<typeof createPanelAccount>>;
let b: Awaited<ReturnType<typeof createPanelAccount>>;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
  gateway = await startIngestingSandbox(db);
  a = await createPanelAccount(db, { numbers: 1, users: 2 });
  b = await createPanelAccount(db, { numbers: 1, users: 1 });
});

afterAll(async () => {
  await gateway.close();
  await db.$disconnect();
});

async function expectApiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return error as ApiError;
}

async function emitStatus(wabaId: string, body: Record<string, unknown>): Promise<void> {
  await control(gateway.sandbox, "/templates/status", { waba_id: wabaId, ...body });
}

describe("template notices from Meta's webhooks", () => {
  it("stores a rejection with its reason, a pause and a quality change for the WABA's account, unread per user", async () => {
    await emitStatus(a.wabaId, {
      name: "pedido_confirmado",
      language: "pt_BR",
      event: "REJECTED",
      reason: "INVALID_FORMAT",
      rejection_info: { reason: "Variáveis sem exemplo.", recommendation: "Inclua exemplos." },
    });
    await emitStatus(a.wabaId, { name: "hello_world", event: "PAUSED" });
    await control(gateway.sandbox, "/templates/quality", {
      waba_id: a.wabaId,
      name: "hello_world",
      new_quality_score: "YELLOW",
    });
    expect(gateway.results.slice(-3).map((r) => r.notices)).toEqual([1, 1, 1]);

    const [owner, viewer] = a.userIds as [string, string];
    const page = await listTemplateNotices({ db }, { accountId: a.accountId, userId: owner, limit: 10 });
    expect(page.next_cursor).toBeNull();
    expect(page.notices.map((n) => [n.kind, n.template_name, n.event])).toEqual([
      ["quality", "hello_world", "YELLOW"],
      ["status", "hello_world", "PAUSED"],
      ["status", "pedido_confirmado", "REJECTED"],
    ]);
    const [quality, paused, rejected] = page.notices;
    expect(rejected).toMatchObject({
      waba_id: a.wabaId,
      template_id: expect.stringMatching(/^\d+$/),
      template_language: "pt_BR",
      reason: "INVALID_FORMAT: Variáveis sem exemplo.",
      previous_quality: null,
      new_quality: null,
      read: false,
      read_at: null,
    });
    expect(paused?.reason).toMatch(/paused for 3 hours/);
    expect(quality).toMatchObject({ previous_quality: "GREEN", new_quality: "YELLOW", reason: null });
    // occurred_at is Meta's entry[].time (whole seconds).
    expect(rejected?.occurred_at).toMatch(/T\d{2}:\d{2}:\d{2}\.000Z$/);

    const marked = await markTemplateNoticeRead(
      { db },
      { actor: testActor, accountId: a.accountId, userId: owner, noticeId: rejected?.id ?? 0 },
    );
    expect(marked.id).toBe(rejected?.id);
    const again = await markTemplateNoticeRead(
      { db },
      { actor: testActor, accountId: a.accountId, userId: owner, noticeId: String(marked.id) },
    );
    expect(again.read_at).toBe(marked.read_at);

    const ownerView = await listTemplateNotices({ db }, { accountId: a.accountId, userId: owner, limit: 10 });
    expect(ownerView.notices.map((n) => n.read)).toEqual([false, false, true]);
    const viewerView = await listTemplateNotices({ db }, { accountId: a.accountId, userId: viewer, limit: 10 });
    expect(viewerView.notices.map((n) => n.read)).toEqual([false, false, false]);
    expect(await countUnreadTemplateNotices({ db }, { accountId: a.accountId, userId: owner })).toBe(2);
    expect(await countUnreadTemplateNotices({ db }, { accountId: a.accountId, userId: viewer })).toBe(3);

    const unread = await listTemplateNotices(
      { db },
      { accountId: a.accountId, userId: owner, unreadOnly: true, limit: 10 },
    );
    expect(unread.notices.map((n) => n.event)).toEqual(["YELLOW", "PAUSED"]);
    expect(await markAllTemplateNoticesRead({ db }, { actor: testActor, accountId: a.accountId, userId: owner })).toBe(
      2,
    );
    expect(await countUnreadTemplateNotices({ db }, { accountId: a.accountId, userId: owner })).toBe(0);
    expect(await countUnreadTemplateNotices({ db }, { accountId: a.accountId, userId: viewer })).toBe(3);
  });

  it("keeps accounts apart: another account's notice is not_found, its users see nothing of this one", async () => {
    await emitStatus(b.wabaId, { name: "hello_world", event: "APPROVED" });
    const [bUser] = b.userIds as [string];
    const [aOwner] = a.userIds as [string];
    const bNotices = (await listTemplateNotices({ db }, { accountId: b.accountId, userId: bUser, limit: 50 })).notices;
    expect(bNotices.map((n) => [n.event, n.waba_id, n.reason])).toEqual([["APPROVED", b.wabaId, null]]);
    const bNotice = bNotices[0]?.id ?? 0;

    const aNotices = (await listTemplateNotices({ db }, { accountId: a.accountId, userId: aOwner, limit: 50 })).notices;
    expect(aNotices.some((n) => n.id === bNotice)).toBe(false);
    // Account A's user cannot mark B's notice through A's account...
    await expectApiError(
      markTemplateNoticeRead({ db }, { actor: testActor, accountId: a.accountId, userId: aOwner, noticeId: bNotice }),
      "not_found",
    );
    // ...nor through B's account, to which the user does not belong; an unknown id reads the same.
    await expectApiError(
      markTemplateNoticeRead({ db }, { actor: testActor, accountId: b.accountId, userId: aOwner, noticeId: bNotice }),
      "not_found",
    );
    await expectApiError(
      markTemplateNoticeRead(
        { db },
        { actor: testActor, accountId: a.accountId, userId: aOwner, noticeId: 999999999999 },
      ),
      "not_found",
    );
    await expectApiError(
      markTemplateNoticeRead({ db }, { actor: testActor, accountId: a.accountId, userId: aOwner, noticeId: "1; drop" }),
      "not_found",
    );
    expect(await db.templateNoticeRead.count({ where: { noticeId: BigInt(bNotice) } })).toBe(0);
    // A user of another account lists nothing, counts nothing and marks nothing.
    expect((await listTemplateNotices({ db }, { accountId: a.accountId, userId: bUser, limit: 50 })).notices).toEqual(
      [],
    );
    expect(await countUnreadTemplateNotices({ db }, { accountId: a.accountId, userId: bUser })).toBe(0);
    expect(await markAllTemplateNoticesRead({ db }, { actor: testActor, accountId: a.accountId, userId: bUser })).toBe(
      0,
    );
  });

  it("quarantines the notice of a WABA no account has, storing nothing", async () => {
    const stranger = uniqueDigits(15);
    const before = await db.templateNotice.count();
    await emitStatus(stranger, { name: "hello_world", event: "DISABLED" });
    const result = gateway.results.at(-1);
    expect(result).toMatchObject({ notices: 0, quarantined: 1, duplicate: false });
    expect(await db.templateNotice.count()).toBe(before);
    const event = await db.providerEvent.findFirst({
      where: { body: { contains: stranger } },
      orderBy: { id: "desc" },
    });
    expect(event?.processedAt).not.toBeNull();
    expect(event?.quarantined).toEqual([
      { path: `entry.id=${stranger}`, reason: "conta WhatsApp Business desconhecida" },
    ]);
  });

  it("stores a notice once when Meta sends it again, in the same bytes or in another payload", async () => {
    const [owner] = a.userIds as [string];
    const payload = (spacing: string) =>
      JSON.stringify(
        {
          object: "whatsapp_business_account",
          entry: [
            {
              id: a.wabaId,
              time: 1767225600,
              changes: [
                {
                  field: "message_template_status_update",
                  value: {
                    event: "DISABLED",
                    message_template_id: 1689556908129832,
                    message_template_name: "promo_natal",
                    message_template_language: "pt_BR",
                    reason: "NONE",
                    disable_info: { disable_date: 1767225600 },
                  },
                },
              ],
            },
          ],
        },
        null,
        spacing,
      );
    const first = await ingestProviderWebhook(gateway.deps, payload(""));
    expect(first).toMatchObject({ notices: 1, duplicate: false });
    expect(await ingestProviderWebhook(gateway.deps, payload(""))).toMatchObject({ notices: 0, duplicate: true });
    // Same notice, other bytes (another payload hash): still one row.
    expect(await ingestProviderWebhook(gateway.deps, payload("  "))).toMatchObject({ notices: 0, duplicate: false });
    const rows = (
      await listTemplateNotices({ db }, { accountId: a.accountId, userId: owner, limit: 50 })
    ).notices.filter((n) => n.template_name === "promo_natal");
    expect(rows).toEqual([
      expect.objectContaining({
        template_id: "1689556908129832",
        event: "DISABLED",
        reason: null,
        occurred_at: new Date(1767225600 * 1000).toISOString(),
      }),
    ]);
  });

  it("commits a notice with the inbound message of the same payload", async () => {
    const wamid = `wamid.notice-and-message.${uniqueDigits(8)}`;
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: a.wabaId,
          time: 1767312000,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550000000", phone_number_id: a.phoneNumberIds[0] },
                contacts: [{ profile: { name: "Cliente" }, wa_id: "5511987650000" }],
                messages: [
                  { from: "5511987650000", id: wamid, timestamp: "1767312000", type: "text", text: { body: "oi" } },
                ],
              },
            },
            {
              field: "message_template_quality_update",
              value: {
                previous_quality_score: "YELLOW",
                new_quality_score: "RED",
                message_template_id: 806312974732579,
                message_template_name: "welcome_template",
                message_template_language: "en_US",
              },
            },
          ],
        },
      ],
    });
    expect(await ingestProviderWebhook(gateway.deps, body)).toMatchObject({ messages: 1, notices: 1, quarantined: 0 });
    expect(await db.inboundMessage.count({ where: { wamid } })).toBe(1);
    expect(
      await db.templateNotice.count({
        where: { accountId: a.accountId, templateName: "welcome_template", newQuality: "RED" },
      }),
    ).toBe(1);
  });

  it("pages newest first with an opaque cursor, filters by kind, and refuses a malformed cursor", async () => {
    const [, viewer] = a.userIds as [string, string];
    const all = (await listTemplateNotices({ db }, { accountId: a.accountId, userId: viewer, limit: 200 })).notices;
    expect(all.length).toBeGreaterThanOrEqual(5);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listTemplateNotices>> = await listTemplateNotices(
        { db },
        { accountId: a.accountId, userId: viewer, limit: 2, cursor },
      );
      expect(page.notices.length).toBeLessThanOrEqual(2);
      seen.push(...page.notices.map((n) => n.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(all.map((n) => n.id));
    expect([...seen].sort((x, y) => y - x)).toEqual(seen);

    const quality = await listTemplateNotices(
      { db },
      { accountId: a.accountId, userId: viewer, kind: "quality", limit: 50 },
    );
    expect(quality.notices.length).toBeGreaterThan(0);
    expect(quality.notices.every((n) => n.kind === "quality")).toBe(true);
    await expectApiError(
      listTemplateNotices({ db }, { accountId: a.accountId, userId: viewer, limit: 2, cursor: "abc" }),
      "bad_request",
    );
  });
});
