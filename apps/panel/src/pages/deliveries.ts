import type { Request, Router } from "express";
import { DELIVERY_STATUSES } from "@gw/contracts";
import { WEBHOOK_EVENTS } from "@gw/core/accounts";
import {
  getDeliveryDetail,
  listDeliveries,
  listDeliveryReplays,
  retryDelivery,
  retryFailedDeliveries,
} from "@gw/core/deliveries";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import {
  badge,
  noticeFrom,
  pager,
  postButton,
  queryText,
  table,
  select,
  readQueryFilters,
} from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import {
  WEBHOOK_EVENT_LABELS,
  codeDetail,
  deliveryErrorLabel,
  deliveryStatusText,
  deliveryErrorSentence,
  labelOf,
} from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { REPLAY_MESSAGES, replaySection } from "./deliveries-replay.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 25;

const STATUS_TONES: Record<(typeof DELIVERY_STATUSES)[number], "ok" | "warn" | "bad"> = {
  pending: "warn",
  delivering: "warn",
  delivered: "ok",
  failed: "bad",
};
const STATUS_LABELS = Object.fromEntries(
  DELIVERY_STATUSES.map((status) => [status, { text: deliveryStatusText(status), tone: STATUS_TONES[status] }]),
) as Record<(typeof DELIVERY_STATUSES)[number], { text: string; tone: "ok" | "warn" | "bad" }>;

const MESSAGES = {
  reenviada: "Entrega reenfileirada: a próxima tentativa sai em instantes.",
  nao_reenviavel: "Esta entrega ainda está na fila; só entregas com falha ou já entregues podem ser reenviadas.",
  nenhuma_falha: "Nenhuma entrega com falha para reenviar.",
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const filtersSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  evento: z.enum(WEBHOOK_EVENTS).optional(),
  de: z.string().regex(DATE).optional(),
  ate: z.string().regex(DATE).optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/)
    .optional(),
});

type Filters = z.infer<typeof filtersSchema>;

/**
 * Midnight of a calendar day in São Paulo, as the staff read dates. Brazil has had no daylight saving time since
 * 2019, so the offset is fixed.
 */
function startOfDay(day: string, plusDays = 0): Date | undefined {
  const date = new Date(`${day}T00:00:00-03:00`);
  if (Number.isNaN(date.getTime())) return undefined;
  return new Date(date.getTime() + plusDays * 86_400_000);
}

function readFilters(req: Request): Filters {
  return readQueryFilters(req, filtersSchema, "Filtro inválido: confira status, evento e datas.");
}

function statusBadge(status: string): SafeHtml {
  const label = STATUS_LABELS[status as keyof typeof STATUS_LABELS] as (typeof STATUS_LABELS)["failed"] | undefined;
  return label ? badge(label.text, label.tone) : badge(status);
}

/** A failure kind in a table cell: its words, the code and the sentence in the title (integrators look it up). */
function errorKindCell(kind: string): SafeHtml {
  const sentence = deliveryErrorSentence(kind);
  return html`<span title="${sentence ? `${kind}: ${sentence}` : kind}">${deliveryErrorLabel(kind)}</span>`;
}

/** What the endpoint last answered, in a table cell: the HTTP status, or the kind of failure. */
function lastOutcome(delivery: { last_status_code: number | null; last_error_kind: string | null }): SafeHtml {
  if (delivery.last_status_code !== null) return html`HTTP ${delivery.last_status_code}`;
  return delivery.last_error_kind === null ? html`—` : errorKindCell(delivery.last_error_kind);
}

/** An event's words with its name (what the integrator's receiver reads in X-PT-Event) as a detail. */
function eventCell(event: string): SafeHtml {
  return codeDetail(labelOf(WEBHOOK_EVENT_LABELS, event), event);
}

function resentNotice(req: Request): { kind: "ok"; text: string } | null {
  const count = queryText(req, "n");
  if (queryText(req, "ok") !== "reenviadas" || !count || !/^\d{1,9}$/.test(count)) return null;
  const n = Number(count);
  return {
    kind: "ok",
    text:
      n === 1
        ? "1 entrega com falha voltou para a fila."
        : `${formatNumber(n)} entregas com falha voltaram para a fila.`,
  };
}

