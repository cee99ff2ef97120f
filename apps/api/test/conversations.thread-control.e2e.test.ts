// Conversation Routing end to end (issue 37 part 4): Meta gives each conversation one holder app. The integrator
// passes, takes and releases a customer's conversation through the API (Meta's thread_control at the sandbox), reads
// who holds it, and gets Meta's messaging_handovers as the opt-in, signed `conversation.handover`.
// API + sandbox + dispatcher + a real receiver on loopback.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import type { Dispatcher } from "@gw/dispatcher";
import type { ConversationHandoverEvent, ConversationUpdatedEvent, MessageReceivedEvent } from "@gw/receiver";
import { eventually, testActor } from "@gw/testkit";
import { contactWrites, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { startPipeline, stopPipeline, type Receiver } from "./support/pipeline.ts";

interface SandboxThreadControl {
  source: "graph" | "send";
  phone_number_id: string;
  body: unknown;
}

describe("a conversation shared with Meta's Business AI agent", () => {
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let receiver: Receiver;
  let account: TestAccount;

  const control = async (path: string, body: Record<string, unknown>): Promise<Response> =>
    fetch(`${gateway.sandbox.url}/_sandbox/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const threadControl = (recipient: string, body: Record<string, unknown>) =>
    request(gateway.app).post(`/public/v1/conversations/${recipient}/thread-control`).set(account.auth).send(body);
  const conversation = async (recipient: string) => {
    const res = await request(gateway.app).get(`/public/v1/conversations/${recipient}`).set(account.auth);
    expect(res.status).toBe(200);
    return res.body.data as {
      thread: Record<string, unknown>;
      window: Record<string, unknown>;
      handler: Record<string, unknown>;
      status: string;
    };
  };
  /** The thread_control calls the sandbox received from the account's number (refused ones too), with their bodies. */
  const threadControlCalls = async (): Promise<SandboxThreadControl[]> => {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/thread-control`);
    const { calls } = (await res.json()) as { calls: SandboxThreadControl[] };
    return calls.filter((call) => call.source === "graph" && call.phone_number_id === account.phoneNumberId);
  };
  /** The field Meta posted the customer's message on (`messages` or `standby`), as the sandbox recorded it. */
  const fieldOf = async (wamid: string): Promise<string | undefined> => {
    const webhooks = (await (await fetch(`${gateway.sandbox.url}/_sandbox/webhooks`)).json()) as { raw: string }[];
    return /"field":"(\w+)"/.exec(webhooks.find((w) => w.raw.includes(wamid))?.raw ?? "")?.[1];
  };
  const writes = (from: string, text: string) =>
    contactWrites(gateway, { phone_number_id: account.phoneNumberId, from, type: "text", text });
  const handovers = () =>
    receiver.received
      .map((r) => r.event)
      .filter((e): e is ConversationHandoverEvent => e.event === "conversation.handover");
  const subscribe = (events: string[]) =>
    gateway.db.integration.updateMany({ where: { accountId: account.accountId }, data: { events } });

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    ({ receiver, account, dispatcher } = await startPipeline(gateway));
  });
  afterAll(async () => {
    await stopPipeline({ dispatcher, receiver, gateway });
  });

  it("passes to the AI agent, takes back and releases through the API: Meta gets each call, the customer's next message arrives where Meta routes it, and the holder follows", async () => {
    const phone = "5511966690001";
    await writes(phone, "Oi");
    expect((await conversation(phone)).thread).toMatchObject({ holder: "gateway", role: null, source: "message" });

    const passed = await threadControl(phone, {
      action: "pass",
      target_role: "ai_agent",
      metadata: "pedido resolvido",
    });
    expect(passed.status).toBe(200);
    expect(passed.body.data).toMatchObject({
      recipient: phone,
      phone_number_id: account.phoneNumberId,
      action: "pass",
      thread: { holder: "another_app", role: "ai_agent", source: "pass" },
    });
    expect((await threadControlCalls()).at(-1)?.body).toEqual({
      messaging_product: "whatsapp",
      to: phone,
      action: "pass",
      control_pass: { target_role: "ai_agent" },
      metadata: "pedido resolvido",
    });
    const held = await writes(phone, "E agora, robô?");
    expect(await fieldOf(held.id)).toBe("standby");
    expect((await conversation(phone)).thread).toMatchObject({
      holder: "another_app",
      role: "ai_agent",
      source: "standby",
    });

    const taken = await threadControl(phone, { action: "take" });
    expect(taken.status).toBe(200);
    expect(taken.body.data.thread).toMatchObject({ holder: "gateway", source: "take" });
    const back = await writes(phone, "Obrigado");
    expect(await fieldOf(back.id)).toBe("messages");
    expect((await conversation(phone)).thread).toMatchObject({ holder: "gateway", source: "message" });

    const released = await threadControl(phone, { action: "release" });
    expect(released.status).toBe(200);
    expect((await conversation(phone)).thread).toMatchObject({ holder: "released", role: null, source: "release" });
    // Released, Meta's routing hands the customer's next message to the Business AI agent.
    const next = await writes(phone, "Oi de novo");
    expect(await fieldOf(next.id)).toBe("standby");
    expect((await conversation(phone)).thread).toMatchObject({ holder: "another_app", source: "standby" });

    const audit = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, action: "api.conversation.thread_control" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => (a.details as { action: string }).action)).toEqual(["pass", "take", "release"]);
    // The gateway's own calls notify the other app, never this one.
    expect(handovers()).toEqual([]);
  });

  it("refuses what Meta does not permit, and what the contract does not allow, changing nothing", async () => {
    const phone = "5511966690002";
    await writes(phone, "Oi");
    const before = await threadControlCalls();

    // The gateway holds it: taking it again is Meta's 2494191.
    const taken = await threadControl(phone, { action: "take" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("thread_control_not_permitted");
    expect(taken.body.error.message).toMatch(/^A Meta não permitiu esta ação/);
    expect((await threadControlCalls()).length).toBe(before.length + 1);
    expect((await conversation(phone)).thread).toMatchObject({ holder: "gateway", source: "message" });
    expect(await gateway.db.conversation.count({ where: { accountId: account.accountId, contactKey: phone } })).toBe(0);

    const invalid: Array<[Record<string, unknown>, string]> = [
      [{ action: "take", target_role: "ai_agent" }, "target_role"],
      [{ action: "release", metadata: "x" }, "metadata"],
      [{ action: "pass", target_role: "human" }, "target_role"],
      [{ action: "pass", metadata: "x".repeat(2001) }, "metadata"],
      [{ action: "hand_over" }, "action"],
    ];
    for (const [body, field] of invalid) {
      const res = await threadControl(phone, body);
      expect({ field, status: res.status, loc: res.body.detail?.[0]?.loc }).toEqual({
        field,
        status: 422,
        loc: ["body", field],
      });
    }
    const unknownNumber = await threadControl(phone, { action: "release", phone_number_id: "999999999" });
    expect(unknownNumber.status).toBe(422);
    expect(unknownNumber.body.detail[0].loc).toEqual(["body", "phone_number_id"]);
    const notAPhone = await threadControl("12", { action: "release" });
    expect(notAPhone.status).toBe(400);
    expect(notAPhone.body.error.code).toBe("invalid_recipient");
    // None of these reached Meta.
    expect((await threadControlCalls()).length).toBe(before.length + 1);
  });

  it("reports Meta's handovers as the opt-in conversation.handover, signed, only to integrations that chose it", async () => {
    const phone = "5511966690003";
    await subscribe(["message.status", "message.received"]);
    await control("conversation-owner", {
      phone_number_id: account.phoneNumberId,
      user: { from: phone },
      owner: "business_ai",
    });
    const held = await writes(phone, "Quero falar com uma pessoa");
    expect(await fieldOf(held.id)).toBe("standby");
    // Not chosen: the AI agent passes the customer, and no delivery is created.
    const unchosen = await control("thread-control", {
      phone_number_id: account.phoneNumberId,
      user: { from: phone },
      actor: "business_ai",
      action: "pass",
    });
    expect(unchosen.status).toBe(200);
    expect(((await unchosen.json()) as { notified: boolean }).notified).toBe(true);
    await eventually(async () => (await conversation(phone)).thread.source === "control_passed", {
      what: "the handover applied",
    });
    expect(await gateway.db.delivery.count({ where: { event: "conversation.handover" } })).toBe(0);
    expect((await conversation(phone)).thread).toMatchObject({
      holder: "gateway",
      role: "escalation_partner",
      source: "control_passed",
    });

    // Chosen: the next pass reaches the receiver, signed, with both roles and the note the AI agent wrote.
    await subscribe(["message.status", "message.received", "conversation.handover"]);
    const passedToAi = await threadControl(phone, { action: "pass", target_role: "ai_agent" });
    expect(passedToAi.status).toBe(200);
    const passed = await control("thread-control", {
      phone_number_id: account.phoneNumberId,
      user: { from: phone },
      actor: "business_ai",
      action: "pass",
      metadata: "cliente pediu um atendente",
    });
    expect(passed.status).toBe(200);
    const event = await eventually(() => handovers()[0], { what: "conversation.handover delivered" });
    expect(event.data).toMatchObject({
      type: "control_passed",
      phone_number_id: account.phoneNumberId,
      recipient: phone,
      phone,
      holder: "gateway",
      previous_role: "ai_agent",
      current_role: "escalation_partner",
      metadata: "cliente pediu um atendente",
    });
    expect(event.data.user_id).toMatch(/^[A-Z]{2}\./);
    const back = await writes(phone, "Oi, pessoa!");
    const message = await eventually(
      () =>
        receiver.received
          .map((r) => r.event)
          .find((e): e is MessageReceivedEvent => e.event === "message.received" && e.data.message_id === back.id),
      { what: "the customer's message after the handover" },
    );
    expect(message.data.from).toBe(phone);
    expect(await fieldOf(back.id)).toBe("messages");
    await subscribe(["message.status", "message.received"]);
  });

  it("a bot hands the customer to a person and gets it back: message.received says who answers, conversation.updated tells the integrations that chose it, and a person's hold lapses (issue 39)", async () => {
    const phone = "5511966690004";
    await gateway.db.integration.updateMany({
      where: { accountId: account.accountId },
      data: { payloadVersion: 2, events: ["message.status", "message.received", "conversation.updated"] },
    });
    const handlerOf = async (wamid: string) =>
      (
        await eventually(
          () =>
            receiver.received
              .map((r) => r.event)
              .find((e): e is MessageReceivedEvent => e.event === "message.received" && e.data.message_id === wamid),
          { what: `message.received ${wamid}` },
        )
      ).data.handler;
    const updates = () =>
      receiver.received
        .map((r) => r.event)
        .filter((e): e is ConversationUpdatedEvent => e.event === "conversation.updated");

    expect(await handlerOf((await writes(phone, "Oi")).id)).toBe("bot");
    expect((await conversation(phone)).handler ?? null).toMatchObject({ value: "bot", since: null, note: null });

    const handed = await request(gateway.app)
      .post(`/public/v1/conversations/${phone}/handover`)
      .set(account.auth)
      .send({ to: "human", note: "falar com atendente" });
    expect(handed.status).toBe(200);
    expect(handed.body.data).toMatchObject({
      recipient: phone,
      phone_number_id: account.phoneNumberId,
      handler: { value: "human", note: "falar com atendente" },
    });
    const update = await eventually(() => updates()[0], { what: "conversation.updated delivered" });
    expect(update.data).toMatchObject({
      change: "handover",
      phone_number_id: account.phoneNumberId,
      recipient: phone,
      phone,
      handler: "human",
      note: "falar com atendente",
      by: "api",
    });
    expect(await handlerOf((await writes(phone, "Tem alguém aí?")).id)).toBe("human");
    expect((await conversation(phone)).handler).toMatchObject({ value: "human", note: "falar com atendente" });

    const back = await request(gateway.app)
      .post(`/public/v1/conversations/${phone}/handover`)
      .set(account.auth)
      .send({ to: "bot" });
    expect(back.status).toBe(200);
    await eventually(() => updates()[1], { what: "the second conversation.updated" });
    expect(updates().map((u) => u.data.handler)).toEqual(["human", "bot"]);
    expect(await handlerOf((await writes(phone, "Obrigado")).id)).toBe("bot");

    // A person's hold lapses after the account's timeout: with none left, the next message is the bot's again.
    await request(gateway.app)
      .post(`/public/v1/conversations/${phone}/handover`)
      .set(account.auth)
      .send({ to: "human" });
    await gateway.db.account.update({ where: { id: account.accountId }, data: { humanHandlerTimeoutMinutes: 0 } });
    expect((await conversation(phone)).handler).toMatchObject({ value: "bot" });
    expect(await handlerOf((await writes(phone, "Oi de novo")).id)).toBe("bot");
    await gateway.db.account.update({ where: { id: account.accountId }, data: { humanHandlerTimeoutMinutes: 1440 } });

    const audit = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, action: "api.conversation.handover" },
      orderBy: { id: "asc" },
    });
    expect(audit.map((a) => (a.details as { to: string }).to)).toEqual(["human", "bot", "human"]);
    // Closed in the inbox (the panel's service): back to the bot; the customer writing again reopens it, and says so.
    const { changeConversation } = await import("@gw/core/conversations");
    const inbox = { db: gateway.db, outbox: gateway.deps.outbox, logger: gateway.deps.logger };
    const where = { accountId: account.accountId, phoneNumberId: account.phoneNumberId, contact: phone };
    await changeConversation(inbox, { ...where, change: { kind: "close" }, actor: testActor });
    expect((await conversation(phone)).status).toBe("closed");
    expect(await handlerOf((await writes(phone, "Voltei")).id)).toBe("bot");
    expect((await conversation(phone)).status).toBe("open");
    await eventually(() => updates().find((u) => u.data.change === "reopened"), {
      what: "conversation.updated reopened",
    });
    expect(updates().map((u) => [u.data.change, u.data.by, u.data.status])).toEqual(
      expect.arrayContaining([
        ["closed", "panel", "closed"],
        ["reopened", "customer", "open"],
      ]),
    );

    const invalid = await request(gateway.app)
      .post(`/public/v1/conversations/${phone}/handover`)
      .set(account.auth)
      .send({ to: "agent" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(["body", "to"]);
    await gateway.db.integration.updateMany({
      where: { accountId: account.accountId },
      data: { payloadVersion: 1, events: ["message.status", "message.received"] },
    });
  });
});
