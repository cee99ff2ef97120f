import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { GraphRequestRecord, RunningSandbox } from "../src/index.ts";
import {
  fieldOf,
  control,
  hooksOf,
  pendingOf,
  PHONE_ID,
  sendMessage,
  signedByMeta,
  start,
  startReceiver,
  template,
  text,
  TOKEN,
  valueOf,
  type Answer,
  type GraphBody,
  type ReceivedWebhook,
} from "./helpers.ts";

// Issue 37, part 4: Conversation Routing thread control (meta-late-2026 §5). This app passes, takes or releases a
// user's thread through POST /{phone-number-id}/thread_control; the other apps (Meta's Business AI agent, any app
// id) act through POST /_sandbox/thread-control. Ownership shows where the user's next message is posted:
// `messages` while this app owns the thread, `standby` otherwise. Only a pass TO this app (`control_passed`) or a
// take FROM it (`control_taken`) posts a `messaging_handovers` webhook here.

const PHONE = "5511977776666";
const WABA_ID = "102290129340398";
const APP_ESC = "app_escalation_123";
const NOW_MS = Date.parse("2026-12-07T20:40:00Z");
const NOW_SECONDS = String(Math.floor(NOW_MS / 1000));

interface ThreadCall {
  source: "graph" | "send";
  phone_number_id: string;
  action: string | null;
  user_id: string | null;
  body: unknown;
  previous_owner: string | null;
  owner: string | null;
  status: number;
  code: number | null;
  at: string;
}

interface ControlAnswer {
  phone_number_id?: string;
  user_id?: string;
  owner?: string;
  notified?: boolean;
  error?: { message: string; issues?: { path: (string | number)[] }[] };
}

/** Meta's Graph error envelope with this code (the sandbox's OAuthException shape). */
function expectGraphError(answer: Answer, code: number, details: RegExp | string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error).toEqual({
    message: expect.stringMatching(new RegExp(`^\\(#${code}\\) `)),
    type: "OAuthException",
    code,
    error_data: {
      messaging_product: "whatsapp",
      details: typeof details === "string" ? details : expect.stringMatching(details),
    },
    fbtrace_id: expect.stringMatching(/^[A-Za-z0-9_-]{23}$/),
  });
}

