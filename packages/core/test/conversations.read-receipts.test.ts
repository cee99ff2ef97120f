// Read receipts in core: the panel's per-account setting and its audit, a conversation marked read when it is
// opened (only with the setting on, only its newest unread message, quietly refused when Meta fails), and the
// per-conversation typing indicator limit against the real Redis (its window and its release).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { createRedis, type Redis } from "@gw/jobs";
import { MetaReadError } from "@gw/meta";
import { silentLogger, testEnv } from "@gw/testkit";
import { createAccountDirectory } from "../src/accounts/index.ts";
import type { Actor } from "../src/audit/index.ts";
import {
  createTypingLimiter,
  markConversationReadOnOpen,
  panelReadReceiptsEnabled,
  setPanelReadReceipts,
  type ReadReceiptDeps,
} from "../src/conversations/index.ts";
import { createPanelAccount } from "./sandbox-ingest.ts";

const owner: Actor = { id: "panel:dona@padaria.com.br", origin: "panel", requestId: "req-read-receipts" };
const MINUTE = 60_000;

let db: Db;
let redis: Redis;
let prefix: string;

beforeAll(() => {
  const env = testEnv();
  db = createDb({ url: env.databaseUrl, poolSize: 3 });
  redis = createRedis(env.redisUrl);
  prefix = env.redisPrefix;
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await db.$disconnect();
});

/** A Meta that records the read receipts it is asked for, failing the next `failNext` of them. */
function fakeMeta() {
  const calls: { phoneNumberId: string; messageId: string; typing: boolean }[] = [];
  let failNext = 0;
  return {
    calls,
    failOnce() {
      failNext++;
    },
    markRead(phoneNumberId: string, input: { messageId: string; typing?: boolean }): Promise<void> {
      if (failNext > 0) {
        failNext--;
        return Promise.reject(new MetaReadError("server_error", "Meta respondeu 500.", { httpStatus: 500 }));
      }
      calls.push({ phoneNumberId, messageId: input.messageId, typing: input.typing ?? false });
      return Promise.resolve();
    },
  };
}

/** Inbound messages of one contact (keyed by its phone) on the number, `minutesAgo` each. */
async function contactWrote(accountId: string, phoneNumberId: string, contact: string, minutesAgo: number[]) {
  const wamids: string[] = [];
  for (const ago of minutesAgo) {
    const wamid = `wamid.rr.${randomBytes(8).toString("hex")}`;
    const at = new Date(Date.now() - ago * MINUTE);
    await db.inboundMessage.create({
      data: {
        accountId,
        phoneNumberId,
        from: contact,
        contactKey: contact,
        wamid,
        type: "text",
        text: "Oi",
        occurredAt: at,
        windowExpiresAt: new Date(at.getTime() + 24 * 60 * MINUTE),
      },
    });
    wamids.push(wamid);
  }
  return wamids;
}

const readAtOf = async (wamid: string) => (await db.inboundMessage.findUniqueOrThrow({ where: { wamid } })).readAt;

describe("the panel's read-receipt setting", () => {
  it("is off by default; each change is audited with its values, a repeat of the same value is not", async () => {
    const { accountId } = await createPanelAccount(db, { numbers: 0, users: 0 });
    const entries = () => db.auditEntry.findMany({ where: { accountId }, orderBy: { id: "asc" } });
    expect(await panelReadReceiptsEnabled({ db }, { accountId })).toBe(false);

    expect(await setPanelReadReceipts({ db }, { accountId, enabled: true, actor: owner })).toEqual({
      enabled: true,
      changed: true,
    });
    expect(await panelReadReceiptsEnabled({ db }, { accountId })).toBe(true);
    expect(await setPanelReadReceipts({ db }, { accountId, enabled: true, actor: owner })).toEqual({
      enabled: true,
      changed: false,
    });
    await setPanelReadReceipts({ db }, { accountId, enabled: false, actor: owner });

    expect(await entries()).toEqual([
      expect.objectContaining({
        action: "panel.account.read_receipts_changed",
        actor: owner.id,
        requestId: owner.requestId,
        target: `account:${accountId}`,
        details: { from: false, to: true },
      }),
      expect.objectContaining({ action: "panel.account.read_receipts_changed", details: { from: true, to: false } }),
    ]);
    expect(await panelReadReceiptsEnabled({ db }, { accountId })).toBe(false);
  });

  it("answers null for an account that does not exist", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await setPanelReadReceipts({ db }, { accountId: unknown, enabled: true, actor: owner })).toBeNull();
    expect(await setPanelReadReceipts({ db }, { accountId: "nao-e-uuid", enabled: true, actor: owner })).toBeNull();
  });
});

