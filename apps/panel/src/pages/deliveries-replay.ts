import type { Request, RequestHandler, Router } from "express";
import { DELIVERY_STATUSES } from "@gw/contracts";
import { WEBHOOK_EVENTS } from "@gw/core/accounts";
import { SPREADSHEET_CSV } from "@gw/core/csv";
import {
  REPLAY_MAX_DAYS,
  REPLAY_STATUSES,
  createDeliveryReplay,
  exportDeliveries,
  getDeliveryReplay,
  type DeliveryReplayView,
} from "@gw/core/deliveries";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import { sendCsv } from "@gw/http";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { badge, csrfField, queryText, select, table, readQueryFilters } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

/**
 * The Entregas page's replay by period ("reenviar as entregas de um período") with its progress, and its CSV export
 * (issue 21). The same services as the public API: `createDeliveryReplay` (audited, and within the account's replay
 * budget shared with the API) and `exportDeliveries`. Dates are São Paulo calendar days, both included.
 */

/** Notices of the list page (`?ok=` / `?erro=`) for what this module redirects there with. */
export const REPLAY_MESSAGES = {
  periodo_invalido: `Período inválido: informe as datas de início e fim, com no máximo ${REPLAY_MAX_DAYS} dias.`,
  integracao_desconhecida: "A integração escolhida não foi encontrada nesta conta.",
  limite_reenvios:
    "Limite de reenvios por período desta conta atingido (API e painel somados); aguarde e tente de novo mais tarde.",
};

const PROGRESS_MESSAGES: Record<string, string> = {
  criado: "Reenvio registrado: as entregas do período voltam para a fila em lotes, nesta ordem de criação.",
};

const STATE_LABELS: Record<DeliveryReplayView["status"], { text: string; tone: "ok" | "warn" | "neutral" }> = {
  pending: { text: "aguardando", tone: "neutral" },
  running: { text: "em andamento", tone: "warn" },
  completed: { text: "concluído", tone: "ok" },
};

