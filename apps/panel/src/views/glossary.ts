import type { CampaignView, RecipientView } from "@gw/core/campaigns";
import { DELIVERY_ERROR_KIND_MESSAGES, type DeliveryErrorKind } from "@gw/core/deliveries";
import type { OrderStatus, PaymentStatus } from "@gw/contracts";
import type { OrderSummaryView } from "@gw/core/orders";
import { formatNumber } from "./format.ts";
import { html, type SafeHtml } from "./html.ts";

// The panel's one glossary (issue 38, item 7): every code a page would otherwise print (statuses, roles, Meta's
// pricing words, failure kinds, API field names) mapped to the Portuguese a shop owner reads. Pages show the label;
// the code stays a detail (`codeDetail`, or a title) only where an integrator needs it.

/** A badge's colour (views/components.ts, badge). */
export type Tone = "ok" | "warn" | "bad" | "neutral";
type CampaignStatus = CampaignView["status"];
type RecipientOutcome = RecipientView["status"];

/** A word with its singular and plural, for counts ("1 lida", "9 lidas"). */
export interface Word {
  one: string;
  other: string;
}

const word = (one: string, other = `${one}s`): Word => ({ one, other });

/** "1 entregue", "54 entregues", "0 entregues": the one plural helper of the panel. */
export function plural(count: number, forms: Word): string {
  return `${formatNumber(count)} ${count === 1 ? forms.one : forms.other}`;
}

/** A label with its code in smaller text, for the places an integrator looks the code up. */
export function codeDetail(label: string, code: string): SafeHtml {
  return html`${label} <small class="code"><code>${code}</code></small>`;
}

/** A code's label, or the code itself when the glossary does not know it (a value added later by Meta). */
export function labelOf(labels: Readonly<Record<string, string>>, code: string): string {
  return labels[code] ?? code;
}

/** Panel roles (PANEL_ROLES). */
export const ROLE_LABELS: Readonly<Record<"owner" | "admin" | "viewer" | "agente", string>> = {
  owner: "proprietário",
  admin: "administrador",
  viewer: "leitura",
  agente: "atendente",
};

/** A sent message's status (messages.status, as the API reports it). */
export const SEND_STATUS_WORDS: Readonly<Record<string, Word>> = {
  sent: word("enviada"),
  delivered: word("entregue"),
  read: word("lida"),
  failed: word("falhou", "falharam"),
};

/** A webhook delivery's status. */
export const DELIVERY_STATUS_WORDS: Readonly<Record<string, Word>> = {
  pending: word("pendente"),
  delivering: word("em envio", "em envio"),
  delivered: word("entregue"),
  failed: word("falhou", "falharam"),
};

/** A delivery status's word (singular), or the status itself. */
export function deliveryStatusText(status: string): string {
  return DELIVERY_STATUS_WORDS[status]?.one ?? status;
}

/** A send status's word (singular), or the status itself. */
export function sendStatusText(status: string): string {
  return SEND_STATUS_WORDS[status]?.one ?? status;
}

/** Why a delivery attempt failed, short (a table cell); the sentence is DELIVERY_ERROR_KIND_MESSAGES. */
const DELIVERY_ERROR_KIND_LABELS: Readonly<Record<DeliveryErrorKind, string>> = {
  http_status: "resposta de erro",
  redirect: "redirecionamento",
  timeout: "sem resposta a tempo",
  connection_refused: "conexão recusada",
  connection_reset: "conexão encerrada",
  dns: "endereço não encontrado",
  tls: "falha na conexão segura",
  unreachable: "endereço inacessível",
  invalid_url: "URL inválida",
  address_refused: "endereço não aceito",
  protocol: "resposta inválida",
  network: "falha de rede",
  integration_inactive: "integração desativada",
  expired: "prazo esgotado",
  secret_unavailable: "segredo indisponível",
};

/** The short label of a failure kind, or the kind itself if unknown. */
export function deliveryErrorLabel(kind: string): string {
  return (DELIVERY_ERROR_KIND_LABELS as Readonly<Record<string, string>>)[kind] ?? kind;
}

/** The sentence that explains a failure kind (core's), or "" if unknown. */
export function deliveryErrorSentence(kind: string): string {
  return (DELIVERY_ERROR_KIND_MESSAGES as Readonly<Record<string, string>>)[kind] ?? "";
}

/** The events an integration subscribes to (WEBHOOK_EVENTS). */
export const WEBHOOK_EVENT_LABELS: Readonly<Record<string, string>> = {
  "message.status": "status das mensagens enviadas",
  "message.received": "mensagens recebidas",
  "account.update": "avisos da conta",
  "order.updated": "mudanças dos pedidos",
  "conversation.handover": "conversas passadas entre apps",
  "conversation.updated": "quem atende mudou",
};

