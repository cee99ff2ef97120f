import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import { createFixture, isolatedDatabase, type Fixture } from "@gw/testkit";
import { contactKeyOf, learnContacts } from "../src/contacts/index.ts";
import {
  oldestEarlyStatusAgeSeconds,
  purgeAttemptResponseBodies,
  purgeAuditEntries,
  purgeContactProfiles,
  purgeContacts,
  purgeDeliveries,
  purgeEarlyStatuses,
  purgeAccountMedia,
  purgeInboundContent,
  purgeInboundDetails,
  purgeInboundMessages,
  purgeMessageContent,
  purgeProviderEvents,
  runRetention,
  type RetentionDeps,
} from "../src/retention/index.ts";
import { isSuppressed } from "../src/suppressions/index.ts";

// Each purge against a database of its own (purges scan whole tables): rows just past the cut-off go, rows just
// inside it stay, and so does everything the purge must never touch.

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let fixture: Fixture;

const DAY = 86_400_000;
const now = new Date();
const cutoff = new Date(now.getTime() - 30 * DAY);
/** Just past retention (older than the cut-off) and just inside it. */
const past = (seconds = 60) => new Date(cutoff.getTime() - seconds * 1000);
const inside = new Date(cutoff.getTime() + 60_000);

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  fixture = await createFixture(db, "https://example.com/webhooks");
});

afterAll(async () => {
  await database.drop();
});

beforeEach(async () => {
  await db.sql.query(
    `TRUNCATE provider_events, early_statuses, inbound_messages, contact_windows, audit_entries, deliveries, delivery_attempts`,
  );
});

/** A deps object whose statements are counted, with the rows each one touched. */
function counting(): { deps: RetentionDeps; batches: number[] } {
  const batches: number[] = [];
  const sql = {
    query: async (config: { name?: string; text: string; values?: unknown[] }) => {
      const result = await db.sql.query(config);
      batches.push(result.rowCount ?? 0);
      return result;
    },
  };
  return { deps: { db: { sql } as unknown as RetentionDeps["db"] }, batches };
}

async function column<T>(sql: string): Promise<T[]> {
  const { rows } = await db.sql.query<{ v: T }>(sql);
  return rows.map((r) => r.v);
}

async function addProviderEvent(body: string, receivedAt: Date, processed: boolean): Promise<void> {
  await db.sql.query(
    `INSERT INTO provider_events (body, payload_hash, received_at, processed_at) VALUES ($1, md5($1), $2, CASE WHEN $3::boolean THEN $2::timestamptz END)`,
    [body, receivedAt, processed],
  );
}

async function addDelivery(status: string, updatedAt: Date, attempts = 1): Promise<string> {
  const { rows } = await db.sql.query<{ id: string }>(
    `INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, created_at, updated_at, next_attempt_at)
     VALUES ($1, $2, 'message.received', $3, '{"event":"message.received"}', $4, $5, $5, $5, CASE WHEN $3 = 'pending' THEN $5::timestamptz END)
     RETURNING id::text`,
    [fixture.accountId, fixture.integrationId, status, attempts, updatedAt],
  );
  const id = rows[0]!.id;
  for (let number = 1; number <= attempts; number++) {
    await db.sql.query(
      `INSERT INTO delivery_attempts (delivery_id, number, started_at, duration_ms, status_code, response_body)
       VALUES ($1::bigint, $2, $3, 12, 500, 'erro do integrador')`,
      [id, number, updatedAt],
    );
  }
  return id;
}

