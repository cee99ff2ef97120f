// Issue 35, item 9: one retention rule per kind of personal data (docs/decisions.md, "Retention"). Three kinds had
// none of their own and outlived the contact's content: a payment-method answer on an inbound row carrying nothing
// else (kept with the row, 90 days, instead of 30), the record of a received media (its id, which lets
// GET /public/v1/media/{id} fetch it from Meta, and its file name: downloadable for Meta's 7 days and kept ~37 days
// whatever INBOUND_TEXT_RETENTION_DAYS said), and Pix orders with their messages (recipient, items, payment settings:
// never purged). Each is checked through `runRetention` with the days the dispatcher gives it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { createFixture, isolatedDatabase, type Fixture } from "@gw/testkit";
import { findAccountMedia } from "../src/media/index.ts";
import {
  purgeInboundPayments,
  purgeOrders,
  purgeReceivedMedia,
  runRetention,
  type RetentionDays,
} from "../src/retention/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let fixture: Fixture;

const DAY = 86_400_000;
const now = new Date();
const daysAgo = (days: number, plusSeconds = 0) => new Date(now.getTime() - days * DAY - plusSeconds * 1000);

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  fixture = await createFixture(db, "https://example.com/webhooks");
});

afterAll(async () => {
  await database.drop();
});

beforeEach(async () => {
  await db.sql.query(`TRUNCATE inbound_messages, account_media, orders, order_messages`);
});

/** What the dispatcher runs with its defaults (apps/dispatcher/src/retention.ts), for the kinds this file is about. */
const DEFAULT_DAYS: RetentionDays = {
  inbound_messages: 90,
  "inbound_messages.content": 30,
  "inbound_messages.details": 30,
  "inbound_messages.payment": 30,
  account_media: 30,
  "account_media.received": 30,
  orders: 90,
};

async function column<T>(sql: string): Promise<T[]> {
  const { rows } = await db.sql.query<{ v: T }>(sql);
  return rows.map((r) => r.v);
}

