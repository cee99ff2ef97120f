/**
 * The one registry of API error codes: stable code -> HTTP status -> Portuguese message.
 * Codes are those of spec section 7, plus the few the spec leaves to us (see docs/decisions.md).
 */
export const ERROR_REGISTRY = {
  // 400
  invalid_recipient: { status: 400, message: "O número do destinatário não é válido para envio." },
  empty_message: { status: 400, message: "Informe um texto ou um template para enviar." },
  pix_needs_template: {
    status: 400,
    message: "Um pedido Pix só pode ser enviado junto com um template de detalhes do pedido.",
  },
  invalid_template_status: {
    status: 400,
    message:
      "O filtro de status do template é inválido; use APPROVED, PENDING, REJECTED, PAUSED, DISABLED, IN_APPEAL, PENDING_DELETION, DELETED, LIMIT_EXCEEDED, ARCHIVED ou ALL.",
  },
  no_connected_number: { status: 400, message: "A conta não tem um número de WhatsApp conectado para esta operação." },
  // The HTTP layer could not read the request (URL escapes, body encoding, a body cut short); docs/decisions.md.
  bad_request: { status: 400, message: "A requisição está malformada e não pôde ser lida." },
  // 401
  invalid_api_key: { status: 401, message: "A chave de API está ausente, é inválida ou foi revogada." },
  // 403: the key lacks the operation's scope (docs/decisions.md, "API key scopes"); the refusal names the scope.
  insufficient_scope: { status: 403, message: "A chave de API não tem a permissão que esta operação exige." },
  // 404
  not_found: { status: 404, message: "O recurso não foi encontrado nesta conta." },
  // 410: Meta no longer has the media (docs/decisions.md, "Conversations: interactive, media, reactions and locations").
  media_expired: {
    status: 410,
    message:
      "A mídia não está mais disponível no provedor: a Meta guarda as mídias recebidas por 7 dias e as enviadas por 30 dias.",
  },
  // 409
  idempotency_in_flight: {
    status: 409,
    message:
      "Outra chamada com a mesma Idempotency-Key ainda está em andamento; aguarde os segundos indicados em Retry-After e repita com a mesma chave.",
  },
  idempotency_conflict: {
    status: 409,
    message: "A Idempotency-Key já foi usada com um conteúdo diferente; use uma nova chave para uma nova mensagem.",
  },
  idempotency_legacy_unverified: {
    status: 409,
    message:
      "A Idempotency-Key pertence a um registro antigo que não pode ser comparado com esta chamada; use uma nova chave.",
  },
  // Campaigns (docs/decisions.md, "Campaigns")
  campaign_state_conflict: {
    status: 409,
    message: "A campanha não pode passar por esta ação no estado em que está.",
  },
  campaign_count_mismatch: {
    status: 409,
    message:
      "A quantidade de destinatários aceitos informada não é a da campanha; confira o relatório de validação e repita.",
  },
  // Pix orders (docs/decisions.md, "Pix orders (issue 28)")
  order_reference_taken: {
    status: 409,
    message:
      "Já existe um pedido com esta reference_id nesta conta; nada foi enviado. Use uma referência nova para um novo pedido.",
  },
  order_update_in_flight: {
    status: 409,
    message:
      "Outra atualização de status deste pedido ainda está em andamento; aguarde os segundos indicados em Retry-After e tente de novo.",
  },
  // Conversation Routing (docs/decisions.md, "Conversation Routing: thread control"): Meta's 2494191.
  thread_control_not_permitted: {
    status: 409,
    message:
      "A Meta não permitiu esta ação sobre a conversa no estado em que ela está: só quem atende pode passar ou liberar a conversa, e só o parceiro de escalonamento pode tomá-la. Consulte o atendimento atual em GET /conversations/{recipient}.",
  },
  // 413
  payload_too_large: { status: 413, message: "O corpo da requisição é grande demais." },
  // 415: the bytes of an uploaded file are of no type WhatsApp carries (POST /public/v1/media).
  media_type_unsupported: {
    status: 415,
    message:
      "O arquivo não é de um tipo aceito pelo WhatsApp: imagem JPEG ou PNG, vídeo MP4 ou 3GP, áudio AAC, AMR, MP3, M4A ou OGG (Opus), documento PDF, Word, Excel, PowerPoint ou texto, figurinha WebP.",
  },
  // 422: the provider (or our own pre-check) refused the send
  outside_24h_window: {
    status: 422,
    message: "A janela de 24 horas está fechada para este contato; envie um template aprovado.",
  },
  recipient_unreachable: { status: 422, message: "Não foi possível entregar a mensagem a este destinatário." },
  // Marketing templates to a contact on the account's suppression list (docs/decisions.md, "Opt-outs").
  recipient_opted_out: {
    status: 422,
    message: "O contato pediu para não receber mensagens de marketing desta empresa.",
  },
  template_params_mismatch: {
    status: 422,
    message: "A quantidade de variáveis não corresponde à esperada pelo template.",
  },
  template_not_found: { status: 422, message: "O template não existe neste idioma para a conta." },
  template_paused: { status: 422, message: "O template está pausado e não pode ser enviado agora." },
  invalid_template: { status: 422, message: "O template não está aprovado ou não pode ser usado para envio." },
  marketing_experiment: {
    status: 422,
    message: "A mensagem de marketing não foi entregue porque o destinatário participa de um experimento do provedor.",
  },
  delivery_limited: {
    status: 422,
    message: "A mensagem não foi entregue por limites do provedor para este destinatário; tente mais tarde.",
  },
  payment_issue: { status: 422, message: "O envio foi recusado por uma pendência de pagamento na conta do provedor." },
  account_restricted: { status: 422, message: "A conta ou o número comercial está restrito pelo provedor." },
  // Meta banned, deleted or disconnected the WhatsApp Business Account (docs/decisions.md, "Account and number
  // health"): refused before the provider, until Meta reinstates or reconnects it.
  account_disabled: {
    status: 422,
    message:
      "Os envios desta conta WhatsApp Business estão bloqueados porque a Meta a desativou ou a desconectou; nada foi enviado.",
  },
  variable_too_long: { status: 422, message: "Uma variável do template excede o tamanho permitido." },
  variable_bad_format: { status: 422, message: "Uma variável do template tem formato inválido." },
  invalid_pix_order: { status: 422, message: "O pedido Pix é inválido." },
  order_transition_invalid: {
    status: 422,
    message: "Esta mudança de status não é permitida para o pedido no estado em que ele está; nada foi enviado.",
  },
  order_cancel_refused: {
    status: 422,
    message:
      "O pedido não pode ser cancelado com o pagamento pendente ou capturado; nada foi enviado. Para cancelar um pedido não pago, informe payment_status failed.",
  },
  payment_not_supported: {
    status: 422,
    message: "O WhatsApp deste cliente não aceita mensagens de pedido e pagamento.",
  },
  template_required_header_media: {
    status: 422,
    message: "Este template exige uma mídia no cabeçalho; informe header_media com um link público.",
  },
  template_header_mismatch: { status: 422, message: "O cabeçalho enviado não corresponde ao formato do template." },
  template_format_unsupported: {
    status: 422,
    message: "Este formato de template não pode ser preenchido pela API pública.",
  },
  invalid_otp: { status: 422, message: "O código de verificação (OTP) está ausente ou é inválido para este template." },
  provider_rejected: { status: 422, message: "O provedor recusou o envio." },
  // The Marketing Messages API (issue 37, docs/decisions.md "Marketing templates on the Marketing Messages API"): a
  // refusal there is a refusal; nothing is sent again through /messages.
  template_syncing: {
    status: 422,
    message:
      "O template ainda está sincronizando com a API de Mensagens de Marketing da Meta (até 10 minutos depois de criado, ou depois de 7 dias sem uso); nada foi enviado, tente de novo em alguns minutos.",
  },
  template_not_eligible: {
    status: 422,
    message: "Este template não pode ser enviado pela API de Mensagens de Marketing da Meta; nada foi enviado.",
  },
  marketing_messages_unavailable: {
    status: 422,
    message:
      "O número não pode usar a API de Mensagens de Marketing da Meta agora (adesão incompleta); nada foi enviado. Conclua a adesão no WhatsApp Manager ou desligue marketing_messages no número.",
  },
  marketing_messages_required: {
    status: 422,
    message:
      "A Meta desativou os templates de marketing pela Cloud API nesta conta; nada foi enviado. Ligue marketing_messages no número para enviá-los pela API de Mensagens de Marketing.",
  },
  // Meta's 131062 (docs/decisions.md, "Contacts: phone numbers and BSUIDs"), refused before Meta too.
  recipient_phone_required: {
    status: 422,
    message:
      "Esta mensagem só pode ser enviada ao número de telefone do destinatário, não ao seu ID de usuário do WhatsApp (BSUID).",
  },
  delivery_not_retryable: { status: 422, message: "Só é possível reenviar entregas com status failed ou delivered." },
  // Read receipts: Meta marks messages read within 30 days of receipt (docs/decisions.md, "Read receipts and typing").
  message_too_old: {
    status: 422,
    message: "A mensagem foi recebida há mais de 30 dias; a Meta só marca como lidas as mensagens dos últimos 30 dias.",
  },
  // Issue 27 (docs/decisions.md, "Media by id only from this account's uploads, on the same number"; "Reactions only
  // to the contact's messages"): refused before Meta.
  media_unavailable: {
    status: 422,
    message:
      "A mídia informada não pode ser enviada por esta conta: não existe, foi enviada por outro número ou expirou. Envie o arquivo de novo com POST /public/v1/media.",
  },
  media_type_mismatch: { status: 422, message: "O tipo da mídia não corresponde ao tipo pedido." },
  reaction_target_not_found: {
    status: 422,
    message: "A mensagem a que a reação se refere não foi encontrada na conversa deste contato nesta conta.",
  },
  campaign_empty: {
    status: 422,
    message: "A campanha não tem destinatários aceitos; corrija a lista e crie outra campanha.",
  },
  // MAX_INTEGRATIONS_PER_ACCOUNT (docs/decisions.md, "Integrations per account"); the refusal names the number.
  integration_limit_reached: {
    status: 422,
    message: "A conta já tem o número máximo de integrações; exclua uma antes de criar outra.",
  },
  // 429
  api_rate_limited: {
    status: 429,
    message: "Limite de requisições da chave de API excedido; aguarde o tempo indicado em Retry-After.",
  },
  rate_limited: {
    status: 429,
    message: "O provedor limitou a vazão de envios; aguarde o tempo indicado em Retry-After.",
  },
  // Media uploads in flight per account (POST /public/v1/media), shared by the pods.
  media_upload_limit: {
    status: 429,
    message: "Há envios de mídia demais em andamento nesta conta; aguarde e tente de novo.",
  },
  // Media downloads in flight per account (GET /public/v1/media/{media_id}), shared by the pods.
  media_download_limit: {
    status: 429,
    message: "Há downloads de mídia demais em andamento nesta conta; aguarde e tente de novo.",
  },
  // 500
  internal_error: { status: 500, message: "Ocorreu um erro interno; tente novamente." },
  // 503
  // The send path overrides this sentence with one that asks to repeat with the same Idempotency-Key.
  templates_unavailable: {
    status: 503,
    message: "Não foi possível obter o catálogo completo de templates do provedor agora; tente novamente em instantes.",
  },
  send_unconfirmed: {
    status: 503,
    message:
      "O provedor não confirmou o envio; a mensagem pode ter saído e não será reenviada automaticamente. Acompanhe os webhooks de status antes de enviar de novo.",
  },
  provider_unavailable: {
    status: 503,
    message: "O provedor está indisponível ou recusou nossas credenciais; tente novamente mais tarde.",
  },
  service_unavailable: { status: 503, message: "O serviço está temporariamente indisponível; tente novamente." },
  // This pod's media transfers (uploads, downloads) are all taken.
  media_busy: {
    status: 503,
    message: "O servidor está com transferências de mídia demais agora; tente de novo em instantes.",
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_REGISTRY, value);
}

export interface ApiErrorOptions {
  /** Overrides the registry sentence with a more specific Portuguese one. */
  message?: string;
  /** Seconds for the Retry-After header (429, some 503s, and every 409 `idempotency_in_flight`). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** An error that renders as the spec's envelope `{success:false, error:{code, message}}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly code: ErrorCode,
    options: ApiErrorOptions = {},
  ) {
    super(options.message ?? ERROR_REGISTRY[code].message, { cause: options.cause });
    this.name = "ApiError";
    this.status = ERROR_REGISTRY[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toBody(): ErrorBody {
    return { success: false, error: { code: this.code, message: this.message } };
  }
}

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string };
}
