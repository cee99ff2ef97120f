import type { Request } from "express";
import { can } from "../http/roles.ts";
import { badge, csrfField, pager, select, table } from "../views/components.ts";
import { formatDateTime } from "../views/format.ts";
import {
  FIELD_LABELS,
  ORDER_STATUS_TEXT,
  PAYMENT_METHOD_TEXT,
  PAYMENT_STATUS_TEXT,
  codeDetail,
  sendStatusText,
  type Tone,
} from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { numberWithId } from "./business-numbers.ts";
import {
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  nextOrderStatuses,
  type OrderSummaryView,
  type OrderView,
} from "./orders-core.ts";

// The Pedidos pages' markup (design-28 §6): the list, an order with its items and history, and the status form.

type OrderStatus = (typeof ORDER_STATUSES)[number];
type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
type HistoryEntry = OrderView["history"][number];

const MESSAGE_STATUS_TONE: Record<NonNullable<HistoryEntry["messageStatus"]>, Tone> = {
  sent: "neutral",
  delivered: "ok",
  read: "ok",
  failed: "bad",
};

const BRL = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });

/** An amount in centavos (the orders' unit) as "R$ 12,34". */
function cents(amount: number): string {
  return BRL.format(amount / 100);
}

export function orderPath(referenceId: string): string {
  return `/pedidos/${encodeURIComponent(referenceId)}`;
}

export function orderStatusBadge(status: string): SafeHtml {
  const label = ORDER_STATUS_TEXT[status as OrderStatus] as { text: string; tone: Tone } | undefined;
  return label ? badge(label.text, label.tone) : badge(status);
}

export function paymentStatusBadge(status: string): SafeHtml {
  const label = PAYMENT_STATUS_TEXT[status as PaymentStatus] as { text: string; tone: Tone } | undefined;
  return label ? badge(label.text, label.tone) : badge(status);
}

/** The customer as the order names them: a phone's digits, or a BSUID (a user who did not share the phone). */
function customer(to: string): string {
  return /^\d+$/.test(to) ? `+${to}` : to;
}

export interface OrderListFilters {
  status?: OrderStatus | undefined;
  pagamento?: PaymentStatus | undefined;
}

export function orderListBody(
  filters: OrderListFilters,
  result: { orders: OrderSummaryView[]; nextBeforeId: number | null },
): SafeHtml {
  const filtered = filters.status !== undefined || filters.pagamento !== undefined;
  return html`<p class="hint">
      Os pedidos Pix enviados pela conta (pelo envio <code>pix_order</code>), do mais recente ao mais antigo, com o
      status que o cliente vê no cartão do pedido no WhatsApp. Depois que o provedor de pagamento confirmar, envie o
      próximo status pela página do pedido ou pela API.
    </p>
    <form method="get" action="/pedidos" class="filters" role="search" aria-label="Filtrar pedidos">
      ${select(
        "status",
        "Status do pedido",
        ORDER_STATUSES.map((status) => ({ value: status, text: ORDER_STATUS_TEXT[status].text })),
        filters.status,
      )}
      ${select(
        "pagamento",
        "Pagamento",
        PAYMENT_STATUSES.map((status) => ({ value: status, text: PAYMENT_STATUS_TEXT[status].text })),
        filters.pagamento,
      )}
      <button type="submit" class="secondary">Filtrar</button>
      ${filtered ? html`<a href="/pedidos">Limpar filtros</a>` : ""}
    </form>
    ${table({
      caption: "Pedidos, do mais recente ao mais antigo",
      headers: ["Pedido", "Cliente", "Total", "Status do pedido", "Pagamento", "Última mudança"],
      rows: result.orders.map((order) => [
        html`<a href="${orderPath(order.referenceId)}">${order.referenceId}</a>`,
        customer(order.to),
        cents(order.totalAmount),
        orderStatusBadge(order.orderStatus),
        paymentStatusBadge(order.paymentStatus),
        formatDateTime(order.updatedAt),
      ]),
      empty: filtered ? "Nenhum pedido com estes filtros." : "Nenhum pedido ainda.",
    })}
    ${pager({
      path: "/pedidos",
      query: { status: filters.status, pagamento: filters.pagamento },
      next: result.nextBeforeId === null ? null : String(result.nextBeforeId),
    })}`;
}