const STATUS_TEXT: Record<string, string> = {
  pending: "pendente",
  delivering: "enviando",
  delivered: "entregue",
  failed: "falhou",
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** Midnight of a São Paulo calendar day (fixed UTC-3 since 2019), `plusDays` later. */
function dayStart(day: string, plusDays = 0): Date | null {
  const date = new Date(`${day}T00:00:00-03:00`);
  return Number.isNaN(date.getTime()) ? null : new Date(date.getTime() + plusDays * DAY_MS);
}

function todayInSaoPaulo(): string {
  return new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
}

/** [start of `de`, start of the day after `ate`), at most REPLAY_MAX_DAYS days; null when not a valid period. */
function period(de: string | undefined, ate: string | undefined): { since: Date; until: Date } | null {
  if (!de || !ate || !DATE.test(de) || !DATE.test(ate)) return null;
  const since = dayStart(de);
  const until = dayStart(ate, 1);
  if (!since || !until || since >= until || until.getTime() - since.getTime() > REPLAY_MAX_DAYS * DAY_MS) return null;
  return { since, until };
}

function stateBadge(state: DeliveryReplayView["status"]): SafeHtml {
  const label = STATE_LABELS[state];
  return badge(label.text, label.tone);
}

function filtersText(replay: DeliveryReplayView): string {
  const parts = [
    replay.event ?? "todos os eventos",
    replay.statuses.map((status) => STATUS_TEXT[status] ?? status).join(" e "),
  ];
  if (replay.integration_id) parts.push(`integração ${replay.integration_id}`);
  return parts.join(", ");
}

function progressText(replay: DeliveryReplayView): string {
  if (replay.matched === null) return "—";
  return `${formatNumber(replay.queued)} de ${formatNumber(replay.matched)}`;
}

/**
 * The Entregas page's section: the export link with the list's filters (the last 31 days when no dates are chosen),
 * the replay form (for who may resend) and the account's latest replays.
 */
export function replaySection(
  req: Request,
  view: {
    filters: Record<string, string | undefined>;
    replays: readonly DeliveryReplayView[];
    integrations: readonly { id: string; url: string }[];
  },
): SafeHtml {
  const user = currentUser(req);
  const exportQuery = new URLSearchParams();
  for (const [key, value] of Object.entries(view.filters)) if (value) exportQuery.set(key, value);
  return html`<div class="actions">
      <a class="button secondary" href="/entregas/exportar?${exportQuery.toString()}">Exportar CSV</a>
    </div>
    ${
      can(user, "deliveries.resend")
        ? html`<details>
            <summary>Reenviar as entregas de um período</summary>
            <form
              method="post"
              action="/entregas/reenviar-periodo"
              class="filters"
              data-confirm="Reenviar as entregas deste período?"
            >
              ${csrfField(req)}
              <label>Início do período <input type="date" name="de" required /></label>
              <label>Fim do período <input type="date" name="ate" required /></label>
              ${select(
                "evento",
                "Evento do reenvio",
                WEBHOOK_EVENTS.map((event) => ({ value: event, text: event })),
              )}
              ${select(
                "status",
                "Status do reenvio",
                REPLAY_STATUSES.map((status) => ({ value: status, text: STATUS_TEXT[status] ?? status })),
              )}
              ${select(
                "integracao",
                "Integração",
                view.integrations.map((integration) => ({ value: integration.id, text: integration.url })),
              )}
              <button type="submit">Reenviar período</button>
            </form>
            <p class="hint">
              Entregas com falha ou já entregues criadas no período (até ${REPLAY_MAX_DAYS} dias, datas de São Paulo)
              voltam para a fila com o mesmo delivery_id e novas tentativas, assinadas na hora de cada uma. Entregas
              ainda na fila e as que já passaram da retenção ficam de fora.
            </p>
          </details>`
        : ""
    }
    ${
      view.replays.length > 0
        ? table({
            caption: "Reenvios por período",
            headers: ["Pedido em", "Período", "Filtros", "Situação", "Reenfileiradas", ""],
            rows: view.replays.map((replay) => [
              formatDateTime(replay.created_at),
              `${formatDateTime(replay.since)} a ${formatDateTime(replay.until)}`,
              filtersText(replay),
              stateBadge(replay.status),
              progressText(replay),
              html`<a href="/entregas/reenvios/${replay.id}">Acompanhar</a>`,
            ]),
            empty: "",
          })
        : ""
    }`;
}

const replayForm = z.object({
  de: z.string().regex(DATE),
  ate: z.string().regex(DATE),
  evento: z.union([z.enum(WEBHOOK_EVENTS), z.literal("")]).optional(),
  status: z.union([z.enum(REPLAY_STATUSES), z.literal("")]).optional(),
  integracao: z.string().max(64).optional(),
});

function startReplay(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const user = currentUser(req);
    const form = replayForm.safeParse(req.body ?? {});
    const range = form.success ? period(form.data.de, form.data.ate) : null;
    if (!form.success || !range) return res.redirect(303, "/entregas?erro=periodo_invalido");
    const { evento, status, integracao } = form.data;
    let outcome;
    try {
      outcome = await createDeliveryReplay(deps.replays, {
        accountId: user.accountId,
        actor: panelActor(req),
        since: range.since,
        until: range.until,
        event: evento || undefined,
        statuses: status ? [status] : undefined,
        integrationId: integracao || undefined,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === "api_rate_limited") {
        if (error.retryAfterSeconds) res.setHeader("Retry-After", String(error.retryAfterSeconds));
        return res.redirect(303, "/entregas?erro=limite_reenvios");
      }
      throw error;
    }
    if (outcome.kind === "refused")
      return res.redirect(
        303,
        outcome.field === "integration_id"
          ? "/entregas?erro=integracao_desconhecida"
          : "/entregas?erro=periodo_invalido",
      );
    res.redirect(303, `/entregas/reenvios/${outcome.replay.id}?ok=criado`);
  };
}

function showReplay(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const user = currentUser(req);
    let replay: DeliveryReplayView;
    try {
      replay = await getDeliveryReplay(deps, { accountId: user.accountId, replayId: String(req.params.id ?? "") });
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found")
        throw new PanelHttpError(404, "O reenvio por período não foi encontrado nesta conta.");
      throw error;
    }
    const ok = queryText(req, "ok");
    res.type("html").send(
      page(req, {
        title: "Reenvio por período",
        section: "/entregas",
        notice: ok && PROGRESS_MESSAGES[ok] ? { kind: "ok", text: PROGRESS_MESSAGES[ok] } : null,
        body: html`<p><a href="/entregas">← Fila de entregas</a></p>
          <dl aria-label="Andamento do reenvio">
            <dt>Situação</dt>
            <dd>${stateBadge(replay.status)}</dd>
            <dt>Período</dt>
            <dd>${formatDateTime(replay.since)} a ${formatDateTime(replay.until)}</dd>
            <dt>Filtros</dt>
            <dd>${filtersText(replay)}</dd>
            <dt>Entregas encontradas</dt>
            <dd>${replay.matched === null ? "—" : formatNumber(replay.matched)}</dd>
            <dt>Reenfileiradas</dt>
            <dd>${formatNumber(replay.queued)}</dd>
            <dt>Pedido em</dt>
            <dd>${formatDateTime(replay.created_at)}</dd>
            <dt>Iniciado em</dt>
            <dd>${formatDateTime(replay.started_at) || "—"}</dd>
            <dt>Concluído em</dt>
            <dd>${formatDateTime(replay.completed_at) || "—"}</dd>
            <dt>Pedido por</dt>
            <dd>${replay.requested_by}</dd>
          </dl>
          ${
            replay.status === "completed"
              ? ""
              : html`<p class="hint">
                  Em andamento: <a href="/entregas/reenvios/${replay.id}">atualize a página</a> para ver o progresso.
                </p>`
          }`,
      }).value,
    );
  };
}

const exportFilters = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  evento: z.enum(WEBHOOK_EVENTS).optional(),
  de: z.string().regex(DATE).optional(),
  ate: z.string().regex(DATE).optional(),
});

function exportCsv(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const user = currentUser(req);
    const filters = readQueryFilters(req, exportFilters, "Filtro inválido: confira status, evento e datas.");
    const ate = filters.ate ?? todayInSaoPaulo();
    const de =
      filters.de ??
      new Date(Date.parse(`${ate}T00:00:00Z`) - (REPLAY_MAX_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
    const range = period(de, ate);
    if (!range)
      throw new PanelHttpError(
        400,
        `Período inválido para exportar: no máximo ${REPLAY_MAX_DAYS} dias, com o início antes do fim.`,
      );
    const lines = await exportDeliveries(
      { db: deps.db },
      {
        accountId: user.accountId,
        actor: panelActor(req),
        since: range.since,
        until: range.until,
        status: filters.status,
        event: filters.evento,
        // `;` and a BOM: what Excel in Brazilian Portuguese opens in columns.
        dialect: SPREADSHEET_CSV,
      },
    );
    await sendCsv(
      res,
      { filename: `entregas-${de}-a-${ate}.csv`, lines, log: { download: "deliveries" } },
      deps.logger,
    );
  };
}

export const deliveryReplaysPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/entregas/exportar", exportCsv(deps));
    router.post("/entregas/reenviar-periodo", requireCapability("deliveries.resend"), startReplay(deps));
    router.get("/entregas/reenvios/:id", showReplay(deps));
  },
};
