import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import request from "supertest";
import { TYPING_INDICATOR_MS } from "@gw/core/conversations";
import { contactWrites, createTestAccount, startTestGateway, type TestAccount, type TestGateway } from "@gw/test-stack";
import { sandboxControl } from "./support/sandbox-control.ts";

// One typing indicator per conversation at a time (docs/decisions.md, "Read receipts and typing"): Meta asks to show
// one only when a reply is coming and to rate-limit it per conversation. Through the API and the provider sandbox.

const TYPING_SHOWN =
  "Um indicador de digitando já está sendo mostrado nesta conversa; nada foi enviado. Envie a resposta, ou repita depois do tempo indicado em Retry-After (ou sem typing).";

describe("typing indicators of POST /public/v1/messages/{message_id}/read", () => {
  let gateway: TestGateway;
  let account: TestAccount;
  let contactSeq = 0;

  const typing = (wamid: string, body: object = { typing: true }) =>
    request(gateway.app)
      .post(`/public/v1/messages/${encodeURIComponent(wamid)}/read`)
      .set(account.auth)
      .send(body);
  const newContact = () => `55219876${String(50_000 + ++contactSeq).padStart(5, "0")}`;
  async function writes(from: string, timestamp: number): Promise<string> {
    const answer = await contactWrites(gateway, {
      phone_number_id: account.phoneNumberId,
      from,
      type: "text",
      text: "Oi",
      timestamp,
    });
    expect(answer.webhook_status).toBe(200);
    return answer.id;
  }
  /** The typing indicators the sandbox accepted for these messages, in order. */
  async function indicators(wamids: string[]): Promise<string[]> {
    const res = await fetch(`${gateway.sandbox.url}/_sandbox/read-marks?phone_number_id=${account.phoneNumberId}`);
    const { read_marks } = (await res.json()) as {
      read_marks: { message_id: string; typing_indicator: string | null }[];
    };
    return read_marks
      .filter((m) => m.typing_indicator === "text" && wamids.includes(m.message_id))
      .map((m) => m.message_id);
  }
  const seconds = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    account = await createTestAccount(gateway.db);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("refuses a second indicator for the same message while the first is shown: 429 rate_limited with Retry-After, nothing sent", async () => {
    const wamid = await writes(newContact(), seconds());
    expect((await typing(wamid)).status).toBe(200);

    const again = await typing(wamid);
    expect([again.status, again.body]).toEqual([
      429,
      { success: false, error: { code: "rate_limited", message: TYPING_SHOWN } },
    ]);
    const retryAfter = Number(again.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(TYPING_INDICATOR_MS / 1000 - 5);
    expect(retryAfter).toBeLessThanOrEqual(TYPING_INDICATOR_MS / 1000);
    expect(await indicators([wamid])).toEqual([wamid]);
  });

  it("lets a newer message of the contact have its own indicator at once (a new reply is coming), not an older one", async () => {
    const contact = newContact();
    const now = seconds();
    const older = await writes(contact, now - 20);
    const newer = await writes(contact, now - 10);
    expect((await typing(older)).status).toBe(200);
    expect((await typing(newer)).status).toBe(200);
    // The conversation's indicator is now the newer message's: the older one may not take it back.
    expect((await typing(older)).status).toBe(429);
    expect(await indicators([older, newer])).toEqual([older, newer]);
  });

  it("lets two messages the contact sent within the same second each have one (Meta's timestamps are whole seconds)", async () => {
    const contact = newContact();
    const now = seconds();
    const first = await writes(contact, now);
    const second = await writes(contact, now);
    expect((await typing(first)).status).toBe(200);
    expect((await typing(second)).status).toBe(200);
    expect((await typing(second)).status).toBe(429);
  });

  it("limits each conversation on its own: another contact's indicator is not held back", async () => {
    const now = seconds();
    const a = await writes(newContact(), now);
    const b = await writes(newContact(), now);
    expect((await typing(a)).status).toBe(200);
    expect((await typing(b)).status).toBe(200);
  });

  it("never limits a read receipt without typing, even while an indicator is shown", async () => {
    const contact = newContact();
    const now = seconds();
    const older = await writes(contact, now - 10);
    const newer = await writes(contact, now);
    expect((await typing(newer)).status).toBe(200);
    const res = await typing(older, {});
    expect([res.status, res.body.data?.typing]).toEqual([200, false]);
  });

  it("frees the conversation when Meta refused the indicator (it never showed)", async () => {
    const wamid = await writes(newContact(), seconds());
    await sandboxControl.fault(gateway, { mode: "error", code: 100, route: "messages" });
    expect((await typing(wamid)).status).toBe(422);
    expect((await typing(wamid)).status).toBe(200);
    expect(await indicators([wamid])).toEqual([wamid]);
  });
});
