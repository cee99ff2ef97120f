import type { OrderStatus, PaymentStatus } from "@gw/contracts";
import type { Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import type {
  GraphInteractiveOrderStatusPayload,
  GraphMessagePayload,
  GraphOrderDetails,
  GraphOrderStatus,
  GraphOrderStatusComponent,
} from "@gw/meta";
import { graphRecipient } from "../contacts/recipient.ts";

// The SQL pieces of Pix orders that belong to a send (issue 28, docs/decisions.md "Pix orders"): the reference's
// claim before Meta, the status update's claim, and what the accepted-send transaction writes. The rules of which
// transition is allowed live in `orders/` and reach the send as a closure (`OrderStatusLink.check`), so messages
// never imports orders.

/** The order statuses of the contract (`partially_shipped` underscored; Meta's is hyphenated). */
export type OrderStatusValue = OrderStatus;
export type PaymentStatusValue = PaymentStatus;

/**
 * An order's next status: the `order_status` interactive message (meta-2026 §6.3), a free-form send inside the window
 * only; or, with `template`, Meta's order-status template (meta-late-2026 §1), in or out of the window, which carries
 * no payment.
 */
export interface OrderStatusContent {
  kind: "order_status";
  referenceId: string;
  orderStatus: Exclude<OrderStatusValue, "pending">;
  /** Absent: no `payment` object is sent, the stored payment is kept. */
  paymentStatus?: PaymentStatusValue | null | undefined;
  paymentTimestamp?: number | null | undefined;
  description?: string | null | undefined;
  /** The message body (Meta requires one); with `template`, what the history shows of it. */
  text: string;
  /** An approved UTILITY template of sub-category ORDER_STATUS that carries the status instead. */
  template?: OrderStatusTemplate | null | undefined;
}

export interface OrderStatusTemplate {
  name: string;
  language: string;
  variables?: readonly string[] | undefined;
}

/** An order's current pair, as the status claim reads it. */
export interface OrderState {
  orderStatus: OrderStatusValue;
  paymentStatus: PaymentStatusValue;
}

/** What `updateOrderStatus` hands the send: the order and its transition rule (throws the 422 refusal). */
export interface OrderStatusLink {
  kind: "status";
  orderId: string;
  check(current: OrderState, lastFailed: boolean): void;
}

/** How claims judge liveness: the Idempotency-Key's rules (its owner's process lease, its stale bound). */
export interface OrderClaims {
  /** This process's lease owner (process_leases.owner); null: claims carry no owner, the stale bound alone rules. */
  owner: string | null;
  staleAfterMs: number;
}

const DEFAULT_CLAIMS: OrderClaims = { owner: null, staleAfterMs: 60_000 };

/** What the accepted send's transaction does to the order (`AcceptedSend.order`, plain JSON for the journal). */
export type AcceptedOrder =
  | { kind: "create"; orderId: string }
  | {
      kind: "status";
      orderId: string;
      claimId: string;
      referenceId: string;
      orderStatus: OrderStatusValue;
      /** The order's payment once this message applies (the one asked, else the current one). */
      paymentStatus: PaymentStatusValue;
    };

/** What a status send's answer (and its key's replay) carries: the resulting pair. */
export interface AcceptedOrderAnswer {
  referenceId: string;
  orderStatus: OrderStatusValue;
  paymentStatus: PaymentStatusValue;
}

/** A claim held by a send until it settles. */
export interface OrderClaim {
  accepted: AcceptedOrder;
  /** Inside the provider-call mark: the claim is this send's still, and may now have gone out. */
  mark(): Promise<void>;
  /** The send did not end accepted: free the claim, or keep it `unconfirmed` when the provider may have sent it. */
  settle(providerCalled: boolean, error: unknown, confirmedRefusal: boolean): Promise<void>;
}

interface ClaimDeps {
  db: { sql: Sql };
  orderClaims?: OrderClaims | undefined;
}

interface ClaimInput {
  accountId: string;
  requestId: string;
  actor: { id: string };
  to: string;
  clientRef?: string | null | undefined;
  order?: OrderStatusLink | undefined;
}

const GRAPH_STATUS: Record<Exclude<OrderStatusValue, "pending">, GraphOrderStatus> = {
  processing: "processing",
  partially_shipped: "partially-shipped",
  shipped: "shipped",
  completed: "completed",
  canceled: "canceled",
};

/** The `order_status` component an order-status template carries (GraphOrderStatusComponent). */
export function orderStatusComponent(content: OrderStatusContent): GraphOrderStatusComponent {
  return {
    type: "order_status",
    parameters: [
      {
        type: "order_status",
        order_status: {
          reference_id: content.referenceId,
          order: {
            status: GRAPH_STATUS[content.orderStatus],
            ...(content.description ? { description: content.description } : {}),
          },
        },
      },
    ],
  };
}

/** The Graph JSON of an `order_status` message (meta-2026 §6.3), to the order's recipient (phone or BSUID). */
export function orderStatusPayload(to: string, content: OrderStatusContent): GraphInteractiveOrderStatusPayload {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    ...graphRecipient(to),
    type: "interactive",
    interactive: {
      type: "order_status",
      body: { text: content.text },
      action: {
        name: "review_order",
        parameters: {
          reference_id: content.referenceId,
          order: {
            status: GRAPH_STATUS[content.orderStatus],
            ...(content.description ? { description: content.description } : {}),
          },
          ...(content.paymentStatus
            ? {
                payment: {
                  status: content.paymentStatus,
                  ...(content.paymentTimestamp != null ? { timestamp: content.paymentTimestamp } : {}),
                },
              }
            : {}),
        },
      },
    },
  };
}

