import { randomBytes } from "node:crypto";
import { z } from "zod";
import { MetaError, type GraphResult } from "./graph/errors.ts";
import { validateOrderDetails, type PaymentMethod } from "./graph/order-details.ts";
import {
  checkOrderStatus,
  checkOrderStatusComponent,
  type OrderStatus,
  type OrderStatusMessage,
  type PaymentStatus,
} from "./graph/order-status.ts";
import { sendInbound, type InboundSent } from "./inbound.ts";
import { isRecord, type JsonRecord } from "./json.ts";
import { digitsOf, type SandboxState, type SandboxUser } from "./state.ts";
import {
  BSUID_PATTERN,
  PARENT_BSUID_PATTERN,
  PHONE_PATTERN,
  portfolioOf,
  USERNAME_PATTERN,
  userForPhone,
  userIdOf,
} from "./users.ts";

/*
 * Brazil payments orders (meta-2026 §6): what each customer's order card shows. An order is kept per business
 * portfolio and reference_id once an `order_details` (interactive message or order-details template button) is
 * accepted; each accepted `order_status` (interactive message, or the `order_status` component of an order-status
 * template: meta-late-2026 §1) moves it. Checks run while the send is validated (`checkOrderMessage`, after the
 * type's own checks and before the 24 h window, which binds the interactive form only); the change is applied only
 * when the answer is an acceptance (`settleOrderPlan`, around the send's handler), so a refused send leaves the card
 * as it was.
 */

/**
 * Which form carried an order message: an interactive message (`template` null) or a template (its name). The
 * order_details entry says it too: the Pix template's button is `template` with the template's name, the interactive
 * order_details `interactive`.
 */
export interface OrderMessageForm {
  form: "interactive" | "template";
  template: string | null;
}

/** One accepted message of an order, oldest first. */
export interface OrderHistoryEntry extends OrderMessageForm {
  wamid: string;
  type: "order_details" | "order_status";
  order_status: OrderStatus;
  /** Null: the order_status message had no `payment` object (never one in the template form). */
  payment_status: PaymentStatus | null;
  /** ISO 8601. */
  at: string;
}

export interface SandboxOrder {
  portfolioId: string;
  referenceId: string;
  /** The number the order_details left from. */
  phoneNumberId: string;
  /** The customer's user key (`users.ts`); a phone user registered later is found through its phone. */
  userKey: string;
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus;
  paymentTimestamp: number | null;
  /** The description of the latest order_status message (null when it had none). */
  description: string | null;
  paymentMethods: PaymentMethod[];
  totalAmount: number;
  history: OrderHistoryEntry[];
}

/** What the send being checked does to an order, once accepted. */
export type OrderPlan =
  | { kind: "create"; order: Omit<SandboxOrder, "history">; carrier: OrderMessageForm }
  | { kind: "status"; key: string; message: OrderStatusMessage; carrier: OrderMessageForm };

/** Ladder ranks; `canceled` is off the ladder. */
const RANK: Record<Exclude<OrderStatus, "canceled">, number> = {
  pending: 0,
  processing: 1,
  "partially-shipped": 2,
  shipped: 3,
  completed: 4,
};
const TERMINAL: readonly OrderStatus[] = ["completed", "canceled"];

function orderKey(portfolioId: string, referenceId: string): string {
  return `${portfolioId} ${referenceId}`;
}

const lower = (value: unknown): string | undefined => (typeof value === "string" ? value.toLowerCase() : undefined);

/** The name of a template send (validated already). */
function templateNameOf(body: JsonRecord): string | null {
  return isRecord(body.template) && typeof body.template.name === "string" ? body.template.name : null;
}

/**
 * The order_status a send carries, with its form: the interactive message, or the `order_status` component of an
 * order-status template. Both were validated by the type's checks already; read again here.
 */
function orderStatusOf(body: JsonRecord): { message: OrderStatusMessage; carrier: OrderMessageForm } | undefined {
  const { interactive, template } = body;
  if (body.type === "interactive" && isRecord(interactive) && interactive.type === "order_status")
    return { message: checkOrderStatus(interactive), carrier: { form: "interactive", template: null } };
  if (body.type !== "template" || !isRecord(template) || !Array.isArray(template.components)) return undefined;
  for (const component of template.components as unknown[]) {
    if (!isRecord(component) || lower(component.type) !== "order_status") continue;
    const parameters: unknown[] = Array.isArray(component.parameters) ? component.parameters : [];
    return {
      message: checkOrderStatusComponent(parameters),
      carrier: { form: "template", template: templateNameOf(body) },
    };
  }
  return undefined;
}

/** The order_details object of a send: an interactive message's parameters, or a template button's action. */
function orderDetailsOf(body: JsonRecord): unknown {
  const { interactive, template } = body;
  if (body.type === "interactive" && isRecord(interactive) && interactive.type === "order_details")
    return isRecord(interactive.action) ? interactive.action.parameters : undefined;
  if (body.type !== "template" || !isRecord(template) || !Array.isArray(template.components)) return undefined;
  for (const component of template.components as unknown[]) {
    if (!isRecord(component) || lower(component.type) !== "button" || lower(component.sub_type) !== "order_details")
      continue;
    const param: unknown = Array.isArray(component.parameters) ? component.parameters[0] : undefined;
    if (isRecord(param) && isRecord(param.action)) return param.action.order_details;
  }
  return undefined;
}

