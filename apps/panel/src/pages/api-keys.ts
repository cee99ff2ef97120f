import type { Request, Router } from "express";
import {
  API_KEY_NAME_MAX_LENGTH,
  API_KEY_SCOPES,
  API_KEY_SCOPE_DESCRIPTIONS,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  type ApiKeyScope,
} from "@gw/core/accounts";
import { z } from "@gw/config";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { requireRecentAuthentication } from "../http/reauth.ts";
import { can, requireCapability } from "../http/roles.ts";
import { badge, csrfField, noticeFrom, pager, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime } from "../views/format.ts";
import { html } from "../views/html.ts";
import { page } from "../views/layout.ts";
import type { PanelPage } from "./types.ts";

const MESSAGES = {
  revogada: "Chave revogada: a API passou a recusá-la.",
  ja_revogada: "Esta chave já estava revogada.",
  nome: `Dê um nome à chave (até ${API_KEY_NAME_MAX_LENGTH} caracteres) para saber depois onde ela é usada.`,
  permissoes: "Marque ao menos uma permissão: uma chave sem nenhuma não faria nada.",
};

const scopeList = z.union([z.enum(API_KEY_SCOPES), z.array(z.enum(API_KEY_SCOPES))]);
const createForm = z.object({
  name: z.string().trim().min(1).max(API_KEY_NAME_MAX_LENGTH),
  // One checked box arrives as a string, several as an array, none as nothing.
  scopes: scopeList.optional(),
});

/** A key's scopes as the list shows them: every scope (null) is "todas". */
function scopesCell(scopes: readonly ApiKeyScope[] | null) {
  if (scopes === null) return html`todas <span class="hint">(inclusive as que vierem)</span>`;
  return html`${scopes.map((scope, i) => html`${i > 0 ? ", " : ""}<code>${scope}</code>`)}`;
}
const keyId = z.uuid();

/** The filter's values in the URL (Portuguese) and what the service calls them. */
const STATUS_FILTER = { ativas: "active", revogadas: "revoked" } as const;

function statusFilter(req: Request): keyof typeof STATUS_FILTER | undefined {
  const value = queryText(req, "estado");
  return value === "ativas" || value === "revogadas" ? value : undefined;
}

