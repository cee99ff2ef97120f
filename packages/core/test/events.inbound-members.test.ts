// Inbound messages beyond text (issue 27) through the ingestion the provider route runs: the members of payload
// version 2 go to an integration on version 2 only (version 1 keeps the contract's bytes), the store keeps the media's
// checksum and voice flag and the other members in `details`, and a received media becomes the account's
// (account_media, 7 days), once even when Meta delivers the webhook again.
import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import {
  MESSAGE_RECEIVED_V1_KEYS as VERSION_1_KEYS,
  MESSAGE_RECEIVED_V2_NONE as NO_MEMBERS,
  createFixture,
  isolatedDatabase,
  silentLogger,
  testSecretBox,
  type Fixture,
} from "@gw/testkit";
import { createAccountDirectory } from "../src/accounts/index.ts";
import { ingestProviderWebhook, type IngestDeps } from "../src/ingest/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let fixture: Fixture;
let versionTwo: string;
let deps: IngestDeps;
const PHONE_NUMBER_ID = "5511400000027";
const TIMESTAMP = 1764669600;

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  // The fixture's integration is on version 1 (the column's default); a second one of the account on version 2.
  fixture = await createFixture(db, "http://127.0.0.1:9/v1");
  versionTwo = randomUUID();
  await db.integration.create({
    data: {
      id: versionTwo,
      accountId: fixture.accountId,
      url: "http://127.0.0.1:9/v2",
      events: ["message.received"],
      signingSecretEncrypted: testSecretBox().seal("whsec_v2", {
        table: "integrations",
        id: versionTwo,
        field: "signing_secret",
      }),
      payloadVersion: 2,
    },
  });
  await db.businessNumber.create({
    data: {
      accountId: fixture.accountId,
      phoneNumberId: PHONE_NUMBER_ID,
      wabaId: "waba-27",
      displayNumber: "+55 11 4000-0027",
    },
  });
  deps = {
    db,
    outbox: { dispatch: () => Promise.resolve() },
    logger: silentLogger,
    directory: createAccountDirectory(db),
  };
});

afterAll(async () => {
  await database.drop();
});

let sequence = 0;

/** Meta's webhook with one message from a contact, `message` over its common fields. */
function webhook(message: Record<string, unknown>): { body: string; wamid: string } {
  const wamid = `wamid.members.${++sequence}`;
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "waba-27",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "551140000027", phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: "Maria" }, wa_id: "5511987650027", user_id: "BR.1502576394655827" }],
              messages: [
                {
                  from: "5511987650027",
                  from_user_id: "BR.1502576394655827",
                  id: wamid,
                  timestamp: String(TIMESTAMP),
                  ...message,
                },
              ],
            },
          },
        ],
      },
    ],
  });
  return { body, wamid };
}

type Data = Record<string, unknown>;

/** The `data` of the message.received delivery each integration got for `wamid`, as stored (the bytes sent). */
async function bodiesFor(wamid: string): Promise<{ v1: string; v2: string }> {
  const rows = await db.delivery.findMany({
    where: { accountId: fixture.accountId, event: "message.received", body: { contains: `"${wamid}"` } },
  });
  const of = (integrationId: string) => rows.find((row) => row.integrationId === integrationId)?.body ?? "";
  expect(rows).toHaveLength(2);
  return { v1: of(fixture.integrationId), v2: of(versionTwo) };
}

const dataOf = (body: string) => (JSON.parse(body) as { data: Data }).data;

