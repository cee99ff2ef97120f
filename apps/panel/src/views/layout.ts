import type { Request } from "express";
import type { WabaHealthView } from "@gw/core/health";
import type { PanelSessionUser } from "@gw/core/users";
import { formatDateTime } from "./format.ts";
import { ROLE_LABELS } from "./glossary.ts";
import { html, type SafeHtml } from "./html.ts";
import { can } from "../http/roles.ts";
import { NAV, type NavHref } from "./nav.ts";

export interface PageOptions {
  title: string;
  /** The navigation entry to mark as current. */
  section?: NavHref;
  body: SafeHtml;
  /** A confirmation or error shown above the content (role=status / role=alert). */
  notice?: { kind: "ok" | "error"; text: string } | null;
}

function header(user: PanelSessionUser | undefined, section: NavHref | undefined): SafeHtml {
  if (!user) return html`<header class="top"><span class="brand">Gateway WhatsApp</span></header>`;
  return html`<header class="top">
      <span class="brand">Gateway WhatsApp</span>
      <span class="who">${user.accountName} · ${user.name} <span class="role">(${ROLE_LABELS[user.role]})</span></span>
      <form method="post" action="/sair" class="inline">
        <input type="hidden" name="_csrf" value="${user.csrfToken}" />
        <button type="submit" class="link">Sair</button>
      </form>
    </header>
    <nav aria-label="Seções do painel">
      <!-- Closed by default: on a phone the menu opens on a tap, without JavaScript; wide screens show it
           whole (panel.css, and panel.js where ::details-content is not supported). -->
      <details class="menu">
        <summary>Menu</summary>
        <ul>
          ${NAV.filter((item) => "agent" in item || can(user, "sections.all")).map(
            (item) =>
              html`<li>
                <a href="${item.href}" ${item.href === section ? html`aria-current="page"` : ""}>${item.label}</a>
              </li>`,
          )}
        </ul>
      </details>
    </nav>`;
}

/** Meta banned or disconnected a WABA of the account: said on every page, since nothing leaves its numbers. */
function sendingBlockBanner(blocks: readonly WabaHealthView[] | undefined): SafeHtml {
  if (!blocks || blocks.length === 0) return html``;
  return html`<div class="notice error banner" role="alert">
    ${blocks.map(
      (block) =>
        html`<p>
          <strong>Envios bloqueados</strong> na conta WhatsApp Business <code>${block.waba_id}</code> desde
          ${formatDateTime(block.sending_blocked_at)}: ${block.sending_block_reason ?? block.sending_block_event ?? ""}.
        </p>`,
    )}
    <p>
      Nenhuma mensagem sai dos números dela, pela API ou por campanhas, até a Meta reativá-la ou reconectá-la; as
      campanhas foram pausadas. <a href="/conta/avisos">Ver os avisos da conta</a>
    </p>
  </div>`;
}

export function page(req: Request, options: PageOptions): SafeHtml {
  const notice = options.notice;
  return html`<!doctype html>
    <html lang="pt-BR">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Gateway WhatsApp</title>
        <link rel="stylesheet" href="/assets/panel.css" />
        <script src="/assets/panel.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#conteudo">Pular para o conteúdo</a>
        ${header(req.panelUser, options.section)}
        <main id="conteudo" tabindex="-1">
          ${sendingBlockBanner(req.sendingBlocks)}
          <h1>${options.title}</h1>
          ${
            notice
              ? html`<p class="notice ${notice.kind}" role="${notice.kind === "error" ? "alert" : "status"}">
                  ${notice.text}
                </p>`
              : ""
          }
          ${options.body}
        </main>
      </body>
    </html>`;
}

export function errorPage(req: Request, status: number, message: string): SafeHtml {
  return page(req, {
    title: status === 404 ? "Não encontrado" : status === 403 ? "Acesso negado" : "Não foi possível concluir",
    notice: { kind: "error", text: message },
    body: html`<p><a href="/">Voltar à visão geral</a></p>`,
  });
}