export const apiKeysPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    // Creating and revoking a key need a recent password, as managing users does (http/reauth.ts): a key is a
    // credential to the whole API. The list itself does not.
    const recent = requireRecentAuthentication(deps, "/chaves");
    router.get("/chaves", async (req, res) => {
      const user = currentUser(req);
      const estado = statusFilter(req);
      const { keys, next_cursor } = await listApiKeys(
        { db: deps.db },
        {
          accountId: user.accountId,
          status: estado ? STATUS_FILTER[estado] : undefined,
          cursor: queryText(req, "cursor"),
        },
      );
      const manage = can(user, "keys.manage");
      const body = html`<p class="hint">
          As chaves autenticam as chamadas à API pública (<code>Authorization: Bearer pt_live_…</code>). Só o começo de
          cada chave fica visível aqui; a chave inteira aparece uma única vez, ao ser criada.
        </p>
        ${
          manage
            ? html`<section aria-labelledby="nova">
                <h2 id="nova">Nova chave</h2>
                <form method="post" action="/chaves" class="stack">
                  ${csrfField(req)}
                  <label
                    >Nome da chave
                    <input name="name" required maxlength="${API_KEY_NAME_MAX_LENGTH}" autocomplete="off" />
                  </label>
                  <fieldset>
                    <legend>Permissões</legend>
                    <p class="hint">
                      A chave só faz o que as permissões marcadas permitem; o resto a API recusa (403
                      <code>insufficient_scope</code>). Dê a cada sistema só o que ele usa: o plugin da loja que envia
                      pedidos não precisa gerenciar integrações. Com todas marcadas, a chave também terá as permissões
                      que o gateway ganhar depois.
                    </p>
                    ${API_KEY_SCOPES.map(
                      (scope) =>
                        html`<label
                          ><input type="checkbox" name="scopes" value="${scope}" checked /> <code>${scope}</code>:
                          ${API_KEY_SCOPE_DESCRIPTIONS[scope]}</label
                        >`,
                    )}
                  </fieldset>
                  <button type="submit">Criar chave</button>
                </form>
              </section>`
            : html`<p class="hint">Só o proprietário da conta cria e revoga chaves.</p>`
        }
        <section aria-labelledby="lista">
          <h2 id="lista">Chaves da conta</h2>
          <form method="get" action="/chaves" class="filters">
            <label
              >Estado
              <select name="estado">
                <option value="" ${estado ? "" : html`selected`}>Todas</option>
                <option value="ativas" ${estado === "ativas" ? html`selected` : ""}>Ativas</option>
                <option value="revogadas" ${estado === "revogadas" ? html`selected` : ""}>Revogadas</option>
              </select>
            </label>
            <button type="submit" class="secondary">Filtrar</button>
          </form>
          ${table({
            caption: "Chaves de API, da mais nova à mais antiga",
            headers: [
              "Nome",
              "Prefixo",
              "Permissões",
              "Criada em",
              "Último uso",
              "Estado",
              ...(manage ? ["Ações"] : []),
            ],
            rows: keys.map((key) => [
              key.name ?? html`<span class="hint">sem nome</span>`,
              html`<code>${key.prefix}…</code>`,
              scopesCell(key.scopes),
              formatDateTime(key.created_at),
              key.last_used_at ? formatDateTime(key.last_used_at) : html`<span class="hint">nunca</span>`,
              key.revoked_at
                ? html`${badge("revogada", "bad")} em ${formatDateTime(key.revoked_at)}`
                : badge("ativa", "ok"),
              ...(manage
                ? [
                    key.revoked_at
                      ? ""
                      : postButton(req, {
                          action: `/chaves/${key.id}/revogar`,
                          label: "Revogar",
                          danger: true,
                          confirm: "Revogar esta chave? A API passa a recusá-la na hora, e isso não se desfaz.",
                          ariaLabel: `Revogar a chave ${key.name ?? key.prefix}`,
                        }),
                  ]
                : []),
            ]),
            empty: estado ? "Nenhuma chave neste estado." : "Esta conta ainda não tem chaves.",
          })}
          ${pager({ path: "/chaves", query: { estado }, next: next_cursor })}
        </section>`;
      res
        .type("html")
        .send(page(req, { title: "Chaves de API", section: "/chaves", notice: noticeFrom(req, MESSAGES), body }).value);
    });

    // The answer to this POST is the only time the key is shown: no redirect, and the page is never cached
    // (Cache-Control: no-store on every page).
    router.post("/chaves", requireCapability("keys.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      const parsed = createForm.safeParse(req.body);
      if (!parsed.success) return res.redirect(303, "/chaves?erro=nome");
      const raw = parsed.data.scopes;
      const scopes = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      if (scopes.length === 0) return res.redirect(303, "/chaves?erro=permissoes");
      const created = await createApiKey(
        { db: deps.db },
        { accountId: user.accountId, name: parsed.data.name, scopes, actor: panelActor(req) },
      );
      res
        .status(201)
        .type("html")
        .send(
          page(req, {
            title: "Chave criada",
            section: "/chaves",
            notice: { kind: "ok", text: "Chave de API criada. Copie-a agora: ela não será mostrada de novo." },
            body: html`<p>Chave <strong>${created.name}</strong>:</p>
              <p class="secret" aria-label="Chave de API criada"><code>${created.key}</code></p>
              <p>Permissões: ${scopesCell(created.scopes)}</p>
              <p class="hint">
                Guarde-a num cofre de segredos e use-a no cabeçalho <code>Authorization: Bearer</code>. Se ela se
                perder, crie outra e revogue esta.
              </p>
              <p><a href="/chaves">Voltar às chaves</a></p>`,
          }).value,
        );
    });

    router.post("/chaves/:id/revogar", requireCapability("keys.manage"), recent, async (req, res) => {
      const user = currentUser(req);
      const id = keyId.safeParse(req.params.id);
      const revoked = id.success
        ? await revokeApiKey({ db: deps.db }, { keyId: id.data, accountId: user.accountId, actor: panelActor(req) })
        : null;
      // Another account's key is as unknown as a made-up id.
      if (!revoked) throw new PanelHttpError(404, "Chave não encontrada nesta conta.");
      if (!revoked.newly_revoked) return res.redirect(303, "/chaves?erro=ja_revogada");
      res.redirect(303, "/chaves?ok=revogada");
    });
  },
};
