import { randomBytes } from "node:crypto";
import type { Router } from "express";
import { z } from "@gw/config";
import { ApiError, ERROR_REGISTRY, isErrorCode } from "@gw/errors";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { queryText } from "../views/components.ts";
import { page } from "../views/layout.ts";
import {
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  getOrder,
  isOrderStatusTemplate,
  listOrders,
  templateShape,
  updateOrderStatus,
  windowStatus,
  type OrderView,
} from "./orders-core.ts";
import { accountNumberNames } from "./business-numbers.ts";
import { orderDetailBody, orderListBody, orderPath, orderTitle, type StatusComposer } from "./orders-views.ts";
import type { PanelPage } from "./types.ts";

// Pedidos (issue 28, design-28 §6): the account's Pix orders, each with its items, totals and history, and the form
// that sends an order's next status through the same service as POST /public/v1/orders/{reference_id}/status.

const PAGE_SIZE = 25;

const listFilters = z.object({
  status: z.enum(ORDER_STATUSES).optional(),
  pagamento: z.enum(PAYMENT_STATUSES).optional(),
  cursor: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});

/** The contract's reference_id: 1..64 characters (design-28 §3), any of them. */
const referenceId = z.string().min(1).max(64);

/**
 * The status form. `chave`: 128 random bits minted when the form was rendered; the send's Idempotency-Key is
 * `panel:<chave>`, so a second submit of the same form (a double click, a resent POST) replays the first answer.
 */
const statusForm = z.object({
  status: z.enum(ORDER_STATUSES).exclude(["pending"]),
  pagamento: z.preprocess((value) => (value === "" ? undefined : value), z.enum(PAYMENT_STATUSES).optional()),
  descricao: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.string().trim().max(120).optional(),
  ),
  texto: z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.string().trim().max(1024).optional(),
  ),
  /** Outside the window: the order-status template, `name|language` (the template form has no pagamento or texto). */
  modelo: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z
      .string()
      .regex(/^[^|]{1,255}\|[A-Za-z_]{2,16}$/)
      .optional(),
  ),
  /** The template's variables, one per line. */
  variaveis: z.string().max(4000).optional(),
  chave: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
});

