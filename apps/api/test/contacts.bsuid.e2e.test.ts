// Today's Meta end to end (issue 18): a WhatsApp user with a username who shares no phone is known only by a
// business-scoped user id (BSUID). API + sandbox + dispatcher + a real receiver on loopback.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { contactKeyOf } from "@gw/core/contacts";
import { listConversationMessages } from "@gw/core/conversations";
import { isSuppressed } from "@gw/core/suppressions";
import type { Dispatcher } from "@gw/dispatcher";
import type { MessageReceivedEvent, MessageStatusEvent } from "@gw/receiver";
import { eventually } from "@gw/testkit";
import { contactWrites, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";
import { sandboxControl } from "./support/sandbox-control.ts";

interface SandboxUser {
  user_id: string;
  phone: string | null;
  username: string | null;
}

describe("a user known only by a BSUID", () => {
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let account: TestAccount;

  const control = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const received = (messageId: string) =>
    eventually(
      () =>
        receiver.received.find(
          (r): r is typeof r & { event: MessageReceivedEvent } =>
            r.event.event === "message.received" && r.event.data.message_id === messageId,
        ),
      { what: `message.received ${messageId}` },
    );
  const statuses = (messageId: string) =>
    receiver.received
      .filter(
        (r): r is typeof r & { event: MessageStatusEvent } =>
          r.event.event === "message.status" && r.event.data.message_id === messageId,
      )
      .map((r) => r.event.data);

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    ({ receiver, account, dispatcher } = await startPipeline(gateway));
  });
  afterAll(async () => {
    await stopPipeline({ dispatcher, receiver, gateway });
  });

  it("writes: message.received names the BSUID, the window opens for it, the reply goes to Meta in `recipient` and its statuses come back with the BSUID and pricing", async () => {
    const user = await control<SandboxUser>("users", { username: "fernanda.pao", name: "Fernanda", phone: null });
    const inbound = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username: "fernanda.pao",
      type: "text",
      text: "Tem pão de queijo hoje?",
    });
    expect(inbound.webhook_status).toBe(200);

    const event = (await received(inbound.id)).event;
    expect(event.data).toMatchObject({
      from: null,
      from_user_id: user.user_id,
      from_parent_user_id: null,
      from_username: "fernanda.pao",
      contact_name: "Fernanda",
      text: "Tem pão de queijo hoje?",
    });
    // Nothing was quarantined: the message was applied.
    const quarantined = await gateway.db.providerEvent.findMany();
    expect(quarantined.filter((e) => JSON.stringify(e.quarantined ?? null).includes(inbound.id))).toEqual([]);

    const window = await request(gateway.app).get(`/public/v1/window/${user.user_id}`).set(account.auth);
    expect(window.status).toBe(200);
    expect(window.body.data).toMatchObject({ to: user.user_id, open: true });

    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: user.user_id, text: "Temos sim!", client_ref: "resposta-1" });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ to: user.user_id, status: "sent", type: "text" });
    const messageId = String(sent.body.data.message_id);
    const atMeta = (await sandboxControl.sent(gateway)).find((s) => s.wamid === messageId);
    expect(atMeta?.body).toMatchObject({ recipient: user.user_id, recipient_type: "individual", type: "text" });
    expect(atMeta?.body).not.toHaveProperty("to");

    await eventually(() => statuses(messageId).length >= 3, { what: "sent, delivered and read" });
    const events = statuses(messageId);
    expect(events.map((e) => e.status)).toEqual(["sent", "delivered", "read"]);
    for (const data of events) expect(data).toMatchObject({ to: user.user_id, recipient_user_id: user.user_id });
    // A service message inside the window is charged since 1 Oct 2026 (meta-late-2026 §6).
    expect(events[0]?.pricing).toEqual({ pricing_model: "PMP", category: "service", type: "regular" });
    expect(events.slice(1).map((e) => e.pricing)).toEqual([null, null]);
  });

  it("validate says what a BSUID is; one written as a BSUID but malformed is a 422 naming the format", async () => {
    const ok = await request(gateway.app)
      .post("/public/v1/validate")
      .set(account.auth)
      .send({ to: "BR.1502576394655843" });
    expect(ok.body.data).toMatchObject({ to: "BR.1502576394655843", valid: true, kind: "bsuid", country: "BR" });
    const phone = await request(gateway.app).post("/public/v1/validate").set(account.auth).send({ to: "11987654321" });
    expect(phone.body.data).toMatchObject({ to: "5511987654321", valid: true, kind: "phone" });
    const bad = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "BR.15-02", text: "x" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "to"], type: "value_error" });
    expect(bad.body.detail[0].msg).toMatch(/BSUID/);
  });

  it("changes number: the same contact keeps its window and its conversation under the new phone and BSUID", async () => {
    const phone = "5511966610001";
    const first = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: phone,
      name: "Caio",
      type: "text",
      text: "Oi, meu número vai mudar",
    });
    await received(first.id);
    const changed = await control<{ user: SandboxUser }>("users/identity-change", {
      user: { phone },
      phone: "5511966610002",
    });
    const newBsuid = changed.user.user_id;
    // The system messages and user_id_update reach the gateway (and are not forwarded as messages).
    await eventually(
      async () =>
        (await request(gateway.app).get(`/public/v1/window/${newBsuid}`).set(account.auth)).body.data.open === true,
      { what: "the window under the new BSUID" },
    );
    const byNewPhone = await request(gateway.app).get("/public/v1/window/5511966610002").set(account.auth);
    expect(byNewPhone.body.data.open).toBe(true);
    expect(
      receiver.received.filter((r) => r.event.event === "message.received" && r.event.data.type === "unsupported"),
    ).toEqual([]);

    const conversation = await listConversationMessages(
      { db: gateway.db },
      { accountId: account.accountId, phoneNumberId: account.phoneNumberId, contact: "5511966610002", limit: 10 },
    );
    expect(conversation.messages.map((m) => m.wamid)).toContain(first.id);
    expect(conversation.who).toMatchObject({ phone: "5511966610002", bsuid: newBsuid });

    // A reply by the new phone goes to the same person, in the window the first message opened.
    const reply = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: "5511966610002", text: "Anotado!" });
    expect(reply.status).toBe(200);
  });

  it("an opt-out Meta reports by BSUID alone stops marketing templates to the person's phone as well", async () => {
    const phone = "5511966620001";
    const user = await control<SandboxUser>("users", { phone, username: "beto.feira", name: "Beto" });
    // A send to the phone: its statuses name the BSUID behind it, and the gateway learns they are one person.
    const utility = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: phone, template: "hello_world", language: "en_US" });
    expect(utility.status).toBe(200);
    await eventually(
      async () =>
        (await contactKeyOf(gateway.db.sql, { accountId: account.accountId, identifier: user.user_id })) === phone,
      { what: "the BSUID learnt as the phone's person" },
    );
    // The user hides the phone again (no recent exchange, out of the contact book): Meta's webhook names the BSUID only.
    await control("users/phone-exchange", { user: { phone }, phone_number_id: account.phoneNumberId, at: null });
    await control("users/contact-book", {
      user: { phone },
      phone_number_id: account.phoneNumberId,
      in_contact_book: false,
    });
    const stop = await control<{ webhook_status: number | null }>("user-preferences", {
      phone_number_id: account.phoneNumberId,
      user_id: user.user_id,
      value: "stop",
    });
    expect(stop.webhook_status).toBe(200);
    const webhooks = (await (await fetch(`${gateway.sandbox.url}/_sandbox/webhooks`)).json()) as { raw: string }[];
    const preference = webhooks.map((w) => w.raw).find((raw) => raw.includes('"user_preferences"'));
    expect(preference).toContain(user.user_id);
    expect(preference).not.toContain(phone);

    expect(await isSuppressed({ db: gateway.db }, { accountId: account.accountId, contact: phone })).toBe(true);
    const marketing = {
      template: "cupom_desconto",
      variables: ["PROMO10", "10%"],
      coupon_code: "PROMO10",
      coupon_index: 1,
    };
    for (const to of [phone, phone.slice(2), user.user_id]) {
      const refused = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to, ...marketing });
      expect({ to, status: refused.status, code: refused.body.error?.code }).toEqual({
        to,
        status: 422,
        code: "recipient_opted_out",
      });
    }
  });

  it("an Idempotency-Key retried with the person's BSUID instead of their phone is the same request (a replay)", async () => {
    const phone = "5511966630001";
    const user = await control<SandboxUser>("users", { phone, username: "dora.doces", name: "Dora" });
    const body = { template: "hello_world", language: "en_US", client_ref: "mesma-chave" };
    const key = { "Idempotency-Key": "bsuid-ou-telefone-1" };
    const first = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set(key)
      .send({ to: phone, ...body });
    expect(first.status).toBe(200);
    await eventually(
      async () =>
        (await contactKeyOf(gateway.db.sql, { accountId: account.accountId, identifier: user.user_id })) === phone,
      { what: "the BSUID learnt as the phone's person" },
    );
    const sentBefore = (await sandboxControl.sent(gateway)).length;
    const retried = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set(key)
      .send({ to: user.user_id, ...body });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.body);
    expect(await sandboxControl.sent(gateway)).toHaveLength(sentBefore);
    // Another person under the same key is a different request.
    const other = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .set(key)
      .send({ to: "5511966630002", ...body });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_conflict");
  });
});
