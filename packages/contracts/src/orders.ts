import { z } from "zod";
import { urlInt } from "./deliveries.ts";
import { errorResponse } from "./openapi.ts";
import { MESSAGE_STATUSES, ORDER_STATUSES, PAYMENT_STATUSES, REQUESTED_ORDER_STATUSES } from "./statuses.ts";

// Pix orders (issue 28, design-28 §3 and §4): the order kept per reference_id, read with GET /orders and
// /orders/{reference_id}, and moved with POST /orders/{reference_id}/status (an order_status message).

export const ORDERS_MAX_LIMIT = 200;

export const OrderPath = z.object({
  reference_id: z
    .string()
    .min(1)
    .max(64)
    .describe("The order's reference_id, as the Pix send gave it (percent-encoded)"),
});

export const OrdersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional().describe("Only orders in this order status"),
  payment_status: z.enum(PAYMENT_STATUSES).optional().describe("Only orders in this payment status"),
  limit: urlInt(z.int().min(1).max(ORDERS_MAX_LIMIT)).default(50),
  before_id: urlInt(z.int().min(1)).optional().describe("next_before_id of the previous page"),
});

const UNIX_SECONDS_MAX = 2 ** 37;

/** An approved UTILITY template of sub-category ORDER_STATUS that carries the status (Meta's order-status template). */
export const OrderStatusTemplateIn = z
  .object({
    name: z.string().min(1).max(255).describe("The template's name (sub-category ORDER_STATUS, approved)"),
    language: z.string().min(1).max(16).default("pt_BR"),
    variables: z
      .array(z.string())
      .max(20)
      .optional()
      .describe("Filled in order into {{1}}, {{2}}, ... of the template body"),
  })
  .meta({ id: "OrderStatusTemplateIn" });

export const OrderStatusIn = z
  .object({
    order_status: z.enum(REQUESTED_ORDER_STATUSES).describe("The order's new status, shown on the customer's card"),
    payment_status: z
      .enum(PAYMENT_STATUSES)
      .optional()
      .describe("The payment's status as the PSP reports it; absent: no payment object is sent and it is kept"),
    description: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .describe("A note shown with the status (Meta's order.description)"),
    payment_timestamp: z
      .int()
      .min(1)
      .max(UNIX_SECONDS_MAX)
      .optional()
      .describe("When the payment happened, Unix seconds; only with payment_status"),
    text: z.string().min(1).max(1024).optional().describe("The message body; default a Portuguese sentence per status"),
    template: OrderStatusTemplateIn.optional().describe(
      "Send the status as Meta's order-status template instead of the interactive `order_status` message: needed outside the customer's 24-hour window, allowed inside it. The template form carries the order's status and `description` only: no `payment_status`, `payment_timestamp` or `text`",
    ),
  })
  .superRefine((body, ctx) => {
    if (body.payment_timestamp !== undefined && body.payment_status === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["payment_timestamp"],
        message: "payment_timestamp só pode ser informado junto com payment_status.",
      });
    if (body.template === undefined) return;
    // Meta's order-status template has no payment object and its body is the template's (docs/decisions.md).
    for (const field of ["payment_status", "payment_timestamp", "text"] as const)
      if (body[field] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: `${field} não vai no modelo de status do pedido (template): envie-o sem template, com a janela de 24 horas aberta.`,
        });
  })
  .meta({
    id: "OrderStatusIn",
    examples: [
      {
        order_status: "processing",
        payment_status: "captured",
        payment_timestamp: 1780001000,
        description: "Separando os itens",
      },
      { order_status: "shipped", description: "Enviado pelos Correios" },
      { order_status: "canceled", payment_status: "failed" },
      {
        order_status: "completed",
        description: "Pedido entregue",
        template: { name: "status_do_pedido", language: "pt_BR", variables: ["Maria"] },
      },
    ],
  });

const MessageErrorOut = z.object({
  code: z.int().nullable(),
  message: z.string().nullable(),
  reason: z.string().nullable(),
});

export const OrderHistoryEntryOut = z
  .object({
    message_id: z.string().describe("The message's id (as in message.status)"),
    kind: z.enum(["order_details", "order_status"]),
    form: z
      .enum(["interactive", "template"])
      .describe(
        "What carried it: the interactive message, or a template (the Pix send's order_details, or an order-status template)",
      ),
    template: z
      .string()
      .nullable()
      .describe("The template's name when a template carried it (the Pix send's, or the order-status template)"),
    order_status: z.enum(ORDER_STATUSES),
    payment_status: z.enum(PAYMENT_STATUSES).nullable().describe("Null: the message carried no payment object"),
    payment_timestamp: z.int().nullable(),
    description: z.string().nullable(),
    sent_at: z.string().describe("When the provider accepted the message (ISO 8601)"),
    origin: z.enum(["api", "panel"]),
    message_status: z
      .enum(MESSAGE_STATUSES)
      .nullable()
      .describe("The provider's last status of the message; null until it reports one"),
    error: MessageErrorOut.nullable().describe("Only when message_status is failed"),
  })
  .meta({ id: "OrderHistoryEntryOut" });

const orderFields = {
  id: z.int().describe("The order's id; the list's cursor"),
  reference_id: z.string(),
  phone_number_id: z.string().describe("The number the order was sent from; its status messages leave from it"),
  to: z.string().describe("The customer as the Pix send named them: phone digits or a BSUID"),
  order_status: z.enum(ORDER_STATUSES),
  payment_status: z.enum(PAYMENT_STATUSES),
  payment_timestamp: z.int().nullable(),
  description: z.string().nullable(),
  goods_type: z.string(),
  currency: z.literal("BRL"),
  template: z.string(),
  client_ref: z.string().nullable(),
  items: z.array(
    z.object({
      name: z.string(),
      amount: z.int().describe("Unit amount, cents"),
      quantity: z.int(),
      retailer_id: z.string().nullable(),
    }),
  ),
  subtotal: z.int().describe("Cents"),
  tax: z.int().describe("Cents"),
  total_amount: z.int().describe("Cents"),
  payment_methods: z.array(z.enum(["pix", "payment_link", "boleto"])).describe("The payment methods offered"),
  message_id: z.string().describe("The order_details message"),
  created_at: z.string(),
  updated_at: z.string(),
};

export const OrderSummaryOut = z.object(orderFields).meta({ id: "OrderSummaryOut" });
export const OrderOut = z
  .object({ ...orderFields, history: z.array(OrderHistoryEntryOut).describe("Oldest first") })
  .meta({ id: "OrderOut" });

export const OrderDetailOut = z.object({ success: z.literal(true), data: OrderOut }).meta({ id: "OrderDetailOut" });

export const OrderListOut = z
  .object({
    success: z.literal(true),
    data: z.object({ orders: z.array(OrderSummaryOut), next_before_id: z.int().nullable() }),
  })
  .meta({ id: "OrderListOut" });

export const OrderStatusUpdateOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      reference_id: z.string(),
      message_id: z.string().describe("The order_status message; its statuses arrive as message.status"),
      order_status: z.enum(ORDER_STATUSES),
      payment_status: z.enum(PAYMENT_STATUSES),
      to: z.string(),
      phone_number_id: z.string(),
    }),
  })
  .meta({ id: "OrderStatusUpdateOut" });

export const orderNotFound = errorResponse("No order with this reference_id in this account.", ["not_found"]);

export type OrderOutput = z.infer<typeof OrderOut>;
export type OrderSummaryOutput = z.infer<typeof OrderSummaryOut>;
export type OrderStatusUpdateOut = z.infer<typeof OrderStatusUpdateOut>;
