// The suppression list: Meta's user_preferences webhook (stop / resume) and its 131050 failures, emitted by the
// provider sandbox and ingested like every provider webhook, keep each account's list of contacts who stopped
// marketing messages; operators add and remove contacts; the panel pages through it.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createDb, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import { testEnv } from "@gw/testkit";
import { ingestProviderWebhook } from "../src/ingest/index.ts";
import { isSuppressed, listSuppressions, suppressContact, unsuppressContact } from "../src/suppressions/index.ts";
import { control, createPanelAccount, startIngestingSandbox, type IngestingSandbox } from "./sandbox-ingest.ts";

let db: Db;
let gateway: IngestingSandbox;
let a: Awaited<ReturnType<typeof createPanelAccount>>;
let b: Awaited<ReturnType<typeof createPanelAccount>>;

beforeAll(async () => {
  db = createDb({ url: testEnv().databaseUrl, poolSize: 4 });
  gateway = await startIngestingSandbox(db);
  a = await createPanelAccount(db, { numbers: 1, users: 0 });
  b = await createPanelAccount(db, { numbers: 1, users: 0 });
});

afterAll(async () => {
  await gateway.close();
  await db.$disconnect();
});

/** A Brazilian mobile no other test uses: 55 11 9 9 + 7 random digits (an older account's id drops the first 9). */
function contact(): string {
  return `551199${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0")}`;
}

function preference(phoneNumberId: string, waId: string, value: "stop" | "resume", timestamp?: number) {
  return control(gateway.sandbox, "/user-preferences", {
    phone_number_id: phoneNumberId,
    wa_id: waId,
    value,
    ...(timestamp === undefined ? {} : { timestamp }),
  });
}

async function reasonOf(accountId: string, to: string): Promise<string | null> {
  const { rows } = await db.sql.query<{ reason: string }>(
    `SELECT reason FROM contact_suppressions WHERE account_id = $1 AND contact = $2`,
    [accountId, to],
  );
  return rows[0]?.reason ?? null;
}

const A = () => ({ accountId: a.accountId });
const numberOf = (account: typeof a) => account.phoneNumberIds[0] ?? "";

