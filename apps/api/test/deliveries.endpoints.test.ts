import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { DeliveryDetailOut, DeliveryListOut, RetryFailedOut, RetryOut } from "@gw/contracts";
import type { Dispatcher } from "@gw/dispatcher";
import { eventually } from "@gw/testkit";
import {
  contactWrites,
  createTestAccount,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";

// Spec 2.6, 3.2, 4.5–4.8: the deliveries API, with deliveries produced by the real pipeline (sandbox inbound →
// provider webhook → outbox → dispatcher → an integrator endpoint on loopback).

const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?]$/u;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Seven automatic attempts (spec 6.5), with short waits. */
const FAST_SCHEDULE = "20,20,20,20,20,20";
const ATTEMPTS_PER_BUDGET = 7;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
type Mode = { kind: "answer"; status: number; body: string } | { kind: "hold" };

/** An integrator endpoint whose answer the test switches: a fixed status and body, or hold the request open. */
async function startEndpoint(initial: Mode) {
  let mode: Mode = initial;
  const requests: Received[] = [];
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (mode.kind === "hold") {
        held.push(res);
        return;
      }
      res.writeHead(mode.status, { "content-type": "text/plain; charset=utf-8" });
      res.end(mode.body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    requests,
    held,
    setMode(next: Mode) {
      mode = next;
    },
    /** Answer every held request. */
    release(status: number, body: string) {
      for (const res of held.splice(0)) {
        res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
        res.end(body);
      }
    },
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Endpoint = Awaited<ReturnType<typeof startEndpoint>>;

interface ListedDelivery {
  id: number;
  event: string;
  status: string;
  attempts: number;
}
type Account = TestAccount & { signingSecret: string | null };

/** Spec 5.4: HMAC-SHA256 over `timestamp.rawBody`, lowercase hex, `sha256=` prefix. */
function signatureValid(secret: string, received: Received): boolean {
  const ts = received.headers["x-pt-timestamp"];
  const sig = received.headers["x-pt-signature"];
  if (typeof ts !== "string" || typeof sig !== "string" || !/^\d{1,12}$/.test(ts)) return false;
  return sig === `sha256=${createHmac("sha256", secret).update(`${ts}.`).update(received.body).digest("hex")}`;
}

describe("deliveries API (spec 4.5–4.8)", () => {
  let gateway: TestGateway;
  /** A second API + sandbox whose queue has no worker: its deliveries stay `pending`. */
  let idle: TestGateway;
  let dispatcher: Dispatcher;
  let endpointA: Endpoint;
  let endpointB: Endpoint;
  let endpointH: Endpoint;
  let endpointP: Endpoint;
  let accountA: Account;
  let accountB: Account;
  let accountH: Account;
  let accountP: Account;
  const inboundA: string[] = [];
  let failedB: ListedDelivery;

  const api = () => request(gateway.app);
  const list = async (account: TestAccount, query: Record<string, string | number> = {}) => {
    const res = await api().get("/public/v1/deliveries").query(query).set(account.auth);
    expect(res.status).toBe(200);
    return res.body as { success: true; data: { deliveries: ListedDelivery[]; next_before_id: number | null } };
  };
  const getOne = (account: TestAccount, id: number | string) =>
    api().get(`/public/v1/deliveries/${id}`).set(account.auth);
  const retry = (account: TestAccount, id: number | string) =>
    api().post(`/public/v1/deliveries/${id}/retry`).set(account.auth);
  const retryFailed = (account: TestAccount) => api().post("/public/v1/deliveries/retry-failed").set(account.auth);
  const allOf = async (account: TestAccount) => (await list(account, { limit: 200 })).data.deliveries;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    idle = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000" } });
    endpointA = await startEndpoint({ kind: "answer", status: 500, body: "receptor A fora do ar" });
    endpointB = await startEndpoint({ kind: "answer", status: 500, body: "receptor B fora do ar" });
    endpointH = await startEndpoint({ kind: "hold" });
    endpointP = await startEndpoint({ kind: "answer", status: 200, body: "ok" });
    accountA = await createTestAccount(gateway.db, { integrationUrl: endpointA.url });
    accountB = await createTestAccount(gateway.db, { integrationUrl: endpointB.url });
    accountH = await createTestAccount(gateway.db, { integrationUrl: endpointH.url });
    accountP = await createTestAccount(idle.db, { integrationUrl: endpointP.url });

    dispatcher = await startTestDispatcher(gateway, {
      WEBHOOK_RETRY_SCHEDULE_MS: FAST_SCHEDULE,
      // The reconciler scans the whole table: keep it away from other files' (and the idle gateway's) rows.
      RECONCILE_GRACE_MS: "3600000",
    });

    // Five message.received deliveries for A, one for B: all exhaust their attempts against a 500.
    for (let i = 0; i < 5; i++) {
      const inbound = await contactWrites(gateway, {
        phone_number_id: accountA.phoneNumberId,
        from: `55119333300${i}0`,
        name: `Contato ${i}`,
        type: "text",
        text: `mensagem ${i}`,
      });
      expect(inbound.webhook_status).toBe(200);
      inboundA.push(inbound.id);
    }
    expect(
      (
        await contactWrites(gateway, {
          phone_number_id: accountB.phoneNumberId,
          from: "5511933330999",
          type: "text",
          text: "oi",
        })
      ).webhook_status,
    ).toBe(200);
    await eventually(async () => (await list(accountA, { status: "failed" })).data.deliveries.length === 5, {
      timeoutMs: 20_000,
    });
    const [b] = await eventually(
      async () => {
        const failed = (await list(accountB, { status: "failed" })).data.deliveries;
        return failed.length === 1 ? failed : undefined;
      },
      { timeoutMs: 20_000 },
    );
    if (!b) throw new Error("B has no failed delivery");
    failedB = b;
  }, 60_000);

  afterAll(async () => {
    await dispatcher.stop();
    await Promise.all([endpointA.close(), endpointB.close(), endpointH.close(), endpointP.close()]);
    await gateway.close();
    await idle.close();
  });

  describe("GET /public/v1/deliveries/{delivery_id}", () => {
    it("a failed delivery shows every field, last_error holding the endpoint's answer, and the signed envelope", async () => {
      const [newest] = (await list(accountA, { limit: 1 })).data.deliveries;
      if (!newest) throw new Error("no delivery");
      const res = await getOne(accountA, newest.id);
      expect(res.status).toBe(200);
      expect(DeliveryDetailOut.safeParse(res.body).success).toBe(true);
      const d = res.body.data as Record<string, unknown> & { envelope: Record<string, unknown> };
      expect(d).toEqual({
        id: newest.id,
        event: "message.received",
        status: "failed",
        attempts: ATTEMPTS_PER_BUDGET,
        next_attempt_at: null,
        last_status_code: 500,
        last_error: "receptor A fora do ar",
        last_error_kind: expect.any(String),
        created_at: expect.stringMatching(ISO),
        delivered_at: null,
        occurred_at: expect.stringMatching(ISO),
        endpoint_url: endpointA.url,
        envelope: {
          event: "message.received",
          occurred_at: d.occurred_at,
          delivery_id: String(newest.id),
          data: expect.objectContaining({
            message_id: inboundA.at(-1),
            from: "5511933330040",
            phone_number_id: accountA.phoneNumberId,
            type: "text",
            text: "mensagem 4",
          }),
        },
      });
      // The envelope is byte for byte what the endpoint received on every attempt.
      const sent = endpointA.requests.filter((r) => r.headers["x-pt-delivery-id"] === String(newest.id));
      expect(sent.map((r) => r.headers["x-pt-attempt"])).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
      expect(sent.every((r) => JSON.stringify(JSON.parse(r.body)) === JSON.stringify(d.envelope))).toBe(true);
    });

    it("404 not_found for an unknown id and for another account's delivery", async () => {
      for (const [account, id] of [
        [accountA, 2_000_000_000],
        [accountA, failedB.id],
        [accountH, failedB.id],
      ] as const) {
        const res = await getOne(account, id);
        expect({ status: res.status, success: res.body.success, code: res.body.error?.code }).toEqual({
          status: 404,
          success: false,
          code: "not_found",
        });
        expect(res.body.error.message).toMatch(PORTUGUESE);
      }
    });

    // docs/decisions.md: pydantic's words in detail[].type.
    it.each([
      ["abc", "int_parsing"],
      ["12abc", "int_parsing"],
      ["1.5", null],
      ["0", "greater_than_equal"],
      ["-1", "greater_than_equal"],
      ["99999999999999999999", null],
    ])("422 HTTPValidationError at [path, delivery_id] for %j", async (id, type) => {
      const res = await getOne(accountA, id);
      expect(res.status).toBe(422);
      const detail = res.body.detail as { loc: unknown[]; msg: string; type: string }[];
      expect(detail.map((d) => d.loc)).toEqual([["path", "delivery_id"]]);
      expect(detail[0]?.msg).toMatch(PORTUGUESE);
      if (type) expect(detail[0]?.type).toBe(type);
    });

    // Read-only on purpose: a lax parse would make a retry act on another id.
    it.each([
      ["exponent", (id: number) => `${id}e0`],
      ["hexadecimal", (id: number) => `0x${id.toString(16)}`],
    ])(
      "an id written with %s is not an integer literal: 422 int_parsing, never read as the delivery",
      async (_name, spell) => {
        const [own] = (await list(accountA, { limit: 1 })).data.deliveries;
        if (!own) throw new Error("no delivery");
        const res = await getOne(accountA, spell(own.id));
        expect({ status: res.status, detail: res.body.detail }).toEqual({
          status: 422,
          detail: [expect.objectContaining({ loc: ["path", "delivery_id"], type: "int_parsing" })],
        });
      },
    );
  });

  describe("GET /public/v1/deliveries", () => {
    it("lists only the account's deliveries, most recent first, in the documented shape", async () => {
      const body = await list(accountA);
      expect(DeliveryListOut.safeParse(body).success).toBe(true);
      const ids = body.data.deliveries.map((d) => d.id);
      expect(ids).toHaveLength(5);
      expect([...ids].sort((x, y) => y - x)).toEqual(ids);
      expect(ids).not.toContain(failedB.id);
      expect(body.data.next_before_id).toBeNull();
      expect(
        body.data.deliveries.every(
          (d) => d.event === "message.received" && d.status === "failed" && d.attempts === ATTEMPTS_PER_BUDGET,
        ),
      ).toBe(true);
    });

    it.each([1, 2, 3, 4, 5])(
      "limit=%i and before_id walk every delivery once, ending with next_before_id null",
      async (limit) => {
        const everything = (await allOf(accountA)).map((d) => d.id);
        const walked: number[] = [];
        const pages: number[] = [];
        let cursor: number | null = null;
        for (let guard = 0; guard < 20; guard++) {
          const page: Awaited<ReturnType<typeof list>> = await list(
            accountA,
            cursor === null ? { limit } : { limit, before_id: cursor },
          );
          const ids = page.data.deliveries.map((d) => d.id);
          expect(ids.length).toBeLessThanOrEqual(limit);
          if (cursor !== null) expect(ids.every((id) => id < (cursor ?? 0))).toBe(true);
          walked.push(...ids);
          pages.push(ids.length);
          cursor = page.data.next_before_id;
          if (cursor === null) break;
          expect(cursor).toBe(ids.at(-1));
        }
        expect(cursor).toBeNull();
        expect(walked).toEqual(everything);
        expect(new Set(walked).size).toBe(walked.length);
        expect(pages.filter((n) => n === 0)).toEqual([]);
      },
    );

    it("paging combines with the status filter", async () => {
      const walked: number[] = [];
      let cursor: number | null = null;
      for (let guard = 0; guard < 10; guard++) {
        const page: Awaited<ReturnType<typeof list>> = await list(
          accountA,
          cursor === null ? { status: "failed", limit: 2 } : { status: "failed", limit: 2, before_id: cursor },
        );
        expect(page.data.deliveries.every((d) => d.status === "failed")).toBe(true);
        walked.push(...page.data.deliveries.map((d) => d.id));
        cursor = page.data.next_before_id;
        if (cursor === null) break;
      }
      expect(walked).toEqual((await allOf(accountA)).map((d) => d.id));
    });

    it("limit defaults to 50 (spec 8)", async () => {
      const account = await createTestAccount(idle.db, { integrationUrl: endpointP.url });
      for (let i = 0; i < 51; i++) {
        const res = await contactWrites(idle, {
          phone_number_id: account.phoneNumberId,
          from: `5511955${String(i).padStart(6, "0")}`,
          type: "text",
          text: `m${i}`,
        });
        expect(res.webhook_status).toBe(200);
      }
      const first = await list(account);
      expect(first.data.deliveries).toHaveLength(50);
      const last = first.data.deliveries.at(-1);
      expect(first.data.next_before_id).toBe(last?.id);
      const second = await list(account, { before_id: first.data.next_before_id ?? 0 });
      expect(second.data.deliveries).toHaveLength(1);
      expect(second.data.next_before_id).toBeNull();
      const ids = [...first.data.deliveries, ...second.data.deliveries].map((d) => d.id);
      expect(new Set(ids).size).toBe(51);
      expect([...ids].sort((x, y) => y - x)).toEqual(ids);
    });

    it("before_id below every id gives an empty page with next_before_id null", async () => {
      const everything = await allOf(accountA);
      const oldest = everything.at(-1);
      if (!oldest) throw new Error("no delivery");
      const page = await list(accountA, { before_id: oldest.id });
      expect(page.data).toEqual({ deliveries: [], next_before_id: null });
    });

    it("status filters: only that status comes back", async () => {
      expect((await list(accountA, { status: "failed" })).data.deliveries.map((d) => d.status)).toEqual([
        "failed",
        "failed",
        "failed",
        "failed",
        "failed",
      ]);
      for (const status of ["pending", "delivering", "delivered"])
        expect((await list(accountA, { status })).data.deliveries).toEqual([]);
      expect((await list(accountB, { status: "failed" })).data.deliveries.map((d) => d.id)).toEqual([failedB.id]);
      expect((await list(accountB, { status: "delivered" })).data.deliveries).toEqual([]);
    });

    it.each([
      ["limit=0", { limit: "0" }, ["query", "limit"], "greater_than_equal"],
      ["limit=201", { limit: "201" }, ["query", "limit"], "less_than_equal"],
      ["limit=-1", { limit: "-1" }, ["query", "limit"], "greater_than_equal"],
      ["limit=abc", { limit: "abc" }, ["query", "limit"], "int_parsing"],
      ["limit=2.5", { limit: "2.5" }, ["query", "limit"], null],
      ["before_id=0", { before_id: "0" }, ["query", "before_id"], "greater_than_equal"],
      ["before_id=abc", { before_id: "abc" }, ["query", "before_id"], "int_parsing"],
      ["status=bogus", { status: "bogus" }, ["query", "status"], "enum"],
      ["status=FAILED", { status: "FAILED" }, ["query", "status"], "enum"],
    ])("422 HTTPValidationError for %s", async (_name, query, loc, type) => {
      const res = await api().get("/public/v1/deliveries").query(query).set(accountA.auth);
      expect(res.status).toBe(422);
      const detail = res.body.detail as { loc: unknown[]; msg: string; type: string }[];
      expect(detail.map((d) => d.loc)).toEqual([loc]);
      expect(detail[0]?.msg).toMatch(PORTUGUESE);
      if (type) expect(detail[0]?.type).toBe(type);
    });

    it("limit=200 (the maximum) is accepted", async () => {
      expect((await list(accountA, { limit: 200 })).data.deliveries).toHaveLength(5);
    });
  });

  describe("POST /public/v1/deliveries/{delivery_id}/retry refusals", () => {
    it("422 delivery_not_retryable for a pending delivery, which stays pending", async () => {
      expect(
        (
          await contactWrites(idle, {
            phone_number_id: accountP.phoneNumberId,
            from: "5511933331000",
            type: "text",
            text: "oi",
          })
        ).webhook_status,
      ).toBe(200);
      const [pending] = (await list(accountP)).data.deliveries;
      expect(pending).toMatchObject({ status: "pending", attempts: 0 });
      if (!pending) throw new Error("no pending delivery");
      const res = await retry(accountP, pending.id);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({
        status: 422,
        code: "delivery_not_retryable",
      });
      expect(res.body.success).toBe(false);
      expect(res.body.error.message).toMatch(PORTUGUESE);
      expect((await getOne(accountP, pending.id)).body.data).toMatchObject({ status: "pending", attempts: 0 });
      expect(
        await gateway.db.auditEntry.count({ where: { accountId: accountP.accountId, action: "api.webhook.retry" } }),
      ).toBe(0);
    });

    it("422 delivery_not_retryable for a delivery whose attempt is in progress; the attempt then completes normally", async () => {
      expect(
        (
          await contactWrites(gateway, {
            phone_number_id: accountH.phoneNumberId,
            from: "5511933332000",
            type: "text",
            text: "oi",
          })
        ).webhook_status,
      ).toBe(200);
      const [delivering] = await eventually(async () => {
        const rows = (await list(accountH, { status: "delivering" })).data.deliveries;
        return rows.length === 1 && endpointH.held.length === 1 ? rows : undefined;
      });
      if (!delivering) throw new Error("no delivering delivery");
      const res = await retry(accountH, delivering.id);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({
        status: 422,
        code: "delivery_not_retryable",
      });
      expect(res.body.error.message).toMatch(PORTUGUESE);

      endpointH.release(200, '{"applied":false}');
      const done = await eventually(async () => {
        const one = (await getOne(accountH, delivering.id)).body.data as { status: string };
        return one.status === "delivered" ? one : undefined;
      });
      // Spec 2.6/4.6: the body the endpoint answered is kept even on 2xx.
      expect(done).toMatchObject({
        status: "delivered",
        attempts: 1,
        last_status_code: 200,
        last_error: '{"applied":false}',
        next_attempt_at: null,
        delivered_at: expect.stringMatching(ISO),
      });
      expect(endpointH.requests).toHaveLength(1);
    });

    it("404 not_found for an unknown id and for another account's delivery, which is left untouched", async () => {
      for (const [account, id] of [
        [accountA, 2_000_000_000],
        [accountA, failedB.id],
        [accountP, failedB.id],
      ] as const) {
        const res = await retry(account, id);
        expect({ status: res.status, success: res.body.success, code: res.body.error?.code }).toEqual({
          status: 404,
          success: false,
          code: "not_found",
        });
        expect(res.body.error.message).toMatch(PORTUGUESE);
      }
      expect((await getOne(accountB, failedB.id)).body.data).toMatchObject({
        status: "failed",
        attempts: ATTEMPTS_PER_BUDGET,
      });
      expect(
        await gateway.db.auditEntry.count({ where: { action: "api.webhook.retry", target: `delivery:${failedB.id}` } }),
      ).toBe(0);
    });

    it.each(["abc", "0", "-1", "1.5"])("422 HTTPValidationError at [path, delivery_id] for %j", async (id) => {
      const res = await retry(accountA, id);
      expect(res.status).toBe(422);
      expect((res.body.detail as { loc: unknown[] }[]).map((d) => d.loc)).toEqual([["path", "delivery_id"]]);
    });
  });

  describe("POST /public/v1/deliveries/retry-failed", () => {
    it("re-queues every failed delivery of the account and only those; audited as api.webhook.retry", async () => {
      const bRequestsBefore = endpointB.requests.length;
      const failedIds = (await list(accountA, { status: "failed" })).data.deliveries.map((d) => d.id);
      expect(failedIds).toHaveLength(5);
      endpointA.setMode({ kind: "answer", status: 200, body: "recebido" });

      const res = await retryFailed(accountA);
      expect(res.status).toBe(200);
      expect(RetryFailedOut.safeParse(res.body).success).toBe(true);
      expect(res.body).toEqual({ success: true, data: { requeued: 5 } });

      // Each one is sent again: same delivery id, the next attempt number, signed again and valid.
      await eventually(async () => (await list(accountA, { status: "delivered" })).data.deliveries.length === 5, {
        timeoutMs: 20_000,
      });
      for (const id of failedIds) {
        const resent = endpointA.requests.filter((r) => r.headers["x-pt-delivery-id"] === String(id));
        expect(resent.map((r) => r.headers["x-pt-attempt"])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
        const last = resent.at(-1);
        if (!last) throw new Error("no request");
        expect(signatureValid(accountA.signingSecret ?? "", last)).toBe(true);
        expect((await getOne(accountA, id)).body.data).toMatchObject({
          status: "delivered",
          attempts: 8,
          last_status_code: 200,
          last_error: "recebido",
          next_attempt_at: null,
        });
      }

      // The other account's failed delivery was not touched.
      expect((await getOne(accountB, failedB.id)).body.data).toMatchObject({
        status: "failed",
        attempts: ATTEMPTS_PER_BUDGET,
        last_status_code: 500,
      });
      expect(endpointB.requests.length).toBe(bRequestsBefore);

      const audit = await gateway.db.auditEntry.findMany({
        where: { accountId: accountA.accountId, action: "api.webhook.retry" },
      });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor: `api_key:${accountA.keyId}`, requestId: expect.any(String) });
      expect(
        await gateway.db.auditEntry.count({
          where: { accountId: accountB.accountId, action: { startsWith: "api.webhook" } },
        }),
      ).toBe(0);
    });

    it("nothing failed left: requeued 0 and nothing re-sent", async () => {
      const before = endpointA.requests.length;
      const res = await retryFailed(accountA);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { requeued: 0 } });
      expect((await list(accountA, { status: "delivered" })).data.deliveries).toHaveLength(5);
      expect(endpointA.requests.length).toBe(before);
    });

    it("takes no body (spec 4.8): one sent anyway, even not JSON, is ignored", async () => {
      const res = await retryFailed(accountA).set("Content-Type", "application/json").send("não é json");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { requeued: 0 } });
    });

    it("an account with only pending/delivered deliveries re-queues nothing", async () => {
      const res = await retryFailed(accountH);
      expect(res.body).toEqual({ success: true, data: { requeued: 0 } });
      const resP = await retryFailed(accountP);
      expect(resP.body).toEqual({ success: true, data: { requeued: 0 } });
      expect((await list(accountP)).data.deliveries.map((d) => d.status)).toEqual(["pending"]);
    });
  });

  describe("POST /public/v1/deliveries/{delivery_id}/retry", () => {
    it("a failed delivery goes back to the queue and is re-sent with the next attempt number; audited with its target", async () => {
      endpointB.setMode({ kind: "answer", status: 200, body: "ok B" });
      const res = await retry(accountB, failedB.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { status: "pending" } });
      const done = await eventually(async () => {
        const one = (await getOne(accountB, failedB.id)).body.data as { status: string };
        return one.status === "delivered" ? one : undefined;
      });
      expect(done).toMatchObject({ attempts: 8, last_status_code: 200, last_error: "ok B" });
      const last = endpointB.requests.at(-1);
      expect(last?.headers["x-pt-delivery-id"]).toBe(String(failedB.id));
      expect(last?.headers["x-pt-attempt"]).toBe("8");
      const audit = await gateway.db.auditEntry.findMany({
        where: { accountId: accountB.accountId, action: "api.webhook.retry" },
      });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        actor: `api_key:${accountB.keyId}`,
        target: expect.stringContaining(String(failedB.id)),
      });
    });

    it("a delivered delivery may be retried too (spec 3.2)", async () => {
      const res = await retry(accountB, failedB.id);
      expect(res.status).toBe(200);
      await eventually(
        () => endpointB.requests.filter((r) => r.headers["x-pt-delivery-id"] === String(failedB.id)).length === 9,
      );
      await eventually(
        async () => ((await getOne(accountB, failedB.id)).body.data as { status: string }).status === "delivered",
      );
    });

    it("the answer follows the RetryOut contract: {id: integer, status: 'pending', next_attempt: integer}", async () => {
      const res = await retry(accountB, failedB.id);
      expect(res.status).toBe(200);
      const parsed = RetryOut.safeParse(res.body);
      expect(parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)).toBeNull();
      expect(res.body.data).toEqual({ id: failedB.id, status: "pending", next_attempt: 10 });
      await eventually(
        async () => ((await getOne(accountB, failedB.id)).body.data as { status: string }).status === "delivered",
      );
    });
  });
});