/** The order_details a template send carries (its ORDER_DETAILS button), or null. */
function orderDetailsOf(payload: GraphMessagePayload): GraphOrderDetails | null {
  if (payload.type !== "template") return null;
  for (const component of payload.template.components ?? [])
    if (component.type === "button" && component.sub_type === "order_details")
      return component.parameters[0].action.order_details;
  return null;
}

interface ExistingClaim {
  id: string;
  state: string;
  updated_at: Date;
  abandoned: boolean;
  provider_called: boolean;
  settleable_in: number;
}

/** `owner_gone` and `stale` of idempotency-existing, on a claim row ($me: this process, $stale: ms). */
function abandonedSql(alias: string, me: string, stale: string): string {
  return `(${alias}.updated_at < now() - make_interval(secs => ${stale} / 1000.0)
     OR (${alias}.claim_owner IS NOT NULL AND ${alias}.claim_owner IS DISTINCT FROM ${me}::uuid
         AND (l.expires_at IS NULL OR l.expires_at <= now())))`;
}

const CLAIM_ORDER = `
INSERT INTO orders (account_id, reference_id, state, phone_number_id, recipient, template_name, language, goods_type,
  items, subtotal, tax, total_amount, payment_settings, client_ref, claim_owner, claim_request_id)
VALUES ($1::uuid, $2, 'claimed', $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12::jsonb, $13,
  (SELECT owner FROM process_leases WHERE owner = $14::uuid AND expires_at > now()), $15)
ON CONFLICT (account_id, reference_id) DO NOTHING
RETURNING id::text`;

const EXISTING_ORDER = `
SELECT o.id::text, o.state, o.updated_at, ${abandonedSql("o", "$3", "$4")} AS abandoned,
  o.provider_called_at IS NOT NULL AS provider_called, 0 AS settleable_in
FROM orders o LEFT JOIN process_leases l ON l.owner = o.claim_owner
WHERE o.account_id = $1::uuid AND o.reference_id = $2`;

/** 409 order_reference_taken; the unconfirmed variant says why the reference stays taken. */
function referenceTaken(unconfirmed: boolean): ApiError {
  return new ApiError(
    "order_reference_taken",
    unconfirmed
      ? {
          message:
            "Esta reference_id foi usada por um envio de pedido que o provedor não confirmou; ela continua reservada e nada foi enviado. Use uma referência nova para um novo pedido.",
        }
      : {},
  );
}