/** The user an order belongs to now (a phone user may have been registered since). */
function orderUser(state: SandboxState, order: SandboxOrder): SandboxUser | undefined {
  return (
    state.users.get(order.userKey) ?? (/^\d+$/.test(order.userKey) ? userForPhone(state, order.userKey) : undefined)
  );
}

/** Whether `paymentsUnsupported` names the recipient: by the send's `to` or `recipient`, its phone or its BSUID. */
function paymentsUnsupported(state: SandboxState, phoneNumberId: string, user: SandboxUser, body: JsonRecord): boolean {
  const list = state.config.paymentsUnsupported;
  if (list.length === 0) return false;
  const names = [
    typeof body.to === "string" ? digitsOf(body.to) : undefined,
    user.phone,
    userIdOf(user, portfolioOf(state, phoneNumberId)),
    typeof body.recipient === "string" ? body.recipient : undefined,
  ];
  return names.some((name) => name !== undefined && list.includes(name));
}

/** Meta's transition rules as the sandbox applies them (2046, then 2047). */
function checkTransition(order: SandboxOrder, message: OrderStatusMessage): void {
  const from = order.orderStatus;
  const to = message.orderStatus;
  if (TERMINAL.includes(from))
    throw new MetaError(2046, `order_status: the order ${order.referenceId} is ${from}; no status may follow`);
  if (to === "canceled") {
    const payment = message.paymentStatus ?? order.paymentStatus;
    if (payment !== "failed")
      throw new MetaError(
        2047,
        `order_status: the order ${order.referenceId} cannot be canceled while its payment is ${payment}`,
      );
    return;
  }
  if (from !== "canceled" && RANK[to] < RANK[from])
    throw new MetaError(2046, `order_status: invalid transition from ${from} to ${to}`);
}

/**
 * The order checks of a send, once its type's own checks passed: an order_details needs a reference not yet used in
 * the number's portfolio (131009) and a recipient that takes payments (2040); an order_status, in either form, needs
 * a known reference of the same customer (131009), a valid transition (2046, 2047) and a recipient that takes
 * payments (2040). Leaves in `state.orderPlan` what the send does to the order if it is accepted.
 */
export function checkOrderMessage(
  state: SandboxState,
  phoneNumberId: string,
  user: SandboxUser,
  body: JsonRecord,
): void {
  state.orderPlan = undefined;
  const portfolioId = portfolioOf(state, phoneNumberId);
  const update = orderStatusOf(body);
  if (update) {
    const { message, carrier } = update;
    const key = orderKey(portfolioId, message.referenceId);
    const order = state.orders.get(key);
    if (!order) throw new MetaError(131009, `order_status: unknown reference_id ${message.referenceId}`);
    if (orderUser(state, order)?.key !== user.key)
      throw new MetaError(131009, `order_status: reference_id ${message.referenceId} belongs to another user`);
    checkTransition(order, message);
    if (paymentsUnsupported(state, phoneNumberId, user, body))
      throw new MetaError(2040, "order_status: order and payment messages are not supported for this user");
    state.orderPlan = { kind: "status", key, message, carrier };
    return;
  }
  const details = orderDetailsOf(body);
  if (details === undefined) return;
  // Validated by the type's checks already (a template button with order_details, or the interactive message).
  const summary = validateOrderDetails(details, { requireOrder: false });
  const carrier: OrderMessageForm =
    body.type === "template"
      ? { form: "template", template: templateNameOf(body) }
      : { form: "interactive", template: null };
  if (state.orders.has(orderKey(portfolioId, summary.referenceId)))
    throw new MetaError(131009, `order_details: reference_id ${summary.referenceId} already used`);
  if (paymentsUnsupported(state, phoneNumberId, user, body))
    throw new MetaError(2040, "order_details: order and payment messages are not supported for this user");
  state.orderPlan = {
    kind: "create",
    order: {
      portfolioId,
      referenceId: summary.referenceId,
      phoneNumberId,
      userKey: user.key,
      orderStatus: "pending",
      paymentStatus: "pending",
      paymentTimestamp: null,
      description: null,
      paymentMethods: summary.paymentMethods,
      totalAmount: summary.totalAmount,
    },
    carrier,
  };
}

function wamidOf(body: unknown): string | undefined {
  const first: unknown = isRecord(body) && Array.isArray(body.messages) ? body.messages[0] : undefined;
  return isRecord(first) && typeof first.id === "string" ? first.id : undefined;
}

/**
 * Applies the order plan of the send just handled when it was accepted (also when a fault with `deliver` replaces
 * the answer: the message went out); drops it otherwise. Returns the send's answer unchanged.
 */
