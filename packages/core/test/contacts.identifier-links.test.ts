// An identifier linked to a contact brings along what was keyed by the identifier alone (issue 25, item 1). A phone
// the gateway sent to, suppressed or held a window for before knowing it as a contact has those rows keyed by its
// bare digits; when a BSUID-first contact later shows that phone, the opt-out, the window and the history must follow
// the contact's key, or a marketing template reaches someone who stopped them. Run on the real SQL functions
// (migrations 20261128000000_contacts and 20261201040000_contact_links_and_retention) through core's services.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Db } from "@gw/db";
import type { MetaIdentityChange, MetaUserRef } from "@gw/meta";
import { testEnv } from "@gw/testkit";
import { applyIdentityChanges, contactKeyOf } from "../src/contacts/index.ts";
import { ingestProviderWebhook, type IngestDeps } from "../src/ingest/index.ts";
import { learnUser } from "./support/contacts.ts";
import { openAccountIngest } from "./support/ingest-bed.ts";
import { isSuppressed, suppressContact } from "../src/suppressions/index.ts";
import { windowStatus } from "../src/windows/index.ts";

let db: Db;
let deps: IngestDeps;
let accountId: string;
const PHONE_NUMBER_ID = `9${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;
const WABA_ID = `8${String(randomBytes(4).readUInt32BE(0)).padStart(14, "0")}`;

beforeAll(async () => {
  ({ db, deps, accountId } = await openAccountIngest(testEnv(), "Vínculos de contatos", {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: WABA_ID,
    displayNumber: "+55 11 4000-0025",
  }));
});

afterAll(async () => {
  await db.$disconnect();
});

/** A Brazilian mobile and BSUIDs no other test uses. */
function person() {
  const digits = String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0");
  return { phone: `551198${digits}`, bsuid: `BR.25${digits}0001`, bsuid2: `BR.26${digits}0002` };
}

const learn = (fields: Partial<MetaUserRef>) => learnUser(db, accountId, fields);
const keyOf = (identifier: string) => contactKeyOf(db.sql, { accountId, identifier });
const suppressed = (contact: string) => isSuppressed({ db }, { accountId, contact });
const windowOpen = async (to: string) =>
  (await windowStatus({ db, directory: deps.directory }, { accountId, to, phoneNumberId: PHONE_NUMBER_ID }))?.open;

/** A marketing template the gateway sent to `to`, recorded as the send service records it (keyed by its contact). */
async function sentTemplate(to: string): Promise<string> {
  const wamid = `wamid.link.${randomBytes(6).toString("hex")}`;
  await db.sql.query(
    `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, contact_key)
     VALUES ($1, $2, $3, $4, 'template', 'cupom_desconto', 'accepted', gateway_contact_key($1, $3))`,
    [accountId, PHONE_NUMBER_ID, to, wamid],
  );
  return wamid;
}

/** Keys the account's sends and inbound messages to/from this person are under. */
async function historyKeys(wamids: string[]): Promise<string[]> {
  const { rows } = await db.sql.query<{ key: string }>(
    `SELECT contact_key AS key FROM messages WHERE wamid = ANY($1)
     UNION SELECT contact_key FROM inbound_messages WHERE wamid = ANY($1)`,
    [wamids],
  );
  return rows.map((row) => row.key);
}

function webhook(value: Record<string, unknown>): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "551140000025", phone_number_id: PHONE_NUMBER_ID },
              ...value,
            },
          },
        ],
      },
    ],
  });
}

const now = () => String(Math.floor(Date.now() / 1000));

/** Meta fails a marketing template with 131050 (a `failed` status of a send to a phone names no BSUID). */
function failedWith131050(wamid: string, to: string): string {
  return webhook({
    statuses: [
      {
        id: wamid,
        status: "failed",
        timestamp: now(),
        recipient_id: to,
        errors: [{ code: 131050, title: "Unable to deliver", message: "m", error_data: { details: "stopped" } }],
      },
    ],
  });
}

/** The person writes: as a username user (BSUID alone), or with the phone shared too. */
function writes(who: { phone?: string; bsuid: string }, text: string): { body: string; wamid: string } {
  const wamid = `wamid.in.${randomBytes(6).toString("hex")}`;
  const contact = {
    ...(who.phone ? { wa_id: who.phone } : {}),
    user_id: who.bsuid,
    profile: { name: "Luana", username: "luana.doces" },
  };
  const message = {
    ...(who.phone ? { from: who.phone } : {}),
    from_user_id: who.bsuid,
    id: wamid,
    timestamp: now(),
    type: "text",
    text: { body: text },
  };
  return { body: webhook({ contacts: [contact], messages: [message] }), wamid };
}

async function openWindowFor(contact: string): Promise<void> {
  await db.sql.query(
    `INSERT INTO contact_windows (phone_number_id, contact, last_inbound_at, expires_at)
     VALUES ($1, $2, now(), now() + interval '20 hours')`,
    [PHONE_NUMBER_ID, contact],
  );
}

describe("a phone linked to a contact first known by its BSUID", () => {
  it("brings its opt-out, window and history along: both identifiers stay suppressed, the window open, one key", async () => {
    const { phone, bsuid } = person();
    // Known only by the phone so far: an operator's opt-out, a window and sends, all keyed by its bare digits.
    expect(await suppressContact({ db }, { accountId, contact: phone, reason: "operator" })).toBe(true);
    await openWindowFor(phone);
    const sends = [await sentTemplate(phone), await sentTemplate(phone)];
    const inbound = `wamid.in.${randomBytes(6).toString("hex")}`;
    await db.sql.query(
      `INSERT INTO inbound_messages (account_id, phone_number_id, from_number, contact_key, wamid, type, text,
         occurred_at, window_expires_at)
       VALUES ($1, $2, $3, $3, $4, 'text', 'oi', now(), now() + interval '20 hours')`,
      [accountId, PHONE_NUMBER_ID, phone, inbound],
    );

    // The person then shows up as a username user, and later with the phone beside the BSUID.
    expect(await learn({ bsuid, username: "luana.doces" })).toBe(bsuid);
    expect(await learn({ phone, bsuid })).toBe(bsuid);

    expect(await keyOf(phone)).toBe(bsuid);
    expect(await suppressed(phone)).toBe(true);
    expect(await suppressed(bsuid)).toBe(true);
    expect(await windowOpen(phone)).toBe(true);
    expect(await windowOpen(bsuid)).toBe(true);
    expect(await historyKeys([...sends, inbound])).toEqual([bsuid]);
    // Nothing is left under the bare phone.
    const { rows } = await db.sql.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM contact_suppressions WHERE account_id = $1 AND contact = $2)
        + (SELECT count(*) FROM contact_windows WHERE phone_number_id = $3 AND contact = $2)
        + (SELECT count(*) FROM contacts WHERE account_id = $1 AND key = $2) AS n`,
      [accountId, phone, PHONE_NUMBER_ID],
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it("keeps a 131050 Meta reported before the link: the next webhooks (BSUID alone, then phone and BSUID) keep it", async () => {
    const { phone, bsuid } = person();
    const wamid = await sentTemplate(phone);
    await ingestProviderWebhook(deps, failedWith131050(wamid, phone));
    expect(await suppressed(phone)).toBe(true);

    const alone = writes({ bsuid }, "Oi, é a Luana");
    expect(await ingestProviderWebhook(deps, alone.body)).toMatchObject({ messages: 1, quarantined: 0 });
    expect(await keyOf(bsuid)).toBe(bsuid);
    const both = writes({ phone, bsuid }, "Meu número é este");
    expect(await ingestProviderWebhook(deps, both.body)).toMatchObject({ messages: 1, quarantined: 0 });

    expect(await keyOf(phone)).toBe(bsuid);
    expect(await suppressed(phone)).toBe(true);
    expect(await suppressed(bsuid)).toBe(true);
    expect(await windowOpen(phone)).toBe(true);
    expect(await historyKeys([wamid, alone.wamid, both.wamid])).toEqual([bsuid]);
    const { rows } = await db.sql.query<{ reason: string }>(
      `SELECT reason FROM contact_suppressions WHERE account_id = $1 AND contact = $2`,
      [accountId, bsuid],
    );
    expect(rows).toEqual([{ reason: "provider_131050" }]);
  });

  it("a 131050 on a send recorded under the bare phone after the link (a send racing the link) suppresses the person", async () => {
    const { phone, bsuid } = person();
    expect(await learn({ bsuid })).toBe(bsuid);
    expect(await learn({ phone, bsuid })).toBe(bsuid);
    // The send resolved its contact before the link committed: its message still names the bare phone.
    const wamid = `wamid.race.${randomBytes(6).toString("hex")}`;
    await db.sql.query(
      `INSERT INTO messages (account_id, phone_number_id, "to", wamid, kind, template_name, status, contact_key)
       VALUES ($1, $2, $3, $4, 'template', 'cupom_desconto', 'accepted', $3)`,
      [accountId, PHONE_NUMBER_ID, phone, wamid],
    );
    await ingestProviderWebhook(deps, failedWith131050(wamid, phone));
    expect(await suppressed(phone)).toBe(true);
    expect(await suppressed(bsuid)).toBe(true);
  });

  it("a change of number whose previous phone was only a bare key keeps that phone's opt-out on the person", async () => {
    const { phone, bsuid, bsuid2 } = person();
    const newPhone = `${phone.slice(0, -1)}${(Number(phone.at(-1)) + 1) % 10}`;
    await suppressContact({ db }, { accountId, contact: phone, reason: "operator" });
    expect(await learn({ bsuid, username: "so.usuario" })).toBe(bsuid);
    const change: MetaIdentityChange = {
      phoneNumberId: PHONE_NUMBER_ID,
      source: "user_changed_number",
      wamid: null,
      time: null,
      previous: { phone, bsuid, parentBsuid: null },
      current: { phone: newPhone, bsuid: bsuid2, parentBsuid: null },
      name: null,
    };
    await applyIdentityChanges(db.sql, [{ accountId, change }]);
    expect(await keyOf(newPhone)).toBe(bsuid);
    expect(await suppressed(newPhone)).toBe(true);
    expect(await suppressed(bsuid2)).toBe(true);
    // The old number belongs to someone else from now on: the person's opt-out does not follow it.
    expect(await keyOf(phone)).toBe(`retired:${phone}`);
    expect(await suppressed(phone)).toBe(false);
  });
});

