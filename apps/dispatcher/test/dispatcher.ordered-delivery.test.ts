// Ordered delivery per message (issue 21, item 4), end to end: provider webhooks ingested into the real outbox, the
// dispatcher in this process, a real receiver that refuses the first attempt of every second event. With the option
// on, each message's statuses (and each contact's inbound messages) are accepted in order, a later event never even
// attempted before the earlier one was accepted; other messages keep flowing meanwhile. The same account's unordered
// integration shows the contract's behaviour unchanged: its `read` overtakes a retried `delivered`.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createAccountDirectory, setIntegration, DEVELOPMENT_INTEGRATION_POLICY } from "@gw/core/accounts";
import { createOutbox } from "@gw/core/deliveries";
import { ingestProviderWebhook, type IngestDeps } from "@gw/core/ingest";
import {
  createFixture,
  eventually,
  isolatedDatabase,
  reply,
  silentLogger,
  startReceiver,
  testActor,
  testSecretBox,
  type Fixture,
  type ReceivedRequest,
  type Receiver,
} from "@gw/testkit";
import { openBed, type DispatcherBed } from "./support.ts";

// Long enough that a retried event's wait is plainly visible against everything else flowing.
const SCHEDULE = [3_000, 3_000, 3_000, 3_000, 3_000, 3_000];
const PHONE_NUMBER_ID = "5511400000777";
const WABA_ID = "waba-ordem";
const CONTACT = "5511987650001";

let bed: DispatcherBed;
let receiver: Receiver;
let ingest: IngestDeps;
let ordered: Fixture;
let unorderedId: string;

/** One event as the receiver saw it. */
interface Seen {
  integration: "ordered" | "unordered";
  deliveryId: string;
  /** The message (statuses) or the contact (inbound messages) the event belongs to. */
  subject: string;
  /** Its place among its subject's events: 0, 1, 2... */
  position: number;
  at: number;
  accepted: boolean;
}

const seen: Seen[] = [];
/** Events whose first attempt is refused: every second one, by position in its subject ("fails the first attempt"). */
const attempted = new Set<string>();
/** Subjects whose events are never refused (the unrelated traffic that must keep flowing). */
const neverRefused = new Set<string>();

const STATUS_POSITION: Record<string, number> = { sent: 0, delivered: 1, read: 2 };
const inboundPosition = new Map<string, number>();

function describeEvent(request: ReceivedRequest): Omit<Seen, "at" | "accepted"> {
  const envelope = JSON.parse(request.body) as {
    event: string;
    delivery_id: string;
    data: { message_id: string; status?: string; from?: string };
  };
  const integration = request.path.includes("ordem=1") ? "ordered" : "unordered";
  if (envelope.event === "message.status")
    return {
      integration,
      deliveryId: envelope.delivery_id,
      subject: envelope.data.message_id,
      position: STATUS_POSITION[envelope.data.status ?? ""] ?? -1,
    };
  return {
    integration,
    deliveryId: envelope.delivery_id,
    subject: `contato:${envelope.data.from ?? ""}`,
    position: inboundPosition.get(envelope.data.message_id) ?? -1,
  };
}

beforeAll(async () => {
  bed = openBed(await isolatedDatabase());
  receiver = await startReceiver((request, res) => {
    const event = describeEvent(request);
    const key = `${event.integration}:${event.deliveryId}`;
    const first = !attempted.has(key);
    attempted.add(key);
    const refuse = first && event.position % 2 === 1 && !neverRefused.has(event.subject);
    seen.push({ ...event, at: Date.now(), accepted: !refuse });
    reply(res, refuse ? 500 : 200, refuse ? "tente de novo" : "ok");
  });
  ordered = await createFixture(bed.db, `${receiver.url}?ordem=1`);
  await bed.db.integration.update({ where: { id: ordered.integrationId }, data: { deliverInOrder: true } });
  // The same account's second endpoint, without the option: every event reaches both.
  unorderedId = (
    await bed.db.integration.create({
      data: {
        accountId: ordered.accountId,
        url: `${receiver.url}?ordem=0`,
        events: ["message.status", "message.received"],
        signingSecret: "whsec_sem_ordem",
      },
    })
  ).id;
  await bed.db.businessNumber.create({
    data: {
      accountId: ordered.accountId,
      phoneNumberId: PHONE_NUMBER_ID,
      wabaId: WABA_ID,
      displayNumber: "+55 11 4000-0777",
    },
  });
  ingest = {
    db: bed.db,
    outbox: createOutbox(bed.queue, silentLogger),
    logger: silentLogger,
    directory: createAccountDirectory(bed.db),
  };
  // The sweep runs once a minute: a held event must be released by its predecessor, not found by the sweep.
  await bed.startDispatcher({ WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(","), DISPATCHER_CONCURRENCY: "8" });
});

