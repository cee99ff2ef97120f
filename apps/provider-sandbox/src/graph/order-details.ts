import { isInteger, isRecord, nonEmptyString, type JsonRecord } from "../json.ts";
import { MetaError } from "./errors.ts";

const KEY_TYPES = new Set(["CPF", "CNPJ", "EMAIL", "PHONE", "EVP"]);
const GOODS_TYPES = new Set(["digital-goods", "physical-goods"]);

function invalid(details: string): MetaError {
  // Every Pix refusal is 131009 and names order_details, so the gateway can tell it from other parameter errors.
  return new MetaError(131009, `order_details: ${details}`);
}

/** A `{value, offset}` amount in BRL cents; Meta requires offset 100 for BRL. */
function amount(value: unknown, field: string, required: boolean): number | undefined {
  if (value === undefined && !required) return undefined;
  if (!isRecord(value) || !isInteger(value.value) || value.value < 0 || value.offset !== 100) {
    throw invalid(`${field} must be an object {value: non-negative integer, offset: 100}`);
  }
  return value.value;
}

/** What the sandbox keeps of a valid order_details: the reference, the methods offered and the total (cents). */
export interface OrderDetailsSummary {
  referenceId: string;
  paymentMethods: PaymentMethod[];
  totalAmount: number;
}

/**
 * Validates the Pix order of an order-details template button (`action.order_details`) or of an interactive
 * `order_details` message (`action.parameters`), following Meta's BR payments payload (reference E.6/E.7,
 * meta-2026 §6.2). `order.items` is required for templates; an interactive message may use Meta's simplified form
 * without `order`.
 */
export function validateOrderDetails(input: unknown, options: { requireOrder: boolean }): OrderDetailsSummary {
  if (!isRecord(input)) throw invalid("an order_details object is required");
  if (!nonEmptyString(input.reference_id)) throw invalid("reference_id is required");
  if (typeof input.type !== "string" || !GOODS_TYPES.has(input.type))
    throw invalid("type must be digital-goods or physical-goods");
  if (input.payment_type !== "br") throw invalid("payment_type must be br");
  const paymentMethods = validatePaymentSettings(input.payment_settings);
  if (input.currency !== "BRL") throw invalid("currency must be BRL");
  const totalAmount = amount(input.total_amount, "total_amount", true) ?? 0;
  const summary = { referenceId: input.reference_id, paymentMethods, totalAmount };
  if (input.order === undefined && !options.requireOrder) return summary;
  validateOrder(input.order, totalAmount);
  return summary;
}

export const PAYMENT_METHODS = ["pix_dynamic_code", "payment_link", "boleto", "offsite_card_pay"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/**
 * `payment_settings`: one to four entries, at most one of each type, in any order (Meta's list type implies
 * several methods in one order; no Meta example shows it: meta-2026 App. B 10). Returns the types, in order.
 */
function validatePaymentSettings(settings: unknown): PaymentMethod[] {
  if (!Array.isArray(settings) || settings.length === 0)
    throw invalid("payment_settings must have at least one entry (pix_dynamic_code, payment_link, boleto)");
  const methods: PaymentMethod[] = [];
  settings.forEach((entry: unknown, i: number) => {
    const type = isRecord(entry) ? PAYMENT_METHODS.find((t) => t === entry.type) : undefined;
    if (!isRecord(entry) || type === undefined)
      throw invalid(`payment_settings[${i}].type must be one of ${PAYMENT_METHODS.join(", ")}`);
    if (methods.includes(type)) throw invalid(`payment_settings[${i}]: ${type} is given twice`);
    const setting = entry[type];
    if (!isRecord(setting)) throw invalid(`payment_settings[${i}] must be {type: ${type}, ${type}: {...}}`);
    SETTING_CHECKS[type](setting);
    methods.push(type);
  });
  return methods;
}

const SETTING_CHECKS: Record<PaymentMethod, (setting: JsonRecord) => void> = {
  pix_dynamic_code(pix) {
    for (const field of ["code", "merchant_name", "key"] as const) {
      if (!nonEmptyString(pix[field])) throw invalid(`pix_dynamic_code.${field} is required`);
    }
    if (typeof pix.key_type !== "string" || !KEY_TYPES.has(pix.key_type)) {
      throw invalid("pix_dynamic_code.key_type must be one of CPF, CNPJ, EMAIL, PHONE, EVP");
    }
  },
  payment_link(link) {
    if (!nonEmptyString(link.uri) || !/^https?:\/\/\S+$/i.test(link.uri))
      throw invalid("payment_link.uri must be an http or https URL");
  },
  boleto(boleto) {
    // A bank boleto's digitable line has 47 digits, a collection (convênio) boleto's 48.
    if (typeof boleto.digitable_line !== "string" || !/^\d{47,48}$/.test(boleto.digitable_line))
      throw invalid("boleto.digitable_line must have 47 or 48 digits");
  },
  offsite_card_pay(card) {
    if (typeof card.last_four_digits !== "string" || !/^\d{4}$/.test(card.last_four_digits))
      throw invalid("offsite_card_pay.last_four_digits must have 4 digits");
    if (!nonEmptyString(card.credential_id)) throw invalid("offsite_card_pay.credential_id is required");
  },
};

function validateOrder(order: unknown, total: number): void {
  if (!isRecord(order)) throw invalid("order with items is required");
  if (order.status !== undefined && order.status !== "pending") throw invalid("order.status must be pending");
  if (!Array.isArray(order.items) || order.items.length === 0) throw invalid("order.items must have at least one item");
  let itemsTotal = 0;
  order.items.forEach((item: unknown, i: number) => {
    if (!isRecord(item) || !nonEmptyString(item.name)) throw invalid(`order.items[${i}].name is required`);
    const unit = amount(item.amount, `order.items[${i}].amount`, true) ?? 0;
    if (!isInteger(item.quantity) || item.quantity < 1)
      throw invalid(`order.items[${i}].quantity must be a positive integer`);
    if (item.retailer_id !== undefined && typeof item.retailer_id !== "string")
      throw invalid(`order.items[${i}].retailer_id must be a string`);
    itemsTotal += unit * item.quantity;
  });
  const subtotal = amount(order.subtotal, "order.subtotal", false);
  if (subtotal !== undefined && subtotal !== itemsTotal) {
    throw invalid(`order.subtotal (${subtotal}) does not match the sum of the items (${itemsTotal})`);
  }
  const tax = amount(order.tax, "order.tax", false) ?? 0;
  const shipping = amount(order.shipping, "order.shipping", false) ?? 0;
  const discount = amount(order.discount, "order.discount", false) ?? 0;
  const expected = (subtotal ?? itemsTotal) + tax + shipping - discount;
  if (total !== expected) {
    throw invalid(`total_amount.value (${total}) does not match subtotal + tax + shipping - discount (${expected})`);
  }
}
