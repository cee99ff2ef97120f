// Group commit of Meta's status webhooks (issue 19): the webhooks that arrive together are stored and applied in one
// transaction, and each request is still answered for its own payload. These tests hold the shared path to the
// single path's guarantees: each status once and in arrival order, a payload stored before (or twice in one batch)
// applied once, one bad payload never affecting the others, other kinds of payload on their own path.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { isolatedDatabase } from "@gw/testkit";
import {
  MalformedWebhookError,
  createIngestBatcher,
  ingestProviderWebhook,
  ingestProviderWebhooks,
  type BatchIngestOutcome,
  type IngestResult,
} from "../src/ingest/index.ts";
import { openIngestBed, type IngestBed } from "./support/ingest-bed.ts";

const PHONE_NUMBER_ID = "5511400000002";

let bed: IngestBed;

beforeAll(async () => {
  bed = await openIngestBed(await isolatedDatabase(), {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: "waba-gc",
    displayNumber: "+55 11 4000-0002",
  });
});

afterAll(async () => {
  await bed.close();
});

type Status = { id: string; status: string; timestamp?: string; errors?: unknown[] };

function payload(value: Record<string, unknown>): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [{ id: "waba-gc", changes: [{ field: "messages", value }] }],
  });
}

function statuses(...list: Status[]): string {
  return payload({ messaging_product: "whatsapp", metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: list });
}

async function sentMessages(prefix: string, count: number): Promise<string[]> {
  const wamids = Array.from({ length: count }, (_, i) => `wamid.gc.${prefix}.${i}`);
  await bed.db.message.createMany({
    data: wamids.map((wamid) => ({
      accountId: bed.fixture.accountId,
      phoneNumberId: PHONE_NUMBER_ID,
      to: "5511987654321",
      wamid,
      kind: "text",
      status: "accepted",
    })),
  });
  return wamids;
}

async function deliveredStatuses(wamid: string): Promise<string[]> {
  const rows = await bed.db.delivery.findMany({
    where: { accountId: bed.fixture.accountId, body: { contains: `"${wamid}"` } },
    orderBy: { id: "asc" },
  });
  return rows.map((row) => (JSON.parse(row.body) as { data: { status: string } }).data.status);
}

function results(outcomes: BatchIngestOutcome[]): IngestResult[] {
  return outcomes.map((outcome) => {
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  });
}

/** The transactions that stored these payloads (a row's xmin is the id of the transaction that wrote it). */
async function storingTransactions(bodies: readonly string[]): Promise<number> {
  const { rows } = await bed.db.sql.query<{ count: number }>(
    `SELECT count(DISTINCT xmin::text)::int AS count FROM provider_events WHERE body = ANY($1::text[])`,
    [bodies],
  );
  return rows[0]?.count ?? 0;
}