afterAll(async () => {
  await bed.close(receiver);
});

function payload(value: Record<string, unknown>): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: "messages",
            value: { messaging_product: "whatsapp", metadata: { phone_number_id: PHONE_NUMBER_ID }, ...value },
          },
        ],
      },
    ],
  });
}

async function sentMessages(prefix: string, count: number): Promise<string[]> {
  const wamids = Array.from({ length: count }, (_, i) => `wamid.${prefix}.${i}.${randomUUID()}`);
  await bed.db.message.createMany({
    data: wamids.map((wamid) => ({
      accountId: ordered.accountId,
      phoneNumberId: PHONE_NUMBER_ID,
      to: "5511987654321",
      wamid,
      kind: "text",
      status: "accepted",
    })),
  });
  return wamids;
}

/** sent, delivered and read of each message, in one payload (one round per position, as Meta batches them). */
function statusesPayload(wamids: readonly string[]): string {
  return payload({
    statuses: wamids.flatMap((id) =>
      ["sent", "delivered", "read"].map((status) => ({
        id,
        status,
        timestamp: "1767225600",
        recipient_id: "5511987654321",
      })),
    ),
  });
}

async function allSettled(integrationId: string, count: number): Promise<void> {
  await eventually(
    async () => {
      const rows = await bed.db.delivery.findMany({ where: { integrationId }, select: { status: true } });
      return rows.length === count && rows.every((row) => row.status === "delivered") ? true : null;
    },
    { what: `${count} entregas da integração ${integrationId} entregues`, timeoutMs: 30_000 },
  );
}

/** The positions of a subject's events in the order the receiver accepted them. */
function acceptedOrder(integration: Seen["integration"], subject: string): number[] {
  return seen
    .filter((s) => s.integration === integration && s.subject === subject && s.accepted)
    .map((s) => s.position);
}

