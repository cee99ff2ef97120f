import { randomBytes } from "node:crypto";
import { pipeline } from "node:stream/promises";
import type { Request, Response, Router } from "express";
import {
  changeConversation,
  listConversations,
  markConversationReadOnOpen,
  openInboundMedia,
  panelReadReceiptsEnabled,
  setPanelReadReceipts,
  type ConversationContact,
  type ConversationView,
  type ConversationWindow,
  type InboxChange,
  type InboundDetailsView,
  type OutboundContentView,
} from "@gw/core/conversations";
import type { ConversationHandlerView, ConversationThreadView } from "@gw/contracts";
import { replyInConversation } from "@gw/core/messages";
import { listPanelUsers } from "@gw/core/users";
import { ERROR_REGISTRY, type ErrorCode } from "@gw/errors";
import { z } from "@gw/config";
import type { PanelDeps } from "../container.ts";
import { currentUser, panelActor } from "../http/context.ts";
import { PanelHttpError } from "../http/errors.ts";
import { can, requireCapability } from "../http/roles.ts";
import { badge, csrfField, noticeFrom, pager, postButton, queryText, table } from "../views/components.ts";
import { formatDateTime, formatNumber } from "../views/format.ts";
import { INBOUND_TYPES, OUTBOUND_KINDS, SENT_MEDIA, sendStatusText } from "../views/glossary.ts";
import { html, type SafeHtml } from "../views/html.ts";
import { page } from "../views/layout.ts";
import { accountNumberNames, businessNumber } from "./business-numbers.ts";
import { listConversationMessages, type ConversationMessageView } from "./orders-core.ts";
import { orderPath, orderStatusBadge, orderTitle, paymentStatusBadge } from "./orders-views.ts";
import type { PanelPage } from "./types.ts";

const PAGE_SIZE = 25;
const MESSAGES_PAGE_SIZE = 30;
const PREVIEW_LENGTH = 80;
/**
 * How long opening a conversation waits for Meta to confirm its read receipt before the page is shown anyway (the
 * call goes on, and its outcome is logged): a slow Meta never holds the page for the whole provider deadline.
 */
const READ_RECEIPT_WAIT_MS = 2_000;
const READ_RECEIPTS_PATH = "/conversas/confirmacao-de-leitura";
const NOTICE_MESSAGES = {
  confirmacao_ligada:
    "Confirmação de leitura ligada: ao abrir uma conversa, as mensagens do contato são marcadas como lidas no WhatsApp.",
  confirmacao_desligada: "Confirmação de leitura desligada: abrir uma conversa não avisa mais o contato.",
};

const DAY = new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo", day: "2-digit", month: "2-digit" });
const TIME = new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo", hour: "2-digit", minute: "2-digit" });

const SEND_STATUS_TONES: Record<string, "ok" | "warn" | "bad" | "neutral"> = {
  sent: "neutral",
  delivered: "ok",
  read: "ok",
  failed: "bad",
};

// Cursors are opaque to the page (base64url from the service); anything else never reaches it.
const CURSOR = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,600}$/)
  .optional();
const listFilters = z.object({ busca: z.string().trim().max(100).optional(), cursor: CURSOR });
const conversationParams = z.object({
  phoneNumberId: z.string().regex(/^\d{1,64}$/),
  // A contact's key: a phone's digits, a BSUID, or a generated key (contacts/).
  contact: z.string().regex(/^(\d{1,32}|[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}|contact:[0-9a-f-]{36})$/),
  cursor: CURSOR,
});
const mediaId = z.uuid();
/** The composer: the text, and `chave`, 128 random bits minted when it was drawn (the send's Idempotency-Key). */
const replyForm = z.object({
  texto: z.string().trim().min(1).max(4096),
  chave: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
});

/** The inbox's changes (issue 39): to whom it is assigned (a user of the account), or its state. */
const assignForm = z.object({ usuario: z.uuid() });
const INBOX_ACTIONS = {
  desatribuir: { kind: "unassign", done: "atribuicao_removida" },
  encerrar: { kind: "close", done: "encerrada" },
  reabrir: { kind: "reopen", done: "reaberta" },
} as const;

/** The composer's outcomes, shown on the conversation after the redirect: ours, then the registry's sentences. */
const REPLY_NOTICES: Record<string, string> = {
  resposta_enviada: "Resposta enviada.",
  atribuida: "Conversa atribuída: uma pessoa atende a partir de agora (o bot fica em silêncio).",
  atribuicao_removida: "Atribuição removida.",
  encerrada: "Conversa encerrada: o bot volta a atender.",
  reaberta: "Conversa reaberta.",
  send_unconfirmed:
    "O provedor não confirmou o envio: a resposta pode ter saído. Confira a conversa antes de enviar de novo.",
  ...Object.fromEntries(Object.entries(ERROR_REGISTRY).map(([code, entry]) => [code, entry.message])),
};
const readReceiptsForm = z.object({ ativar: z.enum(["0", "1"]) });

