import type { Request, Response, Router } from "express";
import {
  PANEL_ROLES,
  PanelUserError,
  cancelPanelInvite,
  changePanelUserRole,
  invitePanelUser,
  isPanelRole,
  listPanelInvites,
  listPanelUsers,
  removePanelUser,
  type PanelRole,
} from "@gw/core/users";
import { z } from "@gw/config";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { requireRecentAuthentication } from "../http/reauth.ts";
import { can, requireCapability } from "../http/roles.ts";
import { badge, csrfField, noticeFrom, pager, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime } from "../views/format.ts";
import { ROLE_LABELS } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const MESSAGES = {
  papel: "Papel alterado. Vale a partir do próximo clique da pessoa.",
  removido: "Usuário removido: as sessões dele foram encerradas.",
  convite_cancelado: "Convite cancelado: o link deixou de funcionar.",
};

/** What each role may do, said once under the invite form (options stay short: they size the select). */
const ROLE_HELP =
  `${ROLE_LABELS.owner}: tudo, inclusive usuários e chaves de API · ${ROLE_LABELS.admin}: integrações, entregas, ` +
  `templates e conversas · ${ROLE_LABELS.viewer}: somente leitura · ${ROLE_LABELS.agente}: lê e responde ` +
  `conversas, lê pedidos e templates; não vê chaves, integrações, campanhas, custos nem usuários.`;

const inviteForm = z.object({ email: z.string().trim().max(254), role: z.enum(PANEL_ROLES) });
const roleForm = z.object({ role: z.enum(PANEL_ROLES) });

function roleOptions(selected: PanelRole | undefined): SafeHtml[] {
  return PANEL_ROLES.map(
    (role) => html`<option value="${role}" ${role === selected ? html`selected` : ""}>${ROLE_LABELS[role]}</option>`,
  );
}

/** The `:id` of the route (a string, or "" which the services treat as not found). */
function idParam(req: Request): string {
  const id: unknown = req.params.id;
  return typeof id === "string" ? id : "";
}

/** PanelUserError's status, as the error page gives it (http/errors.ts). */
function statusOf(error: PanelUserError): number {
  return error.code === "email_taken" || error.code === "last_owner" ? 409 : 400;
}

async function renderUsers(
  deps: PanelDeps,
  req: Request,
  res: Response,
  options: { status?: number; error?: string } = {},
): Promise<void> {
  const user = currentUser(req);
  const roleFilter = queryText(req, "papel");
  const papel = roleFilter && isPanelRole(roleFilter) ? roleFilter : undefined;
  const busca = queryText(req, "busca");
  const manage = can(user, "users.manage");
  const [{ users, next_cursor }, invites] = await Promise.all([
    listPanelUsers(
      { db: deps.db },
      { accountId: user.accountId, role: papel, query: busca, cursor: queryText(req, "cursor") },
    ),
    listPanelInvites({ db: deps.db }, { accountId: user.accountId }),
  ]);
  const body = html`${
      manage
        ? html`<section aria-labelledby="convidar">
            <h2 id="convidar">Convidar alguém</h2>
            <p class="hint">
              O link do convite aparece uma única vez, logo depois de criado: envie-o à pessoa. Ele vale por 7 dias e
              funciona uma vez.
            </p>
            <form method="post" action="/usuarios/convites" class="stack">
              ${csrfField(req)}
              <label
                >E-mail de quem vai entrar <input type="email" name="email" required maxlength="254" autocomplete="off"
              /></label>
              <label for="convite-papel">Papel de quem vai entrar</label>
              <select id="convite-papel" name="role" aria-describedby="papeis">
                ${roleOptions("viewer")}
              </select>
              <p id="papeis" class="hint">${ROLE_HELP}</p>
              <button type="submit">Convidar</button>
            </form>
          </section>`
        : html`<p class="hint">Só o proprietário da conta convida, muda papéis e remove usuários.</p>`
    }
    <section aria-labelledby="equipe">
      <h2 id="equipe">Usuários da conta</h2>
      <form method="get" action="/usuarios" class="filters">
        <label>Nome ou e-mail <input type="search" name="busca" value="${busca ?? ""}" maxlength="254" /></label>
        <label
          >Papel
          <select name="papel">
            <option value="" ${papel ? "" : html`selected`}>Todos</option>
            ${PANEL_ROLES.map(
              (role) =>
                html`<option value="${role}" ${role === papel ? html`selected` : ""}>${ROLE_LABELS[role]}</option>`,
            )}
          </select>
        </label>
        <button type="submit" class="secondary">Filtrar</button>
      </form>
      ${table({
        caption: "Usuários do painel nesta conta",
        headers: ["Nome", "E-mail", "Papel", "Desde", "Último acesso", ...(manage ? ["Ações"] : [])],
        rows: users.map((member) => {
          const who = member.id === user.userId ? `${member.name} (você)` : member.name;
          return [
            who,
            member.email,
            badge(ROLE_LABELS[member.role], member.role === "owner" ? "ok" : "neutral"),
            formatDateTime(member.created_at),
            member.last_login_at ? formatDateTime(member.last_login_at) : html`<span class="hint">nunca</span>`,
            ...(manage
              ? [
                  html`<div class="actions">
                    <form method="post" action="/usuarios/${member.id}/papel" class="inline">
                      ${csrfField(req)}
                      <label for="papel-${member.id}">Novo papel</label>
                      <select id="papel-${member.id}" name="role" aria-label="Novo papel de ${member.email}">
                        ${roleOptions(member.role)}
                      </select>
                      <button type="submit" class="secondary" aria-label="Alterar papel de ${member.email}">
                        Alterar papel
                      </button>
                    </form>
                    ${postButton(req, {
                      action: `/usuarios/${member.id}/remover`,
                      label: "Remover",
                      danger: true,
                      confirm: `Remover ${member.email}? A pessoa perde o acesso na hora.`,
                      ariaLabel: `Remover ${member.email}`,
                    })}
                  </div>`,
                ]
              : []),
          ];
        }),
        empty: papel || busca ? "Nenhum usuário com esses filtros." : "Nenhum usuário.",
      })}
      ${pager({ path: "/usuarios", query: { papel, busca }, next: next_cursor })}
    </section>
    <section aria-labelledby="convites">
      <h2 id="convites">Convites pendentes</h2>
      ${table({
        caption: "Convites ainda não aceitos",
        headers: ["E-mail", "Papel", "Convidado em", "Expira em", ...(manage ? ["Ações"] : [])],
        rows: invites.map((invite) => [
          invite.email,
          badge(ROLE_LABELS[invite.role]),
          formatDateTime(invite.created_at),
          formatDateTime(invite.expires_at),
          ...(manage
            ? [
                postButton(req, {
                  action: `/usuarios/convites/${invite.id}/cancelar`,
                  label: "Cancelar convite",
                  danger: true,
                  confirm: `Cancelar o convite de ${invite.email}? O link deixa de funcionar.`,
                  ariaLabel: `Cancelar o convite de ${invite.email}`,
                }),
              ]
            : []),
        ]),
        empty: "Nenhum convite pendente.",
      })}
    </section>`;
  res
    .status(options.status ?? 200)
    .type("html")
    .send(
      page(req, {
        title: "Usuários",
        section: "/usuarios",
        notice: options.error ? { kind: "error", text: options.error } : noticeFrom(req, MESSAGES),
        body,
      }).value,
    );
}

