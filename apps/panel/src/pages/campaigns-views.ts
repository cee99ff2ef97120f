import { isMessageStatus } from "@gw/contracts";
import type { CampaignView, RecipientView } from "@gw/core/campaigns";
import { templateShape } from "@gw/core/templates";
import type { MetaTemplate } from "@gw/meta";
import { badge, pager, select, table } from "../views/components.ts";
import { formatBrl, formatDateTime, formatNumber, formatPercent } from "../views/format.ts";
import { CAMPAIGN_STATUS_LABELS, OUTCOME_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";

/** What the Campanhas pages show of a campaign and its recipients: labels, progress, the CSV format. */

export type CampaignStatus = CampaignView["status"];
export type RecipientOutcome = RecipientView["status"];

export const CAMPAIGN_STATUSES = Object.keys(CAMPAIGN_STATUS_LABELS) as [CampaignStatus, ...CampaignStatus[]];
export const RECIPIENT_OUTCOMES = Object.keys(OUTCOME_LABELS) as [RecipientOutcome, ...RecipientOutcome[]];

/** The notices of the Campanhas pages (`?ok=` and `?erro=` after a post, PRG). */
export const CAMPAIGN_NOTICES = {
  criada: "Campanha criada como rascunho: confira o relatório de validação antes de iniciar.",
  iniciada: "Campanha iniciada: os envios seguem a taxa do número.",
  agendada: "Campanha agendada: os envios começam no início marcado.",
  pausada: "Campanha pausada: os envios em andamento terminam e os demais esperam a retomada.",
  retomada: "Campanha retomada.",
  cancelada: "Campanha cancelada: os destinatários ainda na fila não receberão a mensagem.",
  estado: "A campanha não aceita esta ação no estado em que está agora; confira o status atual.",
  contagem:
    "A quantidade de destinatários aceitos não é a do relatório mostrado; confira o relatório e inicie de novo.",
  vazia: "A campanha não tem destinatários aceitos; corrija a lista e crie outra campanha.",
  bloqueada:
    "Os envios do número desta campanha estão bloqueados: a Meta desativou ou desconectou a conta WhatsApp Business (veja Avisos da conta). A campanha só pode ser iniciada ou retomada quando a Meta a reativar.",
};

const counted = (count: number, one: string, many: string) => `${formatNumber(count)} ${count === 1 ? one : many}`;

/** The campaigns list: a page of campaigns (newest first), its status filter and the next page's cursor. */
export function campaignListBody(options: {
  campaigns: readonly CampaignView[];
  /** Each campaign's number as people know it (display number), by phone_number_id. */
  numbers: ReadonlyMap<string, string>;
  status: CampaignStatus | undefined;
  next: string | null;
  manage: boolean;
}): SafeHtml {
  const { campaigns, numbers, status } = options;
  return html`<p class="hint">
      Envios de um template aprovado a uma lista de destinatários, no ritmo da taxa de cada número. Cada destinatário
      recebe a campanha uma vez, e o resultado de cada um fica registrado.
    </p>
    ${
      options.manage
        ? html`<p class="actions"><a href="/campanhas/nova">Nova campanha</a></p>`
        : html`<p class="hint">
            Seu papel permite acompanhar as campanhas; proprietários e administradores as criam e controlam.
          </p>`
    }
    <form method="get" action="/campanhas" class="filters">
      ${select(
        "status",
        "Status",
        CAMPAIGN_STATUSES.map((value) => ({ value, text: CAMPAIGN_STATUS_LABELS[value].text })),
        status,
      )}
      <button type="submit" class="secondary">Filtrar</button>
      ${status ? html`<a href="/campanhas">Limpar filtro</a>` : ""}
    </form>
    ${table({
      caption: "Campanhas da conta, da mais nova à mais antiga",
      headers: [
        "Campanha",
        "Status",
        "Número",
        "Template",
        "Destinatários",
        "Progresso",
        "Custo estimado",
        "Criada em",
      ],
      rows: campaigns.map((campaign) => [
        html`<a href="/campanhas/${campaign.id}">${campaign.name}</a>`,
        campaignBadge(campaign.status),
        numbers.get(campaign.phone_number_id) ?? campaign.phone_number_id,
        html`<code>${campaign.template}</code> <span class="hint">(${campaign.language})</span>`,
        html`${counted(campaign.accepted_recipients, "aceito", "aceitos")}${
          campaign.rejected_count > 0
            ? html`<br /><span class="hint">${counted(campaign.rejected_count, "recusado", "recusados")}</span>`
            : ""
        }`,
        progressSummary(campaign),
        formatBrl(campaign.estimated_cost.amount_brl),
        formatDateTime(campaign.created_at),
      ]),
      empty: status ? "Nenhuma campanha com este status." : "Nenhuma campanha ainda.",
    })}
    ${pager({ path: "/campanhas", query: { status }, next: options.next })}`;
}

export function campaignBadge(status: CampaignStatus): SafeHtml {
  const label = CAMPAIGN_STATUS_LABELS[status];
  return badge(label.text, label.tone);
}

export function outcomeBadge(status: RecipientOutcome): SafeHtml {
  const label = OUTCOME_LABELS[status];
  return badge(label.text, label.tone);
}

/** A wait as people say it: "40 s", "12 min", "3 h 5 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.ceil(seconds))} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${formatNumber(hours)} h` : `${formatNumber(hours)} h ${minutes % 60} min`;
}

/** The outcomes past the queue and the send: every outcome but `queued` and `sending`. */
const OUTCOMES_WITH_RESULT = RECIPIENT_OUTCOMES.filter((outcome) => outcome !== "queued" && outcome !== "sending");

/** Recipients that have an outcome (no longer queued or being sent). */
export function settledCount(campaign: CampaignView): number {
  return OUTCOMES_WITH_RESULT.reduce((sum, outcome) => sum + campaign.progress[outcome], 0);
}

/** The list's one-line progress: the non-zero counts, furthest first. */
export function progressSummary(campaign: CampaignView): string {
  const order: RecipientOutcome[] = [
    "read",
    "delivered",
    "sent",
    "failed",
    "skipped",
    "cancelled",
    "sending",
    "queued",
  ];
  const parts = order
    .filter((outcome) => campaign.progress[outcome] > 0)
    .map((outcome) => {
      const count = campaign.progress[outcome];
      const label = OUTCOME_LABELS[outcome];
      return `${formatNumber(count)} ${count === 1 ? label.one : label.plural.toLowerCase()}`;
    });
  return parts.length > 0 ? parts.join(" · ") : "—";
}

/** How long the rest takes at the number's rate in force, and when it should end. */
function etaText(campaign: CampaignView): SafeHtml {
  const rate = html`a ${formatNumber(campaign.rate_per_second)} msg/s, o ritmo em vigor`;
  if (campaign.eta_seconds === null) {
    if (campaign.status === "completed" || campaign.status === "cancelled") return html``;
    return html`<p class="hint">Nenhum destinatário na fila.</p>`;
  }
  const duration = formatDuration(campaign.eta_seconds);
  if (campaign.status === "draft")
    return html`<p>Duração estimada depois de iniciada: cerca de <strong>${duration}</strong> (${rate}).</p>`;
  if (campaign.status === "paused")
    return html`<p>Faltam cerca de <strong>${duration}</strong> de envios quando for retomada (${rate}).</p>`;
  return html`<p>
    Tempo restante estimado: cerca de <strong>${duration}</strong> (${rate})${
      campaign.estimated_completion_at
        ? html`; término previsto em <strong>${formatDateTime(campaign.estimated_completion_at)}</strong>`
        : ""
    }.
  </p>`;
}

/** The counts as cards, a progress bar of recipients with an outcome, and the ETA. */
export function progressSection(campaign: CampaignView): SafeHtml {
  const settled = settledCount(campaign);
  const total = campaign.accepted_recipients;
  // Queued and the message's four statuses are always shown; the others only when they happened.
  const shown = RECIPIENT_OUTCOMES.filter(
    (outcome) => outcome === "queued" || isMessageStatus(outcome) || campaign.progress[outcome] > 0,
  );
  return html`<div class="cards" role="group" aria-label="Destinatários por resultado">
      ${shown.map(
        (outcome) =>
          html`<div class="card">
            <div>${OUTCOME_LABELS[outcome].plural}</div>
            <div class="value">${formatNumber(campaign.progress[outcome])}</div>
          </div>`,
      )}
    </div>
    <p>
      <label
        >${formatNumber(settled)} de ${formatNumber(total)} destinatários com resultado
        (${formatPercent(total === 0 ? null : settled / total)})
        <progress max="${Math.max(total, 1)}" value="${settled}">${formatNumber(settled)}</progress>
      </label>
    </p>
    ${etaText(campaign)}
    <p class="hint">
      Cada destinatário conta uma vez, no estado mais avançado: uma mensagem lida conta em Lidas, não em Entregues.
      Entregas e leituras chegam pelos webhooks da Meta, depois do envio. O ritmo em vigor fica um pouco abaixo da taxa
      do número (uma folga para nunca passar dela na Meta) e cai por um tempo quando a Meta pede para desacelerar (erro
      130429).
    </p>`;
}

/** The columns of a CSV row that a template's send needs, read from core's templateShape (as the send checks it). */
export function csvColumnsOf(template: MetaTemplate): SafeHtml {
  const shape = templateShape(template);
  const columns: SafeHtml[] = [html`<code>to</code>`];
  shape.body.variables.forEach((variable, index) => {
    // Positional values go to {{1}}, {{2}}... in order; named ones in the order the body first uses them.
    const token = shape.parameterFormat === "NAMED" ? variable : String(index + 1);
    columns.push(html`<code>variable_${index + 1}</code> ({{${token}}})`);
  });
  if (shape.header && shape.header.variables.length > 0) columns.push(html`<code>header_text</code>`);
  if (shape.header?.needsMedia)
    columns.push(html`<code>header_media_link</code> (${shape.header.format.toLowerCase()} por URL pública)`);
  if (shape.buttons.some((button) => button.needsUrlParam)) columns.push(html`<code>button_url_param</code>`);
  if (shape.buttons.some((button) => button.needsCoupon)) columns.push(html`<code>coupon_code</code>`);
  return html`${columns.map((column, i) => html`${i > 0 ? ", " : ""}${column}`)}`;
}

const CSV_EXAMPLE =
  "to,variable_1,variable_2,variable_3,header_text,client_ref\n" +
  "5511987654321,Maria,12345,3,12345,cliente-1\n" +
  '"+55 21 99876-5432",João,12346,1,12346,cliente-2\n';

/** The CSV format the upload takes (core's rowsFromCsv), with an example. */
export function csvFormatHelp(): SafeHtml {
  return html`<details>
    <summary>Formato do CSV</summary>
    <p>
      A primeira linha tem os nomes das colunas, em qualquer ordem; cada linha seguinte é um destinatário. Separe com
      vírgula, ponto e vírgula (como o Excel salva em português) ou tabulação. Arquivos em UTF-8 ou no formato do Excel
      (Windows-1252) são aceitos. Até 100.000 destinatários.
    </p>
    <ul>
      <li><code>to</code> (obrigatória): o número com DDI e DDD, em qualquer formatação (+55 11 98765-4321).</li>
      <li>
        <code>variable_1</code> … <code>variable_20</code>: as variáveis do corpo, na ordem ({{1}}, {{2}}…; em templates
        com variáveis nomeadas, na ordem em que aparecem no texto).
      </li>
      <li><code>header_text</code>: a variável do cabeçalho de texto.</li>
      <li>
        <code>header_media_link</code>: a imagem, o vídeo ou o documento do cabeçalho, por uma URL pública; opcionais
        <code>header_media_type</code> (image, video, document) e <code>header_media_filename</code>.
      </li>
      <li>
        <code>button_url_param</code>: a parte variável do botão de URL (opcional <code>button_url_index</code>, a
        posição do botão).
      </li>
      <li><code>coupon_code</code>: o código do botão de copiar código.</li>
      <li><code>client_ref</code>: uma referência sua (até 64 caracteres), devolvida nos eventos message.status.</li>
    </ul>
    <p>Exemplo para o template <code>pedido_confirmado</code> (cabeçalho com uma variável e três no corpo):</p>
    <pre aria-label="Exemplo de CSV de destinatários">${CSV_EXAMPLE}</pre>
    <p class="hint">
      Antes de qualquer envio cada linha é conferida: número inválido, quantidade errada de variáveis (ou outra
      exigência do template) e destinatário repetido são recusados com o motivo, e os demais seguem.
    </p>
  </details>`;
}
