import type { Request, RequestHandler, Response, Router } from "express";
import { listBusinessNumbersWithQuality } from "@gw/core/accounts";
import {
  RecipientsFileError,
  cancelCampaign,
  createCampaign,
  exportCampaignRecipients,
  getCampaign,
  listCampaignRecipients,
  listCampaigns,
  pauseCampaign,
  resumeCampaign,
  startCampaign,
  type CampaignActor,
  type CampaignDetail,
  type CampaignView,
} from "@gw/core/campaigns";
import { SPREADSHEET_CSV } from "@gw/core/csv";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import { sendCsv } from "@gw/http";
import type { MetaTemplate } from "@gw/meta";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { noticeFrom, queryText, readQueryFilters } from "../views/components.ts";
import { page } from "../views/layout.ts";
import { campaignPageBody, rejectedPageBody } from "./campaigns-detail-view.ts";
import { campaignTemplates, createFormBody, parseCreateForm, type CreateFormValues } from "./campaigns-form.ts";
import { CAMPAIGN_NOTICES, CAMPAIGN_STATUSES, RECIPIENT_OUTCOMES, campaignListBody } from "./campaigns-views.ts";
import type { PanelPage } from "./types.ts";

/** Campanhas: the routes, each a thin handler over core's campaign services; what they render is in the views. */

const PAGE_SIZE = 20;
const RECIPIENTS_PAGE_SIZE = 50;
const REJECTED_PAGE_SIZE = 100;
const NOT_FOUND = "A campanha não foi encontrada nesta conta.";

const campaignId = z.guid();
const listFilters = z.object({ status: z.enum(CAMPAIGN_STATUSES).optional(), cursor: z.guid().optional() });
const recipientFilters = z.object({
  resultado: z.enum(RECIPIENT_OUTCOMES).optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,15}$/)
    .optional(),
});

/** The campaign named in the path; a malformed id is as unknown as another account's. */
function campaignIdOf(req: Request): string {
  const parsed = campaignId.safeParse(req.params.id);
  if (!parsed.success) throw new PanelHttpError(404, NOT_FOUND);
  return parsed.data;
}

/** Who acts, for core's campaign services: they audit each change as `panel.campaign.<verb>`. */
function actorOf(req: Request): CampaignActor {
  return { accountId: currentUser(req).accountId, actor: panelActor(req) };
}

/** Each campaign's number as people know it (its display number), resolved as the public API resolves numbers. */
async function displayNumbers(
  deps: PanelDeps,
  accountId: string,
  campaigns: readonly CampaignView[],
): Promise<Map<string, string>> {
  const ids = [...new Set(campaigns.map((campaign) => campaign.phone_number_id))];
  const found = await Promise.all(ids.map((id) => deps.directory.resolveNumber(accountId, id)));
  return new Map(ids.map((id, i) => [id, found[i]?.displayNumber ?? id]));
}

function list(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const user = currentUser(req);
    const { status, cursor } = readQueryFilters(req, listFilters, "Filtro inválido: confira o status.");
    const { campaigns, next_before_id } = await listCampaigns(deps.campaigns, {
      accountId: user.accountId,
      limit: PAGE_SIZE,
      beforeId: cursor,
      status,
    });
    const body = campaignListBody({
      campaigns,
      numbers: await displayNumbers(deps, user.accountId, campaigns),
      status,
      next: next_before_id,
      manage: can(user, "campaigns.manage"),
    });
    res
      .type("html")
      .send(
        page(req, { title: "Campanhas", section: "/campanhas", notice: noticeFrom(req, CAMPAIGN_NOTICES), body }).value,
      );
  };
}

/** The form with the account's numbers and the chosen number's catalogue; `error` when a post was refused. */
async function sendCreateForm(
  deps: PanelDeps,
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
        body: createFormBody(req, { numbers, selected: selected ?? null, templates, problem, values: options.values }),
      }).value,
    );
}

function newForm(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const numero = queryText(req, "numero");
    if (numero !== undefined && !/^\d{1,64}$/.test(numero)) throw new PanelHttpError(400, "Número inválido.");
    await sendCreateForm(deps, req, res, { numero, values: {} });
  };
}

/** Multipart (declared in `multipartRoutes`): the CSV comes as the file `arquivo` or as the field `destinatarios`. */
function create(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
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
      sendCreateForm(deps, req, res, {
        numero: numero && /^\d{1,64}$/.test(numero) ? numero : undefined,
        values,
        error,
        status,
      });
    if (!form.ok) return again(form.error);
    let campaign: CampaignDetail;
    try {
      campaign = await createCampaign(
        { db: deps.db, directory: deps.directory, templates: deps.templates, throughput: deps.throughput },
        {
          ...actorOf(req),
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
      // The file itself unreadable (quotes, unknown or missing columns, no rows, too many): what to fix.
      if (error instanceof RecipientsFileError) return again(error.message);
      throw error;
    }
    res.redirect(303, `/campanhas/${campaign.id}?ok=criada`);
  };
}

function show(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const user = currentUser(req);
    const id = campaignIdOf(req);
    const { resultado, cursor } = readQueryFilters(req, recipientFilters, "Filtro inválido: confira o resultado.");
    const campaign = await getCampaign(deps.campaigns, { accountId: user.accountId, campaignId: id });
    const [recipients, number] = await Promise.all([
      listCampaignRecipients(
        { db: deps.db },
        {
          accountId: user.accountId,
          campaignId: id,
          status: resultado,
          limit: RECIPIENTS_PAGE_SIZE,
          afterId: cursor ? Number(cursor) : undefined,
        },
      ),
      deps.directory.resolveNumber(user.accountId, campaign.phone_number_id),
    ]);
    const body = campaignPageBody(req, {
      campaign,
      recipients,
      number,
      outcome: resultado,
      manage: can(user, "campaigns.manage"),
    });
    res
      .type("html")
      .send(
        page(req, { title: campaign.name, section: "/campanhas", notice: noticeFrom(req, CAMPAIGN_NOTICES), body })
          .value,
      );
  };
}

