import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { contactKeyOf } from "@gw/core/contacts";
import { isSuppressed } from "@gw/core/suppressions";
import { ERROR_REGISTRY } from "@gw/errors";
import { eventually } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// Opt-outs and Meta's throughput refusals through the whole stack: the API, the provider sandbox over HTTP and its
// signed webhooks back into the API. A contact who stops marketing messages (Meta's user_preferences webhook, or
// Meta's 131050) gets no marketing template again until they resume: the send is refused with
// `recipient_opted_out` before Meta is called, while utility templates still go. The sandbox's per-number rate and
// pair rate answer 130429 and 131056, both `rate_limited`.

interface SandboxSend {
  phone_number_id: string;
  wamid: string;
  wa_id: string;
  body: { template?: { name?: string } };
}

interface NumberStats {
  phone_number_id: string;
  sent: number;
  refused: Record<string, number>;
}

const OPTED_OUT = {
  success: false,
  error: { code: "recipient_opted_out", message: ERROR_REGISTRY.recipient_opted_out.message },
};

/** A Brazilian mobile no other test uses (55 11 9 9 + 7 digits), and the same number as the integrator writes it. */
function newContact(): { digits: string; national: string } {
  const digits = `551199${String(randomBytes(4).readUInt32BE(0) % 10_000_000).padStart(7, "0")}`;
  return { digits, national: digits.slice(2) };
}

const marketing = (to: string) => ({
  to,
  template: "cupom_desconto",
  variables: ["PROMO10", "10%"],
  coupon_code: "PROMO10",
  coupon_index: 1,
});
const utility = (to: string) => ({ to, template: "hello_world", language: "en_US" });

