import { charLength, isInteger, isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import { MetaError } from "./errors.ts";

/*
 * An order's new status, in either of Meta's two forms:
 * - the interactive `order_status` message (meta-2026 §6.3): `body.text`, `action.name: review_order`,
 *   `action.parameters {reference_id, order {status, description?}, payment? {status, timestamp?}}`;
 * - the `order_status` component of an order-status template (meta-late-2026 §1; partners' nesting, Meta's page is
 *   unverified): `{type: "order_status", parameters: [{type: "order_status", order_status: {reference_id, order
 *   {status, description?}}}]}`, with no payment.
 * Their shape is checked here (131008 for a missing member, 131009 for a bad value, details prefixed `order_status:`
 * so the gateway can tell them from the integrator's Pix errors); the order they name is checked in `orders.ts`.
 */

/** Meta's order status values, hyphenated as Meta spells them; `canceled` is off the ladder. */
export const ORDER_STATUSES = [
  "pending",
  "processing",
  "partially-shipped",
  "shipped",
  "completed",
  "canceled",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_STATUSES = ["pending", "captured", "failed"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const BODY_MAX = 1024;
const DESCRIPTION_MAX = 120;

/** An order_status message, as read from a valid `interactive`. */
export interface OrderStatusMessage {
  referenceId: string;
  orderStatus: OrderStatus;
  description: string | null;
  /** Null: no `payment` object (the card keeps its payment status). */
  paymentStatus: PaymentStatus | null;
  paymentTimestamp: number | null;
}

function missing(what: string): MetaError {
  return new MetaError(131008, `order_status: ${what} is required`);
}

function invalid(details: string): MetaError {
  return new MetaError(131009, `order_status: ${details}`);
}

function oneOf<T extends string>(values: readonly T[], value: unknown, field: string): T {
  const found = values.find((v) => v === value);
  if (found === undefined) throw invalid(`${field} must be one of ${values.join(", ")}; got ${shown(value)}`);
  return found;
}

/** The part both forms share: `reference_id` and `order {status, description?}`. */
type OrderUpdate = Pick<OrderStatusMessage, "referenceId" | "orderStatus" | "description">;

function readOrderUpdate(parameters: JsonRecord): OrderUpdate {
  if (parameters.reference_id === undefined) throw missing("reference_id");
  if (!nonEmptyString(parameters.reference_id)) throw invalid("reference_id must be a non-empty string");
  const order = parameters.order;
  if (!isRecord(order) || order.status === undefined) throw missing("order.status");
  const orderStatus = oneOf(ORDER_STATUSES, order.status, "order.status");
  let description: string | null = null;
  if (order.description !== undefined) {
    if (typeof order.description !== "string" || charLength(order.description) > DESCRIPTION_MAX)
      throw invalid(`order.description must be a string of at most ${DESCRIPTION_MAX} characters`);
    description = order.description;
  }
  return { referenceId: parameters.reference_id, orderStatus, description };
}

/** Validates an `order_status` interactive object like Meta does and reads it. */
export function checkOrderStatus(interactive: JsonRecord): OrderStatusMessage {
  const body = interactive.body;
  if (!isRecord(body) || body.text === undefined) throw missing("interactive['body']['text']");
  if (!nonEmptyString(body.text) || charLength(body.text) > BODY_MAX)
    throw invalid(`body text length invalid. Min length: 1, Max length: ${BODY_MAX}`);
  const action = interactive.action;
  if (!isRecord(action)) throw missing("interactive['action']");
  if (action.name !== "review_order") throw invalid(`action name must be review_order; got ${shown(action.name)}`);
  const parameters = action.parameters;
  if (!isRecord(parameters)) throw missing("interactive['action']['parameters']");
  const update = readOrderUpdate(parameters);
  const payment = parameters.payment;
  if (payment === undefined) return { ...update, paymentStatus: null, paymentTimestamp: null };
  if (!isRecord(payment) || payment.status === undefined) throw missing("payment.status");
  const paymentStatus = oneOf(PAYMENT_STATUSES, payment.status, "payment.status");
  if (payment.timestamp !== undefined && (!isInteger(payment.timestamp) || payment.timestamp < 0))
    throw invalid("payment.timestamp must be a Unix timestamp in seconds (integer)");
  return { ...update, paymentStatus, paymentTimestamp: payment.timestamp ?? null };
}

const TEMPLATE_MEMBERS = ["reference_id", "order"];
const TEMPLATE_ORDER_MEMBERS = ["status", "description"];

/** Members of `record` outside `allowed`, for a 131009 naming them. */
function extraMembers(record: JsonRecord, allowed: readonly string[]): string[] {
  return Object.keys(record).filter((key) => !allowed.includes(key));
}

/**
 * Validates the `order_status` component of an order-status template send (its `parameters` as sent) and reads it.
 * The template form carries the order's status only: a `payment` (or any other member) is refused with 131009, so a
 * payment change needs the interactive form, inside the window.
 */
export function checkOrderStatusComponent(parameters: readonly unknown[]): OrderStatusMessage {
  const [param, ...others] = parameters;
  if (param === undefined) throw missing("a parameter of type order_status");
  if (others.length > 0) throw invalid("the order_status component takes exactly one parameter");
  if (!isRecord(param) || param.type !== "order_status")
    throw invalid(`the parameter type must be order_status; got ${shown(isRecord(param) ? param.type : param)}`);
  const content = param.order_status;
  if (!isRecord(content)) throw missing("parameters[0]['order_status']");
  if (content.payment !== undefined)
    throw invalid("payment is not allowed in the template form: an order-status template carries no payment");
  const extra = extraMembers(content, TEMPLATE_MEMBERS);
  if (extra.length > 0) throw invalid(`unexpected member(s) ${extra.join(", ")} in order_status`);
  const update = readOrderUpdate(content);
  const extraInOrder = isRecord(content.order) ? extraMembers(content.order, TEMPLATE_ORDER_MEMBERS) : [];
  if (extraInOrder.length > 0) throw invalid(`unexpected member(s) ${extraInOrder.join(", ")} in order`);
  return { ...update, paymentStatus: null, paymentTimestamp: null };
}