describe("user_preferences webhooks", () => {
  it("stop puts the contact on the account's list in the webhook's transaction; resume takes them off", async () => {
    const to = contact();
    await preference(numberOf(a), to, "stop");
    expect(gateway.results.at(-1)).toMatchObject({ preferences: 1, quarantined: 0, duplicate: false });
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(true);
    expect(await reasonOf(a.accountId, to)).toBe("user_preferences");
    // Another account's contact of the same number is not affected.
    expect(await isSuppressed({ db }, { accountId: b.accountId, contact: to })).toBe(false);

    await preference(numberOf(a), to, "resume");
    expect(gateway.results.at(-1)).toMatchObject({ preferences: 1, quarantined: 0 });
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(false);
  });

  it("keys the contact like sends do: the 12-digit id of an older Brazilian account is the 13-digit number", async () => {
    const to = contact();
    const oldId = `${to.slice(0, 4)}${to.slice(5)}`;
    await preference(numberOf(a), oldId, "stop");
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(true);
    expect(await isSuppressed({ db }, { ...A(), contact: `+${to}` })).toBe(true);
    expect(await isSuppressed({ db }, { ...A(), contact: to.slice(2) })).toBe(true);
    await preference(numberOf(a), to, "resume");
    expect(await isSuppressed({ db }, { ...A(), contact: oldId })).toBe(false);
  });

  it("a resume older than the stop on the list (a redelivered webhook) leaves the contact on it", async () => {
    const to = contact();
    const now = Math.floor(Date.now() / 1000);
    await preference(numberOf(a), to, "stop", now);
    await preference(numberOf(a), to, "resume", now - 60);
    expect(gateway.results.at(-1)).toMatchObject({ preferences: 0, quarantined: 0 });
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(true);
    await preference(numberOf(a), to, "resume", now);
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(false);
  });

  it("a resume does not take off a contact an operator put on the list", async () => {
    const to = contact();
    expect(await suppressContact({ db }, { ...A(), contact: to, reason: "operator" })).toBe(true);
    await preference(numberOf(a), to, "stop");
    await preference(numberOf(a), to, "resume");
    expect(await reasonOf(a.accountId, to)).toBe("operator");
  });

  it("quarantines a preference for an unknown business number; the same payload twice is applied once", async () => {
    await preference("987650000000001", contact(), "stop");
    expect(gateway.results.at(-1)).toMatchObject({ preferences: 0, quarantined: 1 });

    const to = contact();
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: a.wabaId,
          changes: [
            {
              field: "user_preferences",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550000000", phone_number_id: numberOf(a) },
                contacts: [{ profile: { name: "Maria" }, wa_id: to }],
                user_preferences: [
                  { wa_id: to, detail: "", category: "marketing_messages", value: "stop", timestamp: 1767225600 },
                  { wa_id: to, detail: "", category: "marketing_messages", value: "resume", timestamp: 1767225660 },
                  { wa_id: to, detail: "", category: "marketing_messages", value: "stop", timestamp: 1767225720 },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(await ingestProviderWebhook(gateway.deps, body)).toMatchObject({ preferences: 3, duplicate: false });
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(true);
    expect(await ingestProviderWebhook(gateway.deps, body)).toMatchObject({ preferences: 0, duplicate: true });
  });
});

describe("131050 failures", () => {
  async function sentTemplate(to: string): Promise<string> {
    const wamid = `wamid.optout.${randomBytes(6).toString("hex")}`;
    await db.message.create({
      data: { accountId: a.accountId, phoneNumberId: numberOf(a), to, wamid, kind: "template", status: "accepted" },
    });
    return wamid;
  }

  function failed(wamid: string, to: string, code: number) {
    return control(gateway.sandbox, "/statuses", {
      phone_number_id: numberOf(a),
      statuses: [
        {
          id: wamid,
          status: "failed",
          recipient_id: to,
          errors: [{ code, title: "t", message: "m", error_data: { details: "d" } }],
        },
      ],
    });
  }

  it("a failed status with 131050 puts the recipient on the list and records the reason recipient_opted_out", async () => {
    const to = contact();
    const wamid = await sentTemplate(to);
    await failed(wamid, to, 131050);
    expect(await reasonOf(a.accountId, to)).toBe("provider_131050");
    const message = await db.message.findUnique({ where: { wamid } });
    expect(message).toMatchObject({ status: "failed", errorCode: 131050, errorReason: "recipient_opted_out" });
  });

  it("other failures, and a 131050 the status machine does not apply, leave the list alone", async () => {
    const to = contact();
    await failed(await sentTemplate(to), to, 131026);
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(false);

    const other = contact();
    const wamid = await sentTemplate(other);
    await db.message.update({ where: { wamid }, data: { status: "read" } });
    await failed(wamid, other, 131050);
    expect(await isSuppressed({ db }, { ...A(), contact: other })).toBe(false);
  });

  it("a resume after the 131050 takes the contact off the list", async () => {
    const to = contact();
    await failed(await sentTemplate(to), to, 131050);
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(true);
    await preference(numberOf(a), to, "resume", Math.floor(Date.now() / 1000) + 1);
    expect(await isSuppressed({ db }, { ...A(), contact: to })).toBe(false);
  });
});

describe("operators and the panel list", () => {
  it("adds once, removes once, and pages newest first with a cursor, per account", async () => {
    const account = await createPanelAccount(db, { numbers: 1, users: 0 });
    const contacts = [contact(), contact(), contact()];
    for (const [i, to] of contacts.entries()) {
      expect(
        await suppressContact(
          { db },
          { accountId: account.accountId, contact: to, reason: "operator", at: new Date(Date.UTC(2026, 0, 1, 0, i)) },
        ),
      ).toBe(true);
    }
    expect(
      await suppressContact({ db }, { accountId: account.accountId, contact: contacts[0] ?? "", reason: "operator" }),
    ).toBe(false);

    const first = await listSuppressions({ db }, { accountId: account.accountId, limit: 2 });
    expect(first.suppressions).toEqual([
      { contact: contacts[2], reason: "operator", created_at: "2026-01-01T00:02:00.000Z" },
      { contact: contacts[1], reason: "operator", created_at: "2026-01-01T00:01:00.000Z" },
    ]);
    const second = await listSuppressions(
      { db },
      { accountId: account.accountId, limit: 2, cursor: first.next_cursor },
    );
    expect(second).toEqual({
      suppressions: [{ contact: contacts[0], reason: "operator", created_at: "2026-01-01T00:00:00.000Z" }],
      next_cursor: null,
    });
    expect((await listSuppressions({ db }, { accountId: b.accountId })).suppressions).toEqual([]);
    await expect(listSuppressions({ db }, { accountId: account.accountId, cursor: "nope" })).rejects.toBeInstanceOf(
      ApiError,
    );

    expect(await unsuppressContact({ db }, { accountId: account.accountId, contact: contacts[1] ?? "" })).toBe(true);
    expect(await unsuppressContact({ db }, { accountId: account.accountId, contact: contacts[1] ?? "" })).toBe(false);
    expect(
      (await listSuppressions({ db }, { accountId: account.accountId })).suppressions.map((s) => s.contact),
    ).toEqual([contacts[2], contacts[0]]);
  });
});