describe("ordered delivery per message", () => {
  it("delivers each message's statuses and each contact's messages in order, and other messages keep flowing", async () => {
    const wamids = await sentMessages("ordem", 5);
    const inbound = [0, 1, 2].map((i) => {
      const id = `wamid.recebida.${i}.${randomUUID()}`;
      inboundPosition.set(id, i);
      return id;
    });
    await ingestProviderWebhook(ingest, statusesPayload(wamids));
    await ingestProviderWebhook(
      ingest,
      payload({
        contacts: [{ profile: { name: "Cliente" }, wa_id: CONTACT }],
        messages: inbound.map((id, i) => ({
          from: CONTACT,
          id,
          timestamp: String(1767225600 + i),
          type: "text",
          text: { body: `mensagem ${i}` },
        })),
      }),
    );

    // A message whose second event is retrying (its first attempt was refused, its retry 3 s ± 20 % away)...
    const [head] = wamids;
    if (head === undefined) throw new Error("sem mensagens");
    await eventually(
      () =>
        seen.some((s) => s.integration === "ordered" && s.subject === head && s.position === 1 && !s.accepted) || null,
      { what: "primeira tentativa do delivered recusada" },
    );
    // ...does not hold up an unrelated message arriving now: all its events are accepted before that retry.
    const [unrelated] = await sentMessages("alheia", 1);
    if (unrelated === undefined) throw new Error("sem mensagem alheia");
    neverRefused.add(unrelated);
    await ingestProviderWebhook(ingest, statusesPayload([unrelated]));
    await eventually(() => (acceptedOrder("ordered", unrelated).length === 3 ? true : null), {
      what: "os três eventos da mensagem alheia aceitos",
    });
    // All three were accepted while the head's `delivered` was still waiting for its retry.
    const headDelivered = () =>
      seen.find((s) => s.integration === "ordered" && s.subject === head && s.accepted && s.position === 1);
    const unrelatedDone = Math.max(
      ...seen.filter((s) => s.integration === "ordered" && s.subject === unrelated && s.accepted).map((s) => s.at),
    );
    expect(headDelivered()?.at ?? Infinity).toBeGreaterThan(unrelatedDone);

    await allSettled(ordered.integrationId, 5 * 3 + 3 + 3);
    await allSettled(unorderedId, 5 * 3 + 3 + 3);

    const subjects = [...wamids, unrelated, `contato:${CONTACT}`];
    for (const subject of subjects) {
      expect({ subject, order: acceptedOrder("ordered", subject) }).toEqual({ subject, order: [0, 1, 2] });
      // A later event is not even attempted before the earlier one was accepted.
      const events = seen.filter((s) => s.integration === "ordered" && s.subject === subject);
      for (const position of [1, 2]) {
        const firstTry = Math.min(...events.filter((s) => s.position === position).map((s) => s.at));
        const previousAccepted = events.find((s) => s.position === position - 1 && s.accepted)?.at ?? Infinity;
        expect(firstTry).toBeGreaterThanOrEqual(previousAccepted);
      }
    }
    // Retries happened (the first attempt of every second event: each message's `delivered`, the contact's second
    // message), and none is left held.
    expect(seen.filter((s) => s.integration === "ordered" && !s.accepted)).toHaveLength(5 + 1);
    expect(await bed.db.delivery.count({ where: { heldSince: { not: null } } })).toBe(0);

    // Without the option (the contract's behaviour): the first message's `read` overtook its retried `delivered`.
    expect(acceptedOrder("unordered", head)).toEqual([0, 2, 1]);
  });

  it("releases the held events at once when ordering is switched off, while their head still retries", async () => {
    const [wamid] = await sentMessages("desligar", 1);
    if (wamid === undefined) throw new Error("sem mensagem");
    // This message's `sent` is refused on every attempt: its `delivered` and `read` wait behind it.
    neverRefused.add(wamid);
    receiver.setHandler((request, res) => {
      const event = describeEvent(request);
      const refuse = event.subject === wamid && event.position === 0;
      seen.push({ ...event, at: Date.now(), accepted: !refuse });
      reply(res, refuse ? 500 : 200, refuse ? "fora do ar" : "ok");
    });
    await ingestProviderWebhook(ingest, statusesPayload([wamid]));
    const held = await eventually(
      async () => {
        const rows = await bed.db.delivery.findMany({
          where: { integrationId: ordered.integrationId, heldSince: { not: null }, body: { contains: wamid } },
          orderBy: { id: "asc" },
        });
        return rows.length === 2 ? rows : null;
      },
      { what: "delivered e read segurados atrás do sent" },
    );
    expect(acceptedOrder("ordered", wamid)).toEqual([]);

    await setIntegration(
      {
        db: bed.db,
        policy: DEVELOPMENT_INTEGRATION_POLICY,
        secrets: testSecretBox(),
        queue: bed.queue,
        logger: silentLogger,
      },
      {
        accountId: ordered.accountId,
        integrationId: ordered.integrationId,
        url: `${receiver.url}?ordem=1`,
        events: ["message.status", "message.received"],
        deliverInOrder: false,
        actor: { ...testActor, requestId: "teste-ordem" },
      },
    );
    // Queued by the switch itself (the sweep runs once a minute): both arrive while the head is still retrying.
    await eventually(() => (acceptedOrder("ordered", wamid).length === 2 ? true : null), {
      what: "delivered e read liberados",
      timeoutMs: 3_000,
    });
    expect(new Set(acceptedOrder("ordered", wamid))).toEqual(new Set([1, 2]));
    const head = await bed.db.delivery.findFirstOrThrow({
      where: { integrationId: ordered.integrationId, body: { contains: wamid }, id: { lt: held[0]?.id ?? 0n } },
    });
    expect(head.status).toBe("pending");
    const audit = await bed.db.auditEntry.findFirstOrThrow({
      where: { target: `integration:${ordered.integrationId}` },
      orderBy: { createdAt: "desc" },
    });
    expect(audit.details).toMatchObject({ deliver_in_order: false });
  });
});