/** Shown inline only: images (never SVG, which can carry script), audio and video. Everything else downloads. */
const INLINE_MEDIA = /^(image\/(?!svg)[a-z0-9.+-]+|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+)$/;
const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/** "28/11 às 10:56" in São Paulo: the date always, so a window that closes tomorrow never reads as today. */
function dayAndTime(at: Date): string {
  return `${DAY.format(at)} às ${TIME.format(at)}`;
}

function windowBadge(window: ConversationWindow): SafeHtml {
  if (window.open && window.expires_at) {
    const expires = new Date(window.expires_at);
    return html`<span title="${formatDateTime(expires)}"
      ><span class="badge ok"
        >aberta até <time datetime="${expires.toISOString()}">${dayAndTime(expires)}</time></span
      ></span
    >`;
  }
  return badge("fechada");
}

/** Who answers the customer on the business's side (issue 39): the integrator's bot, or a person after a handover. */
function handlerText(handler: ConversationHandlerView): SafeHtml {
  if (handler.value === "bot") return html`${badge("o bot da integração", "neutral")}`;
  const since = handler.since ? html` <span class="hint">desde ${formatDateTime(handler.since)}</span>` : "";
  const note = handler.note ? html` <span class="hint">motivo: ${handler.note}</span>` : "";
  return html`${badge("uma pessoa", "warn")}${since}${note}`;
}

/** Meta's roles, as a shop's staff read them. */
const THREAD_ROLES: Record<string, string> = {
  ai_agent: "agente de IA da Meta",
  escalation_partner: "parceiro de escalonamento",
};

/**
 * Who answers the customer under Meta's Conversation Routing (issue 37): the gateway's app, another app (the
 * customer's messages still arrive, marked standby) or nobody since a release; with what said it and when.
 */
function threadHolder(thread: ConversationThreadView): SafeHtml {
  const role = thread.role ? ` (${THREAD_ROLES[thread.role] ?? thread.role})` : "";
  const since = thread.since
    ? html`<span class="hint">desde ${formatDateTime(thread.since)}</span>`
    : html`<span class="hint">nenhuma mudança informada pela Meta</span>`;
  if (thread.holder === "gateway") return html`${badge(`este gateway${role}`, "ok")} ${since}`;
  if (thread.holder === "released")
    return html`${badge("liberada", "neutral")}
      <span class="hint">a Meta escolhe quem responde quando o cliente escrever de novo</span> ${since}`;
  return html`${badge(`outro app${role}`, "warn")}
    <span class="hint">as mensagens do cliente chegam marcadas como standby</span> ${since}`;
}

/**
 * The composer (issue 39): a text answer inside the window, sent by the send service under the form's own key. With
 * the window closed only a template may go, which the panel does not send yet: the composer says so instead.
 */
function composer(req: Request, path: string, window: ConversationWindow): SafeHtml {
  if (!can(req.panelUser, "conversations.reply")) return html``;
  if (!window.open)
    return html`<section aria-labelledby="responder">
      <h2 id="responder">Responder</h2>
      <p class="hint">
        A janela de 24 h está fechada: o WhatsApp só aceita um template aprovado até o contato escrever de novo (envie
        pela API, <code>POST /public/v1/messages</code> com <code>template</code>).
      </p>
    </section>`;
  const chave = randomBytes(16).toString("base64url");
  return html`<section aria-labelledby="responder">
    <h2 id="responder">Responder</h2>
    <form method="post" action="${path}/responder" class="stack">
      ${csrfField(req)}
      <input type="hidden" name="chave" value="${chave}" />
      <label for="texto">Sua resposta</label>
      <textarea id="texto" name="texto" rows="3" maxlength="4096" required></textarea>
      <button type="submit">Enviar resposta</button>
    </form>
  </section>`;
}

/**
 * The inbox's controls (issue 39): the conversation's state and assignee, and for who may answer, the forms that
 * assign it (to oneself by default, or another user of the account), take the assignment away, close or reopen it.
 */