describe("a payment-method answer (inbound_messages.payment)", () => {
  /** An interactive payment_method answer: no text, no details, no checksum; only the card's reference. */
  async function addPaymentAnswer(wamid: string, createdAt: Date): Promise<void> {
    await db.sql.query(
      `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, occurred_at,
         window_expires_at, created_at, payment)
       VALUES ($1, '1234', '5511987654321', '5511987654321', $2, 'interactive', $3, $3::timestamptz + interval '24 hours',
         $3, '{"payment_method":"offsite_card_pay","reference_id":"pedido-1","credential_id":"cred-9f2","last_four_digits":"4242","payment_timestamp":1765000000}')`,
      [fixture.accountId, wamid, createdAt],
    );
  }

  it("is cleared with the contact's content (30 days), not kept with the row (90 days)", async () => {
    await addPaymentAnswer("wamid.pagamento-velho", daysAgo(31));
    await addPaymentAnswer("wamid.pagamento-recente", daysAgo(29));

    const { purged, failed } = await runRetention({ db }, { now, batchSize: 10, days: DEFAULT_DAYS });
    expect(failed).toEqual({});
    expect(purged["inbound_messages.payment"]).toBe(1);
    expect(
      await column<unknown>(
        `SELECT json_build_object('w', wamid, 'p', payment ->> 'last_four_digits') AS v FROM inbound_messages ORDER BY wamid`,
      ),
    ).toEqual([
      // The row stays (its wamid deduplicates Meta's redeliveries) until INBOUND_RETENTION_DAYS.
      { w: "wamid.pagamento-recente", p: "4242" },
      { w: "wamid.pagamento-velho", p: null },
    ]);
  });

  it("is read through the index of the answers still holding one, in bounded batches", async () => {
    for (let i = 0; i < 5; i++) await addPaymentAnswer(`wamid.pagamento-${i}`, daysAgo(40, i));
    // Many inbound messages without an answer: a batch must not walk them.
    await db.sql.query(
      `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, occurred_at,
         window_expires_at, created_at)
       SELECT $1, '1234', '5511987654321', '5511987654321', 'wamid.texto-' || g, 'text', $2, $2, $2
       FROM generate_series(1, 3000) AS g`,
      [fixture.accountId, daysAgo(60)],
    );
    await db.sql.query(`ANALYZE inbound_messages`);
    const { rows } = await db.sql.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT id FROM inbound_messages WHERE created_at < now() AND payment IS NOT NULL
       ORDER BY created_at LIMIT 2`,
    );
    expect(rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain("inbound_messages_payment_ref_idx");

    expect(await purgeInboundPayments({ db }, { olderThan: daysAgo(30), batchSize: 2 })).toBe(5);
    expect(await purgeInboundPayments({ db }, { olderThan: daysAgo(30), batchSize: 2 })).toBe(0);
    expect(await column<number>(`SELECT count(*)::int AS v FROM inbound_messages WHERE payment IS NOT NULL`)).toEqual([
      0,
    ]);
  });
});

describe("a received media's record (account_media.received)", () => {
  /** A media the account received in a message at `occurredAt`, as the inbound statement records it (Meta's 7 days). */
  async function addReceived(mediaId: string, occurredAt: Date, origin: "received" | "uploaded" = "received") {
    await db.sql.query(
      `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, filename, created_at,
         expires_at)
       VALUES ($1, '1234', $2, $3, 'document', 'application/pdf', 'RG João.pdf', $4,
         $4::timestamptz + CASE WHEN $3 = 'received' THEN interval '7 days' ELSE interval '30 days' END)`,
      [fixture.accountId, mediaId, origin, occurredAt],
    );
  }
  const find = (mediaId: string) => findAccountMedia({ db }, { accountId: fixture.accountId, mediaId, now });
  const refusal = (mediaId: string) =>
    find(mediaId).then(
      () => "found",
      (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
    );

  it("goes with the inbound message's media id and file name (30 days), not 30 days past Meta's 7", async () => {
    await addReceived("111000000000001", daysAgo(31));
    await addReceived("111000000000002", daysAgo(29));
    // An upload of the business keeps its own rule (30 days past Meta's 30).
    await addReceived("111000000000003", daysAgo(40), "uploaded");

    const { purged, failed } = await runRetention({ db }, { now, batchSize: 10, days: DEFAULT_DAYS });
    expect(failed).toEqual({});
    expect(purged["account_media.received"]).toBe(1);
    expect(await column<string>(`SELECT media_id AS v FROM account_media ORDER BY media_id`)).toEqual([
      "111000000000002",
      "111000000000003",
    ]);
    // The file name is gone with the record; the one inside its 30 days is past Meta's 7 (410), never downloadable.
    expect(await refusal("111000000000001")).toBe("not_found");
    expect(await refusal("111000000000002")).toBe("media_expired");
  });

  it("is no longer downloadable once INBOUND_TEXT_RETENTION_DAYS passes, when that is shorter than Meta's 7 days", async () => {
    await addReceived("222000000000001", daysAgo(3, 60));
    await addReceived("222000000000002", daysAgo(1));
    expect(await refusal("222000000000001")).toBe("found");

    const { purged } = await runRetention(
      { db },
      { now, batchSize: 10, days: { ...DEFAULT_DAYS, "inbound_messages.content": 3, "account_media.received": 3 } },
    );
    expect(purged["account_media.received"]).toBe(1);
    expect(await refusal("222000000000001")).toBe("not_found");
    expect(await refusal("222000000000002")).toBe("found");
  });

  it("deletes in bounded batches through the expiry index", async () => {
    for (let i = 0; i < 5; i++) await addReceived(`33300000000000${i}`, daysAgo(10, i));
    expect(await purgeReceivedMedia({ db }, { olderThan: daysAgo(2), batchSize: 2 })).toBe(5);
    expect(await column<number>(`SELECT count(*)::int AS v FROM account_media`)).toEqual([0]);
  });
});

describe("Pix orders (orders, order_messages)", () => {
  /** An order last changed at `changedAt`, with its order_details message and a status update at that time. */
  async function addOrder(reference: string, changedAt: Date, status = "completed"): Promise<string> {
    const { rows } = await db.sql.query<{ id: string }>(
      `INSERT INTO orders (account_id, reference_id, state, phone_number_id, recipient, template_name, language,
         goods_type, items, subtotal, tax, total_amount, payment_settings, order_status, payment_status, created_at,
         opened_at, updated_at)
       VALUES ($1, $2, 'open', '1234', '5511987654321', 'pedido_pix', 'pt_BR', 'physical-goods',
         '[{"name":"Bolo de cenoura","amount":4500,"quantity":1}]', 4500, 0, 4500,
         '[{"type":"pix_dynamic_code","pix_dynamic_code":{"key":"joao@example.com","merchant_name":"João da Silva"}}]',
         $3, 'captured', $4, $4, $4)
       RETURNING id::text`,
      [fixture.accountId, reference, status, changedAt],
    );
    const id = rows[0]!.id;
    await db.sql.query(
      `INSERT INTO order_messages (order_id, kind, state, wamid, order_status, body_text, actor, created_at, updated_at)
       VALUES ($1, 'order_details', 'accepted', $2, 'pending', 'Seu pedido', 'api:chave', $3, $3),
              ($1, 'order_status', 'accepted', $4, $5, 'Pedido entregue', 'api:chave', $3, $3)`,
      [id, `wamid.od.${reference}`, changedAt, `wamid.os.${reference}`, status],
    );
    return id;
  }

  it("deletes an order with its messages 90 days after its last change, whatever its status; keeps the others", async () => {
    await addOrder("velho-concluido", daysAgo(91));
    await addOrder("velho-pendente", daysAgo(91), "pending");
    await addOrder("recente", daysAgo(89));
    // Old, but a status update was claimed for it a moment ago: its last change is now.
    const busy = await addOrder("velho-com-envio-agora", daysAgo(120), "processing");
    await db.sql.query(
      `INSERT INTO order_messages (order_id, kind, state, order_status, body_text, actor) VALUES ($1, 'order_status',
         'claimed', 'shipped', 'Pedido enviado', 'api:chave')`,
      [busy],
    );

    const { purged, failed } = await runRetention({ db }, { now, batchSize: 10, days: DEFAULT_DAYS });
    expect(failed).toEqual({});
    expect(purged.orders).toBe(2);
    expect(await column<string>(`SELECT reference_id AS v FROM orders ORDER BY reference_id`)).toEqual([
      "recente",
      "velho-com-envio-agora",
    ]);
    // The deleted orders' messages went with them (their texts, the status history).
    expect(
      await column<string>(
        `SELECT DISTINCT o.reference_id AS v FROM order_messages m JOIN orders o ON o.id = m.order_id ORDER BY 1`,
      ),
    ).toEqual(["recente", "velho-com-envio-agora"]);
    expect(await column<number>(`SELECT count(*)::int AS v FROM order_messages`)).toEqual([5]);
  });

  it("deletes in bounded batches, oldest change first, and keeps them all with 0 days", async () => {
    for (let i = 0; i < 5; i++) await addOrder(`lote-${i}`, daysAgo(100, i));
    expect((await runRetention({ db }, { now, batchSize: 2, days: { orders: 0 } })).purged).toEqual({});
    expect(await purgeOrders({ db }, { olderThan: daysAgo(90), batchSize: 2 })).toBe(5);
    expect(await column<number>(`SELECT count(*)::int AS v FROM orders`)).toEqual([0]);
  });
});