/** Meta's pricing categories (pricing.category). */
export const PRICING_CATEGORY_LABELS: Readonly<Record<string, string>> = {
  marketing: "Marketing",
  marketing_lite: "Marketing (API de mensagens de marketing)",
  utility: "Utilidade",
  authentication: "Autenticação",
  "authentication-international": "Autenticação internacional",
  authentication_international: "Autenticação internacional",
  service: "Serviço",
  referral_conversion: "Entrada gratuita (anúncio)",
  group_marketing: "Grupo: marketing",
  group_utility: "Grupo: utilidade",
  group_service: "Grupo: serviço",
};

/** Meta's pricing types (pricing.type): whether the message is charged. */
export const PRICING_TYPE_LABELS: Readonly<Record<string, string>> = {
  regular: "cobrada",
  free_customer_service: "gratuita (janela de atendimento)",
  free_entry_point: "gratuita (ponto de entrada)",
  free_group_customer_service: "gratuita (grupo, janela de atendimento)",
};

/** API field names a page names to the staff. */
export const FIELD_LABELS = {
  client_ref: "Referência interna",
  phone_number_id: "ID do número na Meta",
  wamid: "ID da mensagem na Meta",
} as const;

/**
 * A campaign recipient's or a send's refusal code (the registry's codes a campaign meets most), short; the row's
 * own sentence (error_message) says the rest.
 */
export const SEND_ERROR_LABELS: Readonly<Record<string, string>> = {
  invalid_recipient: "número inválido",
  recipient_unreachable: "número sem WhatsApp ou inacessível",
  recipient_opted_out: "pediu para não receber",
  template_not_found: "template não encontrado",
  template_paused: "template pausado",
  template_params_mismatch: "variáveis do template não conferem",
  marketing_experiment: "retida pela Meta (experimento de marketing)",
  delivery_limited: "limite de entregas da Meta",
  payment_issue: "problema de pagamento na Meta",
  account_restricted: "conta restrita pela Meta",
  account_disabled: "conta bloqueada pela Meta",
  provider_rejected: "recusada pela Meta",
  provider_unavailable: "Meta indisponível",
  send_unconfirmed: "envio não confirmado",
  rate_limited: "limite de envios",
};

// Page-specific words (Meta's and the gateway's codes as each page shows them).

/** Meta's inbound types as the staff read them. */
export const INBOUND_TYPES: Record<string, string> = {
  text: "texto",
  image: "imagem",
  audio: "áudio",
  video: "vídeo",
  document: "documento",
  sticker: "figurinha",
  location: "localização",
  contacts: "contatos",
  button: "resposta de botão",
  interactive: "resposta interativa",
  reaction: "reação",
  order: "pedido",
  payment_method: "forma de pagamento",
  unsupported: "mensagem não suportada",
};

/** The account's sends, by kind, as the list's last message names them. */
export const OUTBOUND_KINDS: Record<string, string> = {
  text: "mensagem de texto",
  interactive: "mensagem interativa",
  media: "mídia",
  reaction: "reação",
  location: "localização",
  order_status: "status do pedido",
};

/** The media types of a send, as a bubble names them ("Imagem enviada"). */
export const SENT_MEDIA: Record<string, string> = {
  image: "Imagem enviada",
  video: "Vídeo enviado",
  audio: "Áudio enviado",
  document: "Documento enviado",
  sticker: "Figurinha enviada",
};

export const NUMBER_QUALITY_LABELS: Record<string, { text: string; tone: "ok" | "warn" | "bad" | "neutral" }> = {
  GREEN: { text: "alta", tone: "ok" },
  YELLOW: { text: "média", tone: "warn" },
  RED: { text: "baixa", tone: "bad" },
  NA: { text: "ainda sem avaliação", tone: "neutral" },
};

/** Meta's messaging limit: how many different contacts the business may start conversations with in 24 h. */
export const LIMIT_LABELS: Record<string, string> = {
  TIER_50: "50 contatos / 24 h",
  TIER_250: "250 contatos / 24 h",
  TIER_1K: "1.000 contatos / 24 h",
  TIER_2K: "2.000 contatos / 24 h",
  TIER_10K: "10.000 contatos / 24 h",
  TIER_100K: "100.000 contatos / 24 h",
  TIER_UNLIMITED: "ilimitado",
  TIER_NOT_SET: "não definido",
};

/** Meta's phone_number_quality_update events, as the last notice of a number. */
export const NUMBER_HEALTH_EVENTS: Record<string, string> = {
  THROUGHPUT_UPGRADE: "vazão elevada a 1.000 msg/s",
  ONBOARDING: "em cadastro",
  FLAGGED: "qualidade baixa (sinalizado)",
  UNFLAGGED: "sinalização removida",
  DOWNGRADE: "limite reduzido por qualidade",
  UPGRADE: "limite elevado",
};