/** Claim the order's reference before Meta (design §1.2): exactly one live claim per (account, reference_id). */
async function claimCreation(
  deps: ClaimDeps,
  input: ClaimInput & { phoneNumberId: string; templateName: string; language: string },
  details: GraphOrderDetails,
): Promise<OrderClaim> {
  const { sql } = deps.db;
  const claims = deps.orderClaims ?? DEFAULT_CLAIMS;
  const items = details.order.items.map((item) => ({
    name: item.name,
    amount: item.amount.value,
    quantity: item.quantity,
    retailer_id: item.retailer_id ?? null,
  }));
  for (let round = 0; round < 3; round++) {
    const inserted = await sql.query<{ id: string }>({
      name: "order-claim",
      text: CLAIM_ORDER,
      values: [
        input.accountId,
        details.reference_id,
        input.phoneNumberId,
        input.to,
        input.templateName,
        input.language,
        details.type,
        JSON.stringify(items),
        details.order.subtotal.value,
        details.order.tax.value,
        details.total_amount.value,
        JSON.stringify(details.payment_settings),
        input.clientRef ?? null,
        claims.owner,
        input.requestId,
      ],
    });
    const id = inserted.rows[0]?.id;
    if (id !== undefined) return creationClaim(sql, id);
    const { rows } = await sql.query<ExistingClaim>({
      name: "order-claim-existing",
      text: EXISTING_ORDER,
      values: [input.accountId, details.reference_id, claims.owner, claims.staleAfterMs],
    });
    const existing = rows[0];
    if (!existing) continue; // freed between our insert and read
    if (existing.state !== "claimed" || !existing.abandoned) throw referenceTaken(existing.state === "unconfirmed");
    if (existing.provider_called) {
      // The claiming send may have gone out: Meta may hold this reference, so it stays taken.
      await sql.query({
        name: "order-claim-settle-abandoned",
        text: `UPDATE orders SET state = 'unconfirmed', claim_owner = NULL, updated_at = now()
          WHERE id = $1::bigint AND state = 'claimed' AND updated_at = $2`,
        values: [existing.id, existing.updated_at],
      });
      throw referenceTaken(true);
    }
    await sql.query({
      name: "order-claim-free-abandoned",
      text: `DELETE FROM orders WHERE id = $1::bigint AND state = 'claimed' AND updated_at = $2`,
      values: [existing.id, existing.updated_at],
    });
  }
  throw referenceTaken(false);
}

function creationClaim(sql: Sql, id: string): OrderClaim {
  return {
    accepted: { kind: "create", orderId: id },
    async mark() {
      const { rowCount } = await sql.query({
        name: "order-claim-mark",
        text: `UPDATE orders SET provider_called_at = now(), updated_at = now() WHERE id = $1::bigint AND state = 'claimed'`,
        values: [id],
      });
      if (rowCount !== 1) throw referenceTaken(false);
    },
    async settle(providerCalled, _error, confirmedRefusal) {
      await sql.query(
        providerCalled && !confirmedRefusal
          ? {
              name: "order-claim-unconfirmed",
              text: `UPDATE orders SET state = 'unconfirmed', claim_owner = NULL, updated_at = now()
                WHERE id = $1::bigint AND state = 'claimed'`,
              values: [id],
            }
          : {
              name: "order-claim-release",
              text: `DELETE FROM orders WHERE id = $1::bigint AND state = 'claimed'`,
              values: [id],
            },
      );
    },
  };
}

const CLAIM_STATUS = `
WITH claim AS (
  INSERT INTO order_messages (order_id, kind, state, order_status, payment_status, payment_timestamp, description,
    body_text, actor, request_id, claim_owner, template_name)
  VALUES ($1::bigint, 'order_status', 'claimed', $2, $3, $4, $5, $6, $7, $8,
    (SELECT owner FROM process_leases WHERE owner = $9::uuid AND expires_at > now()), $10)
  ON CONFLICT (order_id) WHERE state = 'claimed' DO NOTHING
  RETURNING id)
SELECT (SELECT id::text FROM claim) AS claim_id, o.order_status, o.payment_status,
  COALESCE((SELECT m.status = 'failed' FROM order_messages h JOIN messages m ON m.wamid = h.wamid
    WHERE h.order_id = o.id AND h.kind = 'order_status' AND h.state = 'accepted'
    ORDER BY h.id DESC LIMIT 1), false) AS last_failed
FROM orders o WHERE o.id = $1::bigint`;

