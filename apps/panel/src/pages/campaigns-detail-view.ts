import type { Request } from "express";
import type { BusinessNumberRef } from "@gw/core/accounts";
import type { CampaignDetail, RecipientView } from "@gw/core/campaigns";
import { csrfField, pager, postButton, select, table } from "../views/components.ts";
import { formatBrl, formatBrlRate, formatDateTime, formatNumber } from "../views/format.ts";
import { FIELD_LABELS, OUTCOME_LABELS, SEND_ERROR_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { numberWithId } from "./business-numbers.ts";
import {
  CAMPAIGN_NOTICES,
  RECIPIENT_OUTCOMES,
  campaignBadge,
  outcomeBadge,
  progressSection,
  type RecipientOutcome,
} from "./campaigns-views.ts";
import { categoryLabel } from "./costs-views.ts";
import { categoryText } from "./templates-preview.ts";

/** A campaign's page and its rejected rows' page: what the handlers in campaigns.ts render. */

/** Rejected rows shown on the campaign's page; all of them, paged, on their own page. */
const REJECTED_PREVIEW = 20;

export interface CampaignPageData {
  campaign: CampaignDetail;
  recipients: { recipients: RecipientView[]; next_after_id: number | null };
  number: BusinessNumberRef | null;
  /** The recipient list's filter. */
  outcome: RecipientOutcome | undefined;
  /** Owners and admins control the campaign (the routes check the role again). */
  manage: boolean;
}

export function campaignPageBody(req: Request, data: CampaignPageData): SafeHtml {
  const { campaign, number } = data;
  const report = validationReport(campaign);
  const progress = html`<section aria-labelledby="progresso">
    <h2 id="progresso">Progresso</h2>
    ${progressSection(campaign)}
    <p><a href="/campanhas/${campaign.id}">Atualizar o progresso</a></p>
  </section>`;
  return html`<p><a href="/campanhas">← Campanhas</a></p>
    <dl>
      <dt>Status</dt>
      <dd>${campaignBadge(campaign.status)}</dd>
      ${
        campaign.pause_reason
          ? html`<dt>Motivo da pausa</dt>
              <dd class="pause-reason">${campaign.pause_reason}</dd>`
          : ""
      }
      <dt>Número</dt>
      <dd>
        ${numberWithId(
          number?.displayNumber ?? null,
          campaign.phone_number_id,
          number ? `(${formatNumber(number.messagingRatePerSecond)} msg/s)` : undefined,
        )}
      </dd>
      <dt>Template</dt>
      <dd>
        <code>${campaign.template}</code> (${campaign.language})${
          campaign.template_category ? html` · ${categoryText(campaign.template_category)}` : ""
        }
      </dd>
      <dt>Criada em</dt>
      <dd>${formatDateTime(campaign.created_at)}</dd>
      <dt>Início agendado</dt>
      <dd>${campaign.start_at ? formatDateTime(campaign.start_at) : "assim que for iniciada"}</dd>
      ${
        campaign.started_at
          ? html`<dt>Iniciada em</dt>
              <dd>${formatDateTime(campaign.started_at)}</dd>`
          : ""
      }
      ${
        campaign.completed_at
          ? html`<dt>Concluída em</dt>
              <dd>${formatDateTime(campaign.completed_at)}</dd>`
          : ""
      }
      ${
        campaign.cancelled_at
          ? html`<dt>Cancelada em</dt>
              <dd>${formatDateTime(campaign.cancelled_at)}</dd>`
          : ""
      }
    </dl>
    ${costSection(campaign)}
    ${
      campaign.status === "draft"
        ? html`${report} ${controls(req, campaign, data.manage)} ${progress}`
        : html`${progress} ${controls(req, campaign, data.manage)} ${report}`
    }
    ${recipientsSection(data)}`;
}

/**
 * What the campaign costs: the estimate before it starts (every accepted recipient charged once at the rate of the
 * template's category, an upper bound) and what its messages cost so far, as Meta priced them.
 */
function costSection(campaign: CampaignDetail): SafeHtml {
  const estimate = campaign.estimated_cost;
  const running = campaign.running_cost;
  return html`<section aria-labelledby="custo">
    <h2 id="custo">Custo</h2>
    <div class="cards" role="group" aria-label="Custo da campanha">
      <div class="card">
        <div>Custo estimado</div>
        <div class="value">${formatBrl(estimate.amount_brl)}</div>
        <div class="hint">
          ${formatNumber(estimate.recipients)} destinatários × ${formatBrlRate(estimate.rate_brl)}
          (${categoryLabel(estimate.category)})
        </div>
      </div>
      <div class="card">
        <div>Custo até agora</div>
        <div class="value">${formatBrl(running.amount_brl)}</div>
        <div class="hint">
          ${formatNumber(running.charged_messages)} cobradas de ${formatNumber(running.priced_messages)} mensagens com
          preço informado pela
          Meta${
            running.failed_messages === 1
              ? " (1 falhou e não é cobrada)"
              : running.failed_messages > 1
                ? ` (${formatNumber(running.failed_messages)} falharam e não são cobradas)`
                : ""
          }
        </div>
      </div>
    </div>
    <p class="hint">
      A estimativa é um teto: cada destinatário aceito cobrado uma vez pela tabela de preços. A Meta só cobra mensagens
      entregues, reduz o preço de utilidade e autenticação por volume e, até 30/09/2026, não cobrava templates de
      utilidade dentro da janela de atendimento. O custo até agora soma o preço que a Meta informou no status de cada
      mensagem; o da conta inteira está em <a href="/custos">Custos</a>.
    </p>
  </section>`;
}

/** A recipient's failure: its words, then the registry's sentence, the code (the CSV's error_code) smaller. */
function errorCell(code: string, message: string | null): SafeHtml {
  const label = SEND_ERROR_LABELS[code];
  return html`${label ?? message ?? code} ${label && message ? html`<br /><span class="hint">${message}</span>` : ""}
    <small class="code"><code>${code}</code></small>`;
}

function recipientsSection({ campaign, recipients, outcome }: CampaignPageData): SafeHtml {
  return html`<section aria-labelledby="destinatarios">
    <h2 id="destinatarios">Destinatários</h2>
    <p class="actions">
      <a href="/campanhas/${campaign.id}/exportar" download>Exportar CSV</a>
      <span class="hint">O resultado de cada destinatário, com o código de erro, em um arquivo CSV.</span>
    </p>
    <form method="get" action="/campanhas/${campaign.id}#destinatarios" class="filters">
      ${select(
        "resultado",
        "Resultado",
        RECIPIENT_OUTCOMES.map((value) => ({ value, text: OUTCOME_LABELS[value].text })),
        outcome,
      )}
      <button type="submit" class="secondary">Filtrar</button>
      ${outcome ? html`<a href="/campanhas/${campaign.id}#destinatarios">Limpar filtro</a>` : ""}
    </form>
    ${table({
      caption: "Resultado de cada destinatário, na ordem da lista",
      headers: ["Linha", "Número", FIELD_LABELS.client_ref, "Resultado", "Erro", "Tentativas", "Atualizado em"],
      rows: recipients.recipients.map((recipient) => [
        formatNumber(recipient.row),
        recipient.to,
        recipient.client_ref ?? "—",
        outcomeBadge(recipient.status),
        recipient.error_code ? errorCell(recipient.error_code, recipient.error_message) : "—",
        formatNumber(recipient.attempts),
        formatDateTime(recipient.updated_at),
      ]),
      empty: outcome ? "Nenhum destinatário com este resultado." : "A campanha não tem destinatários.",
    })}
    ${pager({
      path: `/campanhas/${campaign.id}`,
      query: { resultado: outcome },
      next: recipients.next_after_id === null ? null : String(recipients.next_after_id),
    })}
  </section>`;
}

/** The rejected rows' own page: one page of them, and the cursor of the next. */
export function rejectedPageBody(
  campaign: CampaignDetail,
  shown: CampaignDetail["rejected_rows"],
  next: string | null,
): SafeHtml {
  return html`<p><a href="/campanhas/${campaign.id}">← ${campaign.name}</a></p>
    <p>
      ${formatNumber(campaign.total_rows)} linhas lidas: ${formatNumber(campaign.accepted_recipients)} aceitas,
      ${formatNumber(campaign.rejected_count)} recusadas.
    </p>
    ${rejectedTable(shown)} ${pager({ path: `/campanhas/${campaign.id}/recusadas`, query: {}, next })}`;
}

function rejectedTable(rows: CampaignDetail["rejected_rows"]): SafeHtml {
  return table({
    caption: "Linhas recusadas na validação, com o motivo",
    headers: ["Linha", "Número", "Motivo"],
    rows: rows.map((row) => [
      formatNumber(row.row),
      row.to || "—",
      html`${row.message} <small class="code"><code>${row.code}</code></small>`,
    ]),
    empty: "Nenhuma linha foi recusada.",
  });
}

/** What validation made of the rows: the accepted count a start must name, and each refused row with its reason. */
function validationReport(campaign: CampaignDetail): SafeHtml {
  const preview = campaign.rejected_rows.slice(0, REJECTED_PREVIEW);
  return html`<section aria-labelledby="validacao">
    <h2 id="validacao">Relatório de validação</h2>
    <div class="cards" role="group" aria-label="Resultado da validação">
      <div class="card">
        <div>Linhas lidas</div>
        <div class="value">${formatNumber(campaign.total_rows)}</div>
      </div>
      <div class="card">
        <div>Aceitas</div>
        <div class="value">${formatNumber(campaign.accepted_recipients)}</div>
      </div>
      <div class="card">
        <div>Recusadas</div>
        <div class="value">${formatNumber(campaign.rejected_count)}</div>
      </div>
    </div>
    ${campaign.rejected_count > 0 ? rejectedTable(preview) : html`<p>Todas as linhas foram aceitas.</p>`}
    ${
      campaign.rejected_count > preview.length
        ? html`<p>
            <a href="/campanhas/${campaign.id}/recusadas"
              >Ver todas as ${formatNumber(campaign.rejected_count)} linhas recusadas</a
            >
          </p>`
        : ""
    }
  </section>`;
}

/** The controls the campaign's status allows, for owners and admins (the routes check the role again). */
function controls(req: Request, campaign: CampaignDetail, manage: boolean): SafeHtml {
  if (!manage)
    return html`<p class="hint">
      Seu papel permite acompanhar a campanha; proprietários e administradores a controlam.
    </p>`;
  const status = campaign.status;
  if (status === "completed" || status === "cancelled") return html``;
  const accepted = campaign.accepted_recipients;
  const start =
    status === "draft" && accepted > 0
      ? html`<form
          method="post"
          action="/campanhas/${campaign.id}/iniciar"
          class="inline"
          data-confirm="Iniciar o envio para ${formatNumber(accepted)} destinatários?"
        >
          ${csrfField(req)}
          <input type="hidden" name="aceitos" value="${accepted}" />
          <button type="submit">Iniciar</button>
        </form>`
      : "";
  const pause =
    status === "running" || status === "scheduled"
      ? postButton(req, { action: `/campanhas/${campaign.id}/pausar`, label: "Pausar" })
      : "";
  const resume =
    status === "paused" ? postButton(req, { action: `/campanhas/${campaign.id}/retomar`, label: "Retomar" }) : "";
  const cancel = postButton(req, {
    action: `/campanhas/${campaign.id}/cancelar`,
    label: "Cancelar campanha",
    danger: true,
    confirm: "Cancelar esta campanha? Os destinatários ainda na fila não receberão a mensagem, e isso não se desfaz.",
  });
  return html`<section aria-labelledby="controles">
    <h2 id="controles">Controles</h2>
    ${
      status === "draft" && accepted === 0
        ? html`<p class="notice error" role="alert">${CAMPAIGN_NOTICES.vazia}</p>`
        : status === "draft"
          ? html`<p>
              Nada foi enviado ainda. Iniciar envia aos ${formatNumber(accepted)} destinatários
              aceitos${campaign.start_at ? html`, a partir de ${formatDateTime(campaign.start_at)}` : ""}.
            </p>`
          : ""
    }
    <div class="actions">${start} ${pause} ${resume} ${cancel}</div>
  </section>`;
}