/** A number's Marketing Messages API route (issue 37): whether its MARKETING templates go through it. */
export const MARKETING_MESSAGES_LABELS: Record<"on" | "off", { text: string; tone: Tone }> = {
  on: { text: "ligada", tone: "ok" },
  off: { text: "desligada", tone: "neutral" },
};

export const THROUGHPUT_LABELS: Record<string, string> = {
  STANDARD: "padrão",
  HIGH: "alto",
  NOT_APPLICABLE: "não se aplica",
};

/** Meta's events as the staff read them; an event not listed is shown as Meta named it. */
export const ACCOUNT_EVENT_LABELS: Record<string, { text: string; tone: Tone }> = {
  // Without a ban state the gateway knows (the ban states are BAN_STATES below).
  DISABLED_UPDATE: { text: "situação de bloqueio da conta", tone: "warn" },
  ACCOUNT_DELETED: { text: "conta excluída", tone: "bad" },
  ACCOUNT_VIOLATION: { text: "violação de política", tone: "bad" },
  ACCOUNT_RESTRICTION: { text: "conta restrita", tone: "bad" },
  ACCOUNT_OFFBOARDED: { text: "conta desligada da plataforma", tone: "bad" },
  ACCOUNT_RECONNECTED: { text: "conta reconectada", tone: "ok" },
  PARTNER_REMOVED: { text: "plataforma removida como parceira", tone: "bad" },
  PARTNER_ADDED: { text: "plataforma adicionada como parceira", tone: "ok" },
  PARTNER_APP_UNINSTALLED: { text: "app da plataforma desinstalado", tone: "bad" },
  PARTNER_APP_INSTALLED: { text: "app da plataforma instalado", tone: "ok" },
  PARTNER_CLIENT_CERTIFICATION_STATUS_UPDATE: { text: "certificação do cliente", tone: "neutral" },
  VOLUME_BASED_PRICING_TIER_UPDATE: { text: "faixa de preço por volume", tone: "neutral" },
  AUTH_INTL_PRICE_ELIGIBILITY_UPDATE: { text: "preço internacional de autenticação", tone: "neutral" },
  BUSINESS_PRIMARY_LOCATION_COUNTRY_UPDATE: { text: "país principal da empresa", tone: "neutral" },
  AD_ACCOUNT_LINKED: { text: "conta de anúncios vinculada", tone: "neutral" },
  MM_LITE_TERMS_SIGNED: { text: "termos de mensagens de marketing aceitos", tone: "neutral" },
  THROUGHPUT_UPGRADE: { text: "vazão elevada a 1.000 msg/s", tone: "ok" },
  ONBOARDING: { text: "em cadastro", tone: "neutral" },
  FLAGGED: { text: "qualidade baixa (sinalizado)", tone: "bad" },
  UNFLAGGED: { text: "sinalização removida", tone: "ok" },
  DOWNGRADE: { text: "limite reduzido por qualidade", tone: "bad" },
  UPGRADE: { text: "limite elevado", tone: "ok" },
};

export const BAN_STATES: Record<string, { text: string; tone: Tone }> = {
  DISABLE: { text: "conta desativada pela Meta", tone: "bad" },
  REINSTATE: { text: "conta reativada", tone: "ok" },
  SCHEDULE_FOR_DISABLE: { text: "desativação agendada", tone: "warn" },
};

/** What Meta's status events mean, as the staff read them. */
export const TEMPLATE_EVENT_LABELS: Record<string, { text: string; tone: "ok" | "warn" | "bad" | "neutral" }> = {
  APPROVED: { text: "aprovado", tone: "ok" },
  REJECTED: { text: "rejeitado", tone: "bad" },
  PENDING: { text: "em análise", tone: "warn" },
  PAUSED: { text: "pausado", tone: "warn" },
  DISABLED: { text: "desativado", tone: "bad" },
  FLAGGED: { text: "sinalizado (pode ser pausado)", tone: "warn" },
  REINSTATED: { text: "reativado", tone: "ok" },
  IN_APPEAL: { text: "em recurso", tone: "warn" },
  LIMIT_EXCEEDED: { text: "limite excedido", tone: "bad" },
  LOCKED: { text: "bloqueado para edição", tone: "neutral" },
  UNLOCKED: { text: "desbloqueado para edição", tone: "neutral" },
  ARCHIVED: { text: "arquivado", tone: "neutral" },
  UNARCHIVED: { text: "desarquivado", tone: "neutral" },
  PENDING_DELETION: { text: "exclusão pendente", tone: "neutral" },
  DELETED: { text: "excluído", tone: "neutral" },
};

