import type { Router } from "express";
import {
  TEMPLATE_STATUSES,
  countUnreadTemplateNotices,
  listTemplateNotices,
  markAllTemplateNoticesRead,
  markTemplateNoticeRead,
  templateShape,
  toCatalogueItem,
  type TemplateNoticeKind,
  type TemplateNoticeView,
} from "@gw/core/templates";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import type { MetaTemplate } from "@gw/meta";
import type { PanelDeps } from "../container.ts";
import { currentUser } from "../http/context.ts";
import { badge, pager, select, readQueryFilters } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { QUALITY_LABELS, TEMPLATE_EVENT_LABELS, TEMPLATE_STATUS_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import {
  categoryText,
  exampleSendBody,
  exampleSendPath,
  qualityBadge,
  sendNeeds,
  statusBadge,
  templatePreview,
} from "./templates-preview.ts";
import { registerNoticesPage } from "./notices.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 20;
const NOTICES_PAGE_SIZE = 25;

const catalogueFilters = z.object({
  status: z.enum(TEMPLATE_STATUSES).optional(),
  nome: z.string().trim().max(512).optional(),
  numero: z
    .string()
    .regex(/^\d{1,64}$/)
    .optional(),
  cursor: z.string().max(600).optional(),
});

/** Keyset position in the catalogue, which is listed by name then language. */
const cursorOf = (template: MetaTemplate) => `${template.name}|${template.language}`;

/** The (name, language) a cursor names; the language (a code such as pt_BR) never holds a `|`. */
function positionOf(cursor: string): { name: string; language: string } {
  const bar = cursor.lastIndexOf("|");
  return { name: cursor.slice(0, Math.max(bar, 0)), language: bar < 0 ? "" : cursor.slice(bar + 1) };
}

function byNameAndLanguage(a: { name: string; language: string }, b: { name: string; language: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.language < b.language ? -1 : a.language > b.language ? 1 : 0;
}

function templateSection(template: MetaTemplate, index: number): SafeHtml {
  const shape = templateShape(template);
  const item = toCatalogueItem(template);
  const example = exampleSendBody(template, shape);
  const id = `template-${index}`;
  return html`<section aria-labelledby="${id}" class="template">
    <h2 id="${id}">${template.name} <span class="hint">(${template.language})</span></h2>
    <p class="actions">
      ${statusBadge(template.status)} ${badge(categoryText(template.category))}
      ${item.quality_score ? qualityBadge(item.quality_score.score) : ""}
    </p>
    ${item.rejected_reason ? html`<p class="hint">Motivo da rejeição: ${item.rejected_reason}</p>` : ""}
    ${templatePreview(template, shape)}
    <h3>O que o envio precisa</h3>
    ${
      item.api_supported
        ? html`<ul>
            ${sendNeeds(template, shape)}
          </ul>`
        : html`<p class="hint">A API pública não consegue enviar este template. ${item.api_unsupported_reason}</p>`
    }
    ${
      item.api_supported && !item.sendable
        ? html`<p class="hint">Só templates aprovados (APPROVED) podem ser enviados.</p>`
        : ""
    }
    ${
      example
        ? html`<details>
            <summary>Exemplo de corpo para POST ${exampleSendPath(template)}</summary>
            <pre aria-label="Exemplo de envio do template ${template.name} (${template.language})">
${JSON.stringify(example, null, 2)}</pre>
          </details>`
        : ""
    }
  </section>`;
}

function noticeWhat(notice: TemplateNoticeView): SafeHtml {
  if (notice.kind === "quality") {
    const label = (score: string | null) => QUALITY_LABELS[score ?? "UNKNOWN"]?.text ?? score ?? "desconhecida";
    const tone = QUALITY_LABELS[notice.new_quality ?? "UNKNOWN"]?.tone ?? "neutral";
    return html`qualidade
    ${notice.previous_quality ? `${label(notice.previous_quality)} → ` : ""}${badge(label(notice.new_quality), tone)}`;
  }
  const label = TEMPLATE_EVENT_LABELS[notice.event];
  return label ? badge(label.text, label.tone) : badge(notice.event);
}

export const templatesPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    // Numbers are resolved exactly as the public API's catalogue resolves them (the default one, or the one named).
    const { directory } = deps;

    router.get("/templates", async (req, res) => {
      const user = currentUser(req);
      const filters = readQueryFilters(req, catalogueFilters, "Filtro inválido: confira o status e o número.");
      const unread = await countUnreadTemplateNotices(
        { db: deps.db },
        { accountId: user.accountId, userId: user.userId },
      );
      const number = await directory.resolveNumber(user.accountId, filters.numero ?? null);

      let problem: string | null = null;
      let templates: MetaTemplate[] = [];
      if (!number)
        problem = filters.numero
          ? "Este número não está ligado a esta conta."
          : "A conta ainda não tem um número comercial; o operador da plataforma precisa cadastrá-lo.";
      else {
        try {
          templates = await deps.templates.get(number.wabaId);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          problem = error.message;
        }
      }
      const name = filters.nome?.toLowerCase();
      const matching = templates
        .filter((t) => (!filters.status || t.status === filters.status) && (!name || t.name.includes(name)))
        .sort(byNameAndLanguage);
      const after = filters.cursor === undefined ? null : positionOf(filters.cursor);
      const start = after ? matching.findIndex((t) => byNameAndLanguage(t, after) > 0) : 0;
      const shown = start < 0 ? [] : matching.slice(start, start + PAGE_SIZE);
      const last = shown.at(-1);
      const more = start >= 0 && start + PAGE_SIZE < matching.length;
      const { cursor: _cursor, ...kept } = filters;
      const filtered = filters.status !== undefined || filters.nome !== undefined;

      const body = html`<p class="actions">
          <a href="/templates/avisos">Avisos de template</a>
          ${
            unread > 0
              ? badge(unread === 1 ? "1 não lido" : `${formatNumber(unread)} não lidos`, "warn")
              : badge("nenhum não lido")
          }
        </p>
        <p class="hint">
          ${
            number
              ? html`Catálogo da WABA <code>${number.wabaId}</code> (número ${number.displayNumber}), como a Meta o
                  informa e a API pública o usa.`
              : ""
          }
          Cada template mostra uma prévia, o que um envio precisa preencher e um exemplo de corpo para a API.
        </p>
        <form method="get" action="/templates" class="filters">
          ${filters.numero ? html`<input type="hidden" name="numero" value="${filters.numero}" />` : ""}
          ${select(
            "status",
            "Status",
            TEMPLATE_STATUSES.map((status) => ({
              value: status,
              // Portuguese only: the code in parentheses made the select wider than a phone.
              text: TEMPLATE_STATUS_LABELS[status]?.text ?? status,
            })),
            filters.status,
          )}
          <label>Nome <input name="nome" value="${filters.nome ?? ""}" autocomplete="off" /></label>
          <button type="submit" class="secondary">Filtrar</button>
          ${filtered ? html`<a href="/templates${filters.numero ? `?numero=${filters.numero}` : ""}">Limpar filtros</a>` : ""}
        </form>
        ${
          problem
            ? html`<p class="notice error" role="alert">${problem}</p>`
            : html`<p class="hint" role="status">
                  ${
                    matching.length === 1 ? "1 template" : `${formatNumber(matching.length)} templates`
                  }${filtered ? " com estes filtros" : ""}.
                </p>
                ${
                  shown.length === 0
                    ? html`<p class="empty">
                        ${filtered ? "Nenhum template com estes filtros." : "Nenhum template nesta WABA."}
                      </p>`
                    : shown.map((template, i) => templateSection(template, i))
                }
                ${pager({ path: "/templates", query: kept, next: more && last ? cursorOf(last) : null })}`
        }`;
      res.type("html").send(page(req, { title: "Templates", section: "/templates", body }).value);
    });

    registerNoticesPage(router, deps, {
      path: "/templates/avisos",
      title: "Avisos de template",
      section: "/templates",
      pageSize: NOTICES_PAGE_SIZE,
      types: [
        { value: "status", text: "Status", filter: "status" },
        { value: "qualidade", text: "Qualidade", filter: "quality" },
      ],
      service: {
        list: async (db, { filter, ...input }) => {
          const page = await listTemplateNotices(db, { ...input, kind: filter as TemplateNoticeKind | undefined });
          return { items: page.notices, next_cursor: page.next_cursor };
        },
        countUnread: countUnreadTemplateNotices,
        markRead: (db, { id, ...input }) => markTemplateNoticeRead(db, { ...input, noticeId: id }),
        markAllRead: markAllTemplateNoticesRead,
      },
      notFound: "O aviso de template não foi encontrado nesta conta.",
      intro: () =>
        html`<p><a href="/templates">← Catálogo de templates</a></p>
          <p class="hint">
            O que a Meta avisou sobre os templates da conta: aprovações, rejeições (com o motivo), pausas e mudanças de
            qualidade. Cada pessoa marca os avisos como lidos para si.
          </p>`,
      list: {
        caption: "Avisos de template, do mais recente ao mais antigo",
        headers: ["Quando", "Template", "Aviso", "Motivo"],
        cells: (notice) => [
          formatDateTime(notice.occurred_at),
          html`<a href="/templates?nome=${encodeURIComponent(notice.template_name)}">${notice.template_name}</a>
            ${notice.template_language ? html`<span class="hint">(${notice.template_language})</span>` : ""}`,
          noticeWhat(notice),
          notice.reason ?? "—",
        ],
        describe: (notice) => notice.template_name,
        empty: "Nenhum aviso de template ainda.",
      },
    });
  },
};
