import type { AccountNumberView } from "@gw/core/accounts";
import { brlUnits, formatBrlUnits, type UsageBreakdown, type UsageRow } from "@gw/core/pricing";
import { select, table } from "../views/components.ts";
import { formatBrl, formatBrlRate, formatDay, formatNumber } from "../views/format.ts";
import { PRICING_CATEGORY_LABELS, PRICING_TYPE_LABELS, labelOf } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { numberWithId } from "./business-numbers.ts";

/** What the Custos page shows: the cost ledger's totals, a chart of cost per day, the tables and the rate card. */

export function categoryLabel(category: string | null | undefined): string {
  if (!category) return "sem categoria";
  return labelOf(PRICING_CATEGORY_LABELS, category);
}

/** Meta's pricing type as words; its code in the title (the shop owner reads "cobrada", not `regular`). */
function typeLabel(type: string | null | undefined): SafeHtml {
  if (!type) return html`<span class="hint">sem tipo</span>`;
  return html`<span title="${type}">${labelOf(PRICING_TYPE_LABELS, type)}</span>`;
}

/** A category's words, its code in the title. */
function categoryCell(category: string | null | undefined): SafeHtml {
  return category
    ? html`<span title="${category}">${categoryLabel(category)}</span>`
    : html`${categoryLabel(category)}`;
}

/** The chart's series: the main categories each with its colour (panel.css `.serie-N`), the rest as "Outras". */
const SERIES = ["marketing", "utility", "authentication", "authentication-international", "service"] as const;
const OTHER_SERIES = SERIES.length;

function seriesOf(category: string | null | undefined): number {
  const index = (SERIES as readonly string[]).indexOf(
    category === "authentication_international" ? "authentication-international" : (category ?? ""),
  );
  return index === -1 ? OTHER_SERIES : index;
}

const seriesLabel = (series: number) => (series === OTHER_SERIES ? "Outras" : categoryLabel(SERIES[series]));

const units = (amount: string) => brlUnits(amount) ?? 0;
/** Units of R$ 0,0001 (the chart adds them up) as the decimal text formatBrl reads. */
const reais = (amountUnits: number) => formatBrlUnits(Math.round(amountUnits));

export interface CostsPageData {
  /** The ledger folded by (day, category), (day), (category, type) and (number), in that order (costs.ts). */
  report: UsageBreakdown;
  /** Every day from `since` to `until`, a bar each (days without charges too). */
  days: readonly string[];
  numbers: readonly AccountNumberView[];
  /** The filter as typed (dates YYYY-MM-DD, number id or undefined). */
  filter: { de: string; ate: string; numero: string | undefined };
}

const CHART = { width: 720, height: 260, left: 84, right: 12, top: 12, bottom: 34 };

/**
 * Cost per day as stacked SVG bars, one colour per category (presentation through panel.css classes: no inline
 * style, the CSP allows none). The numbers are in the "Por dia" table below; the chart only shows their shape.
 */