function historyRows(history: HistoryEntry[]): SafeHtml {
  return table({
    caption: "Mensagens do pedido, da primeira à mais recente",
    headers: ["Mensagem", "Status enviado", "Descrição", "Enviada em", "Origem", "Situação no WhatsApp"],
    rows: history.map((entry) => [
      // The wamid is for integrators matching their logs: in the title, not in the text a shop owner reads.
      html`<span title="${FIELD_LABELS.wamid}: ${entry.messageId}"
          >${entry.kind === "order_details" ? "Pedido (cobrança)" : "Status do pedido"}</span
        >${
          entry.kind === "order_status" && entry.template
            ? html`<br /><span class="hint">pelo template <code>${entry.template}</code></span>`
            : ""
        }`,
      html`${orderStatusBadge(entry.orderStatus)} ${entry.paymentStatus ? paymentStatusBadge(entry.paymentStatus) : ""}`,
      entry.description ?? "—",
      formatDateTime(entry.sentAt),
      entry.origin === "panel" ? "painel" : "API",
      html`${
        entry.messageStatus
          ? badge(sendStatusText(entry.messageStatus), MESSAGE_STATUS_TONE[entry.messageStatus])
          : html`<span class="hint">aguardando a Meta</span>`
      }
      ${
        entry.error
          ? html`<br /><span class="hint">Erro ${entry.error.code}: ${entry.error.message || entry.error.reason}</span>`
          : ""
      }`,
    ]),
    empty: "Nenhuma mensagem registrada.",
  });
}

/** An approved order-status template the form offers (`value`: name and language, as the POST reads them). */
export interface OrderStatusTemplateOption {
  value: string;
  label: string;
  variables: number;
}

/** What the status form needs besides the order: the customer's window, and the templates for when it is closed. */
export interface StatusComposer {
  window: { open: boolean; expiresAt: Date | null };
  /** Null: the catalogue could not be read now (only looked at when the window is closed). */
  templates: OrderStatusTemplateOption[] | null;
}

function windowLine(window: StatusComposer["window"]): SafeHtml {
  return window.open && window.expiresAt
    ? html`<p id="janela">Janela de 24 horas: <strong>aberta</strong> até ${formatDateTime(window.expiresAt)}.</p>`
    : html`<p id="janela">
        Janela de 24 horas: <strong>fechada</strong> (o cliente não escreve há mais de 24 horas). O status vai por um
        template de status de pedido aprovado.
      </p>`;
}

/** The status select of both forms: only the statuses the rules allow. */
function statusSelect(next: ReturnType<typeof nextOrderStatuses>): SafeHtml {
  return html`<label
    >Novo status
    <select name="status" required>
      ${next.map((pair) => html`<option value="${pair.orderStatus}">${ORDER_STATUS_TEXT[pair.orderStatus].text}</option>`)}
    </select>
  </label>`;
}

/**
 * Outside the window: the status by an order-status template (Meta's, sub-category ORDER_STATUS), which carries no
 * payment and no text of ours.
 */
function templateStatusForm(
  req: Request,
  order: OrderView,
  chave: string,
  next: ReturnType<typeof nextOrderStatuses>,
  templates: StatusComposer["templates"],
): SafeHtml {
  if (templates === null)
    return html`<p class="hint">
      Não foi possível consultar os templates agora: recarregue a página em instantes para enviar o status.
    </p>`;
  if (templates.length === 0)
    return html`<p class="hint">
      Nenhum template de status de pedido aprovado neste número (categoria UTILITY, subcategoria ORDER_STATUS). Crie um
      no WhatsApp Manager, ou espere o cliente escrever para enviar o status como mensagem.
    </p>`;
  return html`<form method="post" action="${orderPath(order.referenceId)}/status" class="stack">
    ${csrfField(req)}
    <input type="hidden" name="chave" value="${chave}" />
    ${statusSelect(next)}
    <label
      >Template de status do pedido
      <select name="modelo" required>
        ${templates.map(
          (t) =>
            html`<option value="${t.value}">${t.label}${t.variables > 0 ? ` (${t.variables} variáveis)` : ""}</option>`,
        )}
      </select>
    </label>
    <label
      >Variáveis do template, uma por linha (na ordem de {{1}}, {{2}}, ...)
      <textarea name="variaveis" rows="3" maxlength="4000"></textarea>
    </label>
    <label
      >Descrição (opcional, até 120 caracteres)
      <input name="descricao" maxlength="120" autocomplete="off" />
    </label>
    <p class="hint">O template não leva o pagamento: o pagamento do pedido fica como está.</p>
    <button type="submit">Enviar status ao cliente</button>
  </form>`;
}

