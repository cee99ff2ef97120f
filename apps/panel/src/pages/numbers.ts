import type { Router } from "express";
import { listBusinessNumbersWithQuality, type BusinessNumberQualityView } from "@gw/core";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { badge, table } from "../views/components.ts";
import { formatNumber } from "../views/format.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const QUALITY: Record<string, { text: string; tone: "ok" | "warn" | "bad" | "neutral" }> = {
  GREEN: { text: "alta", tone: "ok" },
  YELLOW: { text: "média", tone: "warn" },
  RED: { text: "baixa", tone: "bad" },
  NA: { text: "ainda sem avaliação", tone: "neutral" },
};

/** Meta's messaging limit: how many different contacts the business may start conversations with in 24 h. */
const TIERS: Record<string, string> = {
  TIER_50: "50 contatos / 24 h",
  TIER_250: "250 contatos / 24 h",
  TIER_1K: "1.000 contatos / 24 h",
  TIER_10K: "10.000 contatos / 24 h",
  TIER_100K: "100.000 contatos / 24 h",
  TIER_UNLIMITED: "ilimitado",
};

const THROUGHPUT: Record<string, string> = {
  STANDARD: "padrão",
  HIGH: "alto",
  NOT_APPLICABLE: "não se aplica",
};

const UNKNOWN = html`<span class="hint">desconhecido</span>`;

function quality(number: BusinessNumberQualityView): SafeHtml {
  const label = QUALITY[number.quality_rating];
  if (label) return html`${badge(label.text, label.tone)} <span class="hint">(${number.quality_rating})</span>`;
  // UNKNOWN: Meta could not be asked, or did not say.
  return badge("desconhecida");
}

function numberCell(number: BusinessNumberQualityView): SafeHtml {
  return html`<strong>${number.display_number}</strong>
    ${number.is_default ? badge("padrão", "ok") : ""}
    <br /><span class="hint">phone_number_id <code>${number.phone_number_id}</code></span> ${
      number.meta_display_phone_number && number.meta_display_phone_number !== number.display_number
        ? html`<br /><span class="hint">na Meta: ${number.meta_display_phone_number}</span>`
        : ""
    }`;
}

export const numbersPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/numeros", async (req, res) => {
      const user = currentUser(req);
      const numbers = await listBusinessNumbersWithQuality(
        { db: deps.db, meta: deps.meta, logger: deps.logger },
        { accountId: user.accountId },
      );
      const failed = numbers.filter((number) => number.error !== null).length;
      const body = html`<p class="hint">
          Os números comerciais da conta, com a qualidade e o limite de mensagens que a Meta informa neste momento. A
          taxa de envio é definida pelo operador da plataforma (<code>pnpm gateway number set-rate</code>) conforme o
          que a Meta concedeu ao número; todo envio do número segue esse ritmo.
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
          ],
          rows: numbers.map((number) => [
            numberCell(number),
            number.verified_name ?? UNKNOWN,
            html`${quality(number)}${number.error ? html`<br /><span class="hint">${number.error}</span>` : ""}`,
            number.messaging_limit_tier ? (TIERS[number.messaging_limit_tier] ?? number.messaging_limit_tier) : UNKNOWN,
            number.throughput_level ? (THROUGHPUT[number.throughput_level] ?? number.throughput_level) : UNKNOWN,
            `${formatNumber(number.messaging_rate_per_second)} msg/s`,
            html`<code>${number.waba_id}</code><br /><a
                href="/templates?numero=${number.phone_number_id}"
                aria-label="Templates da WABA do número ${number.display_number}"
                >Templates</a
              >`,
          ]),
          empty: "A conta ainda não tem números comerciais; o operador da plataforma os cadastra.",
        })}`;
      res.type("html").send(page(req, { title: "Números", section: "/numeros", body }).value);
    });
  },
};