async function addInbound(wamid: string, createdAt: Date, content = true): Promise<void> {
  await db.sql.query(
    `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, text, media_id,
       media_mime, media_filename, contact_name, occurred_at, window_expires_at, created_at)
     VALUES ($1, '1234', '5511987654321', '5511987654321', $2, 'document', $3, $4, 'application/pdf', $5, $6, $7,
       $7::timestamptz + interval '24 hours', $7)`,
    [
      fixture.accountId,
      wamid,
      content ? "meu CPF é 123.456.789-00" : null,
      content ? "media-1" : null,
      content ? "RG João.pdf" : null,
      content ? "João da Silva" : null,
      createdAt,
    ],
  );
  await db.sql.query(
    `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
     VALUES ('1234', '5511987654321', $1, $1::timestamptz + interval '24 hours')
     ON CONFLICT (phone_number_id, contact) DO UPDATE SET last_inbound_at = GREATEST(contact_windows.last_inbound_at, EXCLUDED.last_inbound_at),
       expires_at = GREATEST(contact_windows.expires_at, EXCLUDED.expires_at)`,
    [createdAt],
  );
}

describe("purgeProviderEvents", () => {
  it("deletes processed payloads past retention and keeps recent and unprocessed ones", async () => {
    await addProviderEvent("velho-processado", past(), true);
    await addProviderEvent("velho-sem-processar", past(3_600), false);
    await addProviderEvent("recente-processado", inside, true);

    expect(await purgeProviderEvents({ db }, { olderThan: cutoff, batchSize: 100 })).toBe(1);
    expect(await column<string>(`SELECT body AS v FROM provider_events ORDER BY body`)).toEqual([
      "recente-processado",
      "velho-sem-processar",
    ]);
  });

  it("removes a backlog larger than the batch in bounded statements", async () => {
    for (let i = 0; i < 5; i++) await addProviderEvent(`velho-${i}`, past(60 * (i + 1)), true);
    await addProviderEvent("recente", inside, true);

    const { deps, batches } = counting();
    expect(await purgeProviderEvents(deps, { olderThan: cutoff, batchSize: 2 })).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    expect(await column<string>(`SELECT body AS v FROM provider_events`)).toEqual(["recente"]);
  });

  it("stops between batches once its signal is aborted", async () => {
    for (let i = 0; i < 5; i++) await addProviderEvent(`velho-${i}`, past(60 * (i + 1)), true);
    const abort = new AbortController();
    const { deps, batches } = counting();
    const sql = deps.db.sql;
    // Shutdown arrives while the first batch runs.
    const query = (config: never) => {
      abort.abort();
      return sql.query(config);
    };
    const stopping = { db: { sql: { query } } };

    expect(
      await purgeProviderEvents(stopping as unknown as RetentionDeps, {
        olderThan: cutoff,
        batchSize: 2,
        signal: abort.signal,
      }),
    ).toBe(2);
    expect(batches).toEqual([2]);
  });
});

describe("purgeAttemptResponseBodies", () => {
  it("clears the integrator's answer of old attempts and keeps the attempt rows", async () => {
    const old = await addDelivery("pending", past(), 3);
    const recent = await addDelivery("pending", inside, 1);

    const { deps, batches } = counting();
    expect(await purgeAttemptResponseBodies(deps, { olderThan: cutoff, batchSize: 2 })).toBe(3);
    expect(batches).toEqual([2, 1]);
    const rows = await db.sql.query<{ delivery_id: string; number: number; response_body: string | null }>(
      `SELECT delivery_id::text, number, response_body FROM delivery_attempts ORDER BY delivery_id, number`,
    );
    expect(rows.rows).toEqual([
      { delivery_id: old, number: 1, response_body: null },
      { delivery_id: old, number: 2, response_body: null },
      { delivery_id: old, number: 3, response_body: null },
      { delivery_id: recent, number: 1, response_body: "erro do integrador" },
    ]);
  });
});

