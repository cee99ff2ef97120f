import { randomBytes } from "node:crypto";
import type { Db } from "@gw/db";
import { classifyAddress, ipLiteralHost, isLocalhostName } from "../net/address-guard.ts";

export const WEBHOOK_EVENTS = ["message.status", "message.received"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export async function createAccount(deps: { db: Db }, input: { name: string }) {
  const row = await deps.db.account.create({ data: { name: input.name } });
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString() };
}

export interface NumberInput {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  displayNumber: string;
  /** The account's first number becomes the default unless said otherwise. */
  makeDefault?: boolean;
}

export async function addBusinessNumber(deps: { db: Db }, input: NumberInput) {
  return deps.db.$transaction(async (tx) => {
    const existing = await tx.businessNumber.count({ where: { accountId: input.accountId } });
    const isDefault = input.makeDefault ?? existing === 0;
    if (isDefault)
      await tx.businessNumber.updateMany({
        where: { accountId: input.accountId, isDefault: true },
        data: { isDefault: false },
      });
    const row = await tx.businessNumber.create({
      data: {
        accountId: input.accountId,
        phoneNumberId: input.phoneNumberId,
        wabaId: input.wabaId,
        displayNumber: input.displayNumber,
        isDefault,
      },
    });
    return {
      id: row.id,
      account_id: row.accountId,
      phone_number_id: row.phoneNumberId,
      waba_id: row.wabaId,
      display_number: row.displayNumber,
      is_default: row.isDefault,
    };
  });
}

function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export interface IntegrationInput {
  accountId: string;
  url: string;
  events: WebhookEvent[];
  active?: boolean;
}

function integrationView(row: {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  active: boolean;
  signingSecret: string;
}) {
  return {
    id: row.id,
    account_id: row.accountId,
    url: row.url,
    events: row.events,
    active: row.active,
    signing_secret: row.signingSecret,
  };
}

/**
 * What integration URLs may be registered. Production: https only, public hosts only. Development
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS, for npm start and the tests): http and loopback/private hosts too.
 * The dispatcher checks the resolved addresses again at every attempt; this refuses what the URL alone shows.
 */
export interface IntegrationPolicy {
  /** Plain http:// URLs. */
  allowHttp: boolean;
  /** Hosts that are loopback, private, link-local... IP literals, and `localhost` names. */
  allowPrivateNetworks: boolean;
}

export const PRODUCTION_INTEGRATION_POLICY: Readonly<IntegrationPolicy> = Object.freeze({
  allowHttp: false,
  allowPrivateNetworks: false,
});

export const DEVELOPMENT_INTEGRATION_POLICY: Readonly<IntegrationPolicy> = Object.freeze({
  allowHttp: true,
  allowPrivateNetworks: true,
});

/** A URL refused at registration; `message` is a Portuguese sentence for the operator or the tenant. */
export class IntegrationUrlError extends Error {
  constructor(
    readonly reason: "invalid_url" | "scheme" | "userinfo" | "address_refused",
    message: string,
  ) {
    super(message);
    this.name = "IntegrationUrlError";
  }
}

/** Throws IntegrationUrlError when `raw` may not be registered under `policy`. */
export function checkIntegrationUrl(raw: string, policy: IntegrationPolicy): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new IntegrationUrlError("invalid_url", "A URL da integração é inválida.");
  }
  if (url.protocol !== "https:" && !(policy.allowHttp && url.protocol === "http:"))
    throw new IntegrationUrlError(
      "scheme",
      policy.allowHttp ? "A URL da integração deve ser http(s)." : "A URL da integração deve usar https://.",
    );
  if (url.username !== "" || url.password !== "")
    throw new IntegrationUrlError(
      "userinfo",
      "A URL da integração não pode conter usuário ou senha; as entregas são autenticadas pela assinatura X-PT-Signature.",
    );
  if (policy.allowPrivateNetworks) return;
  const literal = ipLiteralHost(url);
  if ((literal !== null && !classifyAddress(literal).allowed) || isLocalhostName(url.hostname))
    throw new IntegrationUrlError(
      "address_refused",
      `A URL da integração aponta para um endereço local, privado ou reservado (${url.hostname}); use um endereço público.`,
    );
}

/**
 * Create or update the account's integration for `url` (the panel's Integrations section). `deps.policy` says
 * what URLs are accepted: PRODUCTION_INTEGRATION_POLICY unless the deployment is a development one.
 */
export async function setIntegration(deps: { db: Db; policy: IntegrationPolicy }, input: IntegrationInput) {
  checkIntegrationUrl(input.url, deps.policy);
  const events = [...new Set(input.events)];
  const row = await deps.db.integration.upsert({
    where: { accountId_url: { accountId: input.accountId, url: input.url } },
    create: {
      accountId: input.accountId,
      url: input.url,
      events,
      signingSecret: newSigningSecret(),
      active: input.active ?? true,
    },
    update: { events, active: input.active ?? true },
  });
  return integrationView(row);
}

export async function rotateIntegrationSecret(deps: { db: Db }, input: { integrationId: string }) {
  const row = await deps.db.integration.update({
    where: { id: input.integrationId },
    data: { signingSecret: newSigningSecret() },
  });
  return integrationView(row);
}

export async function listIntegrations(deps: { db: Db }, input: { accountId: string }) {
  const rows = await deps.db.integration.findMany({
    where: { accountId: input.accountId },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(integrationView);
}
