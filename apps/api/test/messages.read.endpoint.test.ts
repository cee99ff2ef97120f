import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { setNumberMessagingRate } from "@gw/core/throughput";
import { ERROR_REGISTRY } from "@gw/errors";
import { testActor } from "@gw/testkit";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// POST /public/v1/messages/{message_id}/read (issue 18) end to end: API → core → Meta client → provider sandbox,
// which records every mark-as-read and typing indicator it accepted (GET /_sandbox/read-marks).

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOT_FOUND = "A mensagem recebida não foi encontrada nesta conta.";

interface ReadMark {
  phone_number_id: string;
  message_id: string;
  typing_indicator: "text" | null;
}

describe("POST /public/v1/messages/{message_id}/read", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  let other: TestAccount;
  let contactSeq = 0;

  const api = () => request(gateway.app);
  const read = (messageId: string, as: TestAccount = account) =>
    api()
      .post(`/public/v1/messages/${encodeURIComponent(messageId)}/read`)
      .set(as.auth);

  /** A contact of its own for each test (a conversation of its own); returns its phone. */
  const newContact = () => `55119876${String(50_000 + ++contactSeq).padStart(5, "0")}`;

  /** The contact writes to `to`'s number; returns the wamid `message.received` carries. */
  async function writes(to: TestAccount, from: string, options: { text?: string; timestamp?: number } = {}) {
    const answer = await contactWrites(gateway, {
      phone_number_id: to.phoneNumberId,
      from,
      type: "text",
      text: options.text ?? "Oi, tudo bem?",
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    });
    expect(answer.webhook_status).toBe(200);
    return answer.id;
  }

  async function readMarks(phoneNumberId: string): Promise<ReadMark[]> {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/read-marks?phone_number_id=${phoneNumberId}`);
    return ((await res.json()) as { read_marks: ReadMark[] }).read_marks;
  }

  const readAtOf = async (wamid: string) =>
    (await gateway.db.inboundMessage.findUniqueOrThrow({ where: { wamid } })).readAt;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    // Integrations on both message events: a receipt must create no delivery even where every event would.
    account = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/hooks" });
    other = await createTestAccount(gateway.db, { integrationUrl: "http://127.0.0.1:9/hooks-other" });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("marks a contact's message read at Meta through the number that received it, with no body, and records it with the earlier messages of the conversation", async () => {
    const maria = newContact();
    const joao = newContact();
    const now = Math.floor(Date.now() / 1000);
    const first = await writes(account, maria, { text: "Oi", timestamp: now - 30 });
    const second = await writes(account, maria, { text: "Cadê meu pedido?", timestamp: now - 20 });
    const joaos = await writes(account, joao, { text: "Vocês abrem domingo?", timestamp: now - 25 });
    const newest = await writes(account, maria, { text: "Alguém aí?", timestamp: now - 10 });
    const marksBefore = (await readMarks(account.phoneNumberId)).length;

    const res = await read(newest);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        message_id: newest,
        phone_number_id: account.phoneNumberId,
        read: true,
        typing: false,
        read_at: expect.stringMatching(ISO),
      },
    });
    const marks = (await readMarks(account.phoneNumberId)).slice(marksBefore);
    expect(marks).toEqual([
      expect.objectContaining({ phone_number_id: account.phoneNumberId, message_id: newest, typing_indicator: null }),
    ]);
    // Meta marks the earlier messages of the thread read: so does the gateway. Another contact's stay unread.
    const readAt = new Date(res.body.data.read_at as string);
    expect(await readAtOf(newest)).toEqual(readAt);
    expect(await readAtOf(first)).toEqual(readAt);
    expect(await readAtOf(second)).toEqual(readAt);
    expect(await readAtOf(joaos)).toBeNull();
  });

  it("with typing: true shows the typing indicator with the read receipt", async () => {
    const wamid = await writes(account, newContact());
    const res = await read(wamid).send({ typing: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ message_id: wamid, read: true, typing: true });
    expect((await readMarks(account.phoneNumberId)).filter((m) => m.message_id === wamid)).toEqual([
      expect.objectContaining({ message_id: wamid, typing_indicator: "text" }),
    ]);
  });

  it("answers 404 for another account's message and for an unknown id, and asks Meta nothing", async () => {
    const contact = newContact();
    const othersMessage = await writes(other, contact);
    // The same contact wrote to this account too: only its own messages are this account's to mark.
    await writes(account, contact);
    const before = (await readMarks(other.phoneNumberId)).length + (await readMarks(account.phoneNumberId)).length;

    for (const id of [othersMessage, "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEjQ2XX", "x"]) {
      const res = await read(id).send({ typing: true });
      expect([id, res.status, res.body]).toEqual([
        id,
        404,
        { success: false, error: { code: "not_found", message: NOT_FOUND } },
      ]);
    }
    const after = (await readMarks(other.phoneNumberId)).length + (await readMarks(account.phoneNumberId)).length;
    expect(after).toBe(before);
    expect(await readAtOf(othersMessage)).toBeNull();
    // The owner of the message can mark it: the 404 above was the account's doing, not the message's.
    expect((await read(othersMessage, other)).status).toBe(200);
  });

  it("creates no webhook delivery and no message: a read receipt is not a message", async () => {
    const wamid = await writes(account, newContact());
    const count = async () => ({
      deliveries: await gateway.db.delivery.count({ where: { accountId: account.accountId } }),
      messages: await gateway.db.message.count({ where: { accountId: account.accountId } }),
    });
    const before = await count();
    expect(before.deliveries).toBeGreaterThan(0); // the inbound message's own message.received

    expect((await read(wamid).send({ typing: true })).status).toBe(200);
    // Meta sends no status for a read receipt; a late webhook would have arrived by now (the sandbox's are ms apart).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count()).toEqual(before);
  });

  it("answers a message already read at once with its first read_at, without asking Meta again", async () => {
    const wamid = await writes(account, newContact());
    const first = await read(wamid);
    expect(first.status).toBe(200);
    const marks = (await readMarks(account.phoneNumberId)).length;

    const again = await read(wamid).send({});
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await readMarks(account.phoneNumberId)).length).toBe(marks);
  });

  it("audits the receipt as api.inbound_message.marked_read by the API key", async () => {
    const contact = newContact();
    const earlier = await writes(account, contact, { timestamp: Math.floor(Date.now() / 1000) - 5 });
    const wamid = await writes(account, contact);
    expect((await read(wamid).send({ typing: true })).status).toBe(200);
    const inbound = await gateway.db.inboundMessage.findUniqueOrThrow({ where: { wamid } });
    const entries = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, target: `inbound_message:${inbound.id}` },
    });
    expect(entries).toEqual([
      expect.objectContaining({
        action: "api.inbound_message.marked_read",
        actor: `api_key:${account.keyId}`,
        details: { wamid, typing: true, marked: 2 },
      }),
    ]);
    expect(await readAtOf(earlier)).not.toBeNull();
  });

  it("refuses a message received more than 30 days ago before Meta (422 message_too_old)", async () => {
    const wamid = await writes(account, newContact(), { timestamp: Math.floor(Date.now() / 1000) - 31 * 24 * 3600 });
    const marks = (await readMarks(account.phoneNumberId)).length;
    const res = await read(wamid);
    expect([res.status, res.body]).toEqual([
      422,
      { success: false, error: { code: "message_too_old", message: ERROR_REGISTRY.message_too_old.message } },
    ]);
    expect((await readMarks(account.phoneNumberId)).length).toBe(marks);
    expect(await readAtOf(wamid)).toBeNull();
  });

  it("maps Meta's refusals through the registry and records nothing", async () => {
    const cases: [number, number, string, string][] = [
      [100, 422, "provider_rejected", "O provedor recusou marcar a mensagem como lida."],
      [368, 422, "account_restricted", ERROR_REGISTRY.account_restricted.message],
      [
        131000,
        503,
        "provider_unavailable",
        "Não foi possível confirmar a leitura com o provedor agora; nada foi registrado. Repita a chamada em instantes.",
      ],
      // Last: Meta's throttle also backs the number off (its next call waits out the pause).
      [130429, 429, "rate_limited", ERROR_REGISTRY.rate_limited.message],
    ];
    for (const [metaCode, status, code, message] of cases) {
      const wamid = await writes(account, newContact());
      await sandboxControl.fault(gateway, { mode: "error", code: metaCode, route: "messages" });
      const res = await read(wamid);
      expect([metaCode, res.status, res.body]).toEqual([
        metaCode,
        status,
        { success: false, error: { code, message } },
      ]);
      if (status === 429) expect(Number(res.headers["retry-after"])).toBe(gateway.config.PROVIDER_RETRY_AFTER_SECONDS);
      expect(await readAtOf(wamid)).toBeNull();
    }
  });

  it("answers 503 provider_unavailable when Meta fails or cannot be reached, and the repeat succeeds", async () => {
    const wamid = await writes(account, newContact());
    await sandboxControl.fault(gateway, { mode: "500", route: "messages" });
    const failed = await read(wamid);
    expect([failed.status, failed.body.error?.code]).toEqual([503, "provider_unavailable"]);
    expect(await readAtOf(wamid)).toBeNull();
    // Marking read is safe to repeat: the same call goes through once Meta answers.
    expect((await read(wamid)).status).toBe(200);
  });

  it("takes the number's turn like a send: on a number at its rate it is refused with 429 before Meta", async () => {
    const slow = await createTestAccount(gateway.db);
    // 1 message/s (0.9 with the headroom): a second call right away would wait over the 1 s the API waits.
    await setNumberMessagingRate(
      { db: gateway.db },
      { phoneNumberId: slow.phoneNumberId, ratePerSecond: 1, actor: testActor },
    );
    const wamids: string[] = [];
    for (let n = 0; n < 3; n++) wamids.push(await writes(slow, newContact()));
    // Together: the first takes the turn now, the next ones' are 1.1 s and 2.2 s ahead. On a loaded machine the
    // calls may reach the pacing a few hundred milliseconds apart, so that the second waits its turn; the third's is
    // still past the 1 s the API waits.
    const answers = await Promise.all(wamids.map((wamid) => read(wamid, slow)));
    const statuses = answers.map((res) => res.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const refused = answers.find((res) => res.status === 429);
    expect(refused?.body.error?.code).toBe("rate_limited");
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Only the calls that got their turn reached Meta.
    const marked = answers.filter((res) => res.status === 200).map((res) => res.body.data.message_id as string);
    expect((await readMarks(slow.phoneNumberId)).map((m) => m.message_id).sort()).toEqual(marked.sort());
  });

  it("refuses an invalid path or body with HTTPValidationError, and takes none", async () => {
    const wamid = await writes(account, newContact());
    const tooLong = await read("w".repeat(129));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0]).toMatchObject({ loc: ["path", "message_id"] });
    const notBoolean = await read(wamid).send({ typing: "sim" });
    expect(notBoolean.status).toBe(422);
    expect(notBoolean.body.detail[0]).toMatchObject({ loc: ["body", "typing"] });
    expect(await readAtOf(wamid)).toBeNull();
    expect((await read("x").unset("Authorization")).status).toBe(401);
  });
});