describe("message.received by payload version", () => {
  it("gives the list row tapped to a version-2 integration, and the contract's bytes to a version-1 one", async () => {
    const { body, wamid } = webhook({
      type: "interactive",
      interactive: {
        type: "list_reply",
        list_reply: { id: "opcao-7", title: "Segunda via do boleto", description: "PDF" },
      },
      context: { from: "551140000027", id: "wamid.lista" },
    });
    expect(await ingestProviderWebhook(deps, body)).toMatchObject({ deliveries: 2, quarantined: 0 });
    const { v1, v2 } = await bodiesFor(wamid);
    const one = dataOf(v1);
    const two = dataOf(v2);
    expect(Object.keys(one)).toEqual(VERSION_1_KEYS);
    expect(one).toMatchObject({
      type: "interactive",
      text: "Segunda via do boleto",
      reply_to_message_id: "wamid.lista",
    });
    expect(two).toEqual({
      ...one,
      ...NO_MEMBERS,
      contact_phone: one.from,
      standby: false,
      handler: "bot",
      interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: "PDF" },
    });
    // Version 2 is version 1's bytes with the members appended after them.
    expect(JSON.stringify(two).startsWith(JSON.stringify(one).slice(0, -1))).toBe(true);
    const stored = await db.inboundMessage.findUniqueOrThrow({ where: { wamid } });
    expect(stored.details).toEqual({
      ...NO_MEMBERS,
      interactive: { type: "list_reply", id: "opcao-7", title: "Segunda via do boleto", description: "PDF" },
      media_sha256: undefined,
      media_voice: undefined,
    });
  });

  it("renders a reaction as type unsupported with the reaction set, and its removal with a null emoji", async () => {
    const reacted = webhook({ type: "reaction", reaction: { message_id: "wamid.enviada", emoji: "👍" } });
    await ingestProviderWebhook(deps, reacted.body);
    const first = await bodiesFor(reacted.wamid);
    expect(dataOf(first.v1)).toMatchObject({ type: "unsupported", text: null });
    expect(Object.keys(dataOf(first.v1))).toEqual(VERSION_1_KEYS);
    expect(dataOf(first.v2)).toMatchObject({
      type: "unsupported",
      text: null,
      reaction: { message_id: "wamid.enviada", emoji: "👍" },
    });

    const removed = webhook({ type: "reaction", reaction: { message_id: "wamid.enviada", emoji: "" } });
    await ingestProviderWebhook(deps, removed.body);
    expect(dataOf((await bodiesFor(removed.wamid)).v2).reaction).toEqual({ message_id: "wamid.enviada", emoji: null });
  });

  it("normalises contact cards, and carries the ad referral and forwarded flags of any message", async () => {
    const { body, wamid } = webhook({
      type: "contacts",
      contacts: [{ name: { formatted_name: "João Silva" }, phones: [{ phone: "+55 11 99999-0000", type: "CELL" }] }],
      context: { frequently_forwarded: true },
      referral: { source_type: "ad", headline: "Promoção", ctwa_clid: "ARAclid" },
    });
    await ingestProviderWebhook(deps, body);
    const two = dataOf((await bodiesFor(wamid)).v2);
    expect(two.contacts).toEqual([
      {
        formatted_name: "João Silva",
        first_name: null,
        last_name: null,
        birthday: null,
        phones: [{ phone: "+55 11 99999-0000", wa_id: null, type: "CELL" }],
        emails: [],
        urls: [],
        addresses: [],
        organization: null,
        origin: null,
      },
    ]);
    expect(two).toMatchObject({ forwarded: true, frequently_forwarded: true, text: null, reply_to_message_id: null });
    expect(two.referral).toEqual({
      source_type: "ad",
      source_id: null,
      source_url: null,
      headline: "Promoção",
      body: null,
      media_type: null,
      image_url: null,
      video_url: null,
      thumbnail_url: null,
      ctwa_clid: "ARAclid",
      welcome_message: null,
    });
  });

  it("stores nothing in details for a plain text, and writes every member as null or false for version 2", async () => {
    const { body, wamid } = webhook({ type: "text", text: { body: "Oi" } });
    await ingestProviderWebhook(deps, body);
    const { v1, v2 } = await bodiesFor(wamid);
    expect(dataOf(v2)).toEqual({
      ...dataOf(v1),
      ...NO_MEMBERS,
      contact_phone: dataOf(v1).from,
      standby: false,
      handler: "bot",
    });
    const stored = await db.inboundMessage.findUniqueOrThrow({ where: { wamid } });
    expect({ details: stored.details, sha: stored.mediaSha256, voice: stored.mediaVoice }).toEqual({
      details: null,
      sha: null,
      voice: null,
    });
  });
});

describe("received media", () => {
  const bytes = Buffer.from("OggS voice note bytes");
  const hex = createHash("sha256").update(bytes).digest("hex");

  it("keeps the checksum (hex) and voice flag, and records the media as the account's for 7 days, once", async () => {
    const mediaId = `media-${randomUUID()}`;
    const { body, wamid } = webhook({
      type: "audio",
      audio: {
        id: mediaId,
        mime_type: "audio/ogg; codecs=opus",
        sha256: createHash("sha256").update(bytes).digest("base64"),
        voice: true,
      },
    });
    await ingestProviderWebhook(deps, body);
    const { v1, v2 } = await bodiesFor(wamid);
    expect(Object.keys(dataOf(v1))).toEqual(VERSION_1_KEYS);
    expect(dataOf(v2)).toMatchObject({ type: "audio", media_id: mediaId, media_sha256: hex, media_voice: true });
    const stored = await db.inboundMessage.findUniqueOrThrow({ where: { wamid } });
    expect({ sha: stored.mediaSha256, voice: stored.mediaVoice, details: stored.details }).toEqual({
      sha: hex,
      voice: true,
      details: null,
    });

    // Meta delivers the same message again (a retry, or another payload): still one media row.
    await ingestProviderWebhook(
      deps,
      body.replace('"messaging_product":"whatsapp"', '"messaging_product": "whatsapp"'),
    );
    const media = await db.accountMedia.findMany({ where: { mediaId } });
    expect(media).toEqual([
      expect.objectContaining({
        accountId: fixture.accountId,
        phoneNumberId: PHONE_NUMBER_ID,
        origin: "received",
        type: "audio",
        mimeType: "audio/ogg; codecs=opus",
        sha256: hex,
        voice: true,
        filename: null,
        goneAt: null,
        expiresAt: new Date((TIMESTAMP + 7 * 86_400) * 1000),
      }),
    ]);
  });

  it("records a received document with its file name, and no media for a message without one", async () => {
    const mediaId = `media-${randomUUID()}`;
    const doc = webhook({
      type: "document",
      document: { id: mediaId, mime_type: "application/pdf", filename: "comprovante.pdf" },
    });
    await ingestProviderWebhook(deps, doc.body);
    const rows = await db.accountMedia.findMany({ where: { accountId: fixture.accountId, mediaId } });
    expect(rows.map((row) => [row.type, row.filename, row.voice, row.sha256])).toEqual([
      ["document", "comprovante.pdf", null, null],
    ]);
    expect(dataOf((await bodiesFor(doc.wamid)).v2)).toMatchObject({ media_sha256: null, media_voice: null });

    const before = await db.accountMedia.count();
    await ingestProviderWebhook(deps, webhook({ type: "text", text: { body: "sem mídia" } }).body);
    expect(await db.accountMedia.count()).toBe(before);
  });
});
