import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import type { Dispatcher } from "@gw/dispatcher";
import { DeliveryReplayOut } from "@gw/contracts";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import {
  eventually,
  reply,
  signatureIsValid,
  startReceiver,
  testActor,
  testSecretBox,
  type Receiver,
} from "@gw/testkit";
import {
  createTestAccount,
  startTestDispatcher,
  startTestGateway,
  type TestAccount,
  type TestGateway,
} from "@gw/test-stack";

// Issue 21: POST /deliveries/replay re-sends every delivery of a time range that matches its filters, through the
// dispatcher's one path (new attempts, same delivery_id and signed bytes, a fresh signature per attempt), in batches
// a job runs; GET /deliveries/replays/{id} follows it. GET /deliveries/export streams the log as formula-safe CSV.

jest.setTimeout(90_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PORTUGUESE = /^[A-ZÀ-Ú].*[.!?)]$/u;

type Account = TestAccount & { signingSecret: string | null };
interface Stored {
  id: string;
  body: string;
  attempts: number;
}
type ReplayData = ReturnType<typeof DeliveryReplayOut.parse>["data"];

describe("replay of deliveries by time range, and the delivery log export", () => {
  let gateway: TestGateway;
  let dispatcher: Dispatcher;
  let main: Receiver;
  let other: Receiver;
  let account: Account;
  let otherIntegration: { id: string; secret: string };
  /** Ten days ago, on the hour: the range the replays cover is [base, base + 1 day). */
  const base = new Date(Math.floor((Date.now() - 10 * DAY) / HOUR) * HOUR);
  const at = (hours: number) => new Date(base.getTime() + hours * HOUR);
  const deliveries: Record<string, Stored> = {};

  const api = () => request(gateway.app);
  const replay = (who: TestAccount, body: unknown) =>
    api()
      .post("/public/v1/deliveries/replay")
      .set(who.auth)
      .send(body as object);
  const progress = (who: TestAccount, id: string) => api().get(`/public/v1/deliveries/replays/${id}`).set(who.auth);

  /** A delivery as it ends up after its attempts (no pending phase the dispatcher could pick up). */
  async function stored(
    who: { accountId: string },
    integrationId: string,
    options: { event: string; status: string; createdAt: Date; lastError?: string; attempts?: number },
  ): Promise<Stored> {
    const attempts = options.attempts ?? 3;
    const row = await gateway.db.delivery.create({
      data: {
        accountId: who.accountId,
        integrationId,
        event: options.event,
        status: options.status,
        body: "{}",
        attemptCount: attempts,
        lastStatusCode: options.status === "failed" ? 500 : 200,
        lastError: options.lastError ?? null,
        occurredAt: options.createdAt,
        createdAt: options.createdAt,
      },
    });
    // As the outbox writes it: non-ASCII text and an unusual spacing, so any re-serialization would show.
    const body =
      `{"event":"${options.event}","occurred_at":"${options.createdAt.toISOString()}","delivery_id":"${row.id}",` +
      `"data": {"message_id":"wamid.${row.id}","status":"delivered","status_rank":3,"to":"5511999990000","error":null,` +
      `"phone_number_id":"1234","client_ref":"pedido-ação-nº${row.id}","campaign_id":null}}`;
    await gateway.db.delivery.update({ where: { id: row.id }, data: { body } });
    return { id: row.id.toString(), body, attempts };
  }

  /** Runs a replay to its end and returns it with the requests each receiver got for it. */
  async function replayed(body: Record<string, unknown>, expected: string[]) {
    const before = { main: main.requests.length, other: other.requests.length };
    const res = await replay(account, body);
    expect(res.status).toBe(202);
    const created = DeliveryReplayOut.parse(res.body).data;
    expect(created).toMatchObject({ queued: 0, requested_by: `api_key:${account.keyId}` });
    const done = await eventually(
      async () => {
        const current = await progress(account, created.id);
        const data = (current.body as { data: ReplayData }).data;
        return data.status === "completed" ? data : null;
      },
      { timeoutMs: 20_000, what: "the replay to complete" },
    );
    // Every re-queued delivery is delivered again before the next replay looks at statuses.
    await eventually(
      async () =>
        (await gateway.db.delivery.count({
          where: { id: { in: expected.map(BigInt) }, status: "delivered" },
        })) === expected.length &&
        main.requests.length + other.requests.length - before.main - before.other >= expected.length,
      { timeoutMs: 20_000, what: "the replayed deliveries to be delivered" },
    );
    return {
      replay: done,
      main: main.requests.slice(before.main),
      other: other.requests.slice(before.other),
    };
  }

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { API_RATE_LIMIT_POINTS: "10000", REPLAYS_PER_ACCOUNT: "5" } });
    main = await startReceiver((_request, res) => reply(res, 200, "ok"));
    other = await startReceiver((_request, res) => reply(res, 200, "ok"));
    account = await createTestAccount(gateway.db, { integrationUrl: main.url });
    const second = await setIntegration(
      { db: gateway.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      {
        actor: testActor,
        accountId: account.accountId,
        url: other.url,
        events: ["message.status", "message.received"],
      },
    );
    otherIntegration = { id: second.id, secret: second.signing_secret ?? "" };
    const mainIntegration = await gateway.db.integration.findFirstOrThrow({
      where: { accountId: account.accountId, url: main.url },
    });
    const mainId = mainIntegration.id;
    deliveries.statusDelivered = await stored(account, mainId, {
      event: "message.status",
      status: "delivered",
      createdAt: at(1),
    });
    deliveries.statusFailed = await stored(account, mainId, {
      event: "message.status",
      status: "failed",
      createdAt: at(2),
      attempts: 7,
    });
    deliveries.receivedDelivered = await stored(account, mainId, {
      event: "message.received",
      status: "delivered",
      createdAt: at(3),
    });
    deliveries.otherFailed = await stored(account, second.id, {
      event: "message.status",
      status: "failed",
      createdAt: at(4),
      attempts: 7,
    });
    deliveries.beforeRange = await stored(account, mainId, {
      event: "message.status",
      status: "delivered",
      createdAt: at(-1),
    });
    deliveries.afterRange = await stored(account, mainId, {
      event: "message.status",
      status: "failed",
      createdAt: at(24),
    });
    // On its way (an attempt in flight): a replay leaves it alone.
    deliveries.stillPending = await stored(account, mainId, {
      event: "message.status",
      status: "delivering",
      createdAt: at(5),
    });
    dispatcher = await startTestDispatcher(gateway, {
      // Two per batch: a replay of four takes several runs of its job.
      REPLAY_BATCH_SIZE: "2",
      RECONCILE_GRACE_MS: "3600000",
    });
  });

  afterAll(async () => {
    await dispatcher.stop();
    await Promise.all([main.close(), other.close()]);
    await gateway.close();
  });

  const range = { since: base.toISOString(), until: at(24).toISOString() };

  it("replays only the failed deliveries of the range when asked for status failed, each as a new signed attempt of the same delivery", async () => {
    const { statusFailed, otherFailed } = deliveries;
    const run = await replayed({ ...range, status: "failed" }, [statusFailed!.id, otherFailed!.id]);
    expect(run.replay).toMatchObject({
      status: "completed",
      matched: 2,
      queued: 2,
      statuses: ["failed"],
      event: null,
      integration_id: null,
    });
    expect(run.replay.started_at).not.toBeNull();
    expect(run.replay.completed_at).not.toBeNull();
    expect(run.main.map((r) => r.headers["x-pt-delivery-id"])).toEqual([statusFailed!.id]);
    expect(run.other.map((r) => r.headers["x-pt-delivery-id"])).toEqual([otherFailed!.id]);
    const [toMain] = run.main;
    const [toOther] = run.other;
    // Same delivery, same bytes (so the same delivery_id and event inside), attempt 8 after seven, signed now.
    expect(toMain!.body).toBe(statusFailed!.body);
    expect(toMain!.headers["x-pt-attempt"]).toBe("8");
    expect(toMain!.headers["x-pt-event"]).toBe("message.status");
    expect(signatureIsValid(account.signingSecret ?? "", toMain!)).toBe(true);
    expect(toOther!.body).toBe(otherFailed!.body);
    expect(signatureIsValid(otherIntegration.secret, toOther!)).toBe(true);
  });

  it("filters by event and by integration", async () => {
    const { receivedDelivered, otherFailed } = deliveries;
    const byEvent = await replayed({ ...range, event: "message.received" }, [receivedDelivered!.id]);
    expect(byEvent.replay).toMatchObject({ matched: 1, queued: 1, event: "message.received" });
    expect(byEvent.main.map((r) => [r.headers["x-pt-delivery-id"], r.headers["x-pt-attempt"]])).toEqual([
      [receivedDelivered!.id, "4"],
    ]);
    expect(byEvent.other).toEqual([]);

    const byIntegration = await replayed({ ...range, integration_id: otherIntegration.id }, [otherFailed!.id]);
    expect(byIntegration.replay).toMatchObject({ matched: 1, queued: 1, integration_id: otherIntegration.id });
    expect(byIntegration.main).toEqual([]);
    expect(byIntegration.other.map((r) => [r.headers["x-pt-delivery-id"], r.headers["x-pt-attempt"]])).toEqual([
      [otherFailed!.id, "9"],
    ]);
  });

  it("replays the whole range in batches, leaves out what is outside it or still pending, and audits each step", async () => {
    const d = deliveries;
    const inRange = [d.statusDelivered!, d.statusFailed!, d.receivedDelivered!, d.otherFailed!].map((x) => x.id);
    const run = await replayed(range, inRange);
    expect(run.replay).toMatchObject({ matched: 4, queued: 4, statuses: ["failed", "delivered"] });
    const sent = [...run.main, ...run.other].map((r) => r.headers["x-pt-delivery-id"]);
    expect([...sent].sort()).toEqual([...inRange].sort());
    for (const left of [d.beforeRange!, d.afterRange!, d.stillPending!]) expect(sent).not.toContain(left.id);
    const pending = await gateway.db.delivery.findUniqueOrThrow({ where: { id: BigInt(d.stillPending!.id) } });
    expect(pending).toMatchObject({ status: "delivering", attemptCount: 3 });

    const audit = await gateway.db.auditEntry.findMany({
      where: { accountId: account.accountId, target: `replay:${run.replay.id}` },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["api.delivery_replay.created", `api_key:${account.keyId}`],
      ["api.webhook.retry", `api_key:${account.keyId}`],
      ["api.webhook.retry", `api_key:${account.keyId}`],
    ]);
    expect(audit[0]!.details).toMatchObject({
      since: range.since,
      until: range.until,
      statuses: ["failed", "delivered"],
    });
    expect(audit.slice(1).map((entry) => entry.details)).toEqual([
      { count: 2, batch: 1 },
      { count: 2, batch: 2 },
    ]);
    expect(audit[0]!.requestId).toEqual(expect.any(String));
  });

  it("refuses invalid ranges and filters with 422 HTTPValidationError at the field, and unknown replays with 404", async () => {
    const cases: [unknown, (string | number)[], string][] = [
      [{ until: range.until }, ["body", "since"], "missing"],
      [{ since: range.until, until: range.since }, ["body", "since"], "value_error"],
      [{ since: at(-24 * 40).toISOString(), until: range.until }, ["body", "until"], "value_error"],
      [{ ...range, since: "ontem" }, ["body", "since"], ""],
      [{ ...range, status: "pending" }, ["body", "status"], "enum"],
      [{ ...range, event: "message.sent" }, ["body", "event"], "enum"],
      [{ ...range, integration_id: "9b2f4c1e-3a7d-4e8b-9c0d-1f2e3a4b5c6d" }, ["body", "integration_id"], "value_error"],
    ];
    for (const [body, loc, type] of cases) {
      const res = await replay(account, body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      const detail = (res.body as { detail: { loc: unknown[]; type: string; msg: string }[] }).detail;
      expect(detail[0]!.loc).toEqual(loc);
      if (type) expect(detail[0]!.type).toBe(type);
      expect(detail[0]!.msg).toMatch(PORTUGUESE);
    }
    const missing = await progress(account, "3f1c2b7a-8d4e-4f5a-9b6c-7d8e9f0a1b2c");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      success: false,
      error: { code: "not_found", message: "O reenvio por período não foi encontrado nesta conta." },
    });
    expect((await progress(account, "nao-e-um-id")).status).toBe(404);
  });

  it("keeps each account's replays to itself and limits them per account with a Portuguese 429 and Retry-After", async () => {
    const stranger = await createTestAccount(gateway.db);
    const mine = await replay(account, { since: at(-48).toISOString(), until: at(-47).toISOString() });
    expect(mine.status).toBe(202);
    const id = (mine.body as { data: { id: string } }).data.id;
    expect((await progress(stranger, id)).status).toBe(404);

    // Five per account (REPLAYS_PER_ACCOUNT): a refused request spends nothing, the sixth replay is 429.
    const quiet = { since: at(-48).toISOString(), until: at(-47).toISOString() };
    for (let i = 0; i < 5; i++) {
      expect((await replay(stranger, { ...quiet, status: "sent" })).status).toBe(422);
      expect((await replay(stranger, quiet)).status).toBe(202);
    }
    const limited = await replay(stranger, quiet);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(3600);
    expect(limited.body).toEqual({
      success: false,
      error: { code: "api_rate_limited", message: expect.stringMatching(/^Limite de reenvios por período/) },
    });
    expect((limited.body as { error: { message: string } }).error.message).toMatch(PORTUGUESE);
    expect(await gateway.db.deliveryReplay.count({ where: { accountId: stranger.accountId } })).toBe(5);
  });

  it("exports the range's deliveries as formula-safe CSV, oldest first, with the list's filters, audited", async () => {
    const mainId = (
      await gateway.db.integration.findFirstOrThrow({ where: { accountId: account.accountId, url: main.url } })
    ).id;
    const hostile = await stored(account, mainId, {
      event: "message.status",
      status: "failed",
      createdAt: at(6),
      lastError: "=cmd|' /C calc'!A0",
    });
    const csv = async (query: Record<string, string>) => {
      const res = await api()
        .get("/public/v1/deliveries/export")
        .query(query)
        .set(account.auth)
        .buffer(true)
        .parse((response, done) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => done(null, text));
        });
      return res;
    };
    const all = await csv(range);
    expect(all.status).toBe(200);
    expect(all.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(all.headers["content-disposition"]).toMatch(/^attachment; filename="entregas-/);
    const lines = (all.body as string).split("\r\n").filter((line) => line !== "");
    expect(lines[0]).toBe(
      [
        "delivery_id",
        "event",
        "status",
        "attempts",
        "created_at",
        "occurred_at",
        "delivered_at",
        "next_attempt_at",
        "last_status_code",
        "last_error_kind",
        "last_error",
        "message_id",
        "integration_id",
        "endpoint_url",
      ]
        .map((name) => `"${name}"`)
        .join(","),
    );
    const d = deliveries;
    const ids = lines.slice(1).map((line) => line.split(",")[0]);
    expect(ids).toEqual(
      [d.statusDelivered!, d.statusFailed!, d.receivedDelivered!, d.otherFailed!, d.stillPending!, hostile].map(
        (x) => x.id,
      ),
    );
    const hostileLine = lines.find((line) => line.startsWith(`${hostile.id},`))!;
    expect(hostileLine).toContain(`"'=cmd|' /C calc'!A0"`);
    expect(hostileLine).toContain(`"wamid.${hostile.id}"`);
    expect(hostileLine).toContain(`"${main.url}"`);

    const failedOnly = await csv({ ...range, status: "failed" });
    expect(
      (failedOnly.body as string)
        .split("\r\n")
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(",")[0]),
    ).toEqual([hostile.id]);
    const ofOther = await csv({ ...range, integration_id: otherIntegration.id, event: "message.status" });
    expect((ofOther.body as string).split("\r\n").filter(Boolean)).toHaveLength(2);

    const tooLong = await api()
      .get("/public/v1/deliveries/export")
      .query({ since: at(-24 * 40).toISOString(), until: range.until })
      .set(account.auth);
    expect(tooLong.status).toBe(422);
    expect((tooLong.body as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["query", "until"]);
    expect((await api().get("/public/v1/deliveries/export").set(account.auth)).status).toBe(422);

    const audit = await gateway.db.auditEntry.count({
      where: { accountId: account.accountId, action: "api.deliveries.exported" },
    });
    expect(audit).toBe(3);
  });

  it("streams a large range page by page without holding it in memory", async () => {
    const big = await createTestAccount(gateway.db, { integrationUrl: main.url });
    const integration = await gateway.db.integration.findFirstOrThrow({ where: { accountId: big.accountId } });
    const rows = 5_000;
    await gateway.db.sql.query(
      `INSERT INTO deliveries (account_id, integration_id, event, status, body, attempt_count, occurred_at, created_at, updated_at)
       SELECT $1::uuid, $2::uuid, 'message.status', 'delivered', '{"event":"message.status","data":{"message_id":"=HYPERLINK(1)"}}',
         1, $3::timestamptz + g * interval '1 second', $3::timestamptz + g * interval '1 second', now()
       FROM generate_series(1, $4::int) AS g`,
      [big.accountId, integration.id, base, rows],
    );
    const res = await request(gateway.app)
      .get("/public/v1/deliveries/export")
      .query(range)
      .set(big.auth)
      .buffer(true)
      .parse((response, done) => {
        let text = "";
        let chunks = 0;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          chunks++;
          text += chunk;
        });
        response.on("end", () => done(null, { text, chunks }));
      });
    expect(res.status).toBe(200);
    // Streamed: no Content-Length, sent in chunks as pages are read.
    expect(res.headers["content-length"]).toBeUndefined();
    expect(res.headers["transfer-encoding"]).toBe("chunked");
    const { text, chunks } = res.body as { text: string; chunks: number };
    expect(chunks).toBeGreaterThan(1);
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines).toHaveLength(rows + 1);
    const created = lines.slice(1).map((line) => line.split(",")[4]);
    expect([...created].sort()).toEqual(created);
    expect(lines[1]).toContain(`"'=HYPERLINK(1)"`);
  });
});