export const TEMPLATE_STATUS_LABELS: Record<string, { text: string; tone: "ok" | "warn" | "bad" | "neutral" }> = {
  APPROVED: { text: "aprovado", tone: "ok" },
  PENDING: { text: "em análise", tone: "warn" },
  REJECTED: { text: "rejeitado", tone: "bad" },
  PAUSED: { text: "pausado", tone: "warn" },
  DISABLED: { text: "desativado", tone: "bad" },
  IN_APPEAL: { text: "em recurso", tone: "warn" },
  PENDING_DELETION: { text: "exclusão pendente", tone: "neutral" },
  DELETED: { text: "excluído", tone: "neutral" },
  LIMIT_EXCEEDED: { text: "limite excedido", tone: "bad" },
  ARCHIVED: { text: "arquivado", tone: "neutral" },
};

export const QUALITY_LABELS: Record<string, { text: string; tone: "ok" | "warn" | "bad" | "neutral" }> = {
  GREEN: { text: "alta", tone: "ok" },
  YELLOW: { text: "média", tone: "warn" },
  RED: { text: "baixa", tone: "bad" },
  UNKNOWN: { text: "desconhecida", tone: "neutral" },
};

export const TEMPLATE_CATEGORY_LABELS: Record<string, string> = {
  MARKETING: "marketing",
  UTILITY: "utilidade",
  AUTHENTICATION: "autenticação",
};

/** What the known actions mean; others are shown by their code alone. */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  "panel.login": "Entrou no painel",
  "panel.logout": "Saiu do painel",
  "panel.api_key.created": "Criou uma chave de API",
  "panel.api_key.revoked": "Revogou uma chave de API",
  "panel.user.created": "Usuário criado pelo operador",
  "panel.user.invited": "Convidou um usuário",
  "panel.user.invite_accepted": "Aceitou um convite",
  "panel.user.invite_cancelled": "Cancelou um convite",
  "panel.user.role_changed": "Mudou o papel de um usuário",
  "panel.user.removed": "Removeu um usuário",
  "webhook.retry": "Reenviou uma entrega de webhook pelo painel",
  "api.webhook.retry": "Reenviou uma entrega de webhook pela API",
  "panel.number.marketing_messages": "Ligou ou desligou a API de Mensagens de Marketing de um número",
  "api.number.marketing_messages": "Ligou ou desligou a API de Mensagens de Marketing de um número pela API",
  "cli.number.marketing_messages": "API de Mensagens de Marketing de um número mudada pelo operador",
};

/** Every status, in the order a campaign goes through them (the compiler checks none is missing). */
export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, { text: string; tone: Tone }> = {
  draft: { text: "rascunho", tone: "neutral" },
  scheduled: { text: "agendada", tone: "neutral" },
  running: { text: "em andamento", tone: "ok" },
  paused: { text: "pausada", tone: "warn" },
  completed: { text: "concluída", tone: "ok" },
  cancelled: { text: "cancelada", tone: "bad" },
};

/** Each recipient counts once, in its furthest state (core's progress and recipient list say the same). */
export const OUTCOME_LABELS: Record<RecipientOutcome, { text: string; plural: string; one: string; tone: Tone }> = {
  queued: { text: "na fila", plural: "Na fila", one: "na fila", tone: "neutral" },
  sending: { text: "enviando", plural: "Enviando", one: "enviando", tone: "warn" },
  sent: { text: "enviada", plural: "Enviadas", one: "enviada", tone: "ok" },
  delivered: { text: "entregue", plural: "Entregues", one: "entregue", tone: "ok" },
  read: { text: "lida", plural: "Lidas", one: "lida", tone: "ok" },
  failed: { text: "falhou", plural: "Falhas", one: "falha", tone: "bad" },
  skipped: { text: "ignorada", plural: "Ignoradas", one: "ignorada", tone: "warn" },
  cancelled: { text: "cancelada", plural: "Canceladas", one: "cancelada", tone: "neutral" },
};

/** The order's status as the staff (and the customer's card) read it. */
export const ORDER_STATUS_TEXT: Record<OrderStatus, { text: string; tone: Tone }> = {
  pending: { text: "pendente", tone: "neutral" },
  processing: { text: "em preparação", tone: "neutral" },
  partially_shipped: { text: "enviado em parte", tone: "neutral" },
  shipped: { text: "enviado", tone: "neutral" },
  completed: { text: "concluído", tone: "ok" },
  canceled: { text: "cancelado", tone: "bad" },
};

export const PAYMENT_STATUS_TEXT: Record<PaymentStatus, { text: string; tone: Tone }> = {
  pending: { text: "pagamento pendente", tone: "warn" },
  captured: { text: "pago", tone: "ok" },
  failed: { text: "pagamento falhou", tone: "bad" },
};

export const PAYMENT_METHOD_TEXT: Record<OrderSummaryView["paymentMethods"][number], string> = {
  pix: "Pix",
  payment_link: "link de pagamento",
  boleto: "boleto",
};
