/**
 * What an API key may do (issue 35, item 1), as Stripe's restricted keys and Twilio's key permissions: every public
 * operation requires one scope (declared by its route), and a key holds a list of them, or all of them. A key with
 * every scope is stored without a list (`scopes` NULL): the keys made before scopes existed are such keys, and so is a
 * new key given no list or one naming every scope; they also hold the scopes a later release adds. A key with a list
 * holds exactly that list, for ever.
 */
export const API_KEY_SCOPES = [
  "messages:send",
  "messages:read",
  "orders:write",
  "media:write",
  "integrations:manage",
  "usage:read",
] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What each scope lets a key do, in Portuguese (the panel's form and list, the CLI's help). */
export const API_KEY_SCOPE_DESCRIPTIONS: Readonly<Record<ApiKeyScope, string>> = {
  "messages:send": "enviar mensagens, marcar mensagens como lidas e criar e controlar campanhas",
  "messages:read": "consultar janelas, números, templates, entregas de webhooks, mídias recebidas e campanhas",
  "orders:write": "consultar pedidos Pix e atualizar o status deles",
  "media:write": "enviar arquivos de mídia",
  "integrations:manage":
    "criar, alterar, excluir e reativar integrações de webhooks, trocar o segredo e reenviar entregas",
  "usage:read": "consultar o uso e os custos da conta",
};

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `granted` (null: every scope) may run an operation that requires `scope`. */
export function hasScope(granted: readonly ApiKeyScope[] | null, scope: ApiKeyScope): boolean {
  return granted === null || granted.includes(scope);
}

/** The refusal's sentence (403 `insufficient_scope`): names the scope the key lacks and where a key gets it. */
export function missingScopeMessage(scope: ApiKeyScope): string {
  return `Esta chave de API não tem a permissão ${scope}, exigida por esta operação; use uma chave que a tenha (crie-a no painel, em Chaves de API).`;
}

/**
 * The scopes a new key is stored with: null (every scope) when none are given or all of them are; otherwise the
 * given ones once each, in API_KEY_SCOPES' order. An empty list is a caller's mistake (a key that can do nothing).
 */
export function storedScopes(scopes: readonly ApiKeyScope[] | null | undefined): ApiKeyScope[] | null {
  if (scopes === null || scopes === undefined) return null;
  if (scopes.length === 0) throw new RangeError("an API key needs at least one scope");
  const kept = API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
  return kept.length === API_KEY_SCOPES.length ? null : kept;
}

/** A stored `scopes` column as the services read it: NULL (and an empty array, which a CHECK forbids) is every scope. */
export function scopesOfRow(stored: readonly string[] | null | undefined): ApiKeyScope[] | null {
  if (stored === null || stored === undefined || stored.length === 0) return null;
  return stored.filter(isApiKeyScope);
}
