// What each command does, with the services of @gw/core. Arguments are read and checked in spec.ts.
import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import { Prisma, type Db } from "@gw/db";
import {
  API_KEY_SCOPES,
  DEVELOPMENT_INTEGRATION_POLICY,
  IntegrationUrlError,
  PRODUCTION_INTEGRATION_POLICY,
  SIGNATURE_SCHEMES,
  WEBHOOK_EVENTS,
  addBusinessNumber,
  checkIntegrationUrl,
  createAccount,
  createApiKey,
  listApiKeys,
  listIntegrations,
  listNumberSettings,
  PAYLOAD_VERSIONS,
  SecretUnreadableError,
  isApiKeyScope,
  isPayloadVersion,
  isSignatureScheme,
  revokeApiKey,
  rotateIntegrationSecret,
  setIntegration,
  updateNumberSettings,
  type ApiKeyScope,
  type IntegrationInput,
  type IntegrationPolicy,
  type NumberSettingsChange,
  type PayloadVersion,
  type SecretBox,
  type SignatureScheme,
  type WebhookEvent,
} from "@gw/core/accounts";
import { listAudit, type Actor } from "@gw/core/audit";
import { enableIntegration, reencryptIntegrationSecrets, type ReencryptReport } from "@gw/core/deliveries";
import { liftSendingBlock } from "@gw/core/health";
import { PricingRateError, listPricingRates, removePricingRate, setPricingRate } from "@gw/core/pricing";
import { MessagingRateError, setNumberMessagingRate } from "@gw/core/throughput";
import { PanelUserError, createPanelUser, isPanelRole } from "@gw/core/users";
import { parseInvocation, UsageError, type CommandName, type Invocation } from "./spec.ts";

export { UsageError } from "./spec.ts";

export interface CliDeps {
  db: Db;
  /** Who runs the command, for the audit trail; the OS user (`cliActor()`) unless given. */
  actor?: Actor;
  /** Which integration URLs `integration set` accepts; production's (https, public hosts) unless given. */
  integrationPolicy?: IntegrationPolicy;
  /** MAX_INTEGRATIONS_PER_ACCOUNT: the most integrations `integration set` lets an account have (core's default unless given). */
  maxIntegrationsPerAccount?: number;
  /** The key ring of SECRETS_KEYS; absent when not configured (only the commands that store secrets need it). */
  secrets?: SecretBox;
  /** Called when a command takes the key ring (run.ts says then that it is npm start's, in development). */
  onSecretsUsed?: () => void;
  /** Extra capabilities that need Redis (webhook retry); absent when not configured. */
  retryDelivery?: (accountId: string, deliveryId: string, actor: Actor) => Promise<unknown>;
}

/** The operator at the terminal, as the audit trail names them: `cli:<os user>`. */
export function cliActor(): Actor {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A container user without a passwd entry.
    user = process.env.USER ?? `uid-${process.getuid?.() ?? "?"}`;
  }
  return { id: `cli:${user}`, origin: "cli", requestId: null };
}

/** A value spec.ts has already checked as required. */
function value(invocation: Invocation, name: string): string {
  const given = invocation.values[name];
  if (given === undefined) throw new UsageError(`Opção obrigatória ausente: --${name}`, invocation.command);
  return given;
}

function parseEvents(invocation: Invocation): WebhookEvent[] {
  const events = value(invocation, "events")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  for (const event of events) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(event))
      throw new UsageError(`Evento desconhecido: ${event} (use ${WEBHOOK_EVENTS.join(", ")})`, invocation.command);
  }
  if (events.length === 0) throw new UsageError("Informe ao menos um evento em --events", invocation.command);
  return events as WebhookEvent[];
}