describe("purgeDeliveries", () => {
  it("deletes delivered deliveries past retention with their attempts, and nothing pending, delivering or failed", async () => {
    const keep = [
      await addDelivery("delivered", inside),
      await addDelivery("pending", past(), 2),
      await addDelivery("delivering", past()),
      await addDelivery("failed", past(), 7),
    ];
    for (let i = 0; i < 5; i++) await addDelivery("delivered", past(60 * (i + 1)), 2);

    const { deps, batches } = counting();
    expect(await purgeDeliveries(deps, { status: "delivered", olderThan: cutoff, batchSize: 2 })).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    expect(await column<string>(`SELECT id::text AS v FROM deliveries ORDER BY id`)).toEqual(keep);
    expect(await column<string>(`SELECT DISTINCT delivery_id::text AS v FROM delivery_attempts ORDER BY 1`)).toEqual(
      keep,
    );
  });

  it("deletes dead letters (failed) past their own retention and leaves delivered ones", async () => {
    const delivered = await addDelivery("delivered", past());
    const recentFailure = await addDelivery("failed", inside);
    await addDelivery("failed", past(), 7);

    expect(await purgeDeliveries({ db }, { status: "failed", olderThan: cutoff, batchSize: 100 })).toBe(1);
    expect(await column<string>(`SELECT id::text AS v FROM deliveries ORDER BY id`)).toEqual([
      delivered,
      recentFailure,
    ]);
  });
});

