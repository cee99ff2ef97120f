import type { PaymentStatusValue } from "../messages/order-records.ts";
import type { RequestedOrderStatus } from "@gw/contracts";

/** The default body of an order_status message (design-28 §4.4; D8): Meta requires one. */
export function defaultOrderStatusText(
  referenceId: string,
  orderStatus: RequestedOrderStatus,
  payment: PaymentStatusValue,
): string {
  switch (orderStatus) {
    case "processing":
      return payment === "captured"
        ? `Pagamento confirmado! Seu pedido ${referenceId} está em preparação.`
        : `Seu pedido ${referenceId} está em preparação.`;
    case "partially_shipped":
      return `Parte do seu pedido ${referenceId} foi enviada.`;
    case "shipped":
      return `Seu pedido ${referenceId} foi enviado.`;
    case "completed":
      return `Seu pedido ${referenceId} foi concluído. Obrigado!`;
    case "canceled":
      return `Seu pedido ${referenceId} foi cancelado.`;
  }
}