/** The next-status form: only the statuses the rules allow (design-28 §4.2); the service checks them again. */
function statusForm(req: Request, order: OrderView, chave: string, composer: StatusComposer): SafeHtml {
  if (order.orderStatus === "completed" || order.orderStatus === "canceled")
    return html`<p>
      Este pedido está ${ORDER_STATUS_TEXT[order.orderStatus].text}: nenhum status pode ser enviado depois.
    </p>`;
  if (!can(req.panelUser, "orders.update"))
    return html`<p class="hint">Seu papel nesta conta permite consultar os pedidos, não enviar status.</p>`;
  // A resend of the same status is allowed after the latest status message failed (rule 4c).
  const lastStatus = order.history.filter((entry) => entry.kind === "order_status").at(-1);
  const next = nextOrderStatuses({ ...order, lastFailed: lastStatus?.messageStatus === "failed" });
  if (next.length === 0) return html`<p class="hint">Nenhuma mudança de status é possível agora.</p>`;
  if (!composer.window.open)
    return html`${windowLine(composer.window)} ${templateStatusForm(req, order, chave, next, composer.templates)}`;
  const payments = PAYMENT_STATUSES.filter((payment) => next.some((pair) => pair.paymentStatuses.includes(payment)));
  return html`${windowLine(composer.window)}
    <form method="post" action="${orderPath(order.referenceId)}/status" class="stack">
      ${csrfField(req)}
      <input type="hidden" name="chave" value="${chave}" />
      ${statusSelect(next)}
      <label
        >Pagamento
        <select name="pagamento" aria-describedby="pagamento-ajuda">
          <option value="">Não informar (fica ${PAYMENT_STATUS_TEXT[order.paymentStatus].text})</option>
          ${payments.map((payment) => html`<option value="${payment}">${PAYMENT_STATUS_TEXT[payment].text}</option>`)}
        </select>
        <span class="hint" id="pagamento-ajuda"
          >Informe “pago” quando o provedor de pagamento confirmar. Um pedido só pode ser cancelado com o pagamento
          marcado como falhou.</span
        >
      </label>
      <label
        >Descrição (opcional, até 120 caracteres)
        <input name="descricao" maxlength="120" autocomplete="off" />
      </label>
      <label
        >Texto da mensagem (opcional)
        <textarea name="texto" rows="3" maxlength="1024" aria-describedby="texto-ajuda"></textarea>
        <span class="hint" id="texto-ajuda">Vazio: uma frase padrão para o status escolhido.</span>
      </label>
      <button type="submit">Enviar status ao cliente</button>
    </form>
    <p class="hint">
      Mudanças permitidas agora:
      ${next
        .map(
          (pair) =>
            `${ORDER_STATUS_TEXT[pair.orderStatus].text} (${pair.paymentStatuses
              .map((payment) => PAYMENT_STATUS_TEXT[payment].text)
              .join(", ")})`,
        )
        .join("; ")}.
    </p>`;
}

/**
 * An order's page title: "Pedido 12345" for the reference "pedido-12345" (never "Pedido pedido-12345"); the full
 * reference stays on the page.
 */
export function orderTitle(referenceId: string): string {
  const bare = referenceId.replace(/^pedido[\s_#:-]*/i, "");
  return `Pedido ${bare === "" ? referenceId : bare}`;
}

export function orderDetailBody(
  req: Request,
  order: OrderView,
  chave: string,
  numberName: string | null,
  composer: StatusComposer,
): SafeHtml {
  const contact = /^(\d{1,32}|[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128})$/.test(order.to)
    ? `/conversas/${encodeURIComponent(order.phoneNumberId)}/${encodeURIComponent(order.to)}`
    : null;
  return html`<p><a href="/pedidos">← Pedidos</a></p>
    <dl>
      <dt>Status</dt>
      <dd>${orderStatusBadge(order.orderStatus)} ${paymentStatusBadge(order.paymentStatus)}</dd>
      <dt>Referência</dt>
      <dd>${order.referenceId}</dd>
      ${
        order.description
          ? html`<dt>Descrição do último status</dt>
              <dd>${order.description}</dd>`
          : ""
      }
      <dt>Cliente</dt>
      <dd>${customer(order.to)} ${contact ? html`· <a href="${contact}">abrir a conversa</a>` : ""}</dd>
      <dt>Número da conta</dt>
      <dd>${numberWithId(numberName, order.phoneNumberId)}</dd>
      <dt>Template</dt>
      <dd><code>${order.template}</code></dd>
      <dt>Formas de pagamento oferecidas</dt>
      <dd>${order.paymentMethods.map((method) => PAYMENT_METHOD_TEXT[method]).join(", ") || "—"}</dd>
      ${
        order.clientRef
          ? html`<dt>${FIELD_LABELS.client_ref}</dt>
              <dd>${codeDetail(order.clientRef, "client_ref")}</dd>`
          : ""
      }
      <dt>Criado em</dt>
      <dd>${formatDateTime(order.createdAt)}</dd>
    </dl>
    <section aria-labelledby="itens">
      <h2 id="itens">Itens</h2>
      ${table({
        caption: "Itens do pedido",
        headers: ["Item", "Código", "Quantidade", "Preço unitário", "Total do item"],
        rows: order.items.map((item) => [
          item.name,
          item.retailerId ? html`<code>${item.retailerId}</code>` : "—",
          String(item.quantity),
          cents(item.amount),
          cents(item.amount * item.quantity),
        ]),
        empty: "Nenhum item.",
      })}
      <dl>
        <dt>Subtotal</dt>
        <dd>${cents(order.subtotal)}</dd>
        <dt>Impostos</dt>
        <dd>${cents(order.tax)}</dd>
        <dt>Total</dt>
        <dd><strong>${cents(order.totalAmount)}</strong></dd>
      </dl>
    </section>
    <section aria-labelledby="historico">
      <h2 id="historico">Histórico</h2>
      ${historyRows(order.history)}
    </section>
    <section aria-labelledby="proximo-status">
      <h2 id="proximo-status">Enviar o próximo status</h2>
      ${statusForm(req, order, chave, composer)}
    </section>`;
}
