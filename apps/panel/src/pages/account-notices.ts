import type { Router } from "express";
import {
  ACCOUNT_EVENT_FIELDS,
  countUnreadAccountEvents,
  listAccountEvents,
  listWabaHealth,
  markAccountEventRead,
  markAllAccountEventsRead,
  type AccountEventField,
  type AccountEventView,
  type WabaHealthView,
} from "@gw/core/health";
import type { PanelDeps } from "../container.ts";
import { badge, table } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { ACCOUNT_EVENT_LABELS, BAN_STATES, LIMIT_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { registerNoticesPage } from "./notices.ts";

import type { PanelPage } from "./types.ts";

/**
 * "Avisos da conta": Meta's account and number health webhooks (account_update, phone_number_quality_update,
 * business_capability_update, template edits and category changes, account alerts) as notices, every one as Meta
 * sent it (events the gateway does not know included) with what the gateway did; each WABA's sending state and
 * portfolio limit above them. Read per user, like template notices.
 */

const PAGE_SIZE = 25;
const PATH = "/conta/avisos";

export const FIELD_LABELS: Record<AccountEventField, string> = {
  account_update: "Conta",
  phone_number_quality_update: "Número",
  business_capability_update: "Limite do portfólio",
  message_template_components_update: "Template editado",
  template_category_update: "Categoria de template",
  account_alerts: "Alerta da conta",
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A scalar of Meta's value as text (objects and lists are in the full data below each notice). */
function scalar(value: unknown): string | null {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function limitText(value: unknown): string | null {
  const given = scalar(value);
  return given === null ? null : (LIMIT_LABELS[given] ?? given);
}

/** What the notice is: the field, then Meta's event (or the ban state of DISABLED_UPDATE). */
function what(event: AccountEventView): SafeHtml {
  const field = FIELD_LABELS[event.field as AccountEventField] ?? event.field;
  const banInfo = event.value.ban_info;
  const ban = event.event === "DISABLED_UPDATE" && isRecord(banInfo) ? scalar(banInfo.waba_ban_state) : null;
  const label = (ban ? BAN_STATES[ban] : undefined) ?? (event.event ? ACCOUNT_EVENT_LABELS[event.event] : undefined);
  const eventBadge = label
    ? badge(label.text, label.tone)
    : event.event
      ? html`${badge("evento novo", "warn")} <code>${event.event}</code>`
      : "";
  return html`<strong>${field}</strong> ${eventBadge}
    ${event.event && label ? html`<br /><span class="hint"><code>${event.event}</code></span>` : ""}`;
}

/** The few facts of Meta's value worth a sentence; the whole value is always one click away. */
function facts(event: AccountEventView): string[] {
  const v = event.value;
  const lines: string[] = [];
  const template = scalar(v.message_template_name);
  const language = scalar(v.message_template_language);
  const templateName = template ? `${template}${language ? ` (${language})` : ""}` : null;
  switch (event.field) {
    case "phone_number_quality_update": {
      const number = event.display_number ?? scalar(v.display_phone_number);
      if (number) lines.push(`Número ${number}${event.phone_number_id ? "" : " (não encontrado entre os da conta)"}.`);
      const limit = limitText(v.max_daily_conversations_per_business) ?? limitText(v.current_limit);
      if (limit) lines.push(`Limite de mensagens: ${limit}.`);
      const quality = scalar(v.quality_rating) ?? scalar(v.current_quality);
      if (quality) lines.push(`Qualidade: ${quality}.`);
      break;
    }
    case "business_capability_update": {
      const limit = limitText(v.max_daily_conversations_per_business) ?? limitText(v.max_daily_conversation_per_phone);
      if (limit) lines.push(`Limite do portfólio: ${limit}.`);
      const numbers = scalar(v.max_phone_numbers_per_waba) ?? scalar(v.max_phone_numbers_per_business);
      if (numbers) lines.push(`Até ${numbers} números.`);
      break;
    }
    case "message_template_components_update": {
      if (templateName) lines.push(`Template ${templateName} editado na Meta.`);
      const body = scalar(v.message_template_element);
      if (body) lines.push(`Corpo: «${body}»`);
      break;
    }
    case "template_category_update": {
      const correct = scalar(v.correct_category);
      const current = scalar(v.new_category);
      const previous = scalar(v.previous_category);
      const when = typeof v.category_update_timestamp === "number" ? v.category_update_timestamp : null;
      if (correct)
        lines.push(
          `O template ${templateName ?? "?"} passará de ${current ?? "?"} para ${correct}${
            when ? ` em ${formatDateTime(new Date(when * 1000))}` : ""
          }: o preço de cada envio muda.`,
        );
      else if (current)
        lines.push(`O template ${templateName ?? "?"} passou de ${previous ?? "?"} para ${current}: o preço mudou.`);
      break;
    }
    case "account_alerts": {
      const info = isRecord(v.alert_info) ? v.alert_info : {};
      const type = scalar(info.alert_type);
      const severity = scalar(info.alert_severity);
      const description = scalar(info.alert_description);
      if (type) lines.push(`${type}${severity ? ` (${severity})` : ""}${description ? `: ${description}` : ""}`);
      break;
    }
    default: {
      const ban = isRecord(v.ban_info) ? scalar(v.ban_info.waba_ban_date) : null;
      if (ban) lines.push(`Data informada pela Meta: ${ban}.`);
      const violation = isRecord(v.violation_info) ? scalar(v.violation_info.violation_type) : null;
      if (violation) lines.push(`Violação: ${violation}.`);
      const restrictions = Array.isArray(v.restriction_info) ? v.restriction_info : [];
      for (const item of restrictions) {
        const type = isRecord(item) ? scalar(item.restriction_type) : null;
        const until = isRecord(item) && typeof item.expiration === "number" ? item.expiration : null;
        if (type) lines.push(`Restrição ${type}${until ? ` até ${formatDateTime(new Date(until * 1000))}` : ""}.`);
      }
      const country = scalar(v.country);
      if (country) lines.push(`País: ${country}.`);
    }
  }
  return lines;
}

function details(event: AccountEventView): SafeHtml {
  return html`${facts(event).map((line) => html`<span>${line}</span><br />`)}
    <details>
      <summary>Dados enviados pela Meta</summary>
      <pre aria-label="Dados do aviso ${String(event.id)}">${JSON.stringify(event.value, null, 2)}</pre>
    </details>`;
}

/** What the gateway did about it. */
function effects(event: AccountEventView): SafeHtml {
  const done = event.effects;
  if (!done) return html`—`;
  const parts: SafeHtml[] = [];
  if (done.sending_blocked === true) parts.push(badge("envios bloqueados", "bad"));
  if (done.sending_blocked === false) parts.push(badge("envios liberados", "ok"));
  if (done.messaging_rate_per_second !== null)
    parts.push(badge(`vazão ${formatNumber(done.messaging_rate_per_second)} msg/s`, "ok"));
  for (const id of done.paused_campaign_ids) parts.push(html`<a href="/campanhas/${id}">campanha pausada</a>`);
  return parts.length > 0 ? html`${parts.map((part) => html`${part}<br />`)}` : html`<span class="hint">nada</span>`;
}

function wabaState(waba: WabaHealthView): SafeHtml {
  if (waba.sending_blocked_at === null) return badge("envios liberados", "ok");
  return html`${badge("envios bloqueados", "bad")}
    <span class="hint">desde ${formatDateTime(waba.sending_blocked_at)}</span>
    <br />${waba.sending_block_reason ?? ""}`;
}

function wabaSection(wabas: readonly WabaHealthView[]): SafeHtml {
  return table({
    caption: "Contas WhatsApp Business (WABA) da conta, como a Meta as informou",
    headers: ["WABA", "Envios", "Limite do portfólio", "Números permitidos"],
    rows: wabas.map((waba) => [
      html`<code>${waba.waba_id}</code>`,
      wabaState(waba),
      waba.messaging_limit
        ? html`${LIMIT_LABELS[waba.messaging_limit] ?? waba.messaging_limit}
            <span class="hint">(${formatDateTime(waba.capability_updated_at)})</span>`
        : html`<span class="hint">não informado</span>`,
      waba.max_phone_numbers === null ? "—" : formatNumber(waba.max_phone_numbers),
    ]),
    empty: "A conta ainda não tem números comerciais; o operador da plataforma os cadastra.",
  });
}

export const accountNoticesPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    registerNoticesPage(router, deps, {
      path: PATH,
      title: "Avisos da conta",
      section: PATH,
      pageSize: PAGE_SIZE,
      types: ACCOUNT_EVENT_FIELDS.map((field) => ({ value: field, text: FIELD_LABELS[field], filter: field })),
      service: {
        list: async (db, { filter, ...input }) => {
          const page = await listAccountEvents(db, { ...input, field: filter as AccountEventField | undefined });
          return { items: page.events, next_cursor: page.next_cursor };
        },
        countUnread: countUnreadAccountEvents,
        markRead: (db, { id, ...input }) => markAccountEventRead(db, { ...input, eventId: id }),
        markAllRead: markAllAccountEventsRead,
      },
      notFound: "O aviso da conta não foi encontrado nesta conta.",
      intro: async (panel, reader) => {
        const wabas = await listWabaHealth({ db: panel.db }, { accountId: reader.accountId });
        return html`<p class="hint">
            O que a Meta avisou sobre a conta WhatsApp Business e os números: bloqueios e restrições, qualidade e vazão
            dos números, limites de mensagens, templates editados ou com a categoria mudada (o que muda o preço) e
            alertas. Cada aviso mostra os dados como a Meta os enviou e o que a plataforma fez: envios bloqueados ou
            liberados, campanhas pausadas, vazão alterada. Cada pessoa marca os avisos como lidos para si.
          </p>
          <h2>Situação</h2>
          ${wabaSection(wabas)}
          <h2>Avisos</h2>`;
      },
      list: {
        caption: "Avisos da conta, do mais recente ao mais antigo",
        headers: ["Quando", "WABA", "Aviso", "Detalhes", "O que a plataforma fez"],
        cells: (event) => [
          formatDateTime(event.occurred_at),
          html`<code>${event.waba_id}</code>`,
          what(event),
          details(event),
          effects(event),
        ],
        describe: (event) => formatDateTime(event.occurred_at),
        empty: "Nenhum aviso da Meta sobre a conta ainda.",
      },
    });
  },
};
