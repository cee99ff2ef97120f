// Provider webhooks are applied as batches by hand-written SQL. These tests hold the batch path to the
// guarantees of the one-status-at-a-time path it replaced: every transition of spec 3.1 exactly once, its
// outbox row in the same commit, duplicates ignored, concurrent payloads for the same messages without
// deadlocks or lost or doubled events, and one bad item never blocking the rest.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { isolatedDatabase } from "@gw/testkit";
import { ingestProviderWebhook } from "../src/ingest/index.ts";
import { openIngestBed, type IngestBed } from "./support/ingest-bed.ts";

const PHONE_NUMBER_ID = "5511400000001";

let bed: IngestBed;

beforeAll(async () => {
  bed = await openIngestBed(await isolatedDatabase(), {
    phoneNumberId: PHONE_NUMBER_ID,
    wabaId: "waba-1",
    displayNumber: "+55 11 4000-0001",
  });
});

afterAll(async () => {
  await bed.close();
});

type Status = { id: string; status: string; timestamp?: string; errors?: unknown[] };

function payload(changes: Record<string, unknown>[]): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [{ id: "waba-1", changes: changes.map((value) => ({ field: "messages", value })) }],
  });
}

function statuses(list: Status[]): Record<string, unknown> {
  return { messaging_product: "whatsapp", metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: list };
}

