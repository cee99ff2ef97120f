// The panel's conversations: contacts who wrote (through the provider sandbox's signed webhooks, ingested as the
// API does), their messages interleaved with the account's sends, the 24 h window, and media opened through
// Meta's media endpoint — all per account.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { createMetaClient, type MetaClient } from "@gw/meta";
import { testEnv, testActor } from "@gw/testkit";
import { listConversationMessages, listConversations, openInboundMedia } from "../src/conversations/index.ts";
import { control, createPanelAccount, startIngestingSandbox, type IngestingSandbox } from "./sandbox-ingest.ts";

const TOKEN = "EAAG-conversations-token-5d2e";
// Contact X writes from the 12-digit id of an old Brazilian account; the gateway keys it with the 9th digit.
const X_OLD_ID = "551187654321";
const X = "5511987654321";
const Y = "5521988887777";
const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / 1000) - 6 * 3600;

let db: Db;
let gateway: IngestingSandbox;
let meta: MetaClient;
let a: Awaited<ReturnType<typeof createPanelAccount>>;
let b: Awaited<ReturnType<typeof createPanelAccount>>;
let number: string;
const inboundIds: Record<string, string> = {};

async function expectApiError(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return error as ApiError;
}

async function inbound(body: Record<string, unknown>): Promise<string> {
  const answer = await control<{ id: string; webhook_status: number }>(gateway.sandbox, "/inbound", {
    phone_number_id: number,
    ...body,
  });
  expect(answer.webhook_status).toBe(200);
  const row = await db.inboundMessage.findUniqueOrThrow({ where: { wamid: answer.id } });
  return row.id;
}

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
  gateway = await startIngestingSandbox(db, { accessToken: TOKEN });
  meta = createMetaClient({ baseUrl: gateway.sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000 });
  a = await createPanelAccount(db, { numbers: 1, users: 0 });
  b = await createPanelAccount(db, { numbers: 1, users: 0 });
  number = a.phoneNumberIds[0] ?? "";

  // X: text at T0, the account replies at T0+1h (delivered), X sends an image at T0+2h. Y: one text at T0+1.5h.
  inboundIds.xText = await inbound({
    from: X_OLD_ID,
    name: "Maria Souza",
    type: "text",
    text: "Oi, meu pedido?",
    timestamp: T0,
  });
  await db.message.create({
    data: {
      accountId: a.accountId,
      phoneNumberId: number,
      to: X,
      wamid: `wamid.reply.${a.accountId}`,
      kind: "template",
      templateName: "pedido_confirmado",
      status: "delivered",
      createdAt: new Date((T0 + 3600) * 1000),
    },
  });
  inboundIds.yText = await inbound({ from: Y, name: "João_100%", type: "text", text: "Bom dia", timestamp: T0 + 5400 });
  // The account answers Y after Y wrote: Y's last message is that send (Y stays behind X, who wrote later).
  await db.message.create({
    data: {
      accountId: a.accountId,
      phoneNumberId: number,
      to: Y,
      wamid: `wamid.reply-y.${a.accountId}`,
      kind: "text",
      status: "read",
      createdAt: new Date((T0 + 6000) * 1000),
    },
  });
  inboundIds.xImage = await inbound({
    from: X_OLD_ID,
    name: "Maria Souza",
    type: "image",
    media: { mime_type: "image/png", caption: "comprovante" },
    timestamp: T0 + 7200,
  });
  // A send of account B to X from B's own number: never part of A's conversation.
  await db.message.create({
    data: {
      accountId: b.accountId,
      phoneNumberId: b.phoneNumberIds[0] ?? "",
      to: X,
      wamid: `wamid.other.${b.accountId}`,
      kind: "text",
      status: "accepted",
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await db.$disconnect();
});

describe("listConversations", () => {
  it("lists the contacts who wrote, latest first, with the last message either way and the open window", async () => {
    const { conversations, next_cursor } = await listConversations({ db }, { accountId: a.accountId, limit: 20 });
    expect(next_cursor).toBeNull();
    expect(conversations.map((c) => c.contact)).toEqual([X, Y]);
    const [x, y] = conversations;
    expect(x).toMatchObject({
      phone_number_id: number,
      contact: X,
      contact_name: "Maria Souza",
      inbound_count: 2,
      last_inbound_at: new Date((T0 + 7200) * 1000).toISOString(),
      last_message: { direction: "inbound", type: "image", text: "comprovante", status: null },
      window: { open: true, expires_at: new Date((T0 + 7200) * 1000 + 24 * HOUR).toISOString() },
    });
    expect(y).toMatchObject({
      contact: Y,
      contact_name: "João_100%",
      inbound_count: 1,
      last_message: { direction: "outbound", type: "text", text: null, status: "read" },
    });
  });

  it("shows the window closed once 24 h passed since the contact's last message", async () => {
    const later = new Date((T0 + 7200) * 1000 + 24 * HOUR + 1000);
    const { conversations } = await listConversations({ db }, { accountId: a.accountId, limit: 20, now: later });
    expect(conversations.find((c) => c.contact === X)?.window.open).toBe(false);
  });

  it("pages with a cursor and searches by digits or by name (LIKE wildcards taken literally)", async () => {
    const first = await listConversations({ db }, { accountId: a.accountId, limit: 1 });
    expect(first.conversations.map((c) => c.contact)).toEqual([X]);
    expect(first.next_cursor).not.toBeNull();
    const second = await listConversations({ db }, { accountId: a.accountId, limit: 1, cursor: first.next_cursor });
    expect(second.conversations.map((c) => c.contact)).toEqual([Y]);
    expect(second.next_cursor).toBeNull();

    const byDigits = await listConversations({ db }, { accountId: a.accountId, limit: 20, search: "(11) 98765" });
    expect(byDigits.conversations.map((c) => c.contact)).toEqual([X]);
    const byName = await listConversations({ db }, { accountId: a.accountId, limit: 20, search: "maria" });
    expect(byName.conversations.map((c) => c.contact)).toEqual([X]);
    const literal = await listConversations({ db }, { accountId: a.accountId, limit: 20, search: "_100%" });
    expect(literal.conversations.map((c) => c.contact)).toEqual([Y]);
    // Unescaped, "a%z" would match "Maria Souza".
    const none = await listConversations({ db }, { accountId: a.accountId, limit: 20, search: "a%z" });
    expect(none.conversations).toEqual([]);
    await expectApiError(
      listConversations({ db }, { accountId: a.accountId, limit: 1, cursor: "bm9wZQ" }),
      "bad_request",
    );
  });

  it("shows another account nothing of these contacts", async () => {
    const { conversations } = await listConversations({ db }, { accountId: b.accountId, limit: 20 });
    expect(conversations).toEqual([]);
  });
});

describe("listConversationMessages", () => {
  it("interleaves the contact's messages and the account's sends by time, newest first, paging back", async () => {
    const result = await listConversationMessages(
      { db },
      { accountId: a.accountId, phoneNumberId: number, contact: "+55 (11) 98765-4321", limit: 10 },
    );
    expect(result).toMatchObject({
      phone_number_id: number,
      contact: X,
      contact_name: "Maria Souza",
      next_cursor: null,
    });
    expect(result.window.open).toBe(true);
    expect(result.messages.map((m) => [m.direction, m.type])).toEqual([
      ["inbound", "image"],
      ["outbound", "template"],
      ["inbound", "text"],
    ]);
    const [image, reply, text] = result.messages;
    expect(image).toMatchObject({
      id: inboundIds.xImage,
      text: "comprovante",
      media: { mime_type: "image/png", filename: null },
    });
    expect(reply).toMatchObject({ template_name: "pedido_confirmado", status: "delivered", text: null, media: null });
    expect(text).toMatchObject({ id: inboundIds.xText, text: "Oi, meu pedido?", media: null });

    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listConversationMessages>> = await listConversationMessages(
        { db },
        { accountId: a.accountId, phoneNumberId: number, contact: X, limit: 1, cursor },
      );
      ids.push(...page.messages.map((m) => m.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(ids).toEqual(result.messages.map((m) => m.id));
  });

  it("keeps messages Meta stamped with the same second in the order they arrived, paging included", async () => {
    // Meta's timestamps are whole seconds; the rows' ids are random uuids, so only the arrival order can tell.
    const Z = "5531977776666";
    const second = T0 + 7200;
    const texts = ["primeira", "segunda", "terceira", "quarta", "quinta"];
    for (const text of texts) await inbound({ from: Z, name: "Zeca", type: "text", text, timestamp: second });
    const whole = await listConversationMessages(
      { db },
      { accountId: a.accountId, phoneNumberId: number, contact: Z, limit: 10 },
    );
    expect(whole.messages.map((m) => m.text)).toEqual([...texts].reverse());
    const paged: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listConversationMessages>> = await listConversationMessages(
        { db },
        { accountId: a.accountId, phoneNumberId: number, contact: Z, limit: 2, cursor },
      );
      paged.push(...page.messages.map((m) => m.text));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(paged).toEqual([...texts].reverse());
  });

  it("lists a tap Meta stamped with the second of the list it answers after that list, paging included", async () => {
    // The list was sent at .700 of a second (the gateway's milliseconds); Meta stamps the tap with that whole
    // second, and it arrives later. Ordered by the second, then by arrival, the tap comes after the list.
    const W = "5541966665555";
    const first = await inbound({ from: W, name: "Wanda", type: "text", text: "Quero o cardápio", timestamp: T0 });
    const { contactKey } = await db.inboundMessage.findUniqueOrThrow({ where: { id: first } });
    const second = (T0 + 60) * 1000;
    const list = await db.message.create({
      data: {
        accountId: a.accountId,
        phoneNumberId: number,
        to: W,
        contactKey,
        wamid: `wamid.list.${a.accountId}`,
        kind: "interactive",
        status: "read",
        createdAt: new Date(second + 700),
      },
    });
    const tap = await db.inboundMessage.create({
      data: {
        accountId: a.accountId,
        phoneNumberId: number,
        from: W,
        contactKey,
        wamid: `wamid.tap.${a.accountId}`,
        type: "interactive",
        text: "Pizza",
        occurredAt: new Date(second),
        createdAt: new Date(second + 1_200),
        windowExpiresAt: new Date(second + 86_400_000),
      },
    });
    const whole = await listConversationMessages(
      { db },
      { accountId: a.accountId, phoneNumberId: number, contact: W, limit: 10 },
    );
    expect(whole.messages.map((m) => m.id)).toEqual([tap.id, list.id, first]);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listConversationMessages>> = await listConversationMessages(
        { db },
        { accountId: a.accountId, phoneNumberId: number, contact: W, limit: 1, cursor },
      );
      paged.push(...page.messages.map((m) => m.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(paged).toEqual([tap.id, list.id, first]);
  });

  it("is not_found for a number of another account, and shows no send of another account", async () => {
    await expectApiError(
      listConversationMessages({ db }, { accountId: b.accountId, phoneNumberId: number, contact: X, limit: 10 }),
      "not_found",
    );
    const own = await listConversationMessages(
      { db },
      { accountId: b.accountId, phoneNumberId: b.phoneNumberIds[0] ?? "", contact: X, limit: 10 },
    );
    // B's own send to X is B's; A's inbound messages from X are not.
    expect(own.messages.map((m) => [m.direction, m.status])).toEqual([["outbound", "sent"]]);
    expect(own.contact_name).toBeNull();
  });
});

describe("openInboundMedia", () => {
  it("fetches the image's bytes from Meta's media endpoint with the token", async () => {
    const file = await openInboundMedia(
      { db, meta },
      { actor: testActor, accountId: a.accountId, inboundMessageId: inboundIds.xImage ?? "" },
    );
    expect(file.contentType).toBe("image/png");
    expect(file.type).toBe("image");
    const bytes = Buffer.concat((await file.body.toArray()) as Buffer[]);
    expect(file.contentLength).toBe(bytes.length);
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    const row = await db.inboundMessage.findUniqueOrThrow({ where: { id: inboundIds.xImage ?? "" } });
    const held = (await control<{ media: { id: string; sha256: string }[] }>(gateway.sandbox, "/media")).media.find(
      (m) => m.id === row.mediaId,
    );
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(held?.sha256);
  });

  it("is not_found for another account's message, a message without media and an id that is no uuid", async () => {
    const before = (await control<unknown[]>(gateway.sandbox, "/requests")).length;
    for (const [accountId, inboundMessageId] of [
      [b.accountId, inboundIds.xImage ?? ""],
      [a.accountId, inboundIds.xText ?? ""],
      [a.accountId, "../../etc/passwd"],
    ] as const)
      await expectApiError(
        openInboundMedia({ db, meta }, { actor: testActor, accountId, inboundMessageId }),
        "not_found",
      );
    // Refused before any call to the provider.
    expect((await control<unknown[]>(gateway.sandbox, "/requests")).length).toBe(before);
  });

  it("caps each media by its type's WhatsApp limit: a sticker past 500 KB is refused before any byte is downloaded", async () => {
    const sticker = async (bytes: number) =>
      inbound({
        from: Y,
        type: "sticker",
        media: { mime_type: "image/webp", animated: true, data: Buffer.alloc(bytes, 1).toString("base64") },
      });
    const downloads = async () =>
      (await control<{ path: string }[]>(gateway.sandbox, "/requests")).filter((r) =>
        r.path.startsWith("/whatsapp_business/attachments/"),
      ).length;

    const large = await sticker(500 * 1024 + 1);
    const before = await downloads();
    const refused = await expectApiError(
      openInboundMedia({ db, meta }, { actor: testActor, accountId: a.accountId, inboundMessageId: large }),
      "payload_too_large",
    );
    expect(refused.message).toMatch(/grande demais/);
    expect(await downloads()).toBe(before);
    // Not audited as opened: nothing left the gateway.
    expect(
      await db.auditEntry.count({
        where: { action: { endsWith: "media.opened" }, target: `inbound_message:${large}` },
      }),
    ).toBe(0);

    // Within the cap, the sticker opens.
    const small = await openInboundMedia(
      { db, meta },
      { actor: testActor, accountId: a.accountId, inboundMessageId: await sticker(400 * 1024) },
    );
    expect(Buffer.concat((await small.body.toArray()) as Buffer[]).length).toBe(400 * 1024);
  });

  it("maps the provider's failures: unavailable on a 500, not_found once Meta dropped the media, too large", async () => {
    const id = inboundIds.xImage ?? "";
    await control(gateway.sandbox, "/faults", { mode: "500", route: "media", count: 1 });
    const unavailable = await expectApiError(
      openInboundMedia({ db, meta }, { actor: testActor, accountId: a.accountId, inboundMessageId: id }),
      "provider_unavailable",
    );
    expect(unavailable.message).toMatch(/mídia/);

    await expectApiError(
      openInboundMedia({ db, meta }, { actor: testActor, accountId: a.accountId, inboundMessageId: id, maxBytes: 10 }),
      "payload_too_large",
    );

    await control(gateway.sandbox, "/reset", {});
    const gone = await expectApiError(
      openInboundMedia({ db, meta }, { actor: testActor, accountId: a.accountId, inboundMessageId: id }),
      "not_found",
    );
    expect(gone.message).toMatch(/não está mais disponível/);
  });
});
