import { once } from "node:events";
import type { Request, Response, Router } from "express";
import {
  cancelCampaign,
  createCampaign,
  exportCampaignRecipients,
  getCampaign,
  listBusinessNumbersWithQuality,
  listCampaignRecipients,
  listCampaigns,
  pauseCampaign,
  recordAudit,
  resumeCampaign,
  startCampaign,
  type CampaignActor,
  type CampaignDetail,
  type CampaignView,
  type PanelSessionUser,
} from "@gw/core";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import type { MetaTemplate } from "@gw/meta";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { csrfField, noticeFrom, pager, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { campaignTemplates, createFormBody, parseCreateForm, type CreateFormValues } from "./campaigns-form.ts";
import {
  CAMPAIGN_STATUSES,
  CAMPAIGN_STATUS_LABELS,
  OUTCOME_LABELS,
  RECIPIENT_OUTCOMES,
  campaignBadge,
  outcomeBadge,
  progressSection,
  progressSummary,
  type CampaignStatus,
} from "./campaigns-views.ts";
import { categoryText } from "./templates-preview.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 20;
const RECIPIENTS_PAGE_SIZE = 50;
/** Rejected rows shown on the campaign's page; all of them, paged, on its own page. */
const REJECTED_PREVIEW = 20;
const REJECTED_PAGE_SIZE = 100;
/**
 * listCampaigns has no status filter yet: a filtered page reads the list in pages of this size, at most
 * SCAN_PAGES of them, and stops at PAGE_SIZE matches (the next page goes on from where it stopped).
 */
const SCAN_SIZE = 50;
const SCAN_PAGES = 4;

const MESSAGES = {
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
};

const NOT_FOUND = "A campanha não foi encontrada nesta conta.";
const campaignId = z.guid();

const listFilters = z.object({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  cursor: z.guid().optional(),
});

const recipientFilters = z.object({
  resultado: z.enum(RECIPIENT_OUTCOMES).optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/)
    .optional(),
});

const counted = (count: number, one: string, many: string) => `${formatNumber(count)} ${count === 1 ? one : many}`;

/** The campaign named in the path; a malformed id is as unknown as another account's. */
function campaignIdOf(req: Request): string {
  const parsed = campaignId.safeParse(req.params.id);
  if (!parsed.success) throw new PanelHttpError(404, NOT_FOUND);
  return parsed.data;
}

/** Who acts, for core's campaign services: they audit each change as `panel.campaign.<verb>`. */
function actorOf(req: Request, user: PanelSessionUser): CampaignActor {
  return { accountId: user.accountId, actor: panelActor(user), origin: "panel", requestId: req.requestId };
}

function select(name: string, label: string, values: readonly { value: string; text: string }[], current?: string) {
  return html`<label
    >${label}
    <select name="${name}">
      <option value="">Todos</option>
      ${values.map(
        (option) =>
          html`<option value="${option.value}" ${option.value === current ? "selected" : ""}>${option.text}</option>`,
      )}
    </select></label
  >`;
}

/** The service's refusal of a control, as the page's notice code (PRG); anything else is rendered as an error page. */
const CONTROL_REFUSALS: Record<string, keyof typeof MESSAGES> = {
  campaign_state_conflict: "estado",
  campaign_count_mismatch: "contagem",
  campaign_empty: "vazia",
};