describe("Conversation Routing thread control", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    receiver = await startReceiver();
    sandbox = await start({
      webhookUrl: receiver.url,
      webhookRetries: false,
      autoStatuses: false,
      accessToken: TOKEN,
      now: () => NOW_MS,
    });
  });
  beforeEach(async () => {
    await control(sandbox.url, "/reset", { config: true });
    receiver.received.length = 0;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  /** POST /v23.0/{PHONE_ID}/thread_control as the gateway would (the raw string when not an object). */
  const threadControl = async (body: unknown, token: string | undefined = TOKEN): Promise<Answer> => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${sandbox.url}/v23.0/${PHONE_ID}/thread_control`, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as GraphBody };
  };
  const call = (action: string, extra: Record<string, unknown> = {}) =>
    threadControl({ messaging_product: "whatsapp", to: PHONE, action, ...extra });
  const toAiAgent = { control_pass: { target_role: "ai_agent" } };

  /** The user's next message, and the field it was posted on (the thread's owner seen from this app). */
  const inbound = async (body: Record<string, unknown> = {}): Promise<ReceivedWebhook | undefined> => {
    const before = receiver.received.length;
    const answer = await control<{ webhook_status: number | null }>(sandbox.url, "/inbound", {
      phone_number_id: PHONE_ID,
      from: PHONE,
      type: "text",
      text: "Oi",
      ...body,
    });
    expect(answer.status).toBe(200);
    expect(receiver.received).toHaveLength(before + 1);
    return receiver.received.at(-1);
  };
  const nextField = async (body: Record<string, unknown> = {}) => fieldOf(await inbound(body));
  const setOwner = async (owner: string, user: Record<string, string> = { from: PHONE }) => {
    const answer = await control(sandbox.url, "/conversation-owner", { phone_number_id: PHONE_ID, user, owner });
    expect(answer.status).toBe(200);
  };
  const setPartner = async (app: string) => {
    const answer = await control(sandbox.url, "/escalation-partner", { phone_number_id: PHONE_ID, app });
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const calls = async () => (await control<{ calls: ThreadCall[] }>(sandbox.url, "/thread-control")).body.calls;
  const other = (body: Record<string, unknown>) =>
    control<ControlAnswer>(sandbox.url, "/thread-control", {
      phone_number_id: PHONE_ID,
      user: { from: PHONE },
      ...body,
    });
  const handovers = () => hooksOf(receiver.received, "messaging_handovers");

  describe("POST /{phone-number-id}/thread_control", () => {
    it("pass with control_pass ai_agent hands this app's thread to business_ai, silently", async () => {
      const answer = await call("pass", { ...toAiAgent, metadata: "x".repeat(2000) });
      expect(answer).toEqual({ status: 200, body: { messaging_product: "whatsapp", success: true } });
      // No webhook to this app for its own call; the user's next message goes to standby.
      expect(receiver.received).toHaveLength(0);
      expect(await nextField()).toBe("standby");

      const [recorded] = await calls();
      expect(recorded).toMatchObject({
        source: "graph",
        phone_number_id: PHONE_ID,
        action: "pass",
        previous_owner: "this_app",
        owner: "business_ai",
        status: 200,
        code: null,
        body: { action: "pass", control_pass: { target_role: "ai_agent" } },
      });
      expect(recorded?.user_id).toBe(valueOf(receiver.received[0])?.contacts?.[0]?.user_id);
      // Counted in the Graph request history like every other call.
      const requests = (await control<GraphRequestRecord[]>(sandbox.url, "/requests")).body;
      expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
        ["POST", `/v23.0/${PHONE_ID}/thread_control`, 200],
      ]);
    });

    it("take brings a thread back from business_ai to this app (the escalation partner by default), by BSUID too", async () => {
      const userId = valueOf(await inbound())?.contacts?.[0]?.user_id ?? "";
      await setOwner("business_ai");
      expect(await nextField()).toBe("standby");
      receiver.received.length = 0;

      const answer = await threadControl({ messaging_product: "whatsapp", recipient: userId, action: "take" });
      expect(answer).toEqual({ status: 200, body: { messaging_product: "whatsapp", success: true } });
      expect(receiver.received).toHaveLength(0);
      expect(await nextField()).toBe("messages");
      expect((await calls()).at(-1)).toMatchObject({
        action: "take",
        user_id: userId,
        previous_owner: "business_ai",
        owner: "this_app",
      });
    });

    it("pass without control_pass goes to the number's escalation partner app", async () => {
      expect(await setPartner(APP_ESC)).toEqual({
        phone_number_id: PHONE_ID,
        escalation_partner: APP_ESC,
        this_app_role: "partner",
      });
      const answer = await call("pass", { metadata: "pedido 123" });
      expect(answer.status).toBe(200);
      expect(await nextField()).toBe("standby");
      expect((await calls()).at(-1)).toMatchObject({ previous_owner: "this_app", owner: APP_ESC });
      // Now the escalation partner owns the thread: it may pass it back (the control route shows the owner).
      expect((await other({ actor: APP_ESC, action: "pass" })).body.owner).toBe("this_app");
      expect(await nextField()).toBe("messages");
    });

    it("release hands this app's thread back to business_ai", async () => {
      const answer = await call("release");
      expect(answer).toEqual({ status: 200, body: { messaging_product: "whatsapp", success: true } });
      expect(receiver.received).toHaveLength(0);
      expect(await nextField()).toBe("standby");
      expect((await calls()).at(-1)).toMatchObject({
        action: "release",
        previous_owner: "this_app",
        owner: "business_ai",
      });
      // business_ai owns it: only the owner may pass, and the AI agent can.
      expect((await other({ actor: "business_ai", action: "pass" })).status).toBe(200);
    });

    it("refuses with 2494191 what the thread's ownership does not permit, and changes nothing", async () => {
      const refused = async (action: string, extra: Record<string, unknown>, reason: string, field: string) => {
        const before = (await calls()).length;
        expectGraphError(
          await call(action, extra),
          2494191,
          `Thread control action not permitted: ${reason} (action ${action}).`,
        );
        const recorded = (await calls()).at(-1);
        expect((await calls()).length).toBe(before + 1);
        expect(recorded).toMatchObject({ action, status: 400, code: 2494191 });
        expect(recorded?.owner).toBe(recorded?.previous_owner);
        expect(await nextField()).toBe(field);
      };
      const notOwner = "this app does not own the thread";

      // this_app owns (the default) and is the escalation partner: nothing to take, nobody else to escalate to.
      await refused("take", {}, "this app already owns the thread", "messages");
      await refused(
        "pass",
        {},
        "this app is the escalation partner of this phone number, so there is no escalation partner to pass the thread to",
        "messages",
      );

      // business_ai owns: this app can neither pass nor release.
      await setOwner("business_ai");
      await refused("pass", toAiAgent, notOwner, "standby");
      await refused("pass", {}, notOwner, "standby");
      await refused("release", {}, notOwner, "standby");

      // Another app is the escalation partner: this app (a plain partner) may not take.
      await setPartner(APP_ESC);
      await refused("take", {}, "only the escalation partner of this phone number can take the thread", "standby");
      expect(handovers()).toHaveLength(0);
      expect(hooksOf(receiver.received, "messages")).toHaveLength(2);
    });

    it("refuses malformed bodies with code 100 and an unknown BSUID like /messages does, changing nothing", async () => {
      const bad = async (body: unknown, details: RegExp) => expectGraphError(await threadControl(body), 100, details);
      const ok = { messaging_product: "whatsapp", to: PHONE, action: "pass", ...toAiAgent };
      await bad("{not json", /valid JSON object/);
      await bad({ ...ok, messaging_product: undefined }, /messaging_product is required/);
      await bad({ ...ok, messaging_product: "sms" }, /messaging_product must be one of/);
      await bad({ ...ok, recipient: "BR.1502576394655843" }, /to and recipient cannot be used together/);
      await bad({ ...ok, to: undefined }, /parameter to is required/);
      await bad({ ...ok, to: "12ab" }, /Invalid WhatsApp phone number/);
      await bad({ ...ok, to: undefined, recipient: "not-a-bsuid" }, /Invalid Business-scoped User ID/);
      await bad({ ...ok, action: undefined }, /parameter action is required/);
      await bad({ ...ok, action: "handover" }, /action must be one of \{PASS, TAKE, RELEASE\}/);
      await bad({ ...ok, action: "take" }, /control_pass is only allowed with action pass/);
      await bad({ ...ok, action: "release" }, /control_pass is only allowed with action pass/);
      await bad({ ...ok, control_pass: "ai_agent" }, /control_pass must be an object/);
      await bad({ ...ok, control_pass: {} }, /control_pass\['target_role'\] is required/);
      await bad({ ...ok, control_pass: { target_role: "escalation_partner" } }, /must be one of \{AI_AGENT\}/);
      await bad({ ...ok, control_pass: { target_role: "ai_agent", app_id: "1" } }, /control_pass\['app_id'\]/);
      await bad({ ...ok, metadata: 42 }, /metadata must be a string/);
      await bad({ ...ok, metadata: "x".repeat(2001) }, /metadata must be at most 2000 characters/);
      await bad({ ...ok, type: "text" }, /Param type is not allowed for thread_control/);

      // A BSUID this number's portfolio does not know: exactly the answer /messages gives for it.
      const unknown = "BR.99999999999999999999";
      const viaThread = await threadControl({ ...ok, to: undefined, recipient: unknown });
      const viaMessages = await sendMessage(
        sandbox.url,
        { messaging_product: "whatsapp", recipient: unknown, type: "text", text: { body: "Oi" } },
        { token: TOKEN },
      );
      expectGraphError(viaThread, 131009, viaMessages.body.error?.error_data?.details ?? "?");
      expect(viaThread.body.error?.message).toBe(viaMessages.body.error?.message);

      const recorded = await calls();
      expect(recorded).toHaveLength(19);
      expect(recorded.every((c) => c.status === 400 && c.owner === c.previous_owner)).toBe(true);
      expect(recorded.at(-1)).toMatchObject({ code: 131009, user_id: null, owner: null });
      expect(await nextField()).toBe("messages");
    });

    it("takes the token, and faults on its own route", async () => {
      const noToken = await threadControl({ messaging_product: "whatsapp", to: PHONE, action: "release" }, "");
      expect(noToken.status).toBe(401);
      expect(noToken.body.error?.code).toBe(190);

      // A fault of /messages does not reach thread_control; one of thread_control does, and the call is not processed.
      await control(sandbox.url, "/faults", { mode: "500", route: "messages" });
      await control(sandbox.url, "/faults", { mode: "500", route: "thread_control" });
      const faulted = await call("release");
      expect(faulted.status).toBe(500);
      expect(faulted.body.error?.code).toBe(131000);
      expect(await nextField()).toBe("messages");
      const faults = (await control<{ faults: { route: string }[] }>(sandbox.url, "/faults")).body.faults;
      expect(faults.map((f) => f.route)).toEqual(["messages"]);

      // An `error` fault answers 2494191 without looking at the thread.
      await control(sandbox.url, "/faults", { mode: "error", code: 2494191, route: "thread_control" });
      expectGraphError(await call("release"), 2494191, "Injected by the sandbox.");
      expect((await call("release")).status).toBe(200);
      expect(await nextField()).toBe("standby");
    });
  });

  describe("implicit take by a send", () => {
    it("a service message of the escalation partner takes the thread; a template does not", async () => {
      await inbound(); // opens the window
      await setOwner("business_ai");

      const templated = await sendMessage(
        sandbox.url,
        template(PHONE, "pedido_confirmado", [
          { type: "header", parameters: [{ type: "text", text: "12345" }] },
          { type: "body", parameters: ["Maria", "12345", "3"].map((v) => ({ type: "text", text: v })) },
        ]),
        { token: TOKEN },
      );
      expect(templated.status).toBe(200);
      expect(await nextField()).toBe("standby");

      const reply = await sendMessage(sandbox.url, text(PHONE, "Sou a atendente, posso ajudar?"), { token: TOKEN });
      expect(reply.status).toBe(200);
      expect(await nextField()).toBe("messages");
      expect((await calls()).map((c) => [c.source, c.action, c.previous_owner, c.owner])).toEqual([
        ["send", "take", "business_ai", "this_app"],
      ]);
      expect(handovers()).toHaveLength(0);
    });

    it("a send of this app when another app is the escalation partner changes nothing", async () => {
      await inbound();
      await setPartner(APP_ESC);
      await setOwner("business_ai");
      expect((await sendMessage(sandbox.url, text(PHONE, "Olá"), { token: TOKEN })).status).toBe(200);
      expect(await nextField()).toBe("standby");
      expect(await calls()).toEqual([]);
    });
  });

  describe("POST /_sandbox/thread-control (the other apps)", () => {
    it("a pass to this_app posts a signed control_passed, showing the user as inbound messages do (phone withheld)", async () => {
      const user = (
        await control<{ user_id: string }>(sandbox.url, "/users", {
          username: "semtelefone",
          phone: "5511955554444",
          name: "Sem Telefone",
        })
      ).body;
      await setOwner("business_ai", { username: "semtelefone" });
      const shown = valueOf(await inbound({ from: undefined, username: "semtelefone" }));
      expect(shown?.messages?.[0]?.from).toBeUndefined();
      receiver.received.length = 0;

      const answer = await other({
        user: { username: "semtelefone" },
        actor: "business_ai",
        action: "pass",
        metadata: "cliente pediu um atendente",
      });
      expect(answer).toEqual({
        status: 200,
        body: { phone_number_id: PHONE_ID, user_id: user.user_id, owner: "this_app", notified: true },
      });
      expect(receiver.received).toHaveLength(1);
      const [hook] = handovers();
      expect(hook?.body).toEqual({
        object: "whatsapp_business_account",
        entry: [
          {
            id: WABA_ID,
            changes: [
              {
                field: "messaging_handovers",
                value: {
                  messaging_product: "whatsapp",
                  metadata: shown?.metadata,
                  type: "control_passed",
                  timestamp: NOW_SECONDS,
                  sender: { user_id: user.user_id },
                  control_passed: {
                    previous_role: "ai_agent",
                    current_role: "escalation_partner",
                    metadata: "cliente pediu um atendente",
                  },
                },
              },
            ],
          },
        ],
      });
      expect(shown?.metadata).toEqual({ display_phone_number: expect.any(String), phone_number_id: PHONE_ID });
      expect(Object.keys(valueOf(hook) ?? {})).toEqual([
        "messaging_product",
        "metadata",
        "type",
        "timestamp",
        "sender",
        "control_passed",
      ]);
      expect(signedByMeta(hook)).toBe(true);
      expect(await nextField({ from: undefined, username: "semtelefone" })).toBe("messages");
    });

    it("shows the phone when it may be shared and the parent BSUID when enabled; no metadata key without one", async () => {
      await control(sandbox.url, "/portfolios", { parent_user_ids: true });
      const message = valueOf(await inbound())?.messages?.[0];
      await setOwner("app_other_1");
      receiver.received.length = 0;

      const answer = await other({ actor: "app_other_1", action: "pass", target: "this_app" });
      expect(answer.body).toMatchObject({ owner: "this_app", notified: true });
      expect(valueOf(handovers()[0])).toMatchObject({
        type: "control_passed",
        sender: {
          phone_number: PHONE,
          user_id: message?.from_user_id,
          parent_user_id: message?.from_parent_user_id,
        },
        control_passed: { previous_role: "partner", current_role: "escalation_partner" },
      });
      expect(message?.from).toBe(PHONE);
      expect(message?.from_parent_user_id).toEqual(expect.stringMatching(/^[A-Z]{2}\.ENT\./));
      const value = valueOf(handovers()[0]) as unknown as Record<string, Record<string, unknown>>;
      expect(Object.keys(value.control_passed ?? {})).toEqual(["previous_role", "current_role"]);
    });

    it("the escalation partner taking the thread from this_app posts control_taken", async () => {
      await setPartner(APP_ESC);
      const answer = await other({ actor: APP_ESC, action: "take", metadata: "supervisor assumiu" });
      expect(answer.body).toMatchObject({ owner: APP_ESC, notified: true });
      const [hook] = handovers();
      expect(valueOf(hook)).toEqual({
        messaging_product: "whatsapp",
        metadata: { display_phone_number: expect.any(String), phone_number_id: PHONE_ID },
        type: "control_taken",
        timestamp: NOW_SECONDS,
        sender: { phone_number: PHONE, user_id: expect.stringMatching(/^BR\./) },
        control_taken: { previous_role: "partner", current_role: "escalation_partner", metadata: "supervisor assumiu" },
      });
      expect(signedByMeta(hook)).toBe(true);
      expect(await nextField()).toBe("standby");
      // This app is a plain partner now: it cannot take the thread back.
      expectGraphError(await call("take"), 2494191, /only the escalation partner/);
    });

    it("moves between other apps post nothing to this app", async () => {
      await setPartner(APP_ESC);
      await setOwner("business_ai");
      const steps = [
        { actor: APP_ESC, action: "take" },
        { actor: APP_ESC, action: "pass", target: "business_ai" },
        { actor: "business_ai", action: "pass", target: "app_other_2" },
      ];
      const owners: (string | undefined)[] = [];
      for (const step of steps) {
        const answer = await other(step);
        expect(answer.status).toBe(200);
        expect(answer.body.notified).toBe(false);
        owners.push(answer.body.owner);
      }
      expect(owners).toEqual([APP_ESC, "business_ai", "app_other_2"]);
      expect(receiver.received).toHaveLength(0);
    });

    it("answers 409, 404 and 400 for what it cannot do, and changes nothing", async () => {
      const conflict = async (body: Record<string, unknown>, message: RegExp) => {
        const answer = await other(body);
        expect(answer.status).toBe(409);
        expect(answer.body.error?.message).toMatch(message);
      };
      await conflict({ actor: "business_ai", action: "pass" }, /não é o dono da conversa \(dono atual: this_app\)/);
      await conflict({ actor: "business_ai", action: "take" }, /Só o parceiro de escalonamento do número \(this_app\)/);
      await setPartner(APP_ESC);
      await setOwner(APP_ESC);
      await conflict({ actor: APP_ESC, action: "take" }, /já é o dono da conversa/);
      await conflict({ actor: APP_ESC, action: "pass", target: APP_ESC }, /não pode passá-la para si mesmo/);

      const unknown = await other({ user: { username: "ninguem_aqui" }, actor: APP_ESC, action: "pass" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error?.message).toMatch(/Usuário desconhecido/);

      const bad = async (body: Record<string, unknown>, path: string) => {
        const answer = await other(body);
        expect(answer.status).toBe(400);
        expect(answer.body.error?.issues?.map((issue) => issue.path.join("."))).toContain(path);
      };
      await bad({ actor: "this_app", action: "take" }, "actor");
      await bad({ actor: APP_ESC, action: "release" }, "action");
      await bad({ actor: APP_ESC, action: "take", target: "this_app" }, "target");
      await bad({ actor: APP_ESC, action: "pass", metadata: "x".repeat(2001) }, "metadata");
      await bad({ actor: APP_ESC, action: "pass", extra: 1 }, "");
      await bad({ user: undefined, actor: APP_ESC, action: "pass" }, "user");
      const partner = await control<ControlAnswer>(sandbox.url, "/escalation-partner", {
        phone_number_id: PHONE_ID,
        app: "business_ai",
      });
      expect(partner.status).toBe(400);

      expect(receiver.received).toHaveLength(0);
      expect(await nextField()).toBe("standby");
      // Still APP_ESC's: it can pass the thread to this app.
      expect((await other({ actor: APP_ESC, action: "pass" })).body.owner).toBe("this_app");
    });

    it("redelivers a refused handover like any other webhook", async () => {
      const failing = await startReceiver(503);
      try {
        await control(sandbox.url, "/config", {
          webhookUrl: failing.url,
          webhookRetries: true,
          webhookRetryScale: 100,
        });
        await setOwner("business_ai");
        expect((await other({ actor: "business_ai", action: "pass" })).body.notified).toBe(true);
        const [pending] = await pendingOf(sandbox.url);
        expect(pending).toMatchObject({
          kind: "messaging_handovers",
          source: "control",
          last_status: 503,
          summary: { phone_number_id: PHONE_ID, statuses: [], messages: [] },
        });
        expect(hooksOf(failing.received, "messaging_handovers")).toHaveLength(1);
      } finally {
        await control(sandbox.url, "/reset", { config: true });
        await failing.close();
      }
    });

    it("keeps the escalation partner across a plain reset; reset with config restores the default", async () => {
      await setPartner(APP_ESC);
      await control(sandbox.url, "/reset", {});
      const config = (await control<{ escalationPartners: Record<string, string> }>(sandbox.url, "/config")).body;
      expect(config.escalationPartners).toEqual({ [PHONE_ID]: APP_ESC });
      await control(sandbox.url, "/reset", { config: true });
      expect((await call("pass")).status).toBe(400); // this_app is the escalation partner again
    });
  });
});
