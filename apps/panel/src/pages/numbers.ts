import type { Request, Router } from "express";
import type { MarketingMessagesSetting } from "@gw/contracts";
import { z } from "@gw/config";
import {
  listBusinessNumbersWithQuality,
  listNumberSettings,
  updateNumberSettings,
  type BusinessNumberQualityView,
} from "@gw/core/accounts";
import { listWabaHealth, type WabaHealthView } from "@gw/core/health";
import { ApiError } from "@gw/errors";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { badge, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import {
  LIMIT_LABELS,
  MARKETING_MESSAGES_LABELS,
  NUMBER_HEALTH_EVENTS,
  NUMBER_QUALITY_LABELS,
  THROUGHPUT_LABELS,
} from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const UNKNOWN = html`<span class="hint">desconhecido</span>`;

// The Marketing Messages API route of a number (issue 37): the same service as PATCH /public/v1/numbers/{id} and the
// CLI's `number marketing-messages`. `ativar`: "1" turns it on, "0" off, as Conversas' read receipts.
const MARKETING_MESSAGES_FORM = z.object({ ativar: z.enum(["0", "1"]) });
/** A phone_number_id as Meta writes them (digits); anything else is no number of this account. */
const PHONE_NUMBER_ID = z.string().regex(/^\d{1,64}$/);
const NOT_FOUND = "O número não existe nesta conta.";

const marketingMessagesPath = (phoneNumberId: string) => `/numeros/${phoneNumberId}/mensagens-de-marketing`;

/**
 * The notice after the form: `?ok=marketing_ligada|marketing_desligada&numero=<phone_number_id>`, naming the number
 * as people dial it (a number no longer listed is left unnamed).
 */
function marketingNotice(req: Request, numbers: readonly BusinessNumberQualityView[]) {
  const ok = queryText(req, "ok");
  if (ok !== "marketing_ligada" && ok !== "marketing_desligada") return null;
  const display = numbers.find((number) => number.phone_number_id === queryText(req, "numero"))?.display_number;
  const which = display ? ` no número ${display}` : "";
  return {
    kind: "ok" as const,
    text:
      ok === "marketing_ligada"
        ? `API de Mensagens de Marketing ligada${which}: a partir do próximo envio, os templates de marketing do número vão por ela.`
        : `API de Mensagens de Marketing desligada${which}: a partir do próximo envio, os templates de marketing do número voltam à Cloud API.`,
  };
}

/** The number's setting, and the button that turns it over for the roles that may. */
function marketingMessagesCell(
  req: Request,
  number: BusinessNumberQualityView,
  setting: MarketingMessagesSetting | undefined,
): SafeHtml {
  // Listed by Meta's read but not by the settings' (added between the two reads): shown on the next load.
  if (setting === undefined) return UNKNOWN;
  const label = MARKETING_MESSAGES_LABELS[setting];
  const on = setting === "on";
  return html`${badge(label.text, label.tone)}
  ${
    can(req.panelUser, "numbers.update")
      ? postButton(req, {
          action: marketingMessagesPath(number.phone_number_id),
          label: on ? "Desligar" : "Ligar",
          fields: { ativar: on ? "0" : "1" },
          ariaLabel: `${on ? "Desligar" : "Ligar"} a API de Mensagens de Marketing do número ${number.display_number}`,
        })
      : ""
  }`;
}

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
      const [numbers, wabas, settings] = await Promise.all([
        listBusinessNumbersWithQuality(
          { db: deps.db, meta: deps.meta, logger: deps.logger },
          { accountId: user.accountId },
        ),
        listWabaHealth({ db: deps.db }, { accountId: user.accountId }),
        listNumberSettings({ db: deps.db }, { accountId: user.accountId }),
      ]);
      const wabaOf = new Map(wabas.map((waba) => [waba.waba_id, waba]));
      const marketingOf = new Map(settings.map((number) => [number.phone_number_id, number.marketing_messages]));
      const failed = numbers.filter((number) => number.error !== null).length;
      const body = html`<p class="hint">
          Os números comerciais da conta, com a qualidade e o limite de mensagens que a Meta informa neste momento. A
          taxa de envio é definida pelo operador da plataforma conforme o que a Meta concedeu ao número; todo envio do
          número segue esse ritmo, e a Meta o eleva a 1.000 msg/s quando avisa que o número passou à vazão alta. O
          último aviso da Meta sobre cada número está na última coluna; todos estão em
          <a href="/conta/avisos">Avisos da conta</a>.
        </p>
        <p class="hint" id="mensagens-de-marketing">
          <strong>API de Mensagens de Marketing</strong>: ligada num número, os templates de marketing dele (enviados
          pela API e pelas campanhas) vão pela API de Mensagens de Marketing da Meta, que os cobra como
          <code>marketing_lite</code>; as demais mensagens continuam pela Cloud API. Antes de ligar, a empresa precisa
          ter concluído a adesão a essa API na Meta. Uma recusa da Meta nela é mostrada como veio, e a mensagem nunca é
          reenviada pela Cloud API.
          ${can(user, "numbers.update") ? "" : "Só o proprietário e os administradores da conta a ligam e desligam."}
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
            "API de Mensagens de Marketing",
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
            marketingMessagesCell(req, number, marketingOf.get(number.phone_number_id)),
            wabaCell(number, wabaOf.get(number.waba_id)),
            lastHealthEvent(number),
          ]),
          empty: "A conta ainda não tem números comerciais; o operador da plataforma os cadastra.",
        })}`;
      res
        .type("html")
        .send(page(req, { title: "Números", section: "/numeros", notice: marketingNotice(req, numbers), body }).value);
    });

    router.post(
      "/numeros/:phoneNumberId/mensagens-de-marketing",
      requireCapability("numbers.update"),
      async (req, res) => {
        const user = currentUser(req);
        const phoneNumberId = PHONE_NUMBER_ID.safeParse(req.params.phoneNumberId);
        if (!phoneNumberId.success) throw new PanelHttpError(404, NOT_FOUND);
        const form = MARKETING_MESSAGES_FORM.safeParse(req.body);
        if (!form.success)
          throw new PanelHttpError(400, "Formulário inválido: recarregue a página Números e tente de novo.");
        const on = form.data.ativar === "1";
        try {
          await updateNumberSettings(
            { db: deps.db },
            {
              accountId: user.accountId,
              phoneNumberId: phoneNumberId.data,
              marketingMessages: on ? "on" : "off",
              actor: panelActor(req),
            },
          );
        } catch (error) {
          // Another account's number is as unknown as one that does not exist.
          if (error instanceof ApiError && error.code === "not_found") throw new PanelHttpError(404, NOT_FOUND);
          throw error;
        }
        const query = new URLSearchParams({
          ok: on ? "marketing_ligada" : "marketing_desligada",
          numero: phoneNumberId.data,
        });
        res.redirect(303, `/numeros?${query.toString()}`);
      },
    );
  },
};