describe("a retired phone given to its new owner", () => {
  it("brings what was keyed by the retired number meanwhile to the new owner, and the old contact keeps its own", async () => {
    const { phone, bsuid, bsuid2 } = person();
    const movedTo = `${phone.slice(0, -1)}${(Number(phone.at(-1)) + 3) % 10}`;
    expect(await learn({ phone, bsuid })).toBe(phone);
    await openWindowFor(phone);
    await applyIdentityChanges(db.sql, [
      {
        accountId,
        change: {
          phoneNumberId: PHONE_NUMBER_ID,
          source: "user_changed_number",
          wamid: null,
          time: null,
          previous: { phone, bsuid: null, parentBsuid: null },
          current: { phone: movedTo, bsuid: null, parentBsuid: null },
          name: null,
        },
      },
    ]);
    // Meanwhile the number reaches its next holder: a send to it, and that holder's opt-out (by the operator).
    const send = await sentTemplate(phone);
    await suppressContact({ db }, { accountId, contact: phone, reason: "operator" });
    expect(await suppressed(phone)).toBe(true);

    // The new holder is learnt: the number now names them, with what it gathered meanwhile.
    expect(await learn({ phone, bsuid: bsuid2 })).toBe(bsuid2);
    expect(await keyOf(phone)).toBe(bsuid2);
    expect(await suppressed(phone)).toBe(true);
    expect(await suppressed(bsuid2)).toBe(true);
    expect(await historyKeys([send])).toEqual([bsuid2]);
    // The old contact (key: the old number) keeps its window and is not suppressed by the new holder's opt-out.
    expect(await keyOf(movedTo)).toBe(phone);
    expect(await suppressed(movedTo)).toBe(false);
    expect(await windowOpen(movedTo)).toBe(true);
    expect(await windowOpen(phone)).toBe(false);
  });

  it("never merges a contact other identifiers still name into whoever shows its old key as a bare phone", async () => {
    const { phone, bsuid, bsuid2 } = person();
    expect(await learn({ phone, bsuid })).toBe(phone);
    await suppressContact({ db }, { accountId, contact: phone, reason: "operator" });
    // The phone's own identifier gone (as if its last holder had been forgotten): the contact keyed by it remains.
    await db.sql.query(`DELETE FROM contact_identifiers WHERE account_id = $1 AND identifier = $2`, [accountId, phone]);
    expect(await learn({ phone, bsuid: bsuid2 })).toBe(bsuid2);
    expect(await keyOf(bsuid)).toBe(phone);
    expect(await suppressed(bsuid)).toBe(true);
    expect(await suppressed(bsuid2)).toBe(false);
  });
});