async function sentMessages(prefix: string, count: number): Promise<string[]> {
  const wamids = Array.from({ length: count }, (_, i) => `wamid.${prefix}.${i}`);
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

describe("provider webhook ingestion in batches", () => {
  it("applies every status of a payload in order with its outbox row, and ignores the same payload delivered again", async () => {
    const wamids = await sentMessages("lote", 3);
    const body = payload([
      statuses(
        wamids.flatMap((id) =>
          ["sent", "delivered", "read"].map((status) => ({ id, status, timestamp: "1767225600" })),
        ),
      ),
    ]);

    const first = await ingestProviderWebhook(bed.deps, body);
    expect(first).toMatchObject({ statuses: 9, deliveries: 9, quarantined: 0, duplicate: false });
    for (const wamid of wamids) {
      expect(await deliveredStatuses(wamid)).toEqual(["sent", "delivered", "read"]);
      expect((await bed.db.message.findUniqueOrThrow({ where: { wamid } })).status).toBe("read");
    }
    const stored = await bed.db.providerEvent.findMany({ where: { body } });
    expect(stored).toHaveLength(1);
    expect(stored[0]?.processedAt).not.toBeNull();

    const again = await ingestProviderWebhook(bed.deps, body);
    expect(again).toMatchObject({ duplicate: true, deliveries: 0 });
    for (const wamid of wamids) expect(await deliveredStatuses(wamid)).toEqual(["sent", "delivered", "read"]);
  });

  it("keeps the status machine exact when many payloads about the same messages commit concurrently", async () => {
    const wamids = await sentMessages("corrida", 12);
    const order = ["sent", "delivered", "read"];
    // 24 payloads, each with a different shuffled mix of statuses for overlapping messages.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const bodies = Array.from({ length: 24 }, (_, n) => {
      const list: Status[] = [];
      for (const id of wamids)
        if (random() < 0.6)
          list.push({ id, status: order[Math.floor(random() * 3)] ?? "sent", timestamp: String(1767225600 + n) });
      return payload([statuses(list.sort(() => random() - 0.5))]);
    });
    const highest = new Map<string, number>();
    for (const body of bodies) {
      for (const s of (JSON.parse(body) as { entry: { changes: { value: { statuses: Status[] } }[] }[] }).entry[0]
        ?.changes[0]?.value.statuses ?? []) {
        highest.set(s.id, Math.max(highest.get(s.id) ?? -1, order.indexOf(s.status)));
      }
    }

    const results = await Promise.all(bodies.map((body) => ingestProviderWebhook(bed.deps, body)));
    expect(results.every((r) => !r.duplicate)).toBe(true);

    for (const wamid of wamids) {
      const events = await deliveredStatuses(wamid);
      const expectedFinal = highest.has(wamid) ? order[highest.get(wamid) ?? 0] : "accepted";
      expect({ wamid, status: (await bed.db.message.findUniqueOrThrow({ where: { wamid } })).status }).toEqual({
        wamid,
        status: expectedFinal,
      });
      // One event per applied change, each a step up: never a regression, never the same status twice.
      const ranks = events.map((status) => order.indexOf(status));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(new Set(events).size).toBe(events.length);
      if (highest.has(wamid)) expect(events.at(-1)).toBe(expectedFinal);
    }
  });

  it("sets aside malformed items and applies the rest; what was set aside is kept on the stored event", async () => {
    const [good, nulText] = await sentMessages("ruim", 2);
    const body = payload([
      { messaging_product: "whatsapp", metadata: { phone_number_id: PHONE_NUMBER_ID }, statuses: "não é uma lista" },
      statuses([
        { id: good ?? "", status: "delivered", timestamp: "17672256000000" },
        { id: "", status: "read" },
        {
          id: nulText ?? "",
          status: "failed",
          timestamp: "1767225600",
          errors: [{ code: 131026, title: "Message\u0000 undeliverable", error_data: { details: "nul\u0000" } }],
        },
      ]),
    ]);

    const result = await ingestProviderWebhook(bed.deps, body);

    expect(result).toMatchObject({ statuses: 2, deliveries: 2, quarantined: 2 });
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: good ?? "" } })).status).toBe("delivered");
    const failed = await bed.db.message.findUniqueOrThrow({ where: { wamid: nulText ?? "" } });
    expect(failed).toMatchObject({ status: "failed", errorMessage: "nul", errorReason: "recipient_unreachable" });
    const event = await bed.db.providerEvent.findFirstOrThrow({ where: { body } });
    expect(event.processedAt).not.toBeNull();
    const quarantined = event.quarantined as { path: string; reason: string }[];
    expect(quarantined.map((q) => q.path)).toEqual([
      "entry[0].changes[0].value.statuses",
      "entry[0].changes[1].value.statuses[1]",
    ]);
  });

  it("quarantines ids PostgreSQL cannot hold (U+0000, lone surrogates) and keeps a lone surrogate in a text", async () => {
    const [good, surrogateText] = await sentMessages("unicode", 2);
    const body = payload([
      {
        messaging_product: "whatsapp",
        metadata: { phone_number_id: "1\u0000" },
        statuses: [{ id: "wamid.y", status: "read" }],
      },
      statuses([
        { id: "wamid.\u0000", status: "read" },
        { id: "wamid.\ud800", status: "read" },
        { id: good ?? "", status: "delivered", timestamp: "1767225600" },
        {
          id: surrogateText ?? "",
          status: "failed",
          timestamp: "1767225600",
          errors: [{ code: 131026, title: "x", error_data: { details: "meia \ud800 letra" } }],
        },
      ]),
    ]);

    // Once the payload was answered 503 (Meta then redelivers it for days); now the bad items are set aside.
    const result = await ingestProviderWebhook(bed.deps, body);

    expect(result).toMatchObject({ statuses: 3, quarantined: 2 });
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: good ?? "" } })).status).toBe("delivered");
    const failed = await bed.db.message.findUniqueOrThrow({ where: { wamid: surrogateText ?? "" } });
    expect(failed).toMatchObject({ status: "failed", errorMessage: "meia \ufffd letra" });
    const event = await bed.db.providerEvent.findFirstOrThrow({ where: { body } });
    expect((event.quarantined as unknown[]).length).toBe(2);
  });

  it("quarantines an item the database refuses, applies its neighbours, and answers for the payload once", async () => {
    const [before, after] = await sentMessages("recusado", 2);
    const body = payload([
      statuses([
        { id: before ?? "", status: "read", timestamp: "1767225600" },
        // Passes the shape check, but the code does not fit the column: the batch transaction fails.
        { id: "wamid.recusado.x", status: "failed", errors: [{ code: 99_999_999_999, title: "x" }] },
        { id: after ?? "", status: "delivered", timestamp: "1767225600" },
      ]),
    ]);
    await bed.db.message.create({
      data: {
        accountId: bed.fixture.accountId,
        phoneNumberId: PHONE_NUMBER_ID,
        to: "5511987654321",
        wamid: "wamid.recusado.x",
        kind: "text",
        status: "sent",
      },
    });

    const result = await ingestProviderWebhook(bed.deps, body);

    expect(result).toMatchObject({ deliveries: 2, quarantined: 1, duplicate: false });
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: before ?? "" } })).status).toBe("read");
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: after ?? "" } })).status).toBe("delivered");
    expect((await bed.db.message.findUniqueOrThrow({ where: { wamid: "wamid.recusado.x" } })).status).toBe("sent");
    const event = await bed.db.providerEvent.findFirstOrThrow({ where: { body } });
    expect((event.quarantined as { path: string }[]).map((q) => q.path)).toEqual(["statuses[1] wamid.recusado.x"]);
    expect(await ingestProviderWebhook(bed.deps, body)).toMatchObject({ duplicate: true });
  });
});