/**
 * Runs a change; a refusal the owner can fix (last owner, email taken, invalid email) is shown on the list with
 * its own message, while another account's or a made-up id stays a 404.
 */
async function refusalShown(deps: PanelDeps, req: Request, res: Response, change: () => Promise<void>): Promise<void> {
  try {
    await change();
  } catch (error) {
    if (!(error instanceof PanelUserError) || error.code === "not_found") throw error;
    // Core's sentence names the role by its code; the panel says it in the glossary's words.
    const text = error.code === "last_owner" ? `A conta precisa de pelo menos um ${ROLE_LABELS.owner}.` : error.message;
    await renderUsers(deps, req, res, { status: statusOf(error), error: text });
  }
}

export const usersPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    // Every change to the account's staff needs a recent password (http/reauth.ts); the list itself does not.
    const recent = requireRecentAuthentication(deps, "/usuarios");
    router.get("/usuarios", (req, res) => renderUsers(deps, req, res));

    router.post("/usuarios/convites", requireCapability("users.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      const parsed = inviteForm.safeParse(req.body);
      if (!parsed.success)
        return renderUsers(deps, req, res, { status: 400, error: "Informe um e-mail e um papel válidos." });
      await refusalShown(deps, req, res, async () => {
        const { invite, token } = await invitePanelUser(
          { db: deps.db },
          {
            accountId: user.accountId,
            email: parsed.data.email,
            role: parsed.data.role,
            invitedBy: user.userId,
            actor: panelActor(req),
          },
        );
        const link = `${deps.config.PANEL_PUBLIC_URL.replace(/\/+$/, "")}/convite/${token}`;
        // The link is shown on this answer only (its hash is stored): no redirect, never cached.
        res
          .status(201)
          .type("html")
          .send(
            page(req, {
              title: "Convite criado",
              section: "/usuarios",
              notice: {
                kind: "ok",
                text: `Convite criado para ${invite.email} (${ROLE_LABELS[invite.role]}). Envie o link abaixo à pessoa: ele não será mostrado de novo.`,
              },
              body: html`<p>Link do convite (vale até ${formatDateTime(invite.expires_at)}, uma única vez):</p>
                <p class="secret" aria-label="Link do convite"><code>${link}</code></p>
                <p class="hint">
                  Quem abrir o link escolhe o próprio nome e senha e entra com o papel ${ROLE_LABELS[invite.role]}.
                </p>
                <p><a href="/usuarios">Voltar aos usuários</a></p>`,
            }).value,
          );
      });
    });

    router.post("/usuarios/convites/:id/cancelar", requireCapability("users.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      await cancelPanelInvite(
        { db: deps.db },
        { accountId: user.accountId, inviteId: idParam(req), actor: panelActor(req) },
      );
      res.redirect(303, "/usuarios?ok=convite_cancelado");
    });

    router.post("/usuarios/:id/papel", requireCapability("users.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      const parsed = roleForm.safeParse(req.body);
      if (!parsed.success)
        throw new PanelHttpError(
          400,
          `Escolha um papel: ${ROLE_LABELS.owner}, ${ROLE_LABELS.admin}, ${ROLE_LABELS.viewer} ou ${ROLE_LABELS.agente}.`,
        );
      await refusalShown(deps, req, res, async () => {
        await changePanelUserRole(
          { db: deps.db },
          {
            accountId: user.accountId,
            userId: idParam(req),
            role: parsed.data.role,
            actor: panelActor(req),
          },
        );
        res.redirect(303, "/usuarios?ok=papel");
      });
    });

    router.post("/usuarios/:id/remover", requireCapability("users.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      await refusalShown(deps, req, res, async () => {
        await removePanelUser(
          { db: deps.db },
          { accountId: user.accountId, userId: idParam(req), actor: panelActor(req) },
        );
        // Removing oneself ends one's own session too: the list then asks to sign in again.
        res.redirect(303, "/usuarios?ok=removido");
      });
    });
  },
};