/** `--scopes`, when given: known names, at least one (absent: the key holds every scope). */
function parseScopes(invocation: Invocation): ApiKeyScope[] | undefined {
  const given = invocation.values.scopes;
  if (given === undefined) return undefined;
  const names = given
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const scopes: ApiKeyScope[] = [];
  for (const name of names) {
    if (!isApiKeyScope(name))
      throw new UsageError(`Permissão desconhecida: ${name} (use ${API_KEY_SCOPES.join(", ")})`, invocation.command);
    scopes.push(name);
  }
  if (scopes.length === 0)
    throw new UsageError(
      `Informe ao menos uma permissão em --scopes (${API_KEY_SCOPES.join(", ")})`,
      invocation.command,
    );
  return scopes;
}

/** `--signature-scheme`, when given (absent: a new integration gets `pt`, an existing one keeps its own). */
function parseSignatureScheme(invocation: Invocation): SignatureScheme | undefined {
  const given = invocation.values["signature-scheme"];
  if (given === undefined) return undefined;
  if (!isSignatureScheme(given))
    throw new UsageError(
      `Esquema de assinatura desconhecido: ${given} (use ${SIGNATURE_SCHEMES.join(" ou ")})`,
      invocation.command,
    );
  return given;
}

/** `--payload-version`, when given (absent: a new integration gets 2, an existing one keeps its own). */
function parsePayloadVersion(invocation: Invocation): PayloadVersion | undefined {
  const given = invocation.values["payload-version"];
  if (given === undefined) return undefined;
  const version = /^\d$/.test(given) ? Number(given) : Number.NaN;
  if (!isPayloadVersion(version))
    throw new UsageError(
      `Versão de payload desconhecida: ${given} (use ${PAYLOAD_VERSIONS.join(" ou ")})`,
      invocation.command,
    );
  return version;
}

/** The key ring, for a command that seals or opens signing secrets. */
function secretsFor(invocation: Invocation, deps: CliDeps): SecretBox {
  if (!deps.secrets)
    throw new UsageError(
      `SECRETS_KEYS é necessária para ${invocation.command}: as chaves que cifram os segredos guardados, as mesmas ` +
        "do dispatcher e do painel. Em desenvolvimento, a CLI usa sozinha as do npm start (.data/secrets-keys, na " +
        "raiz do repositório, com o banco que o npm start marcou); fora dele, defina SECRETS_KEYS.",
      invocation.command,
    );
  deps.onSecretsUsed?.();
  return deps.secrets;
}

/** `--state` of `number marketing-messages`: on or off. */
function parseMarketingMessages(invocation: Invocation): NumberSettingsChange["marketingMessages"] {
  const given = value(invocation, "state");
  if (given === "on" || given === "off") return given;
  throw new UsageError(`Estado desconhecido: ${given} (use on ou off)`, invocation.command);
}

/** An account's numbers as `number list` shows them, the default first, with their Marketing Messages API route. */
async function listNumbers(db: Db, accountId: string) {
  const numbers = await listNumberSettings({ db }, { accountId });
  return numbers.map((number) => ({
    phone_number_id: number.phone_number_id,
    display_number: number.display_number,
    is_default: number.is_default,
    marketing_messages: number.marketing_messages,
  }));
}