function rejectedRows(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const id = campaignIdOf(req);
    const cursor = queryText(req, "cursor");
    if (cursor !== undefined && !/^\d{1,9}$/.test(cursor)) throw new PanelHttpError(400, "Página inválida.");
    const campaign = await getCampaign(deps.campaigns, { accountId: currentUser(req).accountId, campaignId: id });
    const after = cursor === undefined ? 0 : Number(cursor);
    const rest = campaign.rejected_rows.filter((row) => row.row > after);
    const shown = rest.slice(0, REJECTED_PAGE_SIZE);
    const last = shown.at(-1);
    const next = rest.length > REJECTED_PAGE_SIZE && last ? String(last.row) : null;
    res.type("html").send(
      page(req, {
        title: `Linhas recusadas: ${campaign.name}`,
        section: "/campanhas",
        body: rejectedPageBody(campaign, shown, next),
      }).value,
    );
  };
}

function exportRecipients(deps: PanelDeps): RequestHandler {
  return async (req, res) => {
    const id = campaignIdOf(req);
    // Looked up (and audited) first: a missing campaign is a 404 page, not a CSV cut short. `;` and a BOM: what
    // Excel in Brazilian Portuguese opens in columns.
    const lines = await exportCampaignRecipients(
      { db: deps.db },
      { ...actorOf(req), campaignId: id, dialect: SPREADSHEET_CSV },
    );
    await sendCsv(
      res,
      { filename: `campanha-${id}.csv`, lines, log: { download: "campaign", campaignId: id } },
      deps.logger,
    );
  };
}

/** The service's refusal of a control, as the page's notice code (PRG); anything else is rendered as an error page. */
const CONTROL_REFUSALS: Record<string, keyof typeof CAMPAIGN_NOTICES> = {
  campaign_state_conflict: "estado",
  campaign_count_mismatch: "contagem",
  campaign_empty: "vazia",
  account_disabled: "bloqueada",
};

type Verb = "iniciar" | "pausar" | "retomar" | "cancelar";

function control(deps: PanelDeps, verb: Verb): RequestHandler {
  return async (req, res) => {
    const id = campaignIdOf(req);
    const who = { ...actorOf(req), campaignId: id };
    let after: CampaignDetail;
    try {
      if (verb === "iniciar") {
        const body = (req.body ?? {}) as Record<string, unknown>;
        const accepted = typeof body.aceitos === "string" && /^\d{1,9}$/.test(body.aceitos) ? body.aceitos : null;
        if (accepted === null) return res.redirect(303, `/campanhas/${id}?erro=contagem`);
        after = await startCampaign(deps.campaigns, { ...who, acceptedRecipients: Number(accepted) });
      } else if (verb === "pausar") after = await pauseCampaign(deps.campaigns, who);
      else if (verb === "retomar") after = await resumeCampaign(deps.campaigns, who);
      else after = await cancelCampaign(deps.campaigns, who);
    } catch (error) {
      const refusal = error instanceof ApiError ? CONTROL_REFUSALS[error.code] : undefined;
      if (refusal) return res.redirect(303, `/campanhas/${id}?erro=${refusal}`);
      throw error;
    }
    const done: Record<Verb, keyof typeof CAMPAIGN_NOTICES> = {
      iniciar: after.status === "scheduled" ? "agendada" : "iniciada",
      pausar: "pausada",
      retomar: after.status === "scheduled" ? "agendada" : "retomada",
      cancelar: "cancelada",
    };
    res.redirect(303, `/campanhas/${id}?ok=${done[verb]}`);
  };
}

export const campaignsPage: PanelPage = {
  multipartRoutes: ["/campanhas"],
  register(router: Router, deps: PanelDeps) {
    const manage = requireCapability("campaigns.manage");
    router.get("/campanhas", list(deps));
    router.get("/campanhas/nova", manage, newForm(deps));
    router.post("/campanhas", manage, create(deps));
    router.get("/campanhas/:id", show(deps));
    router.get("/campanhas/:id/recusadas", rejectedRows(deps));
    router.get("/campanhas/:id/exportar", exportRecipients(deps));
    for (const verb of ["iniciar", "pausar", "retomar", "cancelar"] as const)
      router.post(`/campanhas/:id/${verb}`, manage, control(deps, verb));
  },
};
