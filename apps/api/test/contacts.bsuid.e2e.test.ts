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

  const keyOf = (identifier: string) => contactKeyOf(gateway.db.sql, { accountId: account.accountId, identifier });
  /** A marketing template: refused to a contact who stopped marketing messages. */
  const MARKETING = {
    template: "cupom_desconto",
    variables: ["PROMO10", "10%"],
    coupon_code: "PROMO10",
    coupon_index: 1,
  };
  /** A send to the phone: its statuses name the BSUID behind it, and the gateway learns they are one person. */
  const learnAsOnePerson = async (phone: string, userId: string) => {
    const sent = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: phone, template: "hello_world", language: "en_US" });
    expect(sent.status).toBe(200);
    await eventually(async () => (await keyOf(userId)) === phone, { what: "the BSUID learnt as the phone's person" });
  };
  /** Meta withholds the phone (no recent exchange, not in the contact book): its webhooks name the BSUID only. */
  const withholdPhone = async (phone: string) => {
    await control("users/phone-exchange", { user: { phone }, phone_number_id: account.phoneNumberId, at: null });
    await control("users/contact-book", {
      user: { phone },
      phone_number_id: account.phoneNumberId,
      in_contact_book: false,
    });
  };
  /** The `message.received` body version the account's integration gets. */
  const usePayloadVersion = async (version: 1 | 2) => {
    await gateway.db.integration.updateMany({
      where: { accountId: account.accountId },
      data: { payloadVersion: version },
    });
  };

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
    await learnAsOnePerson(phone, user.user_id);
    // The user hides the phone again: Meta's webhook names the BSUID only.
    await withholdPhone(phone);
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
    for (const to of [phone, phone.slice(2), user.user_id]) {
      const refused = await request(gateway.app)
        .post("/public/v1/messages")
        .set(account.auth)
        .send({ to, ...MARKETING });
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
    await eventually(async () => (await keyOf(user.user_id)) === phone, {
      what: "the BSUID learnt as the phone's person",
    });
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

  it("asks a username user for their phone: their contact_request card links it (opt-out kept, version 2 sees it); a card shared unprompted links nothing", async () => {
    const phone = "5511966640001";
    const user = await control<SandboxUser>("users", { phone, username: "joana.doces", name: "Joana" });
    await withholdPhone(phone);
    const wrote = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username: "joana.doces",
      type: "text",
      text: "Quero acompanhar meu pedido",
    });
    expect((await received(wrote.id)).event.data.from).toBeNull();
    expect(await keyOf(user.user_id)).toBe(user.user_id);
    // She stops marketing messages (by BSUID alone) before sharing her phone.
    await control("user-preferences", { phone_number_id: account.phoneNumberId, user_id: user.user_id, value: "stop" });

    const asked = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({
        to: user.user_id,
        interactive: { type: "request_contact_info", body: "Para avisar da entrega, compartilhe seu número." },
      });
    expect(asked.status).toBe(200);
    expect(asked.body.data).toMatchObject({ to: user.user_id, type: "interactive" });
    const atMeta = (await sandboxControl.sent(gateway)).find((s) => s.wamid === asked.body.data.message_id);
    expect(atMeta?.body).toMatchObject({
      recipient: user.user_id,
      type: "interactive",
      interactive: {
        type: "request_contact_info",
        body: { text: "Para avisar da entrega, compartilhe seu número." },
        action: { name: "request_contact_info" },
      },
    });

    // Version 2 from here on: the events carry what the gateway knows of the customer.
    await usePayloadVersion(2);
    const shared = await control<{ id: string; webhook_status: number }>("contact-share", {
      phone_number_id: account.phoneNumberId,
      user: { user_id: user.user_id },
      origin: "contact_request",
    });
    expect(shared.webhook_status).toBe(200);
    const card = (await received(shared.id)).event.data as Record<string, unknown>;
    expect(card).toMatchObject({ type: "contacts", from: null, from_user_id: user.user_id, contact_phone: phone });
    expect(card.contacts).toEqual([expect.objectContaining({ origin: "contact_request" })]);
    // One person: the phone names her contact, and her opt-out holds for it.
    expect(await keyOf(phone)).toBe(user.user_id);
    const marketing = await request(gateway.app)
      .post("/public/v1/messages")
      .set(account.auth)
      .send({ to: phone, ...MARKETING });
    expect({ status: marketing.status, code: marketing.body.error?.code }).toEqual({
      status: 422,
      code: "recipient_opted_out",
    });
    // Her next message, still without the phone from Meta, carries it for a version-2 integration.
    const next = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      username: "joana.doces",
      type: "text",
      text: "Obrigada!",
    });
    expect((await received(next.id)).event.data).toMatchObject({ from: null, contact_phone: phone });

    // Someone else's card, shared unprompted, is forwarded and links nothing.
    const stranger = "5511966640077";
    const other = await control<{ id: string }>("contact-share", {
      phone_number_id: account.phoneNumberId,
      user: { user_id: user.user_id },
      origin: "other",
      card: { name: { formatted_name: "Maria Souza" }, phones: [{ phone: "+55 11 96664-0077", wa_id: stranger }] },
    });
    const forwarded = (await received(other.id)).event.data as Record<string, unknown>;
    expect(forwarded.contacts).toEqual([expect.objectContaining({ formatted_name: "Maria Souza", origin: "other" })]);
    expect(await keyOf(stranger)).toBe(stranger);
    expect(await keyOf(phone)).toBe(user.user_id);
    await usePayloadVersion(1);
  });

  it("a change of BSUID, then of number, announced by system messages alone: the ids move and the opt-out stays (issue 37)", async () => {
    const phone = "5511966660001";
    const user = await control<SandboxUser>("users", { phone, username: "rui.bolos", name: "Rui" });
    await learnAsOnePerson(phone, user.user_id);
    await control("user-preferences", { phone_number_id: account.phoneNumberId, user_id: user.user_id, value: "stop" });
    const optedOut = async (to: string) =>
      (
        await request(gateway.app)
          .post("/public/v1/messages")
          .set(account.auth)
          .send({ to, ...MARKETING })
      ).body.error?.code ?? "sent";
    expect(await optedOut(phone)).toBe("recipient_opted_out");

    // Only the system messages tell it (no user_id_update): Meta's previous_user_id names who changed.
    const newBsuid = `${user.user_id.slice(0, 3)}RUINOVO1`;
    await control("users/identity-change", { user: { phone }, user_id: newBsuid, user_id_update: false });
    await eventually(async () => (await keyOf(newBsuid)) === phone, { what: "the new BSUID on the same person" });
    expect(await optedOut(newBsuid)).toBe("recipient_opted_out");

    const newPhone = "5511966660002";
    await control("users/identity-change", { user: { phone }, phone: newPhone, user_id_update: false });
    await eventually(async () => (await keyOf(newPhone)) === phone, { what: "the new phone on the same person" });
    expect(await optedOut(newPhone)).toBe("recipient_opted_out");
  });

  it("a message on Meta's standby field (another app holds the conversation) is stored, shown and delivered, marked standby (issue 37)", async () => {
    const phone = "5511966680001";
    await usePayloadVersion(2);
    await control("conversation-owner", {
      phone_number_id: account.phoneNumberId,
      user: { from: phone },
      owner: "business_ai",
    });
    const held = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: phone,
      type: "text",
      text: "Quero falar com uma pessoa",
    });
    expect(held.webhook_status).toBe(200);
    const webhooks = (await (await fetch(`${gateway.sandbox.url}/_sandbox/webhooks`)).json()) as { raw: string }[];
    expect(webhooks.find((w) => w.raw.includes(held.id))?.raw).toContain('"field":"standby"');
    expect((await received(held.id)).event.data).toMatchObject({
      from: phone,
      text: "Quero falar com uma pessoa",
      standby: true,
    });
    const conversation = await listConversationMessages(
      { db: gateway.db },
      { accountId: account.accountId, phoneNumberId: account.phoneNumberId, contact: phone, limit: 10 },
    );
    expect(conversation.messages.find((m) => m.wamid === held.id)).toMatchObject({ standby: true });

    await control("conversation-owner", {
      phone_number_id: account.phoneNumberId,
      user: { from: phone },
      owner: "this_app",
    });
    const back = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from: phone,
      type: "text",
      text: "Oi",
    });
    expect((await received(back.id)).event.data).toMatchObject({ standby: false });
    await usePayloadVersion(1);
  });
});