function costChart(days: readonly string[], byDayCategory: readonly UsageRow[]): SafeHtml {
  const perDay = new Map<string, number[]>();
  for (const day of days) perDay.set(day, SERIES.map(() => 0).concat(0));
  for (const row of byDayCategory) {
    const stack = row.day ? perDay.get(row.day) : undefined;
    if (!stack) continue;
    const series = seriesOf(row.category);
    stack[series] = (stack[series] ?? 0) + units(row.cost_brl);
  }
  const totals = days.map((day) => (perDay.get(day) ?? []).reduce((sum, value) => sum + value, 0));
  const max = Math.max(0, ...totals);
  if (max === 0) return html`<p class="empty">Nenhuma mensagem cobrada no período.</p>`;
  const plotWidth = CHART.width - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const slot = plotWidth / days.length;
  const barWidth = Math.max(1, slot * 0.8);
  const y = (value: number) => CHART.top + plotHeight - (value / max) * plotHeight;
  const used = [
    ...new Set(byDayCategory.filter((row) => units(row.cost_brl) > 0).map((row) => seriesOf(row.category))),
  ].sort();
  const bars = days.map((day, index) => {
    const stack = perDay.get(day) ?? [];
    let base = 0;
    const x = CHART.left + index * slot + (slot - barWidth) / 2;
    return stack.map((value, series) => {
      if (value === 0) return html``;
      const top = y(base + value);
      const height = y(base) - top;
      base += value;
      return html`<rect
        class="serie-${series}"
        x="${x.toFixed(2)}"
        y="${top.toFixed(2)}"
        width="${barWidth.toFixed(2)}"
        height="${Math.max(0.5, height).toFixed(2)}"
        ><title>${formatDay(day)} · ${seriesLabel(series)}: ${formatBrl(reais(value))}</title></rect
      >`;
    });
  });
  const ticks = [0, max / 2, max].map(
    (value) =>
      html`<g class="tick">
        <line
          x1="${CHART.left}"
          x2="${CHART.width - CHART.right}"
          y1="${y(value).toFixed(2)}"
          y2="${y(value).toFixed(2)}"
        ></line>
        <text x="${CHART.left - 6}" y="${(y(value) + 4).toFixed(2)}" text-anchor="end">${formatBrl(reais(value))}</text>
      </g>`,
  );
  const labelDays = [...new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])];
  const labels = labelDays.map((index) => {
    const x = CHART.left + index * slot + slot / 2;
    const anchor =
      labelDays.length > 1 && index === 0 ? "start" : index === days.length - 1 && days.length > 1 ? "end" : "middle";
    return html`<text class="day" x="${x.toFixed(2)}" y="${CHART.height - 10}" text-anchor="${anchor}"
      >${formatDay(days[index] ?? "")}</text
    >`;
  });
  const peak = days[totals.indexOf(max)] ?? "";
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${CHART.width} ${CHART.height}"
      role="img"
      aria-labelledby="grafico-titulo grafico-descricao"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="grafico-titulo">Custo estimado por dia, por categoria</title>
      <desc id="grafico-descricao">
        ${formatNumber(days.length)} dias; o maior custo diário foi ${formatBrl(reais(max))}, em ${formatDay(peak)}.
      </desc>
      ${ticks} ${bars} ${labels}
    </svg>
    <figcaption>
      <ul class="legend">
        ${used.map((series) => html`<li><span class="swatch serie-${series}" aria-hidden="true"></span>${seriesLabel(series)}</li>`)}
      </ul>
    </figcaption>
  </figure>`;
}

function figuresCells(row: UsageRow): SafeHtml[] {
  return [
    html`${formatNumber(row.messages)}`,
    html`${formatNumber(row.charged_messages)}${
      row.failed_messages > 0
        ? html`<br /><span class="hint">${formatNumber(row.failed_messages)} falharam (não cobradas)</span>`
        : ""
    }${
      row.fallback_messages > 0
        ? html`<br /><span class="hint">${formatNumber(row.fallback_messages)} pela tarifa de marketing</span>`
        : ""
    }`,
    html`${formatBrl(row.cost_brl)}`,
  ];
}

export function costsPageBody(data: CostsPageData): SafeHtml {
  const { report, days, numbers, filter } = data;
  const [byDayCategory = [], byDay = [], byCategoryType = [], byNumber = []] = report.groups;
  const displayOf = new Map(numbers.map((number) => [number.phone_number_id, number.display_number]));
  // The account's numbers in their usual order (the default first); a number removed since comes last.
  const position = (id: string | undefined) => {
    const index = numbers.findIndex((number) => number.phone_number_id === id);
    return index === -1 ? numbers.length : index;
  };
  const numberRows = [...byNumber].sort((a, b) => position(a.phone_number_id) - position(b.phone_number_id));
  const totals = report.totals;
  return html`<p class="hint">
      Estimativa do que a Meta cobra pelas mensagens enviadas, a partir do preço que ela informa em cada status. Só as
      mensagens que a Meta marca como cobradas entram na conta, e nunca as que falharam; as demais custam R$ 0. O valor
      usa a tabela de preços abaixo: a fatura da Meta pode diferir (faixas de volume, câmbio). Dias no horário de
      Brasília; cada mensagem conta no dia em que foi enviada.
    </p>
    <form method="get" action="/custos" class="filters">
      <label>De <input type="date" name="de" value="${filter.de}" required /></label>
      <label>Até <input type="date" name="ate" value="${filter.ate}" required /></label>
      ${select(
        "numero",
        "Número",
        numbers.map((number) => ({ value: number.phone_number_id, text: number.display_number })),
        filter.numero,
      )}
      <button type="submit" class="secondary">Filtrar</button>
    </form>
    <div class="cards" role="group" aria-label="Totais do período">
      <div class="card">
        <div>Custo estimado</div>
        <div class="value">${formatBrl(totals.cost_brl)}</div>
      </div>
      <div class="card">
        <div>Mensagens cobradas</div>
        <div class="value">${formatNumber(totals.charged_messages)}</div>
      </div>
      <div class="card">
        <div>Não cobradas</div>
        <div class="value">${formatNumber(totals.messages - totals.charged_messages)}</div>
        <div class="hint">gratuitas, ou que falharam</div>
      </div>
      <div class="card">
        <div>Com preço informado</div>
        <div class="value">${formatNumber(totals.messages)}</div>
      </div>
    </div>
    ${
      totals.fallback_messages > 0
        ? html`<p class="notice error" role="status">
            ${
              totals.fallback_messages === 1
                ? "1 mensagem cobrada é de uma categoria sem tarifa na tabela e foi estimada"
                : `${formatNumber(totals.fallback_messages)} mensagens cobradas são de categorias sem tarifa na tabela e foram estimadas`
            }
            pela tarifa de marketing (a mais alta). Peça ao operador do gateway que cadastre a tarifa que falta.
          </p>`
        : ""
    }
    <section aria-labelledby="grafico">
      <h2 id="grafico">Custo por dia</h2>
      ${costChart(days, byDayCategory)}
    </section>
    <section aria-labelledby="por-categoria">
      <h2 id="por-categoria">Por categoria</h2>
      ${table({
        caption: "Mensagens com preço informado pela Meta, por categoria e tipo de preço",
        headers: ["Categoria", "Tipo", "Mensagens", "Cobradas", "Custo estimado"],
        rows: byCategoryType.map((row) => [categoryCell(row.category), typeLabel(row.type), ...figuresCells(row)]),
        empty: "Nenhuma mensagem com preço informado no período.",
      })}
    </section>
    <section aria-labelledby="por-dia">
      <h2 id="por-dia">Por dia</h2>
      ${table({
        caption: "Mensagens e custo estimado de cada dia com mensagens",
        headers: ["Dia", "Mensagens", "Cobradas", "Custo estimado"],
        rows: byDay.map((row) => [formatDay(row.day ?? ""), ...figuresCells(row)]),
        empty: "Nenhuma mensagem com preço informado no período.",
      })}
    </section>
    <section aria-labelledby="por-numero">
      <h2 id="por-numero">Por número</h2>
      ${table({
        caption: "Mensagens e custo estimado de cada número da conta",
        headers: ["Número", "Mensagens", "Cobradas", "Custo estimado"],
        rows: numberRows.map((row) => [
          numberWithId(displayOf.get(row.phone_number_id ?? "") ?? null, row.phone_number_id ?? ""),
          ...figuresCells(row),
        ]),
        empty: "Nenhuma mensagem com preço informado no período.",
      })}
    </section>
    <section aria-labelledby="tabela-precos">
      <h2 id="tabela-precos">Tabela de preços</h2>
      <p class="hint">
        Preço de uma mensagem cobrada, em vigor em ${formatDay(report.until)}. Definida pelo operador do gateway; cada
        dia usa a tarifa em vigor nele.
      </p>
      ${table({
        caption: "Preço por mensagem cobrada, por categoria",
        headers: ["Categoria", "Preço", "Desde", "Origem"],
        rows: report.rates.map((rate) => [
          categoryCell(rate.category),
          formatBrlRate(rate.rate_brl),
          formatDay(rate.effective_from),
          rate.scope === "account" ? "tarifa desta conta" : "tabela do gateway",
        ]),
        empty: "Nenhuma tarifa cadastrada: as mensagens cobradas aparecem com custo R$ 0.",
      })}
    </section>`;
}