function inboxControls(
  req: Request,
  path: string,
  conversation: { status: "open" | "closed"; assignee: { id: string; name: string } | null },
  users: readonly { id: string; name: string }[],
): SafeHtml {
  const state = html`<p>
    ${conversation.status === "open" ? badge("aberta", "ok") : badge("encerrada", "neutral")}
    ${conversation.assignee ? html`atribuída a ${conversation.assignee.name}` : html`<span class="hint">sem atribuição</span>`}
  </p>`;
  if (!can(req.panelUser, "conversations.reply"))
    return html`<section aria-labelledby="atendimento-da-conta">
      <h2 id="atendimento-da-conta">Atendimento da conta</h2>
      ${state}
    </section>`;
  const me = req.panelUser?.userId ?? "";
  return html`<section aria-labelledby="atendimento-da-conta">
    <h2 id="atendimento-da-conta">Atendimento da conta</h2>
    ${state}
    <form method="post" action="${path}/atribuir" class="inline">
      ${csrfField(req)}
      <label for="usuario">Atribuir a</label>
      <select id="usuario" name="usuario">
        ${users.map(
          (user) => html`<option value="${user.id}" ${user.id === me ? html`selected` : ""}>${user.name}</option>`,
        )}
      </select>
      <button type="submit">Atribuir</button>
    </form>
    ${conversation.assignee ? postButton(req, { action: `${path}/desatribuir`, label: "Remover atribuição" }) : ""}
    ${
      conversation.status === "open"
        ? postButton(req, { action: `${path}/encerrar`, label: "Encerrar conversa" })
        : postButton(req, { action: `${path}/reabrir`, label: "Reabrir conversa" })
    }
  </section>`;
}

function shortened(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_LENGTH ? `${flat.slice(0, PREVIEW_LENGTH - 1)}…` : flat;
}

function typeText(type: string): string {
  return INBOUND_TYPES[type] ?? type;
}

function statusBadge(status: string | null): SafeHtml | string {
  if (!status) return "";
  return badge(sendStatusText(status), SEND_STATUS_TONES[status] ?? "neutral");
}

function lastMessage(conversation: ConversationView): SafeHtml {
  const last = conversation.last_message;
  if (!last) return html`<span class="hint">—</span>`;
  if (last.direction === "outbound")
    return html`<span class="hint">Conta:</span> ${
        last.template_name
          ? html`template <code>${last.template_name}</code>`
          : (OUTBOUND_KINDS[last.type] ?? OUTBOUND_KINDS.text)
      }
      ${statusBadge(last.status)}`;
  return html`<span class="hint">Contato:</span>
    ${last.text ? shortened(last.text) : html`<em>${typeText(last.type)}</em>`}`;
}

function conversationPath(phoneNumberId: string, contact: string): string {
  return `/conversas/${encodeURIComponent(phoneNumberId)}/${encodeURIComponent(contact)}`;
}

/**
 * How a contact is named to the staff: its phone when Meta shares it; else (a user with a WhatsApp username, phone
 * withheld) its username and its BSUID, which is what a reply is sent to.
 */
function contactIds(who: ConversationContact): string {
  if (who.phone) return `+${who.phone}`;
  return [who.username ? `@${who.username}` : null, who.bsuid].filter(Boolean).join(" · ");
}

function contactCell(conversation: ConversationView): SafeHtml {
  const ids = contactIds(conversation.who);
  return html`<a href="${conversationPath(conversation.phone_number_id, conversation.contact)}"
      >${conversation.contact_name ?? ids}</a
    >
    ${conversation.contact_name ? html`<br /><span class="hint">${ids}</span>` : ""}
    ${conversation.who.phone ? "" : html`<br />${badge("sem telefone compartilhado", "neutral")}`}`;
}