const EXISTING_STATUS_CLAIM = `
SELECT c.id::text, c.state, c.updated_at, ${abandonedSql("c", "$2", "$3")} AS abandoned,
  c.provider_called_at IS NOT NULL AS provider_called,
  GREATEST(1, ceil(extract(epoch FROM
    LEAST(c.updated_at + make_interval(secs => $3 / 1000.0), l.expires_at) - now())))::int AS settleable_in
FROM order_messages c LEFT JOIN process_leases l ON l.owner = c.claim_owner
WHERE c.order_id = $1::bigint AND c.state = 'claimed'`;

/** Claim the order's one status update in flight (design §4.3), then check the transition from its current state. */
async function claimStatus(
  deps: ClaimDeps,
  input: ClaimInput & { order: OrderStatusLink },
  content: OrderStatusContent,
): Promise<OrderClaim> {
  const { sql } = deps.db;
  const claims = deps.orderClaims ?? DEFAULT_CLAIMS;
  const { orderId } = input.order;
  for (let round = 0; round < 3; round++) {
    const { rows } = await sql.query<{
      claim_id: string | null;
      order_status: OrderStatusValue;
      payment_status: PaymentStatusValue;
      last_failed: boolean;
    }>({
      name: "order-status-claim",
      text: CLAIM_STATUS,
      values: [
        orderId,
        content.orderStatus,
        content.paymentStatus ?? null,
        content.paymentTimestamp ?? null,
        content.description ?? null,
        content.text,
        input.actor.id,
        input.requestId,
        claims.owner,
        content.template?.name ?? null,
      ],
    });
    const row = rows[0];
    if (!row) throw new ApiError("not_found");
    if (row.claim_id !== null) {
      const claim = statusClaim(sql, row.claim_id, {
        kind: "status",
        orderId,
        claimId: row.claim_id,
        referenceId: content.referenceId,
        orderStatus: content.orderStatus,
        paymentStatus: content.paymentStatus ?? row.payment_status,
      });
      try {
        input.order.check({ orderStatus: row.order_status, paymentStatus: row.payment_status }, row.last_failed);
      } catch (error) {
        await claim.settle(false, error, true);
        throw error;
      }
      return claim;
    }
    const existing = (
      await sql.query<ExistingClaim>({
        name: "order-status-claim-existing",
        text: EXISTING_STATUS_CLAIM,
        values: [orderId, claims.owner, claims.staleAfterMs],
      })
    ).rows[0];
    if (!existing) continue; // settled between our insert and read
    if (!existing.abandoned)
      throw new ApiError("order_update_in_flight", { retryAfterSeconds: Math.max(1, existing.settleable_in) });
    await sql.query(
      existing.provider_called
        ? {
            name: "order-status-claim-settle-abandoned",
            text: `UPDATE order_messages SET state = 'unconfirmed', claim_owner = NULL, updated_at = now()
              WHERE id = $1::bigint AND state = 'claimed' AND updated_at = $2`,
            values: [existing.id, existing.updated_at],
          }
        : {
            name: "order-status-claim-free-abandoned",
            text: `DELETE FROM order_messages WHERE id = $1::bigint AND state = 'claimed' AND updated_at = $2`,
            values: [existing.id, existing.updated_at],
          },
    );
  }
  throw new ApiError("order_update_in_flight", { retryAfterSeconds: 1 });
}

function statusClaim(sql: Sql, id: string, accepted: AcceptedOrder): OrderClaim {
  return {
    accepted,
    async mark() {
      const { rowCount } = await sql.query({
        name: "order-status-claim-mark",
        text: `UPDATE order_messages SET provider_called_at = now(), updated_at = now()
          WHERE id = $1::bigint AND state = 'claimed'`,
        values: [id],
      });
      if (rowCount !== 1) throw new ApiError("order_update_in_flight", { retryAfterSeconds: 1 });
    },
    async settle(providerCalled, _error, confirmedRefusal) {
      await sql.query(
        providerCalled && !confirmedRefusal
          ? {
              name: "order-status-claim-unconfirmed",
              text: `UPDATE order_messages SET state = 'unconfirmed', claim_owner = NULL, updated_at = now()
                WHERE id = $1::bigint AND state = 'claimed'`,
              values: [id],
            }
          : {
              name: "order-status-claim-release",
              text: `DELETE FROM order_messages WHERE id = $1::bigint AND state = 'claimed'`,
              values: [id],
            },
      );
    },
  };
}