export function settleOrderPlan(state: SandboxState, result: GraphResult): GraphResult {
  const plan = state.orderPlan;
  state.orderPlan = undefined;
  const wamid = wamidOf(result.body);
  if (!plan || result.status !== 200 || wamid === undefined) return result;
  const at = new Date(state.now()).toISOString();
  if (plan.kind === "create") {
    const { order } = plan;
    state.orders.set(orderKey(order.portfolioId, order.referenceId), {
      ...order,
      history: [
        { wamid, type: "order_details", order_status: "pending", payment_status: "pending", ...plan.carrier, at },
      ],
    });
    return result;
  }
  const order = state.orders.get(plan.key);
  if (!order) return result;
  const { message } = plan;
  order.orderStatus = message.orderStatus;
  order.paymentStatus = message.paymentStatus ?? order.paymentStatus;
  order.paymentTimestamp = message.paymentTimestamp ?? order.paymentTimestamp;
  order.description = message.description;
  order.history.push({
    wamid,
    type: "order_status",
    order_status: message.orderStatus,
    payment_status: message.paymentStatus,
    ...plan.carrier,
    at,
  });
  return result;
}

/** Query of GET /_sandbox/orders. */
export const ordersQuerySchema = z
  .object({
    reference_id: z.string().min(1).optional(),
    /** The number the order_details left from. */
    phone_number_id: z.string().min(1).optional(),
  })
  .strict();

/** GET /_sandbox/orders: every order (oldest first), or those of a reference and/or a number. */
export function ordersView(state: SandboxState, query: z.infer<typeof ordersQuerySchema>): Record<string, unknown>[] {
  return [...state.orders.values()]
    .filter((order) => query.reference_id === undefined || order.referenceId === query.reference_id)
    .filter((order) => query.phone_number_id === undefined || order.phoneNumberId === query.phone_number_id)
    .map((order) => {
      const user = orderUser(state, order);
      return {
        portfolio_id: order.portfolioId,
        reference_id: order.referenceId,
        phone_number_id: order.phoneNumberId,
        user: { phone: user?.phone ?? null, user_id: user ? userIdOf(user, order.portfolioId) : null },
        // What the customer's order card shows.
        card: { order_status: order.orderStatus, payment_status: order.paymentStatus },
        payment_timestamp: order.paymentTimestamp,
        description: order.description,
        payment_methods: order.paymentMethods,
        total_amount: order.totalAmount,
        history: order.history,
      };
    });
}

const unixSeconds = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)]);

/**
 * Body of POST /_sandbox/payment-method: the customer taps "Send payment" on a one-click card order (meta-2026
 * §6.4). The sender is named by exactly one of `from`, `user_id` or `username`, as in POST /_sandbox/inbound.
 */
export const paymentMethodSchema = z
  .object({
    phone_number_id: z.string().min(1),
    from: z.string().regex(PHONE_PATTERN, "deve ser um número de telefone").optional(),
    user_id: z
      .string()
      .refine((id) => BSUID_PATTERN.test(id) || PARENT_BSUID_PATTERN.test(id), "deve ser um BSUID")
      .optional(),
    username: z.string().regex(USERNAME_PATTERN, "deve ser um nome de usuário do WhatsApp").optional(),
    name: z.string().optional(),
    reference_id: z.string().min(1),
    last_four_digits: z
      .string()
      .regex(/^\d{4}$/, "deve ter 4 dígitos")
      .default("4242"),
    credential_id: z.string().min(1).optional(),
    payment_timestamp: unixSeconds.optional(),
    id: z.string().min(1).optional(),
    timestamp: unixSeconds.optional(),
    waba_id: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    const senders = [input.from, input.user_id, input.username].filter((v) => v !== undefined).length;
    if (senders !== 1)
      ctx.addIssue({ code: "custom", path: ["from"], message: "informe exatamente um de from, user_id ou username" });
  });

/**
 * The customer's payment-method answer as Meta's signed inbound `messages` webhook: `type: "interactive"`,
 * `interactive: {type: "payment_method", payment_method: {payment_method: "offsite_card_pay", payment_timestamp,
 * reference_id, last_four_digits, credential_id}}`; sent like POST /_sandbox/inbound (window, redeliveries). Null
 * when the sender is unknown. The order is not changed: the business charges the credential, then sends
 * order_status.
 */
export function sendPaymentMethod(
  state: SandboxState,
  input: z.infer<typeof paymentMethodSchema>,
): Promise<InboundSent | null> {
  const {
    reference_id: referenceId,
    last_four_digits: lastFour,
    credential_id: credentialId,
    payment_timestamp: paidAt,
    ...sender
  } = input;
  const paymentMethod = {
    payment_method: "offsite_card_pay",
    payment_timestamp: paidAt ?? Math.floor(state.now() / 1000),
    reference_id: referenceId,
    last_four_digits: lastFour,
    credential_id: credentialId ?? `cred_${randomBytes(8).toString("hex")}`,
  };
  return sendInbound(
    state,
    { ...sender, type: "interactive" },
    { interactive: { type: "payment_method", payment_method: paymentMethod } },
  );
}