function mediaBlock(message: ConversationMessageView): SafeHtml {
  if (!message.media) return html``;
  const href = `/conversas/midia/${message.id}`;
  const mime = (message.media.mime_type ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const caption = message.text ? `: ${shortened(message.text)}` : "";
  let inline: SafeHtml | string = "";
  const sha256 = message.media.sha256;
  if (INLINE_MEDIA.test(mime) || (mime === "" && (message.type === "image" || message.type === "sticker"))) {
    if (mime.startsWith("audio/") || message.type === "audio")
      inline = html`<audio controls preload="none" src="${href}">Seu navegador não toca este áudio.</audio>`;
    else if (mime.startsWith("video/") || message.type === "video")
      inline = html`<video controls preload="none" width="320" src="${href}">
        Seu navegador não toca este vídeo.
      </video>`;
    else
      inline = html`<img
        src="${href}"
        width="240"
        loading="lazy"
        alt="${typeText(message.type)} enviada pelo contato${caption}"
      />`;
  }
  const label =
    message.type === "document"
      ? `Baixar documento${message.media.filename ? ` ${message.media.filename}` : ""}`
      : `Abrir ${typeText(message.type)}`;
  return html`${inline ? html`<p>${inline}</p>` : ""}
    <p>
      <a href="${href}" ${sha256 ? html`title="SHA-256 ${sha256}"` : ""}>${label}</a>
      ${mime ? html`<span class="hint">(${mime})</span>` : ""} ${message.media.voice ? badge("mensagem de voz") : ""}
    </p>`;
}

/** «title», as the staff read an option's label. */
function quoted(text: string): string {
  return `«${text}»`;
}

/** Coordinates as numbers (no external map: the panel loads nothing from other origins). */
function coordinates(location: { latitude: number; longitude: number }): string {
  return `latitude ${location.latitude}, longitude ${location.longitude}`;
}

function locationBlock(
  what: string,
  location: { latitude: number; longitude: number; name: string | null; address: string | null },
): SafeHtml {
  return html`<p>${what}${location.name ? html`: <strong>${location.name}</strong>` : ""}</p>
    ${location.address ? html`<p>${location.address}</p>` : ""}
    <p class="hint">${coordinates(location)}</p>`;
}

/** What a send carried beyond its kind (messages.content): never its body text, footer or caption. */
function outboundContent(content: OutboundContentView): SafeHtml {
  switch (content.kind) {
    case "text":
      return html`<p>${content.body}</p>`;
    case "interactive":
      switch (content.type) {
        case "button":
          return html`<p>Mensagem com botões${content.header_type ? ` (cabeçalho: ${content.header_type})` : ""}:</p>
            <ul class="options" aria-label="Botões enviados">
              ${content.buttons.map(
                (button) => html`<li>${quoted(button.title)} <span class="hint">(id ${button.id})</span></li>`,
              )}
            </ul>`;
        case "list":
          return html`<p>Lista${content.button ? html` com o botão ${quoted(content.button)}` : ""}:</p>
            ${content.sections.map(
              (section) =>
                html`${section.title ? html`<p class="hint">Seção ${quoted(section.title)}</p>` : ""}
                  <ul class="options" aria-label="Opções${section.title ? ` da seção ${section.title}` : ""}">
                    ${section.rows.map(
                      (row) =>
                        html`<li>
                          ${row.title} · <code>${row.id}</code>${
                            row.description ? html` <span class="hint">${row.description}</span>` : ""
                          }
                        </li>`,
                    )}
                  </ul>`,
            )}`;
        case "cta_url":
          return html`<p>
            Botão ${quoted(content.display_text ?? "—")} → ${content.url_host ?? "endereço não registrado"}
          </p>`;
        case "location_request":
          return html`<p>Pedido de localização</p>`;
        case "request_contact_info":
          return html`<p>Pedido do número de telefone</p>`;
      }
      break;
    case "media": {
      const what = SENT_MEDIA[content.type] ?? `Mídia enviada (${content.type})`;
      const source = content.media_id
        ? html` <span class="hint">(mídia <code>${content.media_id}</code>)</span>`
        : content.link_host
          ? html` <span class="hint">por link (${content.link_host})</span>`
          : "";
      return html`<p>
        ${what}${content.filename ? html`: ${content.filename}` : ""}${source}
        ${content.voice ? badge("mensagem de voz") : ""}
      </p>`;
    }
    case "reaction":
      return content.emoji === ""
        ? html`<p>Reação removida</p>`
        : html`<p>Reação <span class="emoji">${content.emoji}</span> a uma mensagem do contato</p>`;
    case "location":
      return locationBlock("Localização enviada", content);
  }
  return html``;
}

/** What a received message carried beyond its text and media (inbound_messages.details). */
function inboundDetails(details: InboundDetailsView): SafeHtml {
  const parts: SafeHtml[] = [];
  if (details.interactive) {
    const option = details.interactive;
    const title = option.title ? quoted(option.title) : "uma opção";
    parts.push(
      option.type === "list_reply"
        ? html`<p>Escolheu ${title} (opção <code>${option.id}</code>)</p>
            ${option.description ? html`<p class="hint">${option.description}</p>` : ""}`
        : html`<p>Tocou ${title} (botão <code>${option.id}</code>)</p>`,
    );
  }
  if (details.button)
    parts.push(
      html`<p>
        Tocou
        ${quoted(details.button.text ?? "—")}${
          details.button.payload ? html` (payload <code>${details.button.payload}</code>)` : ""
        }
      </p>`,
    );
  if (details.reaction)
    parts.push(
      details.reaction.emoji === null
        ? html`<p>Removeu a reação a uma mensagem</p>`
        : html`<p>Reagiu com <span class="emoji">${details.reaction.emoji}</span> a uma mensagem</p>`,
    );
  if (details.location) parts.push(locationBlock("Localização", details.location));
  if (details.contacts.length > 0)
    parts.push(
      html`<p>${details.contacts.length === 1 ? "Contato compartilhado:" : "Contatos compartilhados:"}</p>
        <ul class="options" aria-label="Contatos compartilhados">
          ${details.contacts.map(
            (card) =>
              html`<li>${card.name ?? "sem nome"}${card.phones.length ? ` · ${card.phones.join(", ")}` : ""}</li>`,
          )}
        </ul>`,
    );
  if (details.referral)
    parts.push(
      html`<p>
        Veio de um anúncio${details.referral.headline ? html`: ${details.referral.headline}` : ""}
        ${details.referral.source_url ? html`<span class="hint">(${details.referral.source_url})</span>` : ""}
      </p>`,
    );
  return html`${parts}`;
}

/** A received message's kind as the staff read it: a reaction is Meta's "unsupported" with a reaction set. */
function inboundKind(message: ConversationMessageView): string {
  if (message.details?.reaction) return "reação";
  return typeText(message.type);
}

/** The details that replace the text line: the option tapped carries its label in `text` already. */
function repliedOption(details: InboundDetailsView | null): boolean {
  return details !== null && (details.interactive !== null || details.button !== null);
}

/** A message of an order (its charge or a status): the order's current status, linked to its page in Pedidos. */
function orderLine(message: ConversationMessageView): SafeHtml {
  const order = message.order;
  if (!order) return html``;
  return html`<p>
    <a href="${orderPath(order.reference_id)}">${orderTitle(order.reference_id)}</a>:
    ${orderStatusBadge(order.order_status)} ${paymentStatusBadge(order.payment_status)}
  </p>`;
}

function messageBlock(message: ConversationMessageView): SafeHtml {
  const when = formatDateTime(message.at);
  if (message.direction === "outbound") {
    return html`<article class="bubble out" aria-label="Mensagem da conta, ${when}">
      <p class="hint">Conta · ${when} ${statusBadge(message.status)}</p>
      ${
        message.content
          ? outboundContent(message.content)
          : html`<p>
              ${
                message.template_name
                  ? html`Template <code>${message.template_name}</code>`
                  : message.type === "order_status"
                    ? "Status do pedido"
                    : "Mensagem de texto (o gateway não guarda o texto dos envios)"
              }
            </p>`
      }
      ${orderLine(message)}
      ${
        message.error_code !== null || message.error_reason
          ? html`<p class="hint">
              Erro${message.error_code !== null ? ` ${message.error_code}` : ""}: ${message.error_reason ?? "—"}
            </p>`
          : ""
      }
    </article>`;
  }
  const kind = message.type === "text" ? "" : ` · ${inboundKind(message)}`;
  const forwarded = message.details?.frequently_forwarded
    ? " · encaminhada muitas vezes"
    : message.details?.forwarded
      ? " · encaminhada"
      : "";
  // Meta delivered it on `standby`: another app (its Business AI agent, say) held the conversation then (issue 37).
  const standby = message.standby ? " · atendida por outro app (standby)" : "";
  const details = message.details ? inboundDetails(message.details) : html``;
  const shown = message.text !== null || message.media !== null || details.value !== "";
  return html`<article class="bubble" aria-label="Mensagem do contato, ${when}">
    <p class="hint">
      Contato · ${when}
      ${readBadge(message.read_at)}${kind}${forwarded}${standby}${message.reply_to_wamid ? " · em resposta a uma mensagem" : ""}
    </p>
    ${message.text && !repliedOption(message.details) ? html`<p>${message.text}</p>` : ""} ${details}
    ${mediaBlock(message)} ${shown ? "" : html`<p class="hint">Sem conteúdo para mostrar.</p>`}
  </article>`;
}

/** Whether the business marked a contact's message read at Meta (the contact sees it as read). */
function readBadge(readAt: string | null): SafeHtml {
  if (!readAt) return html`<span title="Não marcada como lida no WhatsApp">${badge("não lida")}</span>`;
  return html`<span title="Marcada como lida em ${formatDateTime(readAt)}">${badge("lida", "ok")}</span>`;
}

/** The account's read-receipt setting, and the button that turns it over for those who may. */
function readReceiptsSection(req: Request, enabled: boolean): SafeHtml {
  return html`<section class="setting" aria-labelledby="confirmacao-de-leitura">
    <h2 id="confirmacao-de-leitura">Confirmação de leitura</h2>
    <p>
      ${
        enabled
          ? html`${badge("ligada", "ok")} Ao abrir uma conversa, as mensagens do contato são marcadas como lidas no
            WhatsApp: o contato vê que alguém da empresa as leu.`
          : html`${badge("desligada")} Abrir uma conversa não marca as mensagens como lidas: o contato não é avisado.`
      }
    </p>
    ${
      can(req.panelUser, "conversations.read_receipts")
        ? postButton(req, {
            action: READ_RECEIPTS_PATH,
            label: enabled ? "Desligar confirmação de leitura" : "Ligar confirmação de leitura",
            fields: { ativar: enabled ? "0" : "1" },
          })
        : ""
    }
  </section>`;
}

/**
 * Opening a conversation marks it read at Meta when the account's setting is on (core decides), quietly: a refusal
 * or a failure is logged and the page is shown all the same; a slow answer is waited for READ_RECEIPT_WAIT_MS at most.
 */
async function markReadOnOpen(req: Request, deps: PanelDeps, phoneNumberId: string, contact: string): Promise<void> {
  const user = currentUser(req);
  const logFields = { accountId: user.accountId, phoneNumberId };
  const marking = markConversationReadOnOpen(deps.readReceipts, {
    accountId: user.accountId,
    phoneNumberId,
    contact,
    actor: panelActor(req),
  }).then(
    (outcome) => {
      if (outcome.kind !== "refused") return;
      // A conversation whose newest message is past Meta's 30 days is expected, not a failure.
      const level = outcome.error.code === "message_too_old" ? "info" : "warn";
      deps.logger[level]("conversation not marked read", { ...logFields, code: outcome.error.code });
    },
    (error: unknown) => deps.logger.error("conversation not marked read", { ...logFields, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, READ_RECEIPT_WAIT_MS);
  });
  await Promise.race([marking, waited]);
  clearTimeout(timer);
}

/** `Content-Disposition` for the media answer (RFC 6266: an ASCII fallback and the UTF-8 name). */
function disposition(kind: "inline" | "attachment", filename: string | null): string {
  if (!filename) return kind;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

async function sendMedia(req: Request, res: Response, deps: PanelDeps): Promise<void> {
  const user = currentUser(req);
  const id = mediaId.safeParse(req.params.id);
  if (!id.success) throw new PanelHttpError(404, "A mídia não foi encontrada nesta conta.");
  // One turn of this process's media downloads (PANEL_MEDIA_MAX_CONCURRENT), held until the last byte left.
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  const release = await deps.mediaSlots.acquire(gone.signal);
  if (!release) {
    if (gone.signal.aborted) return;
    res.setHeader("Retry-After", "5");
    throw new PanelHttpError(503, "Muitas mídias sendo abertas agora. Tente de novo em instantes.");
  }
  try {
    const file = await openInboundMedia(
      { db: deps.db, meta: deps.meta, logger: deps.logger },
      { accountId: user.accountId, inboundMessageId: id.data, actor: panelActor(req) },
    );
    const served = file.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
    const type = MIME.test(served) ? served : "application/octet-stream";
    const inline = INLINE_MEDIA.test(type);
    // The contact's file is foreign content: never sniffed, never cached, never run as a page of this origin.
    res.setHeader("Content-Type", type);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Cache-Control", "private, no-store");
    res.setHeader("Content-Security-Policy", "default-src 'none'; sandbox");
    res.setHeader("Content-Disposition", disposition(inline ? "inline" : "attachment", file.filename));
    if (file.contentLength !== null) res.setHeader("Content-Length", String(file.contentLength));
    // Streamed as it comes from Meta. A download that fails midway destroys the answer, so the browser sees a
    // broken download, never a short file that looks whole.
    await pipeline(file.body, res).catch((error: unknown) => {
      // The browser leaving early is its right; a broken download from Meta is worth a line.
      if ((error as { code?: unknown }).code !== "ERR_STREAM_PREMATURE_CLOSE")
        deps.logger.warn("inbound media stream broke", {
          error: error instanceof Error ? error.message : String(error),
        });
    });
  } finally {
    release();
  }
}

export const conversationsPage: PanelPage = {
  register(router: Router, deps: PanelDeps) {
    router.get("/conversas", async (req, res) => {
      const user = currentUser(req);
      const parsed = listFilters.safeParse({ busca: queryText(req, "busca"), cursor: queryText(req, "cursor") });
      if (!parsed.success) throw new PanelHttpError(400, "Busca inválida: use até 100 caracteres.");
      const filters = parsed.data;
      const [result, readReceipts, numbers] = await Promise.all([
        listConversations(
          { db: deps.db },
          { accountId: user.accountId, search: filters.busca, cursor: filters.cursor, limit: PAGE_SIZE },
        ),
        panelReadReceiptsEnabled({ db: deps.db }, { accountId: user.accountId }),
        accountNumberNames(deps, user.accountId),
      ]);
      const body = html`<p class="hint">
          Os contatos que escreveram para os números da conta, do contato mais recente ao mais antigo, com a janela de
          24 h de atendimento: aberta, a conta pode responder com texto livre; fechada, só com um template aprovado.
        </p>
        ${readReceiptsSection(req, readReceipts)}
        <form method="get" action="/conversas" class="filters" role="search">
          <label
            >Buscar por nome ou número
            <input name="busca" value="${filters.busca ?? ""}" maxlength="100" autocomplete="off" />
          </label>
          <button type="submit" class="secondary">Buscar</button>
          ${filters.busca ? html`<a href="/conversas">Limpar busca</a>` : ""}
        </form>
        ${table({
          caption: "Conversas, da mais recente à mais antiga",
          headers: ["Contato", "Número da conta", "Última mensagem", "Contato escreveu por último", "Janela de 24 h"],
          rows: result.conversations.map((conversation) => [
            contactCell(conversation),
            businessNumber(numbers, conversation.phone_number_id),
            lastMessage(conversation),
            html`${formatDateTime(conversation.last_inbound_at)} <br /><span class="hint"
                >${
                  conversation.inbound_count === 1
                    ? "1 mensagem do contato"
                    : `${formatNumber(conversation.inbound_count)} mensagens do contato`
                }</span
              >`,
            windowBadge(conversation.window),
          ]),
          empty: filters.busca ? "Nenhum contato com esta busca." : "Nenhum contato escreveu ainda.",
          reflow: true,
        })}
        ${pager({ path: "/conversas", query: { busca: filters.busca }, next: result.next_cursor })}`;
      res
        .type("html")
        .send(
          page(req, { title: "Conversas", section: "/conversas", notice: noticeFrom(req, NOTICE_MESSAGES), body })
            .value,
        );
    });

    router.post(READ_RECEIPTS_PATH, requireCapability("conversations.read_receipts"), async (req, res) => {
      const user = currentUser(req);
      const form = readReceiptsForm.safeParse(req.body);
      if (!form.success) throw new PanelHttpError(400, "Formulário inválido.");
      const enabled = form.data.ativar === "1";
      const saved = await setPanelReadReceipts(
        { db: deps.db },
        { accountId: user.accountId, enabled, actor: panelActor(req) },
      );
      if (!saved) throw new PanelHttpError(404, "A conta não foi encontrada.");
      res.redirect(303, `/conversas?ok=${enabled ? "confirmacao_ligada" : "confirmacao_desligada"}`);
    });

    // Before the conversation route: `/conversas/midia/<id>` must never be read as a number and a contact.
    router.get("/conversas/midia/:id", (req, res) => sendMedia(req, res, deps));

    router.get("/conversas/:phoneNumberId/:contact", async (req, res) => {
      const user = currentUser(req);
      const parsed = conversationParams.safeParse({
        phoneNumberId: req.params.phoneNumberId,
        contact: req.params.contact,
        cursor: queryText(req, "cursor"),
      });
      if (!parsed.success) throw new PanelHttpError(404, "A conversa não foi encontrada nesta conta.");
      const { phoneNumberId, contact, cursor } = parsed.data;
      // Opening the conversation (its newest page), before its messages are read, so they show as read.
      if (!cursor) await markReadOnOpen(req, deps, phoneNumberId, contact);
      const [conversation, numbers, team] = await Promise.all([
        listConversationMessages(
          { db: deps.db },
          { accountId: user.accountId, phoneNumberId, contact, cursor, limit: MESSAGES_PAGE_SIZE },
        ),
        accountNumberNames(deps, user.accountId),
        listPanelUsers({ db: deps.db }, { accountId: user.accountId, limit: 200 }),
      ]);
      const users = team.users.map((member) => ({ id: member.id, name: member.name }));
      const path = conversationPath(conversation.phone_number_id, conversation.contact);
      const ids = contactIds(conversation.who);
      const title = conversation.contact_name ?? ids;
      // The service pages back in time; a page reads top to bottom, oldest first, like the phone shows it.
      const messages = [...conversation.messages].reverse();
      const body = html`<p><a href="/conversas">← Conversas</a></p>
        <dl>
          <dt>Contato</dt>
          <dd>${ids}${conversation.contact_name ? ` (${conversation.contact_name})` : ""}</dd>
          ${
            conversation.who.phone
              ? ""
              : html`<dt>Responder para</dt>
                  <dd>
                    <code>${conversation.who.send_to}</code>
                    <span class="hint"
                      >O contato usa um nome de usuário do WhatsApp e não compartilhou o telefone: envie com
                      <code>to</code> igual a este ID (BSUID).</span
                    >
                  </dd>`
          }
          <dt>Número da conta</dt>
          <dd>${businessNumber(numbers, conversation.phone_number_id)}</dd>
          <dt>Quem responde</dt>
          <dd>${handlerText(conversation.handler)}</dd>
          <dt>Atendimento</dt>
          <dd>${threadHolder(conversation.thread)}</dd>
          <dt>Janela de 24 h</dt>
          <dd>
            ${windowBadge(conversation.window)}
            ${
              conversation.window.last_inbound_at
                ? html`<span class="hint"
                    >última mensagem do contato em ${formatDateTime(conversation.window.last_inbound_at)}</span
                  >`
                : ""
            }
          </dd>
        </dl>
        <section aria-labelledby="mensagens">
          <h2 id="mensagens">Mensagens</h2>
          ${
            conversation.next_cursor
              ? html`<nav class="pager" aria-label="Mensagens anteriores">
                  <a href="${path}?cursor=${conversation.next_cursor}">↑ Mensagens anteriores</a>
                </nav>`
              : ""
          }
          ${messages.length === 0 ? html`<p class="empty">Nenhuma mensagem.</p>` : messages.map(messageBlock)}
          ${
            cursor
              ? html`<nav class="pager" aria-label="Mensagens mais recentes">
                  <a href="${path}">Voltar às mensagens mais recentes ↓</a>
                </nav>`
              : ""
          }
        </section>
        ${inboxControls(req, path, conversation, users)} ${composer(req, path, conversation.window)}`;
      const notice = noticeFrom(req, REPLY_NOTICES);
      res.type("html").send(page(req, { title, section: "/conversas", notice, body }).value);
    });

    /** The inbox's changes of a conversation: the route's params checked, then the core service; 404 when not the account's. */
    const changeRoute = async (req: Request, res: Response, change: InboxChange, done: string) => {
      const user = currentUser(req);
      const params = conversationParams.safeParse({
        phoneNumberId: req.params.phoneNumberId,
        contact: req.params.contact,
      });
      if (!params.success) throw new PanelHttpError(404, "A conversa não foi encontrada nesta conta.");
      const { phoneNumberId, contact } = params.data;
      const outcome = await changeConversation(
        { db: deps.db, outbox: deps.send.outbox, logger: deps.logger },
        { accountId: user.accountId, phoneNumberId, contact, change, actor: panelActor(req) },
      );
      if (outcome.kind === "not_found") throw new PanelHttpError(404, "A conversa não foi encontrada nesta conta.");
      res.redirect(303, `${conversationPath(phoneNumberId, contact)}?ok=${done}#atendimento-da-conta`);
    };
    router.post(
      "/conversas/:phoneNumberId/:contact/atribuir",
      requireCapability("conversations.reply"),
      async (req, res) => {
        const form = assignForm.safeParse(req.body);
        if (!form.success) throw new PanelHttpError(400, "Escolha a quem atribuir a conversa.");
        await changeRoute(req, res, { kind: "assign", assigneeId: form.data.usuario }, "atribuida");
      },
    );
    for (const [segment, action] of Object.entries(INBOX_ACTIONS))
      router.post(
        `/conversas/:phoneNumberId/:contact/${segment}`,
        requireCapability("conversations.reply"),
        (req, res) => changeRoute(req, res, { kind: action.kind }, action.done),
      );

    router.post(
      "/conversas/:phoneNumberId/:contact/responder",
      requireCapability("conversations.reply"),
      async (req, res) => {
        const user = currentUser(req);
        const params = conversationParams.safeParse({
          phoneNumberId: req.params.phoneNumberId,
          contact: req.params.contact,
        });
        if (!params.success) throw new PanelHttpError(404, "A conversa não foi encontrada nesta conta.");
        const form = replyForm.safeParse(req.body);
        if (!form.success) throw new PanelHttpError(400, "Formulário inválido: escreva a resposta e tente de novo.");
        const { phoneNumberId, contact } = params.data;
        const outcome = await replyInConversation(deps.send, {
          accountId: user.accountId,
          phoneNumberId,
          contact,
          text: form.data.texto,
          formKey: form.data.chave,
          actor: panelActor(req),
          requestId: req.requestId,
        });
        const path = conversationPath(phoneNumberId, contact);
        if (outcome.kind === "not_found") throw new PanelHttpError(404, "A conversa não foi encontrada nesta conta.");
        if (outcome.kind === "sent") return void res.redirect(303, `${path}?ok=resposta_enviada#responder`);
        if (outcome.kind === "unconfirmed") return void res.redirect(303, `${path}?erro=send_unconfirmed#responder`);
        const code: ErrorCode = outcome.error.code;
        deps.logger.info("panel reply refused", { phoneNumberId, code });
        res.redirect(303, `${path}?erro=${code}#responder`);
      },
    );
  },
};