describe("opt-outs and Meta's rate refusals on POST /public/v1/messages", () => {
  let gateway: TestGateway;
  let account: TestAccount;

  const send = (body: Record<string, unknown>, headers: Record<string, string> = {}, acc = account) =>
    request(gateway.app).post("/public/v1/messages").set(acc.auth).set(headers).send(body);

  async function sandboxSends(): Promise<SandboxSend[]> {
    return (await (await fetch(`${gateway.sandbox.url}/_sandbox/sent`)).json()) as SandboxSend[];
  }

  async function statsOf(phoneNumberId: string): Promise<NumberStats | undefined> {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/sent/stats?phone_number_id=${phoneNumberId}`);
    return ((await res.json()) as { numbers: NumberStats[] }).numbers[0];
  }

  async function userPreference(
    waId: string,
    value: "stop" | "resume",
    extra: Record<string, unknown> = {},
  ): Promise<{ webhook_status: number | null }> {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/user-preferences`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: account.phoneNumberId, wa_id: waId, value, ...extra }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { webhook_status: number | null };
  }

  const suppressed = (contact: string) => isSuppressed({ db: gateway.db }, { accountId: account.accountId, contact });

  beforeAll(async () => {
    // The sandbox's clock stands still: its rate windows never slide during a test, however slow the machine.
    const clock = Date.now();
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" }, sandbox: { now: () => clock } });
  });
  beforeEach(async () => {
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("user_preferences stop: the next marketing template is refused before Meta, a utility one goes; resume: allowed again", async () => {
    const contact = newContact();
    // Meta reports the 12-digit id of an older Brazilian account; the integrator writes the number with its 9.
    const olderId = `${contact.digits.slice(0, 4)}${contact.digits.slice(5)}`;
    expect((await userPreference(olderId, "stop")).webhook_status).toBe(200);
    // The API answered Meta's webhook only after committing it: the list already has the contact.
    expect(await suppressed(contact.digits)).toBe(true);

    const sentBefore = (await sandboxSends()).length;
    const refused = await send(marketing(contact.national), { "Idempotency-Key": "opt-out-1" });
    expect({ status: refused.status, body: refused.body as unknown }).toEqual({ status: 422, body: OPTED_OUT });
    expect(await sandboxSends()).toHaveLength(sentBefore);

    const allowed = await send(utility(contact.national));
    expect(allowed.status).toBe(200);
    const afterUtility = await sandboxSends();
    expect(afterUtility).toHaveLength(sentBefore + 1);
    expect(afterUtility.at(-1)).toMatchObject({ wa_id: contact.digits, body: { template: { name: "hello_world" } } });

    expect((await userPreference(olderId, "resume")).webhook_status).toBe(200);
    expect(await suppressed(contact.digits)).toBe(false);
    // The refused call released its key: the same key now sends.
    const resumed = await send(marketing(contact.national), { "Idempotency-Key": "opt-out-1" });
    expect(resumed.status).toBe(200);
    const last = (await sandboxSends()).at(-1);
    expect(last).toMatchObject({ wa_id: contact.digits, body: { template: { name: "cupom_desconto" } } });
    expect(last?.wamid).toBe((resumed.body as { data: { message_id: string } }).data.message_id);
  });

  it("131050: Meta fails a marketing template in its status webhook; the contact is suppressed and refused next time", async () => {
    const contact = newContact();
    // The contact stopped marketing messages, and the gateway never got that webhook.
    expect((await userPreference(contact.digits, "stop", { webhook: false })).webhook_status).toBeNull();
    expect(await suppressed(contact.digits)).toBe(false);

    const accepted = await send(marketing(contact.national));
    expect(accepted.status).toBe(200);
    const wamid = (accepted.body as { data: { message_id: string } }).data.message_id;
    const message = await eventually(
      async () => {
        const row = await gateway.db.message.findUnique({ where: { wamid } });
        return row?.status === "failed" ? row : undefined;
      },
      { timeoutMs: 5_000, what: "o status failed com 131050" },
    );
    expect(message).toMatchObject({ errorCode: 131050, errorReason: "recipient_opted_out" });
    expect(await suppressed(contact.digits)).toBe(true);

    const sentBefore = (await sandboxSends()).length;
    const refused = await send(marketing(contact.national));
    expect({ status: refused.status, body: refused.body as unknown }).toEqual({ status: 422, body: OPTED_OUT });
    expect(await sandboxSends()).toHaveLength(sentBefore);
    expect((await send(utility(contact.national))).status).toBe(200);
  });

  it("131050, then the person writes as a username user and later with the phone: the phone stays refused (issue 25)", async () => {
    const control = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
      const res = await fetch(`${gateway.sandbox.url}/_sandbox/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const contact = newContact();
    const username = `cliente.${contact.digits.slice(-7)}`;
    // A phone the gateway never saw as a contact; the person stopped marketing messages and Meta never told us.
    expect((await userPreference(contact.digits, "stop", { webhook: false })).webhook_status).toBeNull();
    const accepted = await send(marketing(contact.national));
    expect(accepted.status).toBe(200);
    const wamid = (accepted.body as { data: { message_id: string } }).data.message_id;
    await eventually(
      async () => (await gateway.db.message.findUnique({ where: { wamid } }))?.errorCode === 131050 || undefined,
      { timeoutMs: 5_000, what: "o status failed com 131050" },
    );
    const refusedFirst = await send(marketing(contact.national));
    expect({ status: refusedFirst.status, body: refusedFirst.body as unknown }).toEqual({
      status: 422,
      body: OPTED_OUT,
    });

    // The same person adopts a username and writes without sharing the phone: Meta names the BSUID alone.
    const user = await control<{ user_id: string }>("users", { phone: contact.digits, username, name: "Rita" });
    await control("users/phone-exchange", {
      user: { phone: contact.digits },
      phone_number_id: account.phoneNumberId,
      at: null,
    });
    await control("users/contact-book", {
      user: { phone: contact.digits },
      phone_number_id: account.phoneNumberId,
      in_contact_book: false,
    });
    const alone = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username,
      type: "text",
      text: "Oi, sou eu",
    });
    expect(alone.webhook_status).toBe(200);
    const webhooks = (await (await fetch(`${gateway.sandbox.url}/_sandbox/webhooks`)).json()) as { raw: string }[];
    const bsuidOnly = webhooks.map((w) => w.raw).find((raw) => raw.includes(alone.id));
    expect(bsuidOnly).toContain(user.user_id);
    expect(bsuidOnly).not.toContain(contact.digits);
    expect(await contactKeyOf(gateway.db.sql, { accountId: account.accountId, identifier: user.user_id })).toBe(
      user.user_id,
    );
    // Later the phone shows beside the BSUID: the gateway links them.
    await control("users/phone-exchange", {
      user: { phone: contact.digits },
      phone_number_id: account.phoneNumberId,
      at: Math.floor(Date.now() / 1000),
    });
    const both = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username,
      type: "text",
      text: "Agora com o telefone",
    });
    expect(both.webhook_status).toBe(200);
    expect(await contactKeyOf(gateway.db.sql, { accountId: account.accountId, identifier: contact.digits })).toBe(
      user.user_id,
    );

    const sentBefore = (await sandboxSends()).length;
    for (const to of [contact.national, contact.digits, user.user_id]) {
      const refused = await send(marketing(to));
      expect({ to, status: refused.status, body: refused.body as unknown }).toEqual({
        to,
        status: 422,
        body: OPTED_OUT,
      });
    }
    expect(await sandboxSends()).toHaveLength(sentBefore);
    // The window the messages opened is the phone's too.
    const window = await request(gateway.app).get(`/public/v1/window/${contact.digits}`).set(account.auth);
    expect(window.body.data).toMatchObject({ open: true });
  });

  it("131050 in Meta's answer to the send: 422 recipient_opted_out, and the contact joins the list", async () => {
    const contact = newContact();
    await sandboxControl.fault(gateway, { mode: "error", code: 131050, count: 1, route: "messages" });
    const refused = await send(marketing(contact.national));
    expect({ status: refused.status, body: refused.body as unknown }).toEqual({ status: 422, body: OPTED_OUT });
    expect(await suppressed(contact.digits)).toBe(true);
    // Another account's list is its own.
    const other = await createTestAccount(gateway.db);
    expect(await isSuppressed({ db: gateway.db }, { accountId: other.accountId, contact: contact.digits })).toBe(false);
  });

  it("the sandbox's pair rate: 131056 for a second message to the same contact, answered 429 rate_limited", async () => {
    await sandboxControl.config(gateway, { pairRate: { max: 1, windowMs: 60_000 } });
    try {
      const contact = newContact();
      expect((await send(utility(contact.national))).status).toBe(200);
      const limited = await send(utility(contact.national));
      expect({ status: limited.status, code: (limited.body as { error: { code: string } }).error.code }).toEqual({
        status: 429,
        code: "rate_limited",
      });
      expect(limited.headers["retry-after"]).toBe("30");
      // Another contact of the same number is not limited.
      expect((await send(utility(newContact().national))).status).toBe(200);
      expect(await statsOf(account.phoneNumberId)).toMatchObject({ sent: 2, refused: { "131056": 1 } });
    } finally {
      await sandboxControl.config(gateway, { pairRate: null });
    }
  });

  it("the sandbox's per-number rate: 130429 over it, answered 429 rate_limited; other numbers are not limited", async () => {
    await sandboxControl.config(gateway, { numberRates: { [account.phoneNumberId]: 1 } });
    try {
      const sendUtility = (acc: TestAccount) => send(utility(newContact().national), {}, acc);
      expect((await sendUtility(account)).status).toBe(200);
      const limited = await sendUtility(account);
      expect({ status: limited.status, code: (limited.body as { error: { code: string } }).error.code }).toEqual({
        status: 429,
        code: "rate_limited",
      });
      expect(limited.headers["retry-after"]).toBe("30");
      expect(await statsOf(account.phoneNumberId)).toMatchObject({ sent: 1, refused: { "130429": 1 } });

      const other = await createTestAccount(gateway.db);
      expect((await sendUtility(other)).status).toBe(200);
      expect((await sendUtility(other)).status).toBe(200);
    } finally {
      await sandboxControl.config(gateway, { numberRates: { [account.phoneNumberId]: null } });
    }
  });
});
