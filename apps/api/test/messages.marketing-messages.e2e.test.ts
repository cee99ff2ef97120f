import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { eventually } from "@gw/testkit";
import { createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// Issue 37, part 2: a number whose `marketing_messages` is on sends its MARKETING templates through Meta's Marketing
// Messages API (`/marketing_messages`), every other category through `/messages`; the category is the catalogue's,
// kept current by `template_category_update`; a refusal there is answered as is, never resent through /messages;
// the send's answer looks the same, and GET /messages/{id} says which endpoint carried it (`routed_via`).

type Json = Record<string, unknown>;

let gateway: TestGateway;
let account: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "100000" } });
  account = await createTestAccount(gateway.db);
  other = await createTestAccount(gateway.db);
  // The sandbox knows the account's number (and so its WABA), as Meta does: its template webhooks name that WABA.
  await fetch(`${gateway.sandbox.url}/_sandbox/numbers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone_number_id: account.phoneNumberId, display_phone_number: "+55 11 4000-0000" }),
  });
});

afterAll(async () => {
  await gateway.close();
});

let recipientCounter = 0;
/** A recipient of its own per send (the pair limit is not what these tests look at). */
const recipient = () => `55119876530${String(++recipientCounter).padStart(2, "0")}`;

const MARKETING = {
  template: "cupom_desconto",
  variables: ["PROMO10", "10%"],
  coupon_code: "PROMO10",
  coupon_index: 1,
} as const;
const UTILITY = { template: "pedido_confirmado", variables: ["Maria", "123", "3"], header_text: "123" } as const;

const setting = (marketing: "on" | "off", as: TestAccount = account, phoneNumberId = as.phoneNumberId) =>
  request(gateway.app)
    .patch(`/public/v1/numbers/${phoneNumberId}`)
    .set(as.auth)
    .send({ marketing_messages: marketing });

const send = (body: Json) =>
  request(gateway.app)
    .post("/public/v1/messages")
    .set(account.auth)
    .send({ to: recipient(), ...body });

/** The Graph endpoint the sandbox received the message on. */
async function endpointOf(messageId: string): Promise<string | undefined> {
  const sent = (await sandboxControl.sent(gateway)) as unknown as { wamid: string; endpoint?: string }[];
  return sent.find((s) => s.wamid === messageId)?.endpoint;
}

const detail = (messageId: string, as: TestAccount = account) =>
  request(gateway.app)
    .get(`/public/v1/messages/${encodeURIComponent(messageId)}`)
    .set(as.auth);

describe("marketing templates on the Marketing Messages API, per number (issue 37)", () => {
  it("lists the numbers with marketing_messages off, turns it on and off, audited, and refuses another account's number", async () => {
    const listed = await request(gateway.app).get("/public/v1/numbers").set(account.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.data.numbers).toEqual([
      expect.objectContaining({ phone_number_id: account.phoneNumberId, is_default: true, marketing_messages: "off" }),
    ]);

    const on = await setting("on");
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ phone_number_id: account.phoneNumberId, marketing_messages: "on" });
    expect((await setting("on")).status).toBe(200);
    const off = await setting("off");
    expect(off.body.data.marketing_messages).toBe("off");
    const audited = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, action: "api.number.marketing_messages" },
      orderBy: { createdAt: "asc" },
    });
    // Twice: on, then off; setting what it already was is no change.
    expect(audited.map((entry) => entry.details)).toEqual([
      { from: "off", to: "on" },
      { from: "on", to: "off" },
    ]);

    const foreign = await setting("on", other, account.phoneNumberId);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("not_found");
    const invalid = await request(gateway.app)
      .patch(`/public/v1/numbers/${account.phoneNumberId}`)
      .set(account.auth)
      .send({ marketing_messages: "sim" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(["body", "marketing_messages"]);
  });

  it("with it on, a MARKETING template goes to /marketing_messages and a UTILITY one to /messages; answers alike, routed_via says which", async () => {
    expect((await setting("on")).status).toBe(200);
    const marketing = await send(MARKETING);
    const utility = await send(UTILITY);
    expect(marketing.status).toBe(200);
    expect(utility.status).toBe(200);
    // The send's answer has the same members whichever endpoint carried it.
    expect(Object.keys(marketing.body.data).sort()).toEqual(Object.keys(utility.body.data).sort());
    const [marketingId, utilityId] = [String(marketing.body.data.message_id), String(utility.body.data.message_id)];
    expect(await endpointOf(marketingId)).toBe("marketing_messages");
    expect(await endpointOf(utilityId)).toBe("messages");

    expect((await detail(marketingId)).body.data).toMatchObject({
      message_id: marketingId,
      type: "template",
      template: "cupom_desconto",
      routed_via: "marketing_messages",
    });
    expect((await detail(utilityId)).body.data.routed_via).toBe("messages");
    // Meta prices a message the Marketing Messages API carried as marketing_lite; the gateway keeps what it says.
    const priced = await eventually(async () => {
      const body = (await detail(marketingId)).body.data as Json;
      return body.pricing ? body : undefined;
    });
    expect(priced.pricing).toMatchObject({ category: "marketing_lite", type: "regular" });
    expect((await detail(marketingId, other)).status).toBe(404);

    expect((await setting("off")).status).toBe(200);
    const plain = await send(MARKETING);
    expect(await endpointOf(String(plain.body.data.message_id))).toBe("messages");
  });

  it("a refusal of the Marketing Messages API is answered as is and nothing goes through /messages", async () => {
    expect((await setting("on")).status).toBe(200);
    const cloudApiPosts = async () =>
      (await sandboxControl.requests(gateway)).filter(
        (r) => r.method === "POST" && r.path.endsWith(`/${account.phoneNumberId}/messages`),
      ).length;
    const [sentBefore, postsBefore] = [(await sandboxControl.sent(gateway)).length, await cloudApiPosts()];
    for (const [metaCode, code] of [
      [134101, "template_syncing"],
      [134102, "template_not_eligible"],
      [131055, "marketing_messages_unavailable"],
    ] as const) {
      await sandboxControl.fault(gateway, {
        mode: "error",
        code: metaCode,
        details: "Injected by the sandbox.",
        count: 1,
        route: "marketing_messages",
      });
      const refused = await send(MARKETING);
      expect({ metaCode, status: refused.status, code: refused.body.error?.code }).toEqual({
        metaCode,
        status: 422,
        code,
      });
    }
    // Nothing was sent, and nothing was tried again through the Cloud API.
    expect((await sandboxControl.sent(gateway)).length).toBe(sentBefore);
    expect(await cloudApiPosts()).toBe(postsBefore);
    expect((await setting("off")).status).toBe(200);
  });

  it("a template whose category Meta changed is routed by its new category from that webhook on", async () => {
    expect((await setting("on")).status).toBe(200);
    const first = await send(UTILITY);
    expect(await endpointOf(String(first.body.data.message_id))).toBe("messages");
    const changed = await fetch(`${gateway.sandbox.url}/_sandbox/templates/category`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        waba_id: account.wabaId,
        name: "pedido_confirmado",
        language: "pt_BR",
        category: "MARKETING",
      }),
    });
    expect(await changed.json()).toMatchObject({ webhook_status: 200 });
    const after = await send(UTILITY);
    expect(after.status).toBe(200);
    expect(await endpointOf(String(after.body.data.message_id))).toBe("marketing_messages");
    expect((await detail(String(after.body.data.message_id))).body.data.routed_via).toBe("marketing_messages");
  });
});
