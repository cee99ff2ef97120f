import type { Request, Router } from "express";
import type { Actor } from "@gw/core/audit";
import { z } from "@gw/config";
import { ApiError } from "@gw/errors";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { badge, noticeFrom, pager, postButton, select, table, readQueryFilters } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { html, type Interpolated, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { NavHref } from "../views/nav.ts";

/**
 * A page of notices each user reads for themself (the account's notices, the template notices): the unread count
 * with "mark all read", filters by state and type, one table with each notice's read state, a pager, and the two
 * POSTs that mark one or every notice read. Every role, viewers included, may mark notices read: the read state is
 * the user's own.
 */

const MESSAGES = {
  lido: "Aviso marcado como lido.",
  todos_lidos: "Todos os avisos foram marcados como lidos.",
  nenhum_novo: "Não havia avisos por ler.",
};

interface Reader {
  accountId: string;
  userId: string;
}

/** A notice as the page needs it: the rest is the page's own columns. */
interface Notice {
  id: number;
  read: boolean;
  read_at: string | null;
}

export interface NoticesPage<N extends Notice> {
  path: string;
  title: string;
  /** The navigation entry it is under. */
  section: NavHref;
  pageSize: number;
  /** The `tipo` filter: its values in the URL, their labels, and what each keeps in the service's terms. */
  types: readonly { value: string; text: string; filter: string }[];
  service: {
    list(
      deps: { db: PanelDeps["db"] },
      input: Reader & { unreadOnly: boolean; filter: string | undefined; cursor: string | undefined; limit: number },
    ): Promise<{ items: N[]; next_cursor: string | null }>;
    countUnread(deps: { db: PanelDeps["db"] }, input: Reader): Promise<number>;
    markRead(deps: { db: PanelDeps["db"] }, input: Reader & { id: string; actor: Actor }): Promise<unknown>;
    markAllRead(deps: { db: PanelDeps["db"] }, input: Reader & { actor: Actor }): Promise<number>;
  };
  /** The 404's sentence when the notice marked is not the account's. */
  notFound: string;
  /** What stands above the notices (an introduction, and what else the page shows); read with the page. */
  intro(deps: PanelDeps, reader: Reader): Promise<SafeHtml> | SafeHtml;
  list: {
    caption: string;
    /** The columns before the read state. */
    headers: readonly string[];
    cells(notice: N): readonly Interpolated[];
    /** Which notice a "mark as read" button is for, for its accessible name. */
    describe(notice: N): string;
    /** Shown when nothing is listed and no filter is set. */
    empty: string;
  };
}

/** The routes of a page of notices: GET the list, POST mark all read, POST mark one read. */
export function registerNoticesPage<N extends Notice>(router: Router, deps: PanelDeps, spec: NoticesPage<N>): void {
  const { path } = spec;
  const filtersSchema = z.object({
    estado: z.enum(["nao_lidos"]).optional(),
    tipo: z.enum(spec.types.map((type) => type.value) as [string, ...string[]]).optional(),
    cursor: z
      .string()
      .regex(/^\d{1,18}$/)
      .optional(),
  });

  router.get(path, async (req, res) => {
    const user = currentUser(req);
    const filters = readQueryFilters(req, filtersSchema, "Filtro inválido: confira o estado e o tipo.");
    const reader = { accountId: user.accountId, userId: user.userId };
    const [result, unread, intro] = await Promise.all([
      spec.service.list(
        { db: deps.db },
        {
          ...reader,
          unreadOnly: filters.estado === "nao_lidos",
          filter: spec.types.find((type) => type.value === filters.tipo)?.filter,
          cursor: filters.cursor,
          limit: spec.pageSize,
        },
      ),
      spec.service.countUnread({ db: deps.db }, reader),
      spec.intro(deps, reader),
    ]);
    const { cursor: _cursor, ...kept } = filters;
    const filtered = filters.estado !== undefined || filters.tipo !== undefined;
    const body = html`${intro}
      <div class="actions">
        <p role="status">
          ${
            unread === 0
              ? "Nenhum aviso por ler."
              : unread === 1
                ? "1 aviso não lido."
                : `${formatNumber(unread)} avisos não lidos.`
          }
        </p>
        ${unread > 0 ? postButton(req, { action: `${path}/marcar-todos`, label: "Marcar todos como lidos" }) : ""}
      </div>
      <form method="get" action="${path}" class="filters">
        ${select("estado", "Estado", [{ value: "nao_lidos", text: "Não lidos" }], filters.estado)}
        ${select("tipo", "Tipo", spec.types, filters.tipo)}
        <button type="submit" class="secondary">Filtrar</button>
        ${filtered ? html`<a href="${path}">Limpar filtros</a>` : ""}
      </form>
      ${table({
        caption: spec.list.caption,
        headers: [...spec.list.headers, "Leitura"],
        rows: result.items.map((notice) => [...spec.list.cells(notice), readState(req, path, notice, spec)]),
        empty: filtered ? "Nenhum aviso com estes filtros." : spec.list.empty,
      })}
      ${pager({ path, query: kept, next: result.next_cursor })}`;
    res
      .type("html")
      .send(page(req, { title: spec.title, section: spec.section, notice: noticeFrom(req, MESSAGES), body }).value);
  });

  router.post(`${path}/marcar-todos`, async (req, res) => {
    const user = currentUser(req);
    const marked = await spec.service.markAllRead(
      { db: deps.db },
      { accountId: user.accountId, userId: user.userId, actor: panelActor(req) },
    );
    res.redirect(303, marked === 0 ? `${path}?erro=nenhum_novo` : `${path}?ok=todos_lidos`);
  });

  router.post(`${path}/:id/lido`, async (req, res) => {
    const user = currentUser(req);
    const id = typeof req.params.id === "string" ? req.params.id : "";
    try {
      await spec.service.markRead(
        { db: deps.db },
        { accountId: user.accountId, userId: user.userId, id, actor: panelActor(req) },
      );
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") throw new PanelHttpError(404, spec.notFound);
      throw error;
    }
    res.redirect(303, `${path}?ok=lido`);
  });
}

/** Read (and when), or unread with its "mark as read" button. */
function readState<N extends Notice>(req: Request, path: string, notice: N, spec: NoticesPage<N>): SafeHtml {
  return notice.read
    ? html`${badge("lido", "ok")} <span class="hint">${formatDateTime(notice.read_at)}</span>`
    : html`${badge("não lido", "warn")}
      ${postButton(req, {
        action: `${path}/${notice.id}/lido`,
        label: "Marcar como lido",
        ariaLabel: `Marcar como lido o aviso de ${spec.list.describe(notice)}`,
      })}`;
}
