import type { Request, Router } from "express";
import { listAudit } from "@gw/core/audit";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { pager, queryText, table } from "../views/components.ts";
import { formatDateTime } from "../views/format.ts";
import { AUDIT_ACTION_LABELS } from "../views/glossary.ts";
import { html } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 50;
const DAY_MS = 24 * 3600_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Prefixes offered by the action field (a prefix matches every action under it). */
const ACTION_SUGGESTIONS = ["panel", "panel.api_key", "panel.user", "panel.integration", "webhook.retry", "api"];

/**
 * A day typed in the filter, as the instant it starts in São Paulo (the panel's time zone; Brazil has kept
 * UTC−3 all year since 2019). Null when absent; "invalid" when not a real date.
 */
function dayStart(value: string | undefined): Date | null | "invalid" {
  if (value === undefined) return null;
  if (!DATE.test(value)) return "invalid";
  const date = new Date(`${value}T00:00:00-03:00`);
  // Rejects 2026-02-31 and the like, which Date would roll over.
  return Number.isNaN(date.getTime()) || new Date(date.getTime() + 3 * 3600_000).toISOString().slice(0, 10) !== value
    ? "invalid"
    : date;
}

function beforeId(req: Request): number | undefined {
  const cursor = queryText(req, "cursor");
  return cursor && /^\d{1,18}$/.test(cursor) ? Number(cursor) : undefined;
}

export const auditPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/auditoria", async (req, res) => {
      const user = currentUser(req);
      const ator = queryText(req, "ator");
      const acao = queryText(req, "acao");
      const de = queryText(req, "de");
      const ate = queryText(req, "ate");
      const since = dayStart(de);
      const until = dayStart(ate);
      const invalidDate = since === "invalid" || until === "invalid";
      const { entries, next_before_id } = await listAudit(
        { db: deps.db },
        {
          accountId: user.accountId,
          actor: ator?.slice(0, 200),
          action: acao?.slice(0, 200),
          since: since instanceof Date ? since : undefined,
          // Through the whole "até" day.
          until: until instanceof Date ? new Date(until.getTime() + DAY_MS) : undefined,
          limit: PAGE_SIZE,
          beforeId: beforeId(req),
        },
      );
      const body = html`<form method="get" action="/auditoria" class="filters">
          <label>Ator <input name="ator" value="${ator ?? ""}" maxlength="200" placeholder="panel:ana@…, cli" /></label>
          <label
            >Ação
            <input name="acao" value="${acao ?? ""}" maxlength="200" list="acoes" placeholder="panel.user" />
          </label>
          <datalist id="acoes">
            ${ACTION_SUGGESTIONS.map((action) => html`<option value="${action}"></option>`)}
          </datalist>
          <label>De <input type="date" name="de" value="${de ?? ""}" /></label>
          <label>Até <input type="date" name="ate" value="${ate ?? ""}" /></label>
          <button type="submit" class="secondary">Filtrar</button>
        </form>
        <p class="hint">
          A ação filtra também o que está abaixo dela: <code>panel.user</code> mostra convites, mudanças de papel e
          remoções. Datas no horário de Brasília.
        </p>
        ${table({
          caption: "Registros de auditoria, do mais recente ao mais antigo",
          headers: ["Quando", "Ator", "Ação", "Alvo", "Detalhes", "Requisição"],
          rows: entries.map((entry) => [
            formatDateTime(entry.created_at),
            html`<code>${entry.actor}</code>`,
            html`<code>${entry.action}</code>${
                AUDIT_ACTION_LABELS[entry.action]
                  ? html`<br /><span class="hint">${AUDIT_ACTION_LABELS[entry.action]}</span>`
                  : ""
              }`,
            entry.target ? html`<code>${entry.target}</code>` : "",
            entry.details === null ? "" : html`<code>${JSON.stringify(entry.details)}</code>`,
            entry.request_id ? html`<code>${entry.request_id}</code>` : "",
          ]),
          empty:
            ator || acao || de || ate ? "Nenhum registro com esses filtros." : "Nenhum registro de auditoria ainda.",
        })}
        ${pager({ path: "/auditoria", query: { ator, acao, de, ate }, next: next_before_id ? String(next_before_id) : null })}`;
      res.type("html").send(
        page(req, {
          title: "Auditoria",
          section: "/auditoria",
          notice: invalidDate
            ? {
                kind: "error",
                text: "Data inválida: use o seletor de data (dia/mês/ano). A data inválida foi ignorada.",
              }
            : null,
          body,
        }).value,
      );
    });
  },
};
