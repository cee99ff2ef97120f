import type { Router } from "express";
import { accountOverview } from "@gw/core/dashboard";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { badge, table } from "../views/components.ts";
import { formatDateTime, formatNumber, formatPercent } from "../views/format.ts";
import {
  DELIVERY_STATUS_WORDS,
  SEND_STATUS_WORDS,
  deliveryErrorSentence,
  plural,
  type Word,
} from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

function card(label: string, value: string, detail?: SafeHtml | string): SafeHtml {
  return html`<div class="card">
    <div>${label}</div>
    <div class="value">${value}</div>
    ${detail ? html`<div class="hint">${detail}</div>` : ""}
  </div>`;
}

/** "12 entregues · 3 falharam", in the order of `words`, then any status this page does not know. */
function byStatus(counts: Record<string, number>, words: Readonly<Record<string, Word>>): string {
  const known = Object.keys(words).filter((status) => counts[status]);
  const other = Object.keys(counts).filter((status) => !(status in words));
  return [...known, ...other]
    .map((status) => plural(counts[status] ?? 0, words[status] ?? { one: status, other: status }))
    .join(" · ");
}

function lastError(kind: string | null, statusCode: number | null): string {
  const text = kind ? deliveryErrorSentence(kind) || kind : "";
  return statusCode === null ? text : `HTTP ${statusCode}. ${text}`;
}

export const overviewPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/", async (req, res) => {
      const user = currentUser(req);
      const overview = await accountOverview({ db: deps.db }, { accountId: user.accountId, userId: user.userId });
      const failing = overview.failing_integrations;
      const body = html`<p class="hint">Últimas 24 horas, desde ${formatDateTime(overview.since)}.</p>
        <section aria-labelledby="resumo">
          <h2 id="resumo">Resumo</h2>
          <div class="cards">
            ${card("Envios", formatNumber(overview.sends.total), byStatus(overview.sends.by_status, SEND_STATUS_WORDS))}
            ${card(
              "Entregas de webhook",
              formatNumber(overview.deliveries.total),
              byStatus(overview.deliveries.by_status, DELIVERY_STATUS_WORDS),
            )}
            ${card(
              "Taxa de sucesso das entregas",
              formatPercent(overview.success_rate),
              "entregues ÷ (entregues + falhas definitivas)",
            )}
            ${card(
              "Integrações falhando agora",
              formatNumber(failing.length),
              failing.length > 0 ? html`<a href="/entregas?status=pending">Ver entregas pendentes</a>` : "",
            )}
            ${card(
              "Entregas com falha definitiva",
              formatNumber(overview.dead_letters),
              overview.dead_letters > 0 ? html`<a href="/entregas?status=failed">Ver e reenviar</a>` : "sem pendências",
            )}
            ${card(
              "Avisos de template não lidos",
              formatNumber(overview.unread_notices),
              overview.unread_notices > 0 ? html`<a href="/templates/avisos">Ler avisos</a>` : "nada novo",
            )}
          </div>
        </section>
        <section aria-labelledby="falhando">
          <h2 id="falhando">Integrações falhando agora</h2>
          <p class="hint">
            Integrações com uma tentativa que falhou na última hora e ainda não foi entregue, ou que esgotaram as
            tentativas nesse período.
          </p>
          ${table({
            caption: "Integrações com falhas na última hora",
            headers: [
              "Integração",
              "Estado",
              "Aguardando nova tentativa",
              "Falha definitiva (1 h)",
              "Último erro",
              "Quando",
            ],
            rows: failing.map((f) => [
              html`<a href="/integracoes/${f.integration_id}"><code>${f.url}</code></a>`,
              f.active ? badge("ativa", "ok") : badge("pausada", "warn"),
              formatNumber(f.retrying),
              f.dead_lettered > 0 ? badge(formatNumber(f.dead_lettered), "bad") : "0",
              lastError(f.last_error_kind, f.last_status_code),
              formatDateTime(f.last_failure_at),
            ]),
            empty: "Nenhuma integração falhando agora.",
          })}
          ${failing.length > 0 ? html`<p><a href="/entregas?status=pending">Ver as entregas pendentes</a></p>` : ""}
        </section>`;
      res.type("html").send(page(req, { title: "Visão geral", section: "/", body }).value);
    });
  },
};
