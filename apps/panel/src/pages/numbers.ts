import type { Router } from "express";
import { listBusinessNumbersWithQuality, type BusinessNumberQualityView } from "@gw/core/accounts";
import { listWabaHealth, type WabaHealthView } from "@gw/core/health";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { badge, table } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { LIMIT_LABELS, NUMBER_HEALTH_EVENTS, NUMBER_QUALITY_LABELS, THROUGHPUT_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const UNKNOWN = html`<span class="hint">desconhecido</span>`;

/** A figure Meta's webhook reported while Meta's API could not be asked now. */
const lastNotice = html`<span class="hint">(último aviso da Meta)</span>`;

function quality(number: BusinessNumberQualityView): SafeHtml {
  const label = NUMBER_QUALITY_LABELS[number.quality_rating];
  if (label) return html`${badge(label.text, label.tone)} <span class="hint">(${number.quality_rating})</span>`;
  const reported = number.reported.quality ? NUMBER_QUALITY_LABELS[number.reported.quality] : undefined;
  if (reported) return html`${badge(reported.text, reported.tone)} ${lastNotice}`;
  // UNKNOWN: Meta could not be asked, or did not say.
  return badge("desconhecida");
}

function messagingLimit(number: BusinessNumberQualityView): SafeHtml | string {
  if (number.messaging_limit_tier) return LIMIT_LABELS[number.messaging_limit_tier] ?? number.messaging_limit_tier;
  const reported = number.reported.messaging_limit;
  return reported ? html`${LIMIT_LABELS[reported] ?? reported} ${lastNotice}` : UNKNOWN;
}

function throughput(number: BusinessNumberQualityView): SafeHtml | string {
  if (number.throughput_level) return THROUGHPUT_LABELS[number.throughput_level] ?? number.throughput_level;
  const reported = number.reported.throughput;
  return reported ? html`${THROUGHPUT_LABELS[reported] ?? reported} ${lastNotice}` : UNKNOWN;
}

/** The last phone_number_quality_update Meta sent about the number. */
function lastHealthEvent(number: BusinessNumberQualityView): SafeHtml {
  const event = number.reported.event;
  if (event === null) return html`<span class="hint">nenhum</span>`;
  return html`${NUMBER_HEALTH_EVENTS[event] ?? event} <span class="hint">(<code>${event}</code>)</span><br /><span
      class="hint"
      >${formatDateTime(number.reported.at)}</span
    >`;
}

function wabaCell(number: BusinessNumberQualityView, waba: WabaHealthView | undefined): SafeHtml {
  return html`<code>${number.waba_id}</code>
    ${waba?.sending_blocked_at ? html`<br />${badge("envios bloqueados", "bad")}` : ""}
    ${
      waba?.messaging_limit
        ? html`<br /><span class="hint"
              >limite do portfólio: ${LIMIT_LABELS[waba.messaging_limit] ?? waba.messaging_limit}</span
            >`
        : ""
    }
    <br /><a
      href="/templates?numero=${number.phone_number_id}"
      aria-label="Templates da WABA do número ${number.display_number}"
      >Templates</a
    >`;
}

function numberCell(number: BusinessNumberQualityView): SafeHtml {
  return html`<strong>${number.display_number}</strong>
    ${number.is_default ? badge("padrão", "ok") : ""}
    <br /><small class="code">phone_number_id <code>${number.phone_number_id}</code></small> ${
      number.meta_display_phone_number && number.meta_display_phone_number !== number.display_number
        ? html`<br /><span class="hint">na Meta: ${number.meta_display_phone_number}</span>`
        : ""
    }`;
}

export const numbersPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/numeros", async (req, res) => {
      const user = currentUser(req);
      const [numbers, wabas] = await Promise.all([
        listBusinessNumbersWithQuality(
          { db: deps.db, meta: deps.meta, logger: deps.logger },
          { accountId: user.accountId },
        ),
        listWabaHealth({ db: deps.db }, { accountId: user.accountId }),
      ]);
      const wabaOf = new Map(wabas.map((waba) => [waba.waba_id, waba]));
      const failed = numbers.filter((number) => number.error !== null).length;
      const body = html`<p class="hint">
          Os números comerciais da conta, com a qualidade e o limite de mensagens que a Meta informa neste momento. A
          taxa de envio é definida pelo operador da plataforma conforme o que a Meta concedeu ao número; todo envio do
          número segue esse ritmo, e a Meta o eleva a 1.000 msg/s quando avisa que o número passou à vazão alta. O
          último aviso da Meta sobre cada número está na última coluna; todos estão em
          <a href="/conta/avisos">Avisos da conta</a>.
        </p>
        ${
          failed > 0
            ? html`<p class="notice error" role="alert">
                ${
                  failed === 1
                    ? "Não foi possível consultar a Meta sobre 1 número agora; os dados dele aparecem como desconhecidos."
                    : `Não foi possível consultar a Meta sobre ${formatNumber(failed)} números agora; os dados deles aparecem como desconhecidos.`
                }
                Recarregue a página em instantes.
              </p>`
            : ""
        }
        ${table({
          caption: "Números comerciais da conta, o padrão primeiro",
          headers: [
            "Número",
            "Nome verificado",
            "Qualidade",
            "Limite de mensagens",
            "Throughput",
            "Taxa de envio",
            "WABA",
            "Último aviso da Meta",
          ],
          rows: numbers.map((number) => [
            numberCell(number),
            number.verified_name ?? UNKNOWN,
            html`${quality(number)}${number.error ? html`<br /><span class="hint">${number.error}</span>` : ""}`,
            messagingLimit(number),
            throughput(number),
            `${formatNumber(number.messaging_rate_per_second)} msg/s`,
            wabaCell(number, wabaOf.get(number.waba_id)),
            lastHealthEvent(number),
          ]),
          empty: "A conta ainda não tem números comerciais; o operador da plataforma os cadastra.",
        })}`;
      res.type("html").send(page(req, { title: "Números", section: "/numeros", body }).value);
    });
  },
};