/** The accounts, oldest first (core has no list of them: only the operator sees every account). */
async function listAccounts(db: Db) {
  const accounts = await db.account.findMany({
    select: { id: true, name: true, createdAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return accounts.map((account) => ({
    id: account.id,
    name: account.name,
    created_at: account.createdAt.toISOString(),
  }));
}

/** A list of one account's things: an account that does not exist is the operator's mistake, not an empty list. */
async function requireAccount(invocation: Invocation, db: Db): Promise<string> {
  const accountId = value(invocation, "account");
  const found = await db.account.findUnique({ where: { id: accountId }, select: { id: true } });
  if (!found) throw new UsageError(ACCOUNT_NOT_FOUND, invocation.command);
  return accountId;
}

/** Every page of a keyset-paged core list. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>) {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const { items: more, next } = await page(cursor);
    items.push(...more);
    if (next === null) return items;
    cursor = next;
  }
}

/**
 * `integration set`: creates the account's integration for the URL, showing its signing secret once, or updates the
 * one it has, without the secret, as the public API answers a PATCH (a new secret comes from rotate-secret).
 */
async function saveIntegration(
  invocation: Invocation,
  deps: CliDeps & { actor: Actor },
  input: Omit<IntegrationInput, "actor" | "onlyNew">,
) {
  const secrets = secretsFor(invocation, deps);
  const save = (onlyNew: boolean) =>
    setIntegration(
      {
        db: deps.db,
        policy: deps.integrationPolicy ?? PRODUCTION_INTEGRATION_POLICY,
        secrets,
        ...(deps.maxIntegrationsPerAccount === undefined
          ? {}
          : { maxIntegrationsPerAccount: deps.maxIntegrationsPerAccount }),
      },
      { ...input, actor: deps.actor, ...(onlyNew ? { onlyNew } : {}) },
    );
  const existing = await deps.db.integration.findUnique({
    where: { accountId_url: { accountId: input.accountId, url: input.url } },
    select: { id: true },
  });
  if (existing === null) {
    // Only a creation: should the URL have been registered meanwhile, its secret is not this run's to show.
    const created = await save(true).catch((error: unknown) => {
      if (error instanceof IntegrationUrlError && error.reason === "url_taken") return null;
      throw error;
    });
    if (created !== null) return created;
  }
  const { signing_secret: secret, ...updated } = await save(false);
  // Removed meanwhile, so created again by this run: its new secret is shown, as at any creation.
  if (existing !== null && updated.id !== existing.id) return { ...updated, signing_secret: secret };
  return updated;
}

/** `integration rotate-secret` without --overlap-hours: the panel's default (SECRET_ROTATION_OVERLAP_HOURS). */
const DEFAULT_ROTATION_OVERLAP_HOURS = 24;
const MAX_ROTATION_OVERLAP_HOURS = 24 * 7;

const HANDLERS: Record<CommandName, (invocation: Invocation, deps: CliDeps & { actor: Actor }) => Promise<unknown>> = {
  "account list": (_inv, { db }) => listAccounts(db),
  "account create": (inv, { db, actor }) => createAccount({ db }, { name: value(inv, "name"), actor }),
  "number list": async (inv, { db }) => {
    if (inv.values.account !== undefined) return listNumbers(db, await requireAccount(inv, db));
    const numbers = [];
    for (const account of await listAccounts(db)) {
      for (const number of await listNumbers(db, account.id))
        numbers.push({ account_id: account.id, account_name: account.name, ...number });
    }
    return numbers;
  },
  "number add": (inv, { db, actor }) =>
    addBusinessNumber(
      { db },
      {
        actor,
        accountId: value(inv, "account"),
        phoneNumberId: value(inv, "phone-number-id"),
        wabaId: value(inv, "waba-id"),
        displayNumber: value(inv, "display"),
        ...(inv.flags.has("default") ? { makeDefault: true } : {}),
      },
    ),
  "number set-rate": async (inv, { db, actor }) => {
    const changed = await setNumberMessagingRate(
      { db },
      { phoneNumberId: value(inv, "phone-number-id"), ratePerSecond: Number(value(inv, "rate")), actor },
    );
    if (!changed) throw new UsageError(NUMBER_NOT_FOUND, inv.command);
    return changed;
  },
  "number marketing-messages": async (inv, { db, actor }) => {
    const phoneNumberId = value(inv, "phone-number-id");
    const marketingMessages = parseMarketingMessages(inv);
    // phone_number_id is unique across accounts: the number names the account it belongs to, as for set-rate.
    const number = await db.businessNumber.findUnique({ where: { phoneNumberId }, select: { accountId: true } });
    if (!number) throw new UsageError(NUMBER_NOT_FOUND, inv.command);
    const saved = await updateNumberSettings(
      { db },
      { accountId: number.accountId, phoneNumberId, marketingMessages, actor },
    );
    return { account_id: number.accountId, ...saved };
  },
  "account unblock": async (inv, { db, actor }) => {
    const input = { accountId: value(inv, "account"), wabaId: value(inv, "waba-id") };
    const lifted = await liftSendingBlock({ db }, { ...input, actor });
    if (!lifted)
      throw new UsageError(
        "Os envios desta WABA não estão bloqueados nesta conta: confira --account e --waba-id.",
        inv.command,
      );
    return { account_id: input.accountId, waba_id: input.wabaId, sending_blocked: false };
  },
  "key list": async (inv, { db }) => {
    const accountId = await requireAccount(inv, db);
    const keys = await allPages(async (cursor) => {
      const page = await listApiKeys({ db }, { accountId, limit: 200, cursor });
      return { items: page.keys, next: page.next_cursor };
    });
    // Never the key: only its hash is stored. "all" as key create prints it.
    return keys.map((key) => ({
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes ?? "all",
      created_at: key.created_at,
      last_used_at: key.last_used_at,
      revoked_at: key.revoked_at,
    }));
  },
  "key create": async (inv, { db, actor }) => {
    const created = await createApiKey({ db }, { accountId: value(inv, "account"), scopes: parseScopes(inv), actor });
    // "all": every scope, also the ones a later release adds.
    return { id: created.id, key: created.key, prefix: created.prefix, scopes: created.scopes ?? "all" };
  },
  "key revoke": async (inv, { db, actor }) => {
    const revoked = await revokeApiKey({ db }, { keyId: value(inv, "id"), actor });
    if (!revoked) throw new UsageError("Chave não encontrada.", inv.command);
    return { id: revoked.id, revoked_at: revoked.revoked_at };
  },
  "integration list": async (inv, { db }) => {
    const accountId = await requireAccount(inv, db);
    const integrations = await allPages(async (cursor) => {
      const page = await listIntegrations({ db }, { accountId, limit: 200, cursor });
      return { items: page.integrations, next: page.next_cursor };
    });
    // What tells them apart and what the other commands act on; never a secret (the summary has none).
    return integrations.map((integration) => ({
      id: integration.id,
      url: integration.url,
      events: integration.events,
      active: integration.active,
      disabled_at: integration.disabled_at,
      signature_scheme: integration.signature_scheme,
      payload_version: integration.payload_version,
      deliver_in_order: integration.deliver_in_order,
      created_at: integration.created_at,
    }));
  },
  "integration set": (inv, deps) => {
    const url = value(inv, "url");
    const events = parseEvents(inv);
    const signatureScheme = parseSignatureScheme(inv);
    const payloadVersion = parsePayloadVersion(inv);
    // The operator's own mistakes first; the key ring only matters for a command that could run.
    checkIntegrationUrl(url, deps.integrationPolicy ?? PRODUCTION_INTEGRATION_POLICY);
    if (inv.flags.has("ordered") && inv.flags.has("unordered"))
      throw new UsageError("Use --ordered ou --unordered, não os dois.", inv.command);
    const deliverInOrder = inv.flags.has("ordered") ? true : inv.flags.has("unordered") ? false : undefined;
    return saveIntegration(inv, deps, {
      accountId: value(inv, "account"),
      url,
      events,
      active: !inv.flags.has("inactive"),
      ...(deliverInOrder === undefined ? {} : { deliverInOrder }),
      ...(signatureScheme === undefined ? {} : { signatureScheme }),
      ...(payloadVersion === undefined ? {} : { payloadVersion }),
    });
  },
  "integration rotate-secret": async (inv, deps) => {
    const given = inv.values["overlap-hours"];
    const overlapHours = given === undefined ? DEFAULT_ROTATION_OVERLAP_HOURS : Number(given);
    if (!/^\d+(\.\d+)?$/.test(given ?? "0") || overlapHours > MAX_ROTATION_OVERLAP_HOURS)
      throw new UsageError(
        `--overlap-hours deve ser um número de horas entre 0 e ${MAX_ROTATION_OVERLAP_HOURS}.`,
        inv.command,
      );
    const rotated = await rotateIntegrationSecret(
      { db: deps.db, secrets: secretsFor(inv, deps) },
      { integrationId: value(inv, "integration"), overlapHours, actor: deps.actor },
    );
    if (!rotated) throw new UsageError("Integração não encontrada: confira --integration.", inv.command);
    return rotated;
  },
  "integration enable": async (inv, { db, actor }) => {
    // No webhook queue here: the resumed deliveries are due now, and the dispatcher's sweep queues them.
    const enabled = await enableIntegration(
      { db },
      { accountId: value(inv, "account"), integrationId: value(inv, "integration"), actor },
    );
    return { integration_id: enabled.integrationId, was_disabled: enabled.wasDisabled, resumed: enabled.resumed };
  },
  "secrets rotate-key": async (inv, deps) => {
    const report = await reencryptIntegrationSecrets(
      { db: deps.db, secrets: secretsFor(inv, deps) },
      { actor: deps.actor, batchSize: Number(inv.values["batch-size"] ?? 200) },
    );
    if (report.unreadable.length > 0) {
      const which = report.unreadable
        .map((u) => `integração ${u.integration_id} (${u.field}, chave ${u.key_id ?? "-"}: ${UNREADABLE[u.reason]})`)
        .join("; ");
      throw new Error(
        `${report.unreadable.length} segredo(s) não puderam ser decifrados e ficaram como estavam: ${which}. ` +
          `Os demais estão sob a chave ${report.key_id} (${report.sealed_from_clear_text} cifrados do texto claro, ` +
          `${report.reencrypted} recifrados, ${report.previous_cleared} anteriores apagados). Não remova chaves de ` +
          "SECRETS_KEYS antes de resolver: devolva a chave que falta, ou troque o segredo da integração com " +
          "integration rotate-secret --overlap-hours 0.",
      );
    }
    return report;
  },
  "user create": async (inv, { db, actor }) => {
    const role = inv.values.role ?? "owner";
    if (!isPanelRole(role)) throw new UsageError("Papel inválido: use owner, admin, viewer ou agente.", inv.command);
    const given = process.env.GATEWAY_USER_PASSWORD;
    const password = given && given !== "" ? given : randomBytes(12).toString("base64url");
    const user = await createPanelUser(
      { db },
      {
        accountId: value(inv, "account"),
        email: value(inv, "email"),
        name: inv.values.name ?? value(inv, "email"),
        role,
        password,
        actor,
      },
    );
    return { ...user, ...(given ? {} : { password }) };
  },
  "audit list": async (inv, { db }) =>
    (await listAudit({ db }, { accountId: value(inv, "account"), limit: Number(inv.values.limit ?? 100) })).entries,
  "pricing rates": (inv, { db }) => listPricingRates({ db }, { accountId: inv.values.account }),
  "pricing set-rate": (inv, { db, actor }) =>
    setPricingRate(
      { db },
      {
        category: value(inv, "category"),
        rateBrl: value(inv, "rate"),
        effectiveFrom: value(inv, "from"),
        accountId: inv.values.account,
        actor,
      },
    ),
  "pricing remove-rate": async (inv, { db, actor }) => {
    const removed = await removePricingRate(
      { db },
      { category: value(inv, "category"), effectiveFrom: value(inv, "from"), accountId: inv.values.account, actor },
    );
    if (!removed) throw new UsageError("Tarifa não encontrada: confira --category, --from e --account.", inv.command);
    return removed;
  },
  "delivery retry": (inv, deps) => {
    if (!deps.retryDelivery) throw new UsageError("REDIS_URL é necessário para reenviar entregas.", inv.command);
    return deps.retryDelivery(value(inv, "account"), value(inv, "id"), deps.actor);
  },
};

const UNREADABLE: Record<ReencryptReport["unreadable"][number]["reason"], string> = {
  malformed: "valor que não é um segredo cifrado",
  unknown_key: "chave ausente de SECRETS_KEYS",
  rejected: "valor alterado ou copiado de outra linha",
};

const ACCOUNT_NOT_FOUND = "Conta não encontrada: confira --account.";
const NUMBER_NOT_FOUND = "Número não encontrado: confira --phone-number-id.";

/** Database answers that mean the operator named something that is not there (exit 2, not a failure). */
const OPERATOR_MISTAKES: Partial<Record<CommandName, Partial<Record<string, (inv: Invocation) => string>>>> = {
  "number add": {
    P2003: () => ACCOUNT_NOT_FOUND,
    P2002: (inv) => `O phone_number_id ${value(inv, "phone-number-id")} já está conectado a uma conta.`,
  },
  "key create": { P2003: () => ACCOUNT_NOT_FOUND },
  "user create": { P2003: () => ACCOUNT_NOT_FOUND },
  "integration set": { P2003: () => ACCOUNT_NOT_FOUND },
};

/** Prisma's codes for "could not use the database at all" (P1xxx: unreachable, timed out, refused the login...). */
const UNAVAILABLE = /^P1\d{3}$/;

function lastLine(error: Error): string {
  return error.message.split("\n").filter(Boolean).at(-1) ?? error.message;
}

/** Tell operator mistakes (UsageError) from failures, in words an operator can act on. */
function explain(invocation: Invocation, error: unknown): unknown {
  const command = invocation.command;
  if (
    error instanceof IntegrationUrlError ||
    error instanceof PanelUserError ||
    error instanceof MessagingRateError ||
    error instanceof PricingRateError
  )
    return new UsageError(error.message, command);
  if (error instanceof SecretUnreadableError)
    return new Error(
      `O segredo guardado da integração ${error.place.id} não pôde ser decifrado (${UNREADABLE[error.reason]}` +
        `${error.keyId === null ? "" : `, chave ${error.keyId}`}). Confira SECRETS_KEYS, ou troque o segredo com ` +
        "integration rotate-secret --overlap-hours 0.",
    );
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const mistake = OPERATOR_MISTAKES[command]?.[error.code];
    if (mistake) return new UsageError(mistake(invocation), command);
    if (error.code === "P2021")
      return new Error("O banco em DATABASE_URL não tem as tabelas do gateway: aplique as migrações (pnpm migrate).");
  }
  if (
    (error instanceof Prisma.PrismaClientKnownRequestError && UNAVAILABLE.test(error.code)) ||
    error instanceof Prisma.PrismaClientInitializationError
  ) {
    return new Error(`Não foi possível usar o banco de dados (DATABASE_URL): ${lastLine(error)}`);
  }
  // The retry service answers with the API's errors (`not_found`, `delivery_not_retryable`).
  if (error instanceof Error && error.name === "ApiError" && "code" in error) {
    if (error.code === "not_found" && command === "integration enable")
      return new UsageError("Integração não encontrada nesta conta: confira --account e --integration.", command);
    // The number removed between its lookup and the change.
    if (error.code === "not_found" && command === "number marketing-messages")
      return new UsageError(NUMBER_NOT_FOUND, command);
    return new UsageError(
      error.code === "not_found" ? "Entrega não encontrada nesta conta: confira --account e --id." : error.message,
      command,
    );
  }
  return error;
}

/** The policy for `WEBHOOK_ALLOW_PRIVATE_NETWORKS` (development: http:// and local addresses accepted). */
export function integrationPolicy(allowPrivateNetworks: boolean): IntegrationPolicy {
  return allowPrivateNetworks ? DEVELOPMENT_INTEGRATION_POLICY : PRODUCTION_INTEGRATION_POLICY;
}

/** Run one parsed command; returns its JSON-serializable result. */
export async function execute(invocation: Invocation, deps: CliDeps): Promise<unknown> {
  try {
    return await HANDLERS[invocation.command](invocation, { ...deps, actor: deps.actor ?? cliActor() });
  } catch (error) {
    throw explain(invocation, error);
  }
}

/** Parse argv and run it (tests and embedding); a help request returns the help text. */
export async function runCommand(argv: string[], deps: CliDeps): Promise<unknown> {
  const invocation = parseInvocation(argv);
  return invocation.kind === "help" ? invocation.text : execute(invocation, deps);
}