/** The template the form names, with its variables (blank lines dropped), or undefined for the interactive form. */
function chosenTemplate(modelo: string | undefined, variaveis: string | undefined) {
  if (modelo === undefined) return undefined;
  const [name = "", language = ""] = modelo.split("|");
  const variables = (variaveis ?? "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return { name, language, variables };
}

/**
 * The customer's window on the order's number, and, when it is closed, the number's approved order-status templates
 * (null when the catalogue cannot be read now: the page still shows the order).
 */
async function statusComposer(deps: PanelDeps, accountId: string, order: OrderView): Promise<StatusComposer> {
  const window = await windowStatus(
    { db: deps.db, directory: deps.directory },
    { accountId, to: order.to, phoneNumberId: order.phoneNumberId },
  );
  const open = window?.open ?? false;
  const expiresAt = window?.expires_at ? new Date(window.expires_at) : null;
  if (open) return { window: { open, expiresAt }, templates: [] };
  const number = await deps.directory.resolveNumber(accountId, order.phoneNumberId);
  if (!number) return { window: { open, expiresAt }, templates: [] };
  try {
    const templates = (await deps.templates.get(number.wabaId))
      .filter((t) => t.status === "APPROVED" && isOrderStatusTemplate(t))
      .map((t) => ({
        value: `${t.name}|${t.language}`,
        label: `${t.name} (${t.language})`,
        variables: templateShape(t).body.variables.length,
      }));
    return { window: { open, expiresAt }, templates };
  } catch (error) {
    if (error instanceof ApiError && error.code === "templates_unavailable")
      return { window: { open, expiresAt }, templates: null };
    throw error;
  }
}

const OK_MESSAGES: Record<string, string> = {
  status_enviado: "Status enviado ao cliente. O pedido mostra o novo status; a entrega aparece no histórico.",
};

/** Refusals whose registry sentence the order's context makes clearer. */
const ORDER_REFUSALS: Record<string, string> = {
  outside_24h_window:
    "O cliente não escreve há mais de 24 horas: envie o status por um template de status de pedido (o formulário abaixo os oferece); nada foi enviado e o pedido não mudou.",
  send_unconfirmed:
    "O WhatsApp não confirmou o envio a tempo: o status pode ter chegado ao cliente. O pedido só muda quando a Meta confirma; confira o histórico antes de enviar de novo.",
};

/** The notice of the previous submit: `?ok=` from this page's messages, `?erro=` a code of the error registry. */
function notice(query: Record<string, unknown>): { kind: "ok" | "error"; text: string } | null {
  const ok = typeof query.ok === "string" ? OK_MESSAGES[query.ok] : undefined;
  if (ok) return { kind: "ok", text: ok };
  const code = typeof query.erro === "string" ? query.erro : undefined;
  if (!code) return null;
  const text =
    ORDER_REFUSALS[code] ??
    (isErrorCode(code) ? ERROR_REGISTRY[code].message : "O status não foi enviado. Tente de novo.");
  return { kind: "error", text };
}

function parseReference(value: unknown): string {
  const parsed = referenceId.safeParse(value);
  if (!parsed.success) throw new PanelHttpError(404, "O pedido não existe nesta conta.");
  return parsed.data;
}

/** getOrder's 404 (ApiError not_found, with the order's sentence) as the panel's page. */
async function loadOrder(deps: PanelDeps, accountId: string, reference: string) {
  try {
    return await getOrder({ db: deps.db }, { accountId, referenceId: reference });
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new PanelHttpError(404, error.message);
    throw error;
  }
}

export const ordersPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/pedidos", async (req, res) => {
      const user = currentUser(req);
      const parsed = listFilters.safeParse({
        status: queryText(req, "status"),
        pagamento: queryText(req, "pagamento"),
        cursor: queryText(req, "cursor"),
      });
      if (!parsed.success) throw new PanelHttpError(400, "Filtro inválido.");
      const filters = parsed.data;
      const result = await listOrders(
        { db: deps.db },
        {
          accountId: user.accountId,
          status: filters.status,
          paymentStatus: filters.pagamento,
          limit: PAGE_SIZE,
          beforeId: filters.cursor,
        },
      );
      res
        .type("html")
        .send(page(req, { title: "Pedidos", section: "/pedidos", body: orderListBody(filters, result) }).value);
    });

    router.get("/pedidos/:ref", async (req, res) => {
      const user = currentUser(req);
      const [order, numbers] = await Promise.all([
        loadOrder(deps, user.accountId, parseReference(req.params.ref)),
        accountNumberNames(deps, user.accountId),
      ]);
      const chave = randomBytes(16).toString("base64url");
      // The window and the templates only matter to a form this user sees (an open order, a role that may send).
      const final = order.orderStatus === "completed" || order.orderStatus === "canceled";
      const composer =
        final || !can(req.panelUser, "orders.update")
          ? { window: { open: false, expiresAt: null }, templates: [] }
          : await statusComposer(deps, user.accountId, order);
      res.type("html").send(
        page(req, {
          title: orderTitle(order.referenceId),
          section: "/pedidos",
          notice: notice(req.query),
          body: orderDetailBody(req, order, chave, numbers.get(order.phoneNumberId) ?? null, composer),
        }).value,
      );
    });

    router.post("/pedidos/:ref/status", requireCapability("orders.update"), async (req, res) => {
      const user = currentUser(req);
      const reference = parseReference(req.params.ref);
      const form = statusForm.safeParse(req.body);
      if (!form.success)
        throw new PanelHttpError(400, "Formulário inválido: recarregue a página do pedido e tente de novo.");
      const { status, pagamento, descricao, texto, modelo, variaveis, chave } = form.data;
      const template = chosenTemplate(modelo, variaveis);
      // The template form carries no payment and no text (the contract refuses them with a template).
      const change = template
        ? { orderStatus: status, description: descricao, template }
        : { orderStatus: status, paymentStatus: pagamento, description: descricao, text: texto };
      const outcome = await updateOrderStatus(deps.send, {
        accountId: user.accountId,
        referenceId: reference,
        change,
        idempotencyKey: `panel:${chave}`,
        actor: panelActor(req),
        requestId: req.requestId,
      });
      const path = orderPath(reference);
      if (outcome.kind === "sent") return void res.redirect(303, `${path}?ok=status_enviado`);
      if (outcome.kind === "unconfirmed") return void res.redirect(303, `${path}?erro=send_unconfirmed`);
      if (outcome.error.code === "not_found") throw new PanelHttpError(404, outcome.error.message);
      deps.logger.info("order status refused", { reference, code: outcome.error.code });
      res.redirect(303, `${path}?erro=${outcome.error.code}`);
    });
  },
};