describe("group commit of provider webhooks", () => {
  it("stores and applies the status webhooks of a batch in one transaction, each answered with its own counts", async () => {
    const wamids = await sentMessages("juntos", 12);
    // Payload n carries `delivered` for message n, and the even ones `read` for it too.
    const bodies = wamids.map((id, n) =>
      statuses(
        { id, status: "delivered", timestamp: "1767225600" },
        ...(n % 2 === 0 ? [{ id, status: "read", timestamp: "1767225601" }] : []),
      ),
    );
    const queuedBefore = bed.dispatched.length;

    const answered = results(await ingestProviderWebhooks(bed.deps, bodies));

    expect(answered.map((r) => [r.statuses, r.deliveries, r.duplicate])).toEqual(
      wamids.map((_, n) => (n % 2 === 0 ? [2, 2, false] : [1, 1, false])),
    );
    expect(await storingTransactions(bodies)).toBe(1);
    for (const [n, wamid] of wamids.entries()) {
      expect(await deliveredStatuses(wamid)).toEqual(n % 2 === 0 ? ["delivered", "read"] : ["delivered"]);
      expect((await bed.db.message.findUniqueOrThrow({ where: { wamid } })).status).toBe(
        n % 2 === 0 ? "read" : "delivered",
      );
    }
    // Every delivery committed is queued, once.
    expect(bed.dispatched.length - queuedBefore).toBe(18);
    expect(await bed.db.providerEvent.count({ where: { body: { in: bodies }, processedAt: null } })).toBe(0);
  });

  it("applies the statuses of one message spread over a batch in the order the webhooks arrived", async () => {
    const [id] = await sentMessages("ordem", 1);
    const bodies = ["sent", "delivered", "read"].map((status, n) =>
      statuses({ id: id ?? "", status, timestamp: String(1767225600 + n) }),
    );

    const answered = results(await ingestProviderWebhooks(bed.deps, bodies));

    expect(answered.map((r) => r.deliveries)).toEqual([1, 1, 1]);
    expect(await deliveredStatuses(id ?? "")).toEqual(["sent", "delivered", "read"]);
  });

  it("applies once a payload stored before, and one that came twice in the same batch", async () => {
    const [old, fresh] = await sentMessages("repetido", 2);
    const storedBefore = statuses({ id: old ?? "", status: "delivered", timestamp: "1767225600" });
    expect(await ingestProviderWebhook(bed.deps, storedBefore)).toMatchObject({ deliveries: 1, duplicate: false });
    const twice = statuses({ id: fresh ?? "", status: "read", timestamp: "1767225600" });

    const answered = results(await ingestProviderWebhooks(bed.deps, [twice, storedBefore, twice]));

    expect(answered.map((r) => [r.deliveries, r.duplicate])).toEqual([
      [1, false],
      [0, true],
      [0, true],
    ]);
    expect(await deliveredStatuses(old ?? "")).toEqual(["delivered"]);
    expect(await deliveredStatuses(fresh ?? "")).toEqual(["read"]);
  });

  it("when one payload makes the shared transaction fail, applies every other one and sets aside only its bad item", async () => {
    const [first, second, last] = await sentMessages("falha", 3);
    await bed.db.message.create({
      data: {
        accountId: bed.fixture.accountId,
        phoneNumberId: PHONE_NUMBER_ID,
        to: "5511987654321",
        wamid: "wamid.gc.falha.x",
        kind: "text",
        status: "sent",
      },
    });
    const bad = statuses(
      { id: second ?? "", status: "delivered", timestamp: "1767225600" },
      // Passes the shape check, but the code does not fit the column: the shared transaction fails.
      { id: "wamid.gc.falha.x", status: "failed", errors: [{ code: 99_999_999_999, title: "x" }] },
    );
    const bodies = [
      statuses({ id: first ?? "", status: "read", timestamp: "1767225600" }),
      bad,
      statuses({ id: last ?? "", status: "delivered", timestamp: "1767225600" }),
    ];

    const answered = results(await ingestProviderWebhooks(bed.deps, bodies));

    expect(answered.map((r) => [r.deliveries, r.quarantined])).toEqual([
      [1, 0],
      [1, 1],
      [1, 0],
    ]);
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: first ?? "" } })).status).toBe("read");
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: second ?? "" } })).status).toBe("delivered");
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: last ?? "" } })).status).toBe("delivered");
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: "wamid.gc.falha.x" } })).status).toBe("sent");
    const event = await bed.db.providerEvent.findFirstOrThrow({ where: { body: bad } });
    expect((event.quarantined as { path: string }[]).map((q) => q.path)).toEqual(["statuses[1] wamid.gc.falha.x"]);
  });

  it("keeps other kinds of payload on their own path, and refuses a malformed body alone", async () => {
    const [id] = await sentMessages("misto", 1);
    const inbound = payload({
      messaging_product: "whatsapp",
      metadata: { phone_number_id: PHONE_NUMBER_ID },
      contacts: [{ wa_id: "5511912345678", profile: { name: "Ana" } }],
      messages: [
        { from: "5511912345678", id: "wamid.gc.entrada", timestamp: "1767225600", type: "text", text: { body: "oi" } },
      ],
    });
    const outcomes = await ingestProviderWebhooks(bed.deps, [
      statuses({ id: id ?? "", status: "delivered", timestamp: "1767225600" }),
      "{ não é json",
      inbound,
    ]);

    expect(outcomes[0]).toMatchObject({ ok: true, value: { statuses: 1, deliveries: 1 } });
    expect(outcomes[1]).toMatchObject({ ok: false });
    expect(outcomes[1]?.ok === false && outcomes[1].error).toBeInstanceOf(MalformedWebhookError);
    expect(outcomes[2]).toMatchObject({ ok: true, value: { messages: 1, deliveries: 1, duplicate: false } });
    expect(await bed.db.inboundMessage.count({ where: { wamid: "wamid.gc.entrada" } })).toBe(1);
  });
});

describe("the ingestion batcher", () => {
  it("starts a webhook at once when nothing runs, and sends the ones that arrived meanwhile together", async () => {
    const wamids = await sentMessages("lotes", 20);
    const batches: number[] = [];
    const batcher = createIngestBatcher(bed.deps, {
      maxPayloads: 50,
      maxInFlight: 1,
      onBatch: (size) => batches.push(size),
    });

    const answered = await Promise.all(
      wamids.map((id, n) =>
        batcher.ingest(statuses({ id, status: n % 2 === 0 ? "read" : "delivered", timestamp: "1767225600" })),
      ),
    );

    expect(batches).toEqual([1, 19]);
    expect(answered.map((r) => r.deliveries)).toEqual(wamids.map(() => 1));
    for (const [n, wamid] of wamids.entries())
      expect((await bed.db.message.findUniqueOrThrow({ where: { wamid } })).status).toBe(
        n % 2 === 0 ? "read" : "delivered",
      );
  });

  it("caps a batch at its size: what is left forms the next one", async () => {
    const wamids = await sentMessages("teto", 9);
    const batches: number[] = [];
    const batcher = createIngestBatcher(bed.deps, {
      maxPayloads: 4,
      maxInFlight: 1,
      onBatch: (size) => batches.push(size),
    });

    await Promise.all(wamids.map((id) => batcher.ingest(statuses({ id, status: "delivered" }))));

    expect(batches).toEqual([1, 4, 4]);
  });

  it("rejects only the request whose body is malformed", async () => {
    const [id] = await sentMessages("rejeita", 1);
    const batcher = createIngestBatcher(bed.deps, { maxPayloads: 50, maxInFlight: 1 });
    const [blocker, good, malformed] = await Promise.allSettled([
      batcher.ingest(statuses({ id: id ?? "", status: "sent" })),
      batcher.ingest(statuses({ id: id ?? "", status: "delivered" })),
      batcher.ingest("[]"),
    ]);
    expect(blocker).toMatchObject({ status: "fulfilled", value: { deliveries: 1 } });
    expect(good).toMatchObject({ status: "fulfilled", value: { deliveries: 1 } });
    expect(malformed.status).toBe("rejected");
    expect(malformed.status === "rejected" && malformed.reason).toBeInstanceOf(MalformedWebhookError);
  });
});