export const campaignsPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    // Numbers are resolved as the public API resolves them (the default one, or the one named).
    const { directory } = deps;
    const readDeps = deps.campaigns;
    const controlDeps = deps.campaigns;

    async function displayNumbers(accountId: string, campaigns: readonly CampaignView[]): Promise<Map<string, string>> {
      const ids = [...new Set(campaigns.map((campaign) => campaign.phone_number_id))];
      const found = await Promise.all(ids.map((id) => directory.resolveNumber(accountId, id)));
      return new Map(ids.map((id, i) => [id, found[i]?.displayNumber ?? id]));
    }

    async function campaignsPage(
      accountId: string,
      status: CampaignStatus | undefined,
      cursor: string | undefined,
    ): Promise<{ campaigns: CampaignView[]; next: string | null }> {
      if (!status) {
        const { campaigns, next_before_id } = await listCampaigns(readDeps, {
          accountId,
          limit: PAGE_SIZE,
          beforeId: cursor,
        });
        return { campaigns, next: next_before_id };
      }
      const found: CampaignView[] = [];
      let before = cursor;
      for (let read = 0; read < SCAN_PAGES; read++) {
        const { campaigns, next_before_id } = await listCampaigns(readDeps, {
          accountId,
          limit: SCAN_SIZE,
          beforeId: before,
        });
        for (const [index, campaign] of campaigns.entries()) {
          if (campaign.status !== status) continue;
          found.push(campaign);
          if (found.length === PAGE_SIZE) {
            const more = index < campaigns.length - 1 || next_before_id !== null;
            return { campaigns: found, next: more ? campaign.id : null };
          }
        }
        if (next_before_id === null) return { campaigns: found, next: null };
        before = next_before_id;
      }
      return { campaigns: found, next: before ?? null };
    }

    router.get("/campanhas", async (req, res) => {
      const user = currentUser(req);
      const parsed = listFilters.safeParse({ status: queryText(req, "status"), cursor: queryText(req, "cursor") });
      if (!parsed.success) throw new PanelHttpError(400, "Filtro inválido: confira o status.");
      const filters = parsed.data;
      const { campaigns, next } = await campaignsPage(user.accountId, filters.status, filters.cursor);
      const numbers = await displayNumbers(user.accountId, campaigns);
      const body = html`<p class="hint">
          Envios de um template aprovado a uma lista de destinatários, no ritmo da taxa de cada número. Cada
          destinatário recebe a campanha uma vez, e o resultado de cada um fica registrado.
        </p>
        ${
          can(user, "campaigns.manage")
            ? html`<p class="actions"><a href="/campanhas/nova">Nova campanha</a></p>`
            : html`<p class="hint">Seu papel permite acompanhar as campanhas; owners e admins as criam e controlam.</p>`
        }
        <form method="get" action="/campanhas" class="filters">
          ${select(
            "status",
            "Status",
            CAMPAIGN_STATUSES.map((status) => ({ value: status, text: CAMPAIGN_STATUS_LABELS[status].text })),
            filters.status,
          )}
          <button type="submit" class="secondary">Filtrar</button>
          ${filters.status ? html`<a href="/campanhas">Limpar filtro</a>` : ""}
        </form>
        ${table({
          caption: "Campanhas da conta, da mais nova à mais antiga",
          headers: ["Campanha", "Status", "Número", "Template", "Destinatários", "Progresso", "Criada em"],
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
            formatDateTime(campaign.created_at),
          ]),
          empty: filters.status ? "Nenhuma campanha com este status." : "Nenhuma campanha ainda.",
        })}
        ${pager({ path: "/campanhas", query: { status: filters.status }, next })}`;
      res
        .type("html")
        .send(page(req, { title: "Campanhas", section: "/campanhas", notice: noticeFrom(req, MESSAGES), body }).value);
    });

    /** The form with the account's numbers and the chosen number's catalogue; `error` when a post was refused. */
    async function sendCreateForm(
      req: Request,
      res: Response,
      options: { numero?: string | undefined; values: CreateFormValues; error?: string; status?: number },
    ): Promise<void> {
      const user = currentUser(req);
      const numbers = await listBusinessNumbersWithQuality(
        { db: deps.db, meta: deps.meta, logger: deps.logger },
        { accountId: user.accountId },
      );
      const selected = options.numero
        ? numbers.find((number) => number.phone_number_id === options.numero)
        : (numbers.find((number) => number.is_default) ?? numbers[0]);
      let problem: string | null = null;
      let templates: MetaTemplate[] = [];
      if (options.numero && !selected) problem = "Este número não está ligado a esta conta.";
      else if (selected) {
        try {
          templates = campaignTemplates(await deps.templates.get(selected.waba_id));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          problem = error.message;
        }
      }
      res
        .status(options.status ?? 200)
        .type("html")
        .send(
          page(req, {
            title: "Nova campanha",
            section: "/campanhas",
            notice: options.error ? { kind: "error", text: options.error } : null,
            body: createFormBody(req, {
              numbers,
              selected: selected ?? null,
              templates,
              problem,
              values: options.values,
            }),
          }).value,
        );
    }

    router.get("/campanhas/nova", requireCapability("campaigns.manage"), async (req, res) => {
      const numero = queryText(req, "numero");
      if (numero !== undefined && !/^\d{1,64}$/.test(numero)) throw new PanelHttpError(400, "Número inválido.");
      await sendCreateForm(req, res, { numero, values: {} });
    });

    // Multipart (app.ts reads it for this route before the CSRF check): the CSV comes as the file `arquivo` or as
    // the text field `destinatarios`.
    router.post("/campanhas", requireCapability("campaigns.manage"), async (req, res) => {
      const user = currentUser(req);
      const form = parseCreateForm(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const typed = (name: string) => (typeof body[name] === "string" ? body[name] : undefined);
      const values: CreateFormValues = {
        nome: typed("nome"),
        template: typed("template"),
        inicio: typed("inicio"),
        destinatarios: typed("destinatarios"),
      };
      const numero = typed("numero");
      const again = (error: string, status = 422) =>
        sendCreateForm(req, res, {
          numero: numero && /^\d{1,64}$/.test(numero) ? numero : undefined,
          values,
          error,
          status,
        });
      if (!form.ok) return again(form.error);
      let campaign: CampaignDetail;
      try {
        campaign = await createCampaign(
          { db: deps.db, directory, templates: deps.templates, throughput: deps.throughput },
          {
            ...actorOf(req, user),
            name: form.name,
            template: form.template,
            language: form.language,
            phoneNumberId: form.phoneNumberId,
            startAt: form.startAt,
            recipients: { kind: "csv", text: form.csv },
          },
        );
      } catch (error) {
        // The template refused, the number unknown, the catalogue unreadable: the service's own sentence.
        if (error instanceof ApiError) return again(error.message, error.status >= 500 ? 503 : 422);
        // The file itself unreadable (quotes, unknown or missing columns, no rows, too many): core refuses the
        // whole upload with a validation error whose message says what to fix.
        const csvProblem = csvRefusal(error);
        if (csvProblem) return again(csvProblem);
        throw error;
      }
      res.redirect(303, `/campanhas/${campaign.id}?ok=criada`);
    });

    router.get("/campanhas/:id", async (req, res) => {
      const user = currentUser(req);
      const id = campaignIdOf(req);
      const parsed = recipientFilters.safeParse({
        resultado: queryText(req, "resultado"),
        cursor: queryText(req, "cursor"),
      });
      if (!parsed.success) throw new PanelHttpError(400, "Filtro inválido: confira o resultado.");
      const filters = parsed.data;
      const campaign = await getCampaign(readDeps, { accountId: user.accountId, campaignId: id });
      const [recipients, number] = await Promise.all([
        listCampaignRecipients(
          { db: deps.db },
          {
            accountId: user.accountId,
            campaignId: id,
            status: filters.resultado,
            limit: RECIPIENTS_PAGE_SIZE,
            afterId: filters.cursor ? Number(filters.cursor) : undefined,
          },
        ),
        directory.resolveNumber(user.accountId, campaign.phone_number_id),
      ]);
      const manage = can(user, "campaigns.manage");
      const report = validationReport(campaign);
      const progress = html`<section aria-labelledby="progresso">
        <h2 id="progresso">Progresso</h2>
        ${progressSection(campaign)}
        <p><a href="/campanhas/${campaign.id}">Atualizar o progresso</a></p>
      </section>`;
      const recipientList = html`<section aria-labelledby="destinatarios">
        <h2 id="destinatarios">Destinatários</h2>
        <p class="actions">
          <a href="/campanhas/${campaign.id}/exportar" download>Exportar CSV</a>
          <span class="hint">O resultado de cada destinatário, com o código de erro, em um arquivo CSV.</span>
        </p>
        <form method="get" action="/campanhas/${campaign.id}#destinatarios" class="filters">
          ${select(
            "resultado",
            "Resultado",
            RECIPIENT_OUTCOMES.map((outcome) => ({ value: outcome, text: OUTCOME_LABELS[outcome].text })),
            filters.resultado,
          )}
          <button type="submit" class="secondary">Filtrar</button>
          ${filters.resultado ? html`<a href="/campanhas/${campaign.id}#destinatarios">Limpar filtro</a>` : ""}
        </form>
        ${table({
          caption: "Resultado de cada destinatário, na ordem da lista",
          headers: ["Linha", "Número", "client_ref", "Resultado", "Erro", "Tentativas", "Atualizado em"],
          rows: recipients.recipients.map((recipient) => [
            formatNumber(recipient.row),
            recipient.to,
            recipient.client_ref ?? "—",
            outcomeBadge(recipient.status),
            recipient.error_code
              ? html`<code>${recipient.error_code}</code>${
                    recipient.error_message ? html`<br /><span class="hint">${recipient.error_message}</span>` : ""
                  }`
              : "—",
            formatNumber(recipient.attempts),
            formatDateTime(recipient.updated_at),
          ]),
          empty: filters.resultado ? "Nenhum destinatário com este resultado." : "A campanha não tem destinatários.",
        })}
        ${pager({
          path: `/campanhas/${campaign.id}`,
          query: { resultado: filters.resultado },
          next: recipients.next_after_id === null ? null : String(recipients.next_after_id),
        })}
      </section>`;
      const body = html`<p><a href="/campanhas">← Campanhas</a></p>
        <dl>
          <dt>Status</dt>
          <dd>${campaignBadge(campaign.status)}</dd>
          <dt>Número</dt>
          <dd>
            ${
              number
                ? `${number.displayNumber} (${formatNumber(number.messagingRatePerSecond)} msg/s)`
                : campaign.phone_number_id
            }
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
        ${
          campaign.status === "draft"
            ? html`${report} ${controls(req, campaign, manage)} ${progress}`
            : html`${progress} ${controls(req, campaign, manage)} ${report}`
        }
        ${recipientList}`;
      res.type("html").send(
        page(req, {
          title: campaign.name,
          section: "/campanhas",
          notice: noticeFrom(req, MESSAGES),
          body,
        }).value,
      );
    });

    router.get("/campanhas/:id/recusadas", async (req, res) => {
      const user = currentUser(req);
      const id = campaignIdOf(req);
      const cursor = queryText(req, "cursor");
      if (cursor !== undefined && !/^\d{1,9}$/.test(cursor)) throw new PanelHttpError(400, "Página inválida.");
      const campaign = await getCampaign(readDeps, { accountId: user.accountId, campaignId: id });
      const after = cursor === undefined ? 0 : Number(cursor);
      const rest = campaign.rejected_rows.filter((row) => row.row > after);
      const shown = rest.slice(0, REJECTED_PAGE_SIZE);
      const last = shown.at(-1);
      res.type("html").send(
        page(req, {
          title: `Linhas recusadas: ${campaign.name}`,
          section: "/campanhas",
          body: html`<p><a href="/campanhas/${campaign.id}">← ${campaign.name}</a></p>
            <p>
              ${formatNumber(campaign.total_rows)} linhas lidas: ${formatNumber(campaign.accepted_recipients)} aceitas,
              ${formatNumber(campaign.rejected_count)} recusadas.
            </p>
            ${rejectedTable(shown)}
            ${pager({
              path: `/campanhas/${campaign.id}/recusadas`,
              query: {},
              next: rest.length > REJECTED_PAGE_SIZE && last ? String(last.row) : null,
            })}`,
        }).value,
      );
    });

    router.get("/campanhas/:id/exportar", async (req, res) => {
      const user = currentUser(req);
      const id = campaignIdOf(req);
      // Looked up first: a missing campaign is a 404 page, not a CSV cut short.
      const lines = await exportCampaignRecipients({ db: deps.db }, { accountId: user.accountId, campaignId: id });
      res.status(200);
      res.setHeader("Content-Type", "text/csv; charset=utf-8");
      res.setHeader("Content-Disposition", `attachment; filename="campanha-${id}.csv"`);
      try {
        for await (const chunk of lines) {
          if (!res.write(chunk)) await once(res, "drain");
        }
        res.end();
      } catch (error) {
        // The status line is gone: cut the answer so the browser never takes a partial file for the whole.
        deps.logger.error("campaign export failed half-way", { campaignId: id, error: (error as Error).message });
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
      // The list of the recipients' numbers left the gateway: who took it is in the trail.
      await recordAudit(
        { db: deps.db },
        {
          accountId: user.accountId,
          actor: panelActor(user),
          action: "panel.campaign.exported",
          target: `campaign:${id}`,
          requestId: req.requestId,
        },
      );
    });

    const control =
      (verb: "iniciar" | "pausar" | "retomar" | "cancelar") =>
      async (req: Request, res: Response): Promise<void> => {
        const user = currentUser(req);
        const id = campaignIdOf(req);
        const who = { ...actorOf(req, user), campaignId: id };
        let after: CampaignDetail;
        try {
          if (verb === "iniciar") {
            const body = (req.body ?? {}) as Record<string, unknown>;
            const accepted = typeof body.aceitos === "string" && /^\d{1,9}$/.test(body.aceitos) ? body.aceitos : null;
            if (accepted === null) return res.redirect(303, `/campanhas/${id}?erro=contagem`);
            after = await startCampaign(controlDeps, { ...who, acceptedRecipients: Number(accepted) });
          } else if (verb === "pausar") after = await pauseCampaign(controlDeps, who);
          else if (verb === "retomar") after = await resumeCampaign(controlDeps, who);
          else after = await cancelCampaign(controlDeps, who);
        } catch (error) {
          const refusal = error instanceof ApiError ? CONTROL_REFUSALS[error.code] : undefined;
          if (refusal) return res.redirect(303, `/campanhas/${id}?erro=${refusal}`);
          throw error;
        }
        const done: Record<typeof verb, keyof typeof MESSAGES> = {
          iniciar: after.status === "scheduled" ? "agendada" : "iniciada",
          pausar: "pausada",
          retomar: after.status === "scheduled" ? "agendada" : "retomada",
          cancelar: "cancelada",
        };
        res.redirect(303, `/campanhas/${id}?ok=${done[verb]}`);
      };
    router.post("/campanhas/:id/iniciar", requireCapability("campaigns.manage"), control("iniciar"));
    router.post("/campanhas/:id/pausar", requireCapability("campaigns.manage"), control("pausar"));
    router.post("/campanhas/:id/retomar", requireCapability("campaigns.manage"), control("retomar"));
    router.post("/campanhas/:id/cancelar", requireCapability("campaigns.manage"), control("cancelar"));
  },
};

/**
 * The message of core's refusal of a CSV file as a whole (a RequestValidationError of @gw/contracts, which the
 * panel does not depend on: recognised by its name and its `detail` list).
 */
function csvRefusal(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== "RequestValidationError") return null;
  const detail = (error as Error & { detail?: unknown }).detail;
  if (!Array.isArray(detail)) return null;
  const messages = detail.flatMap((issue: unknown) =>
    typeof issue === "object" && issue !== null && typeof (issue as { msg?: unknown }).msg === "string"
      ? [(issue as { msg: string }).msg]
      : [],
  );
  return messages.length > 0 ? messages.join(" ") : "O CSV não pôde ser lido.";
}

function rejectedTable(rows: CampaignDetail["rejected_rows"]): SafeHtml {
  return table({
    caption: "Linhas recusadas na validação, com o motivo",
    headers: ["Linha", "Número", "Código", "Motivo"],
    rows: rows.map((row) => [formatNumber(row.row), row.to || "—", html`<code>${row.code}</code>`, row.message]),
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
  if (!manage) return html`<p class="hint">Seu papel permite acompanhar a campanha; owners e admins a controlam.</p>`;
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
        ? html`<p class="notice error" role="alert">${MESSAGES.vazia}</p>`
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