/** What of a send's content the claim reads (send.ts's MessageContent fits it). */
type ClaimContent =
  | OrderStatusContent
  | { kind: "template"; name: string; language: string }
  | { kind: "text" | "interactive" | "media" | "reaction" | "location" };

/**
 * The order claim of a send, if it has one: a template send carrying an order_details button (a Pix send) claims its
 * reference; an `order_status` send claims the order's status update. Called once the payload is built (invalid Pix
 * input refuses first), before the number's turn and the provider mark.
 */
export async function claimOrder(
  deps: ClaimDeps,
  input: ClaimInput,
  content: ClaimContent,
  payload: GraphMessagePayload,
  phoneNumberId: string,
): Promise<OrderClaim | null> {
  if (content.kind === "order_status") {
    if (!input.order) throw new Error("an order_status send needs its order");
    return claimStatus(deps, { ...input, order: input.order }, content);
  }
  const details = orderDetailsOf(payload);
  if (!details || content.kind !== "template") return null;
  return claimCreation(
    deps,
    { ...input, phoneNumberId, templateName: content.name, language: content.language },
    details,
  );
}

/** A claim settled after a failed send; its own failure is logged, never masks the send's. */
export async function settleOrderClaim(
  claim: OrderClaim | null,
  providerCalled: boolean,
  error: unknown,
  confirmedRefusal: boolean,
  logger: { error(message: string, meta?: object): void },
): Promise<void> {
  if (!claim) return;
  await claim
    .settle(providerCalled, error, confirmedRefusal)
    .catch((e: unknown) => logger.error("could not settle the order claim", { error: e }));
}

/** The answer's order member of an accepted status send. */
export function orderAnswer(order: AcceptedOrder | undefined): { order: AcceptedOrderAnswer } | Record<string, never> {
  if (order?.kind !== "status") return {};
  return {
    order: { referenceId: order.referenceId, orderStatus: order.orderStatus, paymentStatus: order.paymentStatus },
  };
}

const OPEN_ORDER = `
WITH opened AS (
  UPDATE orders SET state = 'open', message_wamid = $2, opened_at = now(), updated_at = now(), claim_owner = NULL
  WHERE id = $1::bigint AND state IN ('claimed', 'unconfirmed')
  RETURNING id, template_name)
INSERT INTO order_messages (order_id, kind, state, wamid, order_status, payment_status, body_text, actor, request_id,
  accepted_at)
SELECT id, 'order_details', 'accepted', $2, 'pending', 'pending', template_name, $3, $4, now() FROM opened
RETURNING order_id::text`;

const APPLY_STATUS = `
WITH acc AS (
  UPDATE order_messages SET state = 'accepted', wamid = $2, accepted_at = now(), claim_owner = NULL, updated_at = now()
  WHERE id = $1::bigint AND state IN ('claimed', 'unconfirmed')
  RETURNING *)
UPDATE orders o SET order_status = a.order_status, payment_status = COALESCE(a.payment_status, o.payment_status),
  payment_timestamp = COALESCE(a.payment_timestamp, o.payment_timestamp), description = a.description,
  updated_at = now()
FROM acc a
WHERE o.id = a.order_id
  AND NOT EXISTS (SELECT 1 FROM order_messages l WHERE l.order_id = a.order_id AND l.id > a.id AND l.state = 'accepted')
RETURNING o.id::text`;

/**
 * Inside the accepted send's transaction: open the order its order_details message created, or apply the accepted
 * order_status message (the order moves unless a later update was accepted first: a late journal replay enters
 * history only). Idempotent, so a journal replay is a no-op. Returns the id of the order that moved, if any.
 */
export async function recordAcceptedOrder(
  sql: Sql,
  send: { wamid: string; actor: string; requestId: string; order: AcceptedOrder },
): Promise<string | null> {
  const { order } = send;
  if (order.kind === "create") {
    await sql.query({
      name: "order-open",
      text: OPEN_ORDER,
      values: [order.orderId, send.wamid, send.actor, send.requestId],
    });
    return null;
  }
  const moved = await sql.query<{ id: string }>({
    name: "order-apply-status",
    text: APPLY_STATUS,
    values: [order.claimId, send.wamid],
  });
  return moved.rows[0]?.id ?? null;
}
