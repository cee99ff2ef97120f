import type { SendErrorKind } from "@gw/webhook-sender";

/**
 * Why an attempt failed, stored in `lastErrorKind` and on each attempt row: how its POST ended (`SendErrorKind` of
 * @gw/webhook-sender, e.g. `address_refused`: the SSRF guard refused the host, nothing was sent), or one of the
 * deliveries' own kinds. `integration_inactive` and `expired` are never an attempt's: a delivery failed without one
 * (its integration paused; its retry schedule's deadline passed while its attempts were held back, e.g. by the
 * circuit breaker). Nor is `secret_unavailable`: the integration's signing secret did not open (its key is not in
 * SECRETS_KEYS, or the stored value was altered), so nothing was sent and no attempt spent; the delivery keeps being
 * tried until its deadline, and fails with that kind if the secret never opens.
 */
export type DeliveryErrorKind = SendErrorKind | "integration_inactive" | "expired" | "secret_unavailable";

/** Portuguese explanation of each error kind, for the panel and the API. */
export const DELIVERY_ERROR_KIND_MESSAGES: Readonly<Record<DeliveryErrorKind, string>> = {
  http_status: "O endpoint respondeu com um status fora da faixa 2xx.",
  redirect: "O endpoint respondeu com um redirecionamento, que não é seguido.",
  timeout: "O endpoint não respondeu dentro do tempo limite da tentativa.",
  connection_refused: "O endpoint recusou a conexão.",
  connection_reset: "A conexão com o endpoint foi encerrada antes da resposta.",
  dns: "Não foi possível resolver o nome do host do endpoint.",
  tls: "A conexão segura (TLS) com o endpoint falhou.",
  unreachable: "A rede ou o host do endpoint está inacessível.",
  invalid_url: "A URL cadastrada na integração é inválida.",
  address_refused:
    "O endpoint aponta para um endereço de rede local, privada ou reservada, que não é aceito; a entrega não foi enviada.",
  protocol: "O endpoint respondeu algo que não é HTTP válido.",
  network: "Falha de rede ao contatar o endpoint.",
  integration_inactive: "A integração está desativada; a entrega não foi enviada.",
  expired:
    "O prazo do cronograma de tentativas automáticas acabou sem que a entrega fosse tentada (o endpoint não respondia e as entregas aguardavam); ela pode ser reenviada.",
  secret_unavailable:
    "O segredo de assinatura da integração não pôde ser decifrado (a chave que o cifrou não está em SECRETS_KEYS, ou o valor guardado foi alterado); nada foi enviado. A entrega é tentada de novo até o prazo do cronograma; corrija as chaves do gateway ou troque o segredo da integração.",
};

/** `last_error_kind` of a delivery whose integration's signing secret did not open (nothing sent). */
export const SECRET_UNAVAILABLE: DeliveryErrorKind = "secret_unavailable";