describe("purgeEarlyStatuses", () => {
  it("deletes statuses parked past retention and keeps the recent ones", async () => {
    for (let i = 0; i < 5; i++) {
      await db.sql.query(`INSERT INTO early_statuses (wamid, payload, received_at) VALUES ($1, '{}', $2)`, [
        `wamid.velho-${i}`,
        past(60 * (i + 1)),
      ]);
    }
    await db.sql.query(`INSERT INTO early_statuses (wamid, payload, received_at) VALUES ('wamid.recente', '{}', $1)`, [
      inside,
    ]);

    expect(await purgeEarlyStatuses({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(5);
    expect(await column<string>(`SELECT wamid AS v FROM early_statuses`)).toEqual(["wamid.recente"]);
  });
});

describe("inbound messages (LGPD)", () => {
  it("clears the contact's text, name and media of old messages and keeps the row, the recent ones and the window", async () => {
    for (let i = 0; i < 5; i++) await addInbound(`wamid.velha-${i}`, past(60 * (i + 1)));
    await addInbound("wamid.recente", inside);
    const windowBefore = await column<unknown>(`SELECT row_to_json(w) AS v FROM contact_windows w`);

    const { deps, batches } = counting();
    expect(await purgeInboundContent(deps, { olderThan: cutoff, batchSize: 2 })).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
    // Already cleared rows are not counted again.
    expect(await purgeInboundContent({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(0);

    const rows = await db.sql.query(
      `SELECT wamid, type, from_number, text, contact_name, media_id, media_filename, media_mime
       FROM inbound_messages ORDER BY wamid`,
    );
    expect(rows.rows).toHaveLength(6);
    for (const row of rows.rows.filter((r: { wamid: string }) => r.wamid !== "wamid.recente")) {
      expect(row).toMatchObject({
        type: "document",
        from_number: "5511987654321",
        media_mime: "application/pdf",
        text: null,
        contact_name: null,
        media_id: null,
        media_filename: null,
      });
    }
    expect(rows.rows.find((r: { wamid: string }) => r.wamid === "wamid.recente")).toMatchObject({
      text: "meu CPF é 123.456.789-00",
      contact_name: "João da Silva",
      media_id: "media-1",
      media_filename: "RG João.pdf",
    });
    expect(await column<unknown>(`SELECT row_to_json(w) AS v FROM contact_windows w`)).toEqual(windowBefore);
  });

  it("deletes old rows (with or without content) and keeps the recent ones and the contact's window", async () => {
    await addInbound("wamid.velha-1", past(), false);
    await addInbound("wamid.velha-2", past(120), true);
    await addInbound("wamid.velha-3", past(180), true);
    await addInbound("wamid.recente", inside);

    expect(await purgeInboundMessages({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(3);
    expect(await column<string>(`SELECT wamid AS v FROM inbound_messages`)).toEqual(["wamid.recente"]);
    expect(await column<string>(`SELECT contact AS v FROM contact_windows`)).toEqual(["5511987654321"]);
  });

  it("reads the rows still to clear through the partial index, not the whole table", async () => {
    const client = await db.sql.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      const plan = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT id FROM inbound_messages WHERE created_at < now()
           AND (text IS NOT NULL OR contact_name IS NOT NULL OR media_id IS NOT NULL OR media_filename IS NOT NULL)
         ORDER BY created_at LIMIT 10`,
      );
      expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toContain(
        "inbound_messages_with_content_created_at_idx",
      );
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });
});

describe("issue 27's content (LGPD): payload-version-2 members, send summaries, media records", () => {
  beforeEach(async () => {
    await db.sql.query(`TRUNCATE messages, account_media`);
  });

  async function explain(sql: string): Promise<string> {
    const client = await db.sql.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      const plan = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`);
      return plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  }

  it("clears details, media_sha256 and media_voice of old inbound messages and keeps the recent ones", async () => {
    await addInbound("wamid.velha", past());
    await addInbound("wamid.recente", inside);
    await db.sql.query(
      `UPDATE inbound_messages SET details = '{"location":{"latitude":-23.5,"longitude":-46.6}}', media_sha256 = 'ab',
         media_voice = true`,
    );
    expect(await purgeInboundDetails({ db }, { olderThan: cutoff, batchSize: 1 })).toBe(1);
    expect(await purgeInboundDetails({ db }, { olderThan: cutoff, batchSize: 1 })).toBe(0);
    const { rows } = await db.sql.query(
      `SELECT wamid, details, media_sha256, media_voice FROM inbound_messages ORDER BY wamid`,
    );
    expect(rows).toEqual([
      {
        wamid: "wamid.recente",
        details: { location: { latitude: -23.5, longitude: -46.6 } },
        media_sha256: "ab",
        media_voice: true,
      },
      { wamid: "wamid.velha", details: null, media_sha256: null, media_voice: null },
    ]);
    expect(
      await explain(`SELECT id FROM inbound_messages WHERE created_at < now()
        AND (details IS NOT NULL OR media_sha256 IS NOT NULL) ORDER BY created_at LIMIT 10`),
    ).toContain("inbound_messages_with_details_created_at_idx");
  });

  it("clears the summary of old sends (messages.content), keeping the send and the recent summaries", async () => {
    for (const [wamid, at] of [
      ["wamid.out-velha", past()],
      ["wamid.out-recente", inside],
    ] as const) {
      await db.sql.query(
        `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, created_at, content)
         VALUES ($1, '1234', '5511987654321', $2, 'interactive', 'sent', $3,
           '{"kind":"interactive","type":"button","buttons":[{"id":"sim","title":"Sim"}]}')`,
        [fixture.accountId, wamid, at],
      );
    }
    expect(await purgeMessageContent({ db }, { olderThan: cutoff, batchSize: 10 })).toBe(1);
    expect(
      await column<unknown>(
        `SELECT json_build_object('w', wamid, 'c', content IS NOT NULL) AS v FROM messages ORDER BY wamid`,
      ),
    ).toEqual([
      { w: "wamid.out-recente", c: true },
      { w: "wamid.out-velha", c: false },
    ]);
    expect(
      await explain(
        `SELECT id FROM messages WHERE created_at < now() AND content IS NOT NULL ORDER BY created_at LIMIT 10`,
      ),
    ).toContain("messages_with_content_created_at_idx");
  });

  it("deletes media records whose media expired before the cut-off (then 404), keeps the others (410 or alive)", async () => {
    for (const [id, expiresAt] of [
      ["media-velha", past()],
      ["media-expirada", inside],
      ["media-viva", new Date(now.getTime() + DAY)],
    ] as const) {
      await db.sql.query(
        `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, expires_at)
         VALUES ($1, '1234', $2, 'uploaded', 'image', $3)`,
        [fixture.accountId, id, expiresAt],
      );
    }
    expect(await purgeAccountMedia({ db }, { olderThan: cutoff, batchSize: 10 })).toBe(1);
    expect(await column<string>(`SELECT media_id AS v FROM account_media ORDER BY media_id`)).toEqual([
      "media-expirada",
      "media-viva",
    ]);
  });
});

describe("contacts (LGPD)", () => {
  // Contacts by the rule of the inbound messages they come from: the name and username go with the inbound content
  // (30 days without being shown them again), the contact itself once nothing is keyed by it any more. An opt-out is
  // a legal record: it keeps its contact, and every identifier that reaches it, for ever.
  let accountId: string;
  const PHONE_NUMBER_ID = "700000000000003";
  let seq = 0;
  const person = () => {
    seq += 1;
    const digits = String(seq).padStart(7, "0");
    return { phone: `551197${digits}`, bsuid: `BR.31${digits}000`, bsuid2: `BR.32${digits}000` };
  };
  const learn = async (fields: { phone?: string; bsuid?: string; username?: string; name?: string }) =>
    (
      await learnContacts(db.sql, [
        {
          accountId,
          user: {
            phone: fields.phone ?? null,
            bsuid: fields.bsuid ?? null,
            parentBsuid: null,
            username: fields.username ?? null,
            name: fields.name ?? null,
          },
        },
      ])
    )[0]!;
  const age = (key: string, at: Date) =>
    db.sql.query(`UPDATE contacts SET updated_at = $3 WHERE account_id = $1 AND key = $2`, [accountId, key, at]);
  const keyOf = (identifier: string) => contactKeyOf(db.sql, { accountId, identifier });
  const contactRow = async (key: string) =>
    (
      await db.sql.query<{ phone: string | null; bsuid: string | null; username: string | null; name: string | null }>(
        `SELECT phone, bsuid, username, name FROM contacts WHERE account_id = $1 AND key = $2`,
        [accountId, key],
      )
    ).rows[0] ?? null;
  const identifiersOf = async (key: string) =>
    column<string>(`SELECT identifier AS v FROM contact_identifiers WHERE contact_key = '${key}' ORDER BY identifier`);

  beforeAll(async () => {
    accountId = (await db.account.create({ data: { name: "Contatos na retenção" } })).id;
    await db.businessNumber.create({
      data: { accountId, phoneNumberId: PHONE_NUMBER_ID, wabaId: "700000000000004", displayNumber: "+55 11 4000-0031" },
    });
  });
  beforeEach(async () => {
    await db.sql.query(`TRUNCATE contacts, contact_identifiers, contact_suppressions, messages`);
  });

  it("clears the name and username of contacts not shown them for the period, keeping identifiers and opt-outs", async () => {
    const old = person();
    const recent = person();
    const seenAgain = person();
    await learn({ ...old, username: "ana.padaria", name: "Ana" });
    await learn({ ...recent, username: "bia.feira", name: "Bia" });
    await learn({ ...seenAgain, username: "caio.doces", name: "Caio" });
    await db.sql.query(`INSERT INTO contact_suppressions (account_id, contact, reason) VALUES ($1, $2, 'operator')`, [
      accountId,
      old.phone,
    ]);
    await age(old.phone, past());
    await age(recent.phone, inside);
    await age(seenAgain.phone, past(3_600));
    // The user writes again, with the same name and username: seeing them is what counts, not a change.
    await learn({ ...seenAgain, username: "caio.doces", name: "Caio" });

    expect(await purgeContactProfiles({ db }, { olderThan: cutoff, batchSize: 1 })).toBe(1);
    expect(await contactRow(old.phone)).toEqual({ phone: old.phone, bsuid: old.bsuid, username: null, name: null });
    expect(await contactRow(recent.phone)).toMatchObject({ username: "bia.feira", name: "Bia" });
    expect(await contactRow(seenAgain.phone)).toMatchObject({ username: "caio.doces", name: "Caio" });
    // Who the person is, and their opt-out, stay.
    expect(await identifiersOf(old.phone)).toEqual([old.bsuid, old.phone].sort());
    expect(await keyOf(old.bsuid)).toBe(old.phone);
    expect(await isSuppressed({ db }, { accountId, contact: old.bsuid })).toBe(true);
    // Clearing is not seeing the contact: it is not pushed forward, and nothing is left to clear.
    expect(await purgeContactProfiles({ db }, { olderThan: cutoff, batchSize: 10 })).toBe(0);
    expect(
      await column<boolean>(
        `SELECT updated_at < '${cutoff.toISOString()}' AS v FROM contacts WHERE key = '${old.phone}'`,
      ),
    ).toEqual([true]);
  });

  it("forgets a contact nothing is keyed by, with its identifiers; keeps those an opt-out, message or open window needs", async () => {
    const idle = person();
    const expiredWindow = person();
    const optedOut = person();
    const bsuidFirst = person();
    const sent = person();
    const wrote = person();
    const windowOpen = person();
    const retired = person();
    const recent = person();
    for (const who of [idle, expiredWindow, optedOut, sent, wrote, windowOpen, retired, recent]) await learn(who);
    // Known by its BSUID first; its phone's opt-out (131050 on a send before the link) came along with the phone.
    await db.sql.query(
      `INSERT INTO contact_suppressions (account_id, contact, reason)
       VALUES ($1, $2, 'provider_131050'), ($1, gateway_contact_key($1, $3), 'operator')`,
      [accountId, bsuidFirst.phone, optedOut.bsuid],
    );
    await learn({ bsuid: bsuidFirst.bsuid });
    await learn(bsuidFirst);
    await db.sql.query(
      `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, contact_key)
       VALUES ($1, $2, $3, 'wamid.retencao.enviada', 'text', 'sent', $3)`,
      [accountId, PHONE_NUMBER_ID, sent.phone],
    );
    await db.sql.query(
      `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, occurred_at,
         window_expires_at)
       VALUES ($1, $2, $3, $3, 'wamid.retencao.escreveu', 'text', $4, $4)`,
      [accountId, PHONE_NUMBER_ID, wrote.phone, past(86_400 * 60)],
    );
    await db.sql.query(
      `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
       VALUES ($1, $2, now(), now() + interval '1 hour'), ($1, $3, $4, $4)`,
      [PHONE_NUMBER_ID, windowOpen.phone, expiredWindow.phone, past()],
    );
    // Changed number; its old number's next holder opted out before being known.
    await db.sql.query(`SELECT gateway_change_identity($1, $2, NULL, NULL, $3, NULL, NULL, NULL)`, [
      accountId,
      retired.phone,
      `${retired.phone.slice(0, -1)}9`,
    ]);
    await db.sql.query(`INSERT INTO contact_suppressions (account_id, contact, reason) VALUES ($1, $2, 'operator')`, [
      accountId,
      `retired:${retired.phone}`,
    ]);
    // Changed number; the old number's next holder has nothing keyed by them, but the number is the old contact's key
    // (its sends are keyed by it): forgetting the holder would hand the number back to the old contact.
    const handedOn = person();
    await learn(handedOn);
    await db.sql.query(
      `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, status, contact_key)
       VALUES ($1, $2, $3, 'wamid.retencao.antigo', 'text', 'sent', $3)`,
      [accountId, PHONE_NUMBER_ID, handedOn.phone],
    );
    await db.sql.query(`SELECT gateway_change_identity($1, $2, NULL, NULL, $3, NULL, NULL, NULL)`, [
      accountId,
      handedOn.phone,
      `${handedOn.phone.slice(0, -1)}8`,
    ]);
    expect(await learn({ phone: handedOn.phone, bsuid: handedOn.bsuid2 })).toBe(handedOn.bsuid2);
    for (const who of [idle, expiredWindow, optedOut, sent, wrote, windowOpen, retired, handedOn])
      await age(who.phone, past());
    await age(bsuidFirst.bsuid, past());
    await age(handedOn.bsuid2, past());
    await age(recent.phone, inside);

    // Batches of 2 over 11 old or recent contacts: one pass, whatever each batch keeps.
    expect(await purgeContacts({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(2);
    expect(await column<string>(`SELECT key AS v FROM contacts ORDER BY key`)).toEqual(
      [
        optedOut.phone,
        bsuidFirst.bsuid,
        sent.phone,
        wrote.phone,
        windowOpen.phone,
        retired.phone,
        handedOn.phone,
        handedOn.bsuid2,
        recent.phone,
      ].sort(),
    );
    expect(await keyOf(handedOn.phone)).toBe(handedOn.bsuid2);
    // Forgotten entirely: its identifiers name no one; seen again, it is a contact anew.
    for (const who of [idle, expiredWindow]) {
      expect(await identifiersOf(who.phone)).toEqual([]);
      expect(await keyOf(who.bsuid)).toBe(who.bsuid);
    }
    // Every opt-out still reaches its person by each identifier.
    for (const contact of [optedOut.phone, optedOut.bsuid, bsuidFirst.phone, bsuidFirst.bsuid, retired.phone])
      expect([contact, await isSuppressed({ db }, { accountId, contact })]).toEqual([contact, true]);
    expect(await keyOf(bsuidFirst.phone)).toBe(bsuidFirst.bsuid);
    expect(await keyOf(retired.phone)).toBe(`retired:${retired.phone}`);
    expect(await purgeContacts({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(0);
  });
});

describe("purgeAuditEntries", () => {
  it("deletes entries past retention and keeps the recent ones", async () => {
    for (let i = 0; i < 5; i++) {
      await db.sql.query(
        `INSERT INTO audit_entries (account_id, actor, action, created_at) VALUES ($1, 'cli', $2, $3)`,
        [fixture.accountId, `velha-${i}`, past(60 * (i + 1))],
      );
    }
    await db.sql.query(
      `INSERT INTO audit_entries (account_id, actor, action, created_at) VALUES ($1, 'cli', 'recente', $2)`,
      [fixture.accountId, inside],
    );

    expect(await purgeAuditEntries({ db }, { olderThan: cutoff, batchSize: 2 })).toBe(5);
    expect(await column<string>(`SELECT action AS v FROM audit_entries`)).toEqual(["recente"]);
  });
});

describe("runRetention", () => {
  async function seedEverything(at: Date): Promise<void> {
    await addProviderEvent(`evento-${at.getTime()}`, at, true);
    await addDelivery("delivered", at);
    await addDelivery("failed", at);
    await db.sql.query(`INSERT INTO early_statuses (wamid, payload, received_at) VALUES ($1, '{}', $2)`, [
      `wamid.${at.getTime()}`,
      at,
    ]);
    await addInbound(`wamid.${at.getTime()}`, at);
    await db.sql.query(
      `INSERT INTO audit_entries (account_id, actor, action, created_at) VALUES ($1, 'cli', 'x', $2)`,
      [fixture.accountId, at],
    );
  }

  const counts = async () =>
    (
      await db.sql.query<Record<string, number>>(`SELECT
        (SELECT count(*)::int FROM provider_events) AS provider_events,
        (SELECT count(*)::int FROM deliveries WHERE status = 'delivered') AS delivered,
        (SELECT count(*)::int FROM deliveries WHERE status = 'failed') AS failed,
        (SELECT count(*)::int FROM delivery_attempts WHERE response_body IS NOT NULL) AS attempt_bodies,
        (SELECT count(*)::int FROM early_statuses) AS early_statuses,
        (SELECT count(*)::int FROM inbound_messages) AS inbound,
        (SELECT count(*)::int FROM inbound_messages WHERE text IS NOT NULL) AS inbound_text,
        (SELECT count(*)::int FROM audit_entries) AS audit`)
    ).rows[0];

  it("runs each purge with its own retention in days, from `now`", async () => {
    await seedEverything(new Date(now.getTime() - 10 * DAY - 60_000)); // past 10 days, inside 20
    await seedEverything(new Date(now.getTime() - 20 * DAY - 60_000)); // past 20 days

    const { purged, failed } = await runRetention(
      { db },
      {
        now,
        batchSize: 2,
        days: {
          provider_events: 10,
          "deliveries.delivered": 20,
          "deliveries.failed": 10,
          "delivery_attempts.response_body": 10,
          early_statuses: 10,
          inbound_messages: 20,
          "inbound_messages.content": 10,
          audit_entries: 20,
        },
      },
    );
    expect(failed).toEqual({});
    expect(purged).toEqual({
      early_statuses: 2,
      provider_events: 2,
      "deliveries.delivered": 1,
      "deliveries.failed": 2,
      // The 10-day-old delivered delivery's attempt (the others went with their deliveries).
      "delivery_attempts.response_body": 1,
      inbound_messages: 1,
      // The 10-day-old message only: the 20-day-old one was deleted first.
      "inbound_messages.content": 1,
      audit_entries: 1,
    });
    expect(await counts()).toEqual({
      provider_events: 0,
      delivered: 1,
      failed: 0,
      attempt_bodies: 0,
      early_statuses: 0,
      inbound: 1,
      inbound_text: 0,
      audit: 1,
    });
  });

  it("keeps for ever what has 0 days (or none) and touches nothing", async () => {
    await seedEverything(new Date(now.getTime() - 3_000 * DAY));
    const before = await counts();

    const { purged, failed } = await runRetention(
      { db },
      { now, batchSize: 2, days: { provider_events: 0, "deliveries.delivered": 0, audit_entries: 0 } },
    );
    expect(purged).toEqual({});
    expect(failed).toEqual({});
    expect(await counts()).toEqual(before);
  });

  it("reports a purge that failed and still runs the others", async () => {
    await seedEverything(past());
    const deps = {
      db: {
        sql: {
          query: (config: { name?: string; text: string; values?: unknown[] }) =>
            config.name === "retention-provider-events"
              ? Promise.reject(new Error("canceling statement due to lock timeout"))
              : db.sql.query(config),
        },
      },
    } as unknown as RetentionDeps;

    const { purged, failed } = await runRetention(deps, {
      now,
      batchSize: 100,
      days: { provider_events: 30, early_statuses: 30, audit_entries: 30 },
    });
    expect(Object.keys(failed)).toEqual(["provider_events"]);
    expect(purged).toEqual({ early_statuses: 1, audit_entries: 1 });
  });

  it("stops at once when the database is unavailable", async () => {
    const seen: string[] = [];
    const deps = {
      db: {
        sql: {
          query: (config: { name: string }) => {
            seen.push(config.name);
            return Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
          },
        },
      },
    } as unknown as RetentionDeps;

    await expect(
      runRetention(deps, { now, batchSize: 100, days: { provider_events: 30, audit_entries: 30 } }),
    ).rejects.toThrow("ECONNREFUSED");
    expect(seen).toEqual(["retention-provider-events"]);
  });
});

describe("oldestEarlyStatusAgeSeconds", () => {
  it("is 0 when no status is parked", async () => {
    expect(await oldestEarlyStatusAgeSeconds({ db })).toBe(0);
  });

  it("reports the age of the oldest parked status", async () => {
    await db.sql.query(
      `INSERT INTO early_statuses (wamid, payload, received_at) VALUES
         ('wamid.a', '{}', now() - interval '10 minutes'),
         ('wamid.b', '{}', now() - interval '90 minutes'),
         ('wamid.c', '{}', now() - interval '1 minute')`,
    );
    const age = await oldestEarlyStatusAgeSeconds({ db });
    expect(age).toBeGreaterThanOrEqual(5_400);
    expect(age).toBeLessThan(5_460);
  });
});
