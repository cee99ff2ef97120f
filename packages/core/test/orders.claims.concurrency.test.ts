// Pix orders' claims (design-28 §1.2, §4.3; docs/decisions.md "Pix orders", D1 and D6): one live claim per reference
// and one status update in flight per order, under real PostgreSQL concurrency; abandoned claims follow the
// Idempotency-Key's liveness rules; the accepted transaction's order writes are idempotent (journal replays) and a
// late replay overtaken by a later update moves nothing.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { GraphMessagePayload } from "@gw/meta";
import { isolatedDatabase } from "@gw/testkit";
import { claimOrder, recordAcceptedOrder, type OrderClaim } from "../src/messages/order-records.ts";
import { checkTransition, getOrder } from "../src/orders/index.ts";

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let db: Db;
let accountId: string;
const PHONE_NUMBER_ID = "100000000000028";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ref = () => `pedido-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  database = await isolatedDatabase();
  db = database.db;
  accountId = (await db.account.create({ data: { name: "Pedidos" } })).id;
});

afterAll(async () => {
  await database.drop();
});

function pixPayload(referenceId: string): GraphMessagePayload {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: "5511987654321",
    type: "template",
    template: {
      name: "cobranca_pix",
      language: { code: "pt_BR" },
      components: [
        {
          type: "button",
          sub_type: "order_details",
          index: 0,
          parameters: [
            {
              type: "action",
              action: {
                order_details: {
                  reference_id: referenceId,
                  type: "digital-goods",
                  payment_type: "br",
                  payment_settings: [
                    {
                      type: "pix_dynamic_code",
                      pix_dynamic_code: {
                        code: "000201",
                        merchant_name: "Loja",
                        key: "12345678000199",
                        key_type: "CNPJ",
                      },
                    },
                  ],
                  currency: "BRL",
                  total_amount: { value: 5000, offset: 100 },
                  order: {
                    status: "pending",
                    tax: { value: 0, offset: 100 },
                    items: [{ name: "Camiseta", amount: { value: 2500, offset: 100 }, quantity: 2 }],
                    subtotal: { value: 5000, offset: 100 },
                  },
                },
              },
            },
          ],
        },
      ],
    },
  };
}

const deps = (staleAfterMs = 60_000) => ({ db, orderClaims: { owner: null, staleAfterMs } });
const sendInput = { requestId: "req", actor: { id: "api_key:1" }, to: "5511987654321" };
const template = { kind: "template" as const, name: "cobranca_pix", language: "pt_BR" };

async function claimCreate(referenceId: string, staleAfterMs?: number): Promise<OrderClaim> {
  const claim = await claimOrder(
    deps(staleAfterMs),
    { ...sendInput, accountId },
    template,
    pixPayload(referenceId),
    PHONE_NUMBER_ID,
  );
  if (!claim) throw new Error("a Pix send must claim its reference");
  return claim;
}

async function errorCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return error instanceof ApiError ? error.code : String(error);
}

/** An order opened as the accepted Pix send's transaction opens it. */
async function openOrder(referenceId: string): Promise<string> {
  const claim = await claimCreate(referenceId);
  await claim.mark();
  if (claim.accepted.kind !== "create") throw new Error("unreachable");
  await recordAcceptedOrder(db.sql, {
    wamid: `wamid.${referenceId}`,
    actor: "api_key:1",
    requestId: "req",
    order: claim.accepted,
  });
  return claim.accepted.orderId;
}

function claimStatus(
  orderId: string,
  referenceId: string,
  orderStatus: "processing" | "shipped" | "canceled",
  staleAfterMs?: number,
) {
  const change = { orderStatus, paymentStatus: orderStatus === "canceled" ? ("failed" as const) : undefined };
  return claimOrder(
    deps(staleAfterMs),
    {
      ...sendInput,
      accountId,
      order: { kind: "status", orderId, check: (cur, lastFailed) => checkTransition(cur, change, lastFailed) },
    },
    {
      kind: "order_status" as const,
      referenceId,
      orderStatus,
      paymentStatus: change.paymentStatus ?? null,
      text: "Seu pedido.",
    },
    {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: "5511987654321",
      type: "text",
      text: { body: "x" },
    },
    PHONE_NUMBER_ID,
  ).then((claim) => {
    if (!claim) throw new Error("unreachable");
    return claim;
  });
}

describe("the reference's claim before Meta", () => {
  it("gives exactly one of two concurrent sends with one reference the claim; the other gets 409 order_reference_taken", async () => {
    const referenceId = ref();
    const results = await Promise.allSettled([claimCreate(referenceId), claimCreate(referenceId)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason instanceof ApiError && refused.reason.code).toBe(
      "order_reference_taken",
    );
    const { rows } = await db.sql.query(`SELECT state FROM orders WHERE reference_id = $1`, [referenceId]);
    expect(rows).toEqual([{ state: "claimed" }]);
  });

  it("frees an abandoned claim that never reached the provider, and takes it", async () => {
    const referenceId = ref();
    const first = await claimCreate(referenceId, 50);
    await sleep(120);
    const second = await claimCreate(referenceId, 50);
    expect(second.accepted).not.toEqual(first.accepted);
    // The dead send's mark finds its claim gone: it must not reach the provider.
    expect(await errorCode(first.mark())).toBe("order_reference_taken");
    await expect(second.mark()).resolves.toBeUndefined();
  });

  it("keeps an abandoned claim that reached the provider taken, settled unconfirmed and invisible", async () => {
    const referenceId = ref();
    const first = await claimCreate(referenceId, 50);
    await first.mark();
    await sleep(120);
    expect(await errorCode(claimCreate(referenceId, 50))).toBe("order_reference_taken");
    const { rows } = await db.sql.query(`SELECT state FROM orders WHERE reference_id = $1`, [referenceId]);
    expect(rows).toEqual([{ state: "unconfirmed" }]);
    expect(await errorCode(getOrder({ db }, { accountId, referenceId }))).toBe("not_found");
    // Its late acceptance (the journal) still opens it.
    if (first.accepted.kind !== "create") throw new Error("unreachable");
    await recordAcceptedOrder(db.sql, {
      wamid: `wamid.${referenceId}`,
      actor: "a",
      requestId: "r",
      order: first.accepted,
    });
    expect((await getOrder({ db }, { accountId, referenceId })).orderStatus).toBe("pending");
  });

  it("releases a refused send's claim so the reference can be used again", async () => {
    const referenceId = ref();
    const claim = await claimCreate(referenceId);
    await claim.settle(false, new Error("refused"), true);
    await expect(claimCreate(referenceId)).resolves.toBeDefined();
  });
});

describe("the accepted transaction's order writes", () => {
  it("opens the order once when the journal replays its send twice", async () => {
    const referenceId = ref();
    const claim = await claimCreate(referenceId);
    if (claim.accepted.kind !== "create") throw new Error("unreachable");
    const send = { wamid: `wamid.${referenceId}`, actor: "api_key:1", requestId: "r", order: claim.accepted };
    await recordAcceptedOrder(db.sql, send);
    await recordAcceptedOrder(db.sql, send);
    const order = await getOrder({ db }, { accountId, referenceId });
    expect(order.history.map((h) => [h.kind, h.messageId])).toEqual([["order_details", `wamid.${referenceId}`]]);
  });

  it("applies a status once when replayed twice, and a late replay overtaken by a later update moves nothing", async () => {
    const referenceId = ref();
    const orderId = await openOrder(referenceId);
    const processing = await claimStatus(orderId, referenceId, "processing");
    if (processing.accepted.kind !== "status") throw new Error("unreachable");
    await processing.mark();
    // The processing send is journaled (its commit failed); meanwhile a shipped update is sent and recorded.
    await processing.settle(true, new Error("timeout"), false); // unconfirmed by its own call, then accepted late
    const shipped = await claimStatus(orderId, referenceId, "shipped");
    await shipped.mark();
    const shippedSend = { wamid: `wamid.s.${referenceId}`, actor: "a", requestId: "r", order: shipped.accepted };
    expect(await recordAcceptedOrder(db.sql, shippedSend)).toBe(orderId);
    expect(await recordAcceptedOrder(db.sql, shippedSend)).toBeNull();
    // The late replay of processing: it enters history, the order stays shipped.
    const late = { wamid: `wamid.p.${referenceId}`, actor: "a", requestId: "r", order: processing.accepted };
    expect(await recordAcceptedOrder(db.sql, late)).toBeNull();
    const order = await getOrder({ db }, { accountId, referenceId });
    expect(order.orderStatus).toBe("shipped");
    expect(order.history.map((h) => h.orderStatus).sort()).toEqual(["pending", "processing", "shipped"]);
  });
});

describe("one status update in flight per order", () => {
  it("answers the second of two concurrent updates 409 order_update_in_flight with a Retry-After", async () => {
    const referenceId = ref();
    const orderId = await openOrder(referenceId);
    const results = await Promise.allSettled([
      claimStatus(orderId, referenceId, "shipped"),
      claimStatus(orderId, referenceId, "canceled"),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected");
    const reason = refused?.status === "rejected" ? refused.reason : null;
    expect(reason instanceof ApiError && [reason.code, reason.retryAfterSeconds! >= 1]).toEqual([
      "order_update_in_flight",
      true,
    ]);
  });

  it("refuses a transition from the state read under the claim and frees the claim (nothing in flight after)", async () => {
    const referenceId = ref();
    const orderId = await openOrder(referenceId);
    expect(
      await errorCode(
        claimStatus(orderId, referenceId, "processing").then(async (c) => {
          await c.mark();
          if (c.accepted.kind !== "status") throw new Error("unreachable");
          await recordAcceptedOrder(db.sql, {
            wamid: `wamid.x.${referenceId}`,
            actor: "a",
            requestId: "r",
            order: c.accepted,
          });
          // Captured is not asked, so cancel is refused from processing/pending.
          return claimOrder(
            deps(),
            {
              ...sendInput,
              accountId,
              order: {
                kind: "status",
                orderId,
                check: (cur, f) => checkTransition(cur, { orderStatus: "canceled" }, f),
              },
            },
            {
              kind: "order_status" as const,
              referenceId,
              orderStatus: "canceled" as const,
              text: "Seu pedido foi cancelado.",
            },
            pixPayload(referenceId),
            PHONE_NUMBER_ID,
          );
        }),
      ),
    ).toBe("order_cancel_refused");
    await expect(claimStatus(orderId, referenceId, "shipped")).resolves.toBeDefined();
  });

  it("frees an abandoned status claim that never reached the provider; settles one that did unconfirmed", async () => {
    const referenceId = ref();
    const orderId = await openOrder(referenceId);
    await claimStatus(orderId, referenceId, "processing", 50);
    await sleep(120);
    const second = await claimStatus(orderId, referenceId, "processing", 50);
    await second.mark();
    await sleep(120);
    await expect(claimStatus(orderId, referenceId, "processing", 50)).resolves.toBeDefined();
    const { rows } = await db.sql.query(
      `SELECT state FROM order_messages WHERE order_id = $1 AND kind = 'order_status' ORDER BY id`,
      [orderId],
    );
    expect(rows).toEqual([{ state: "unconfirmed" }, { state: "claimed" }]);
  });
});