export const deliveriesPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/entregas", async (req, res) => {
      const user = currentUser(req);
      const filters = readFilters(req);
      const result = await listDeliveries(
        { db: deps.db },
        {
          accountId: user.accountId,
          status: filters.status,
          event: filters.evento,
          createdFrom: filters.de ? startOfDay(filters.de) : undefined,
          // The "until" day is included: everything before the next midnight.
          createdBefore: filters.ate ? startOfDay(filters.ate, 1) : undefined,
          limit: PAGE_SIZE,
          beforeId: filters.cursor ? Number(filters.cursor) : undefined,
        },
      );
      const [replays, integrations] = await Promise.all([
        listDeliveryReplays({ db: deps.db }, { accountId: user.accountId, limit: 5 }),
        deps.db.integration.findMany({
          where: { accountId: user.accountId },
          select: { id: true, url: true },
          orderBy: { createdAt: "asc" },
        }),
      ]);
      const { cursor: _cursor, ...kept } = filters;
      const filtered = Object.values(kept).some((value) => value !== undefined);
      res.type("html").send(
        page(req, {
          title: "Entregas",
          section: "/entregas",
          notice: resentNotice(req) ?? noticeFrom(req, { ...MESSAGES, ...REPLAY_MESSAGES }),
          body: html`<p class="hint">
              Os webhooks enviados às integrações da conta, do mais recente ao mais antigo. Uma entrega com falha
              esgotou as tentativas automáticas e espera um reenvio.
            </p>
            <form method="get" action="/entregas" class="filters">
              ${select(
                "status",
                "Status",
                DELIVERY_STATUSES.map((status) => ({ value: status, text: STATUS_LABELS[status].text })),
                filters.status,
              )}
              ${select(
                "evento",
                "Evento",
                WEBHOOK_EVENTS.map((event) => ({
                  value: event,
                  text: `${labelOf(WEBHOOK_EVENT_LABELS, event)} (${event})`,
                })),
                filters.evento,
              )}
              <label>De <input type="date" name="de" value="${filters.de ?? ""}" /></label>
              <label>Até <input type="date" name="ate" value="${filters.ate ?? ""}" /></label>
              <button type="submit" class="secondary">Filtrar</button>
              ${filtered ? html`<a href="/entregas">Limpar filtros</a>` : ""}
            </form>
            ${
              can(user, "deliveries.resend")
                ? html`<div class="actions">
                    ${postButton(req, {
                      action: "/entregas/reenviar-falhas",
                      label: "Reenviar todas as entregas com falha",
                      confirm: "Reenviar todas as entregas com falha desta conta?",
                    })}
                  </div>`
                : ""
            }
            ${replaySection(req, { filters: kept, replays, integrations })}
            ${table({
              caption: "Fila de entregas",
              headers: ["Entrega", "Evento", "Status", "Tentativas", "Última resposta", "Criada em", "Integração"],
              rows: result.deliveries.map((delivery) => [
                html`<a href="/entregas/${delivery.id}">#${delivery.id}</a>`,
                eventCell(delivery.event),
                statusBadge(delivery.status),
                formatNumber(delivery.attempts),
                lastOutcome(delivery),
                formatDateTime(delivery.created_at),
                html`<code>${delivery.endpoint_url}</code>`,
              ]),
              empty: filtered ? "Nenhuma entrega com estes filtros." : "Nenhuma entrega ainda.",
            })}
            ${pager({
              path: "/entregas",
              query: kept,
              next: result.next_before_id === null ? null : String(result.next_before_id),
            })}`,
        }).value,
      );
    });

    router.post("/entregas/reenviar-falhas", requireCapability("deliveries.resend"), async (req, res) => {
      const user = currentUser(req);
      const requeued = await retryFailedDeliveries(
        { db: deps.db, queue: deps.queue, logger: deps.logger },
        { accountId: user.accountId, actor: panelActor(req) },
      );
      res.redirect(303, requeued === 0 ? "/entregas?erro=nenhuma_falha" : `/entregas?ok=reenviadas&n=${requeued}`);
    });

    router.get("/entregas/:id", async (req, res) => {
      const user = currentUser(req);
      const delivery = await getDeliveryDetail(
        { db: deps.db },
        { accountId: user.accountId, deliveryId: req.params.id ?? "" },
      );
      const resendable =
        can(user, "deliveries.resend") && (delivery.status === "failed" || delivery.status === "delivered");
      const attempts = table({
        caption: delivery.attempts_truncated
          ? `Tentativas (as ${formatNumber(delivery.attempt_list.length)} mais recentes)`
          : "Tentativas",
        headers: ["Nº", "Início", "Código HTTP", "Duração", "Erro", "Resposta do endpoint"],
        rows: delivery.attempt_list.map((attempt) => [
          String(attempt.number),
          formatDateTime(attempt.started_at),
          attempt.status_code === null ? "—" : String(attempt.status_code),
          `${formatNumber(attempt.duration_ms)} ms`,
          attempt.error_kind === null ? "—" : errorKindCell(attempt.error_kind),
          attempt.response_body ? html`<pre>${attempt.response_body}</pre>` : "",
        ]),
        empty: "Nenhuma tentativa feita ainda.",
      });
      res.type("html").send(
        page(req, {
          title: `Entrega #${delivery.id}`,
          section: "/entregas",
          notice: noticeFrom(req, MESSAGES),
          body: html`<p><a href="/entregas">← Fila de entregas</a></p>
            <dl>
              <dt>Evento</dt>
              <dd>${eventCell(delivery.event)}</dd>
              <dt>Status</dt>
              <dd>${statusBadge(delivery.status)}</dd>
              <dt>Integração</dt>
              <dd>
                <a href="/integracoes/${delivery.integration_id}"><code>${delivery.endpoint_url}</code></a>
              </dd>
              <dt>Evento ocorrido em</dt>
              <dd>${formatDateTime(delivery.occurred_at)}</dd>
              <dt>Criada em</dt>
              <dd>${formatDateTime(delivery.created_at)}</dd>
              <dt>Entregue em</dt>
              <dd>${formatDateTime(delivery.delivered_at) || "—"}</dd>
              <dt>Próxima tentativa</dt>
              <dd>${formatDateTime(delivery.next_attempt_at) || "—"}</dd>
              <dt>Tentativas</dt>
              <dd>${formatNumber(delivery.attempts)}</dd>
              <dt>Último erro</dt>
              <dd>
                ${
                  delivery.last_error_kind
                    ? html`${
                          deliveryErrorSentence(delivery.last_error_kind) ||
                          deliveryErrorLabel(delivery.last_error_kind)
                        } <small class="code"><code>${delivery.last_error_kind}</code></small>`
                    : "—"
                }
              </dd>
            </dl>
            ${
              resendable
                ? html`<div class="actions">
                    ${postButton(req, {
                      action: `/entregas/${delivery.id}/reenviar`,
                      label: "Reenviar entrega",
                      confirm: "Reenviar esta entrega agora?",
                    })}
                  </div>`
                : ""
            }
            <h2>Tentativas</h2>
            ${attempts}
            ${
              delivery.last_error !== null
                ? html`<h3>Última resposta do endpoint</h3>
                    <p class="hint">A última resposta do endpoint (limitada), ou o erro de transporte.</p>
                    <pre>${delivery.last_error}</pre>`
                : ""
            }
            <h2>Envelope assinado</h2>
            <p class="hint">
              Este corpo é enviado igual, byte a byte, em todas as tentativas. Os cabeçalhos de assinatura
              (X-PT-Timestamp, X-PT-Signature e, durante uma troca de segredo, X-PT-Signature-Previous) são calculados a
              cada tentativa, com o horário dela, por isso não aparecem aqui. Cada tentativa leva também
              X-PT-Delivery-Id: ${delivery.id}, X-PT-Event: ${delivery.event} e X-PT-Attempt com o seu número.
            </p>
            <pre aria-label="Envelope JSON">${JSON.stringify(delivery.envelope, null, 2)}</pre>`,
        }).value,
      );
    });

    router.post("/entregas/:id/reenviar", requireCapability("deliveries.resend"), async (req, res) => {
      const user = currentUser(req);
      const deliveryId = typeof req.params.id === "string" ? req.params.id : "";
      try {
        await retryDelivery(
          { db: deps.db, queue: deps.queue, logger: deps.logger },
          {
            accountId: user.accountId,
            deliveryId,
            actor: panelActor(req),
          },
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === "not_found")
          throw new PanelHttpError(404, "A entrega não foi encontrada nesta conta.");
        if (error instanceof ApiError && error.code === "delivery_not_retryable")
          return res.redirect(303, `/entregas/${deliveryId}?erro=nao_reenviavel`);
        throw error;
      }
      res.redirect(303, `/entregas/${deliveryId}?ok=reenviada`);
    });
  },
};