describe("opening a conversation in the panel", () => {
  it("marks nothing and asks Meta nothing while the setting is off", async () => {
    const { accountId, phoneNumberIds } = await createPanelAccount(db, { numbers: 1, users: 0 });
    const number = phoneNumberIds[0] ?? "";
    const [wamid] = await contactWrote(accountId, number, "5511987651001", [1]);
    const meta = fakeMeta();
    const deps: ReadReceiptDeps = { db, meta, directory: createAccountDirectory(db), logger: silentLogger };
    const outcome = await markConversationReadOnOpen(deps, {
      accountId,
      phoneNumberId: number,
      contact: "5511987651001",
      actor: owner,
    });
    expect(outcome).toEqual({ kind: "disabled" });
    expect(meta.calls).toEqual([]);
    expect(await readAtOf(wamid ?? "")).toBeNull();
  });

  it("with the setting on, marks the newest unread message read at Meta (the earlier ones with it), then nothing more", async () => {
    const { accountId, phoneNumberIds } = await createPanelAccount(db, { numbers: 1, users: 0 });
    const number = phoneNumberIds[0] ?? "";
    const [oldest, middle, newest] = await contactWrote(accountId, number, "5511987651002", [30, 20, 10]);
    const [otherContact] = await contactWrote(accountId, number, "5511987651003", [5]);
    await setPanelReadReceipts({ db }, { accountId, enabled: true, actor: owner });
    const meta = fakeMeta();
    const deps: ReadReceiptDeps = { db, meta, directory: createAccountDirectory(db), logger: silentLogger };
    // The conversation's address may name the contact in any formatting.
    const open = () =>
      markConversationReadOnOpen(deps, {
        accountId,
        phoneNumberId: number,
        contact: "+55 11 98765-1002",
        actor: owner,
      });

    const outcome = await open();
    expect(outcome).toMatchObject({
      kind: "marked",
      receipt: { messageId: newest, typing: false, alreadyRead: false },
    });
    expect(meta.calls).toEqual([{ phoneNumberId: number, messageId: newest, typing: false }]);
    for (const wamid of [oldest, middle, newest]) expect(await readAtOf(wamid ?? "")).not.toBeNull();
    expect(await readAtOf(otherContact ?? "")).toBeNull();
    expect(await db.auditEntry.findMany({ where: { accountId, action: "panel.inbound_message.marked_read" } })).toEqual(
      [expect.objectContaining({ actor: owner.id, details: { wamid: newest, typing: false, marked: 3 } })],
    );

    expect(await open()).toEqual({ kind: "nothing_unread" });
    expect(meta.calls).toHaveLength(1);
  });

  it("answers a refusal (nothing recorded) when Meta fails, and marks it at the next opening", async () => {
    const { accountId, phoneNumberIds } = await createPanelAccount(db, { numbers: 1, users: 0 });
    const number = phoneNumberIds[0] ?? "";
    const [wamid] = await contactWrote(accountId, number, "5511987651004", [1]);
    await setPanelReadReceipts({ db }, { accountId, enabled: true, actor: owner });
    const meta = fakeMeta();
    meta.failOnce();
    const deps: ReadReceiptDeps = { db, meta, directory: createAccountDirectory(db), logger: silentLogger };
    const open = () =>
      markConversationReadOnOpen(deps, { accountId, phoneNumberId: number, contact: "5511987651004", actor: owner });

    const failed = await open();
    expect(failed.kind === "refused" ? failed.error.code : failed.kind).toBe("provider_unavailable");
    expect(await readAtOf(wamid ?? "")).toBeNull();
    expect((await open()).kind).toBe("marked");
    expect(await readAtOf(wamid ?? "")).not.toBeNull();
  });

  it("leaves another account's conversation alone, even with its own setting on", async () => {
    const mine = await createPanelAccount(db, { numbers: 1, users: 0 });
    const theirs = await createPanelAccount(db, { numbers: 1, users: 0 });
    const theirNumber = theirs.phoneNumberIds[0] ?? "";
    const [wamid] = await contactWrote(theirs.accountId, theirNumber, "5511987651005", [1]);
    await setPanelReadReceipts({ db }, { accountId: mine.accountId, enabled: true, actor: owner });
    const meta = fakeMeta();
    const deps: ReadReceiptDeps = { db, meta, directory: createAccountDirectory(db), logger: silentLogger };
    const outcome = await markConversationReadOnOpen(deps, {
      accountId: mine.accountId,
      phoneNumberId: theirNumber,
      contact: "5511987651005",
      actor: owner,
    });
    expect(outcome).toEqual({ kind: "nothing_unread" });
    expect(meta.calls).toEqual([]);
    expect(await readAtOf(wamid ?? "")).toBeNull();
  });
});

describe("the typing indicator limit (Redis)", () => {
  const target = (wamid: string, occurredAt: Date) => ({
    phoneNumberId: "15550001111",
    contactKey: `55119876${randomBytes(2).readUInt16BE(0)}`,
    wamid,
    occurredAt,
  });

  it("allows a new indicator for the same message once the window has passed", async () => {
    const limiter = createTypingLimiter({ redis, keyPrefix: prefix, windowMs: 300 });
    const message = target("wamid.a", new Date());
    expect((await limiter.claim(message)).granted).toBe(true);
    const refused = await limiter.claim(message);
    expect(refused.granted).toBe(false);
    if (!refused.granted) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(300);
    }
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await limiter.claim(message)).granted).toBe(true);
  });

  it("frees the conversation when a granted claim is released, but a release never frees a newer claim", async () => {
    const limiter = createTypingLimiter({ redis, keyPrefix: prefix, windowMs: 60_000 });
    const older = target("wamid.old", new Date(Date.now() - MINUTE));
    const newer = { ...older, wamid: "wamid.new", occurredAt: new Date() };
    const first = await limiter.claim(older);
    if (!first.granted) throw new Error("the first claim was refused");
    await first.release();
    expect((await limiter.claim(older)).granted).toBe(true);

    // A stale release (of the older claim) after a newer message took the conversation leaves the newer one.
    const stale = await limiter.claim({ ...older, wamid: "wamid.other-same-time" });
    expect(stale.granted).toBe(true);
    expect((await limiter.claim(newer)).granted).toBe(true);
    if (stale.granted) await stale.release();
    expect((await limiter.claim(newer)).granted).toBe(false);
  });
});
