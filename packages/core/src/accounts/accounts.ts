import { randomBytes, randomUUID } from "node:crypto";
import { PAYLOAD_VERSIONS, WEBHOOK_EVENT_NAMES, type PayloadVersion, type WebhookEventName } from "@gw/contracts";
import { Prisma, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { AttemptToQueue, WebhookQueue } from "@gw/jobs";
import type { Logger } from "@gw/logger";
import { displayedSigningSecret, isSignatureScheme, type SecretBox, type SignatureScheme } from "@gw/signer";
import { auditAction, recordAudit, recordAuditAs, type Actor, type AuditExecutor } from "../audit/audit.ts";
import { openCurrentSigningSecret, sealIntegrationSecret } from "../deliveries/attempt/integration-secrets.ts";
import { classifyAddress, ipLiteralHost, isLocalhostName } from "@gw/webhook-sender";
import { queueReleasedDeliveries, releaseAllHeldDeliveries } from "../deliveries/attempt/ordering.ts";

/** The events an integration may select (all but the two message events are opt-in). */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_NAMES;
export type WebhookEvent = WebhookEventName;
/** What a new integration's form selects at first: the message events; account health only when asked for. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ["message.status", "message.received"];

/**
 * Which `message.received` body an integration gets (issue 27): 1, the contract's (the default, today's bytes); 2,
 * with the option tapped, location, contact cards, reaction, ad referral, forwarded flags and the media's checksum
 * and voice flag (docs/webhooks.md, "Payload version 2").
 */
export { PAYLOAD_VERSIONS, type PayloadVersion };

export function isPayloadVersion(value: unknown): value is PayloadVersion {
  return (PAYLOAD_VERSIONS as readonly unknown[]).includes(value);
}

export async function createAccount(deps: { db: Db }, input: { name: string; actor: Actor }) {
  const row = await deps.db.$transaction(async (tx) => {
    const created = await tx.account.create({ data: { name: input.name } });
    await recordAudit(tx, {
      accountId: created.id,
      actor: input.actor,
      action: auditAction(input.actor, "account.created"),
      target: `account:${created.id}`,
      details: { name: created.name },
    });
    return created;
  });
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString() };
}

export interface NumberInput {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  displayNumber: string;
  /** The account's first number becomes the default unless said otherwise. */
  makeDefault?: boolean;
  actor: Actor;
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
    await recordAuditAs(tx, input, "number.added", {
      target: `number:${row.phoneNumberId}`,
      details: { waba_id: row.wabaId, display_number: row.displayNumber, is_default: row.isDefault },
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IntegrationInput {
  accountId: string;
  url: string;
  events: WebhookEvent[];
  /** Absent: a new integration is active, an edited one (`integrationId`) keeps its state; by URL it is activated. */
  active?: boolean;
  /**
   * Edit this integration (its URL included) instead of creating or updating the one registered for `url`. An id
   * of another account, or no such id, is `not_found`.
   */
  integrationId?: string;
  /**
   * Ordered delivery per message (and per contact's inbound messages). Absent: a new integration delivers unordered,
   * an existing one keeps its setting. Switching it off releases the deliveries it held (deliveries/attempt/ordering.ts).
   */
  deliverInOrder?: boolean;
  /**
   * How its webhooks are signed (issue 21). Absent: a new integration gets `pt` (X-PT-Signature, the contract's),
   * an existing one keeps its scheme.
   */
  signatureScheme?: SignatureScheme;
  /**
   * Only create (the public API's POST): a URL the account already has is refused (`url_taken`) instead of updated,
   * so a creation never shows the secret of an integration that exists.
   */
  onlyNew?: boolean;
  /**
   * The `message.received` body version. Absent: a new integration gets 2 (issue 38: whichever edge makes it), an
   * existing one keeps its own.
   */
  payloadVersion?: PayloadVersion;
  /**
   * Run in the transaction that saves a new or updated integration (not an edit by id), before it commits: what must
   * commit with the row or not at all (the public API's Idempotency-Key answer, integration-creation.ts).
   */
  withinTransaction?: (tx: Prisma.TransactionClient, saved: IntegrationView) => Promise<void>;
  actor: Actor;
}

/**
 * Integrations an account may have unless the deployment says otherwise (MAX_INTEGRATIONS_PER_ACCOUNT): an inbound
 * message fans out to one delivery per integration inside the provider webhook's transaction.
 */
export const DEFAULT_MAX_INTEGRATIONS_PER_ACCOUNT = 10;

interface IntegrationRow {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  active: boolean;
  signatureScheme: string;
  disabledAt: Date | null;
  disabledReason: string | null;
  deliverInOrder: boolean;
  payloadVersion: number;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The row's scheme (a SQL CHECK keeps it to the known ones). */
function schemeOf(row: { signatureScheme: string }): SignatureScheme {
  return isSignatureScheme(row.signatureScheme) ? row.signatureScheme : "pt";
}

/** The row's payload version (a SQL CHECK keeps it to the known ones). */
function payloadVersionOf(row: { payloadVersion: number }): PayloadVersion {
  return isPayloadVersion(row.payloadVersion) ? row.payloadVersion : 1;
}

/** An integration without its secrets: what lists and pages show. */
function integrationSummary(row: IntegrationRow) {
  return {
    id: row.id,
    account_id: row.accountId,
    url: row.url,
    events: row.events,
    active: row.active,
    /** `pt` (X-PT-Signature) or `standard-webhooks` (webhook-id, webhook-timestamp, webhook-signature). */
    signature_scheme: schemeOf(row),
    /** Set when endpoint health disabled it (deliveries/admin/endpoint-health.ts): its deliveries wait for a re-enable. */
    disabled_at: row.disabledAt?.toISOString() ?? null,
    disabled_reason: row.disabledReason,
    /** The events of one message (and one contact's inbound messages) reach the endpoint in order. */
    deliver_in_order: row.deliverInOrder,
    /** The `message.received` body it gets: 1 (the contract's) or 2 (with the members of issue 27). */
    payload_version: payloadVersionOf(row),
    /** Until then deliveries also carry X-PT-Signature-Previous (a rotation's overlap); null when none. */
    previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type IntegrationSummary = ReturnType<typeof integrationSummary>;

/**
 * With the signing secret: only what creates or rotates it (the CLI prints it) and the panel's reveal. It is shown
 * in the form the integration's scheme verifies with: as stored for `pt`, `whsec_<base64>` of the same key for the
 * Standard Webhooks libraries.
 */
function integrationView(row: IntegrationRow, signingSecret: string) {
  return { ...integrationSummary(row), signing_secret: displayedSigningSecret(schemeOf(row), signingSecret) };
}

type IntegrationView = ReturnType<typeof integrationView>;

/** The stored row's current secret, opened (sealed) or as stored before encryption (clear). */
function currentSecretOf(
  secrets: Pick<SecretBox, "open">,
  row: { id: string; signingSecret: string | null; signingSecretEncrypted: string | null },
): string {
  return openCurrentSigningSecret(secrets, row.id, { sealed: row.signingSecretEncrypted, clear: row.signingSecret });
}

/**
 * What integration URLs may be registered. Production: https only, public hosts only. Development
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS, for npm start and the tests): http and loopback/private hosts too, never a
 * link-local or cloud metadata address. The dispatcher checks the resolved addresses again at every attempt; this
 * refuses what the URL alone shows.
 */
export interface IntegrationPolicy {
  /** Plain http:// URLs. */
  allowHttp: boolean;
  /** Hosts that are loopback, private, ULA or CGNAT IP literals, and `localhost` names (never link-local). */
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
    readonly reason: "invalid_url" | "scheme" | "userinfo" | "address_refused" | "url_taken",
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
  const literal = ipLiteralHost(url);
  if (policy.allowPrivateNetworks) {
    if (literal !== null && !classifyAddress(literal, { allowPrivateNetworks: true }).allowed)
      throw new IntegrationUrlError(
        "address_refused",
        `A URL da integração aponta para um endereço que o gateway nunca chama, nem em desenvolvimento (${url.hostname}: link-local, metadados de nuvem ou reservado); use um endereço público, local ou privado.`,
      );
    return;
  }
  if ((literal !== null && !classifyAddress(literal).allowed) || isLocalhostName(url.hostname))
    throw new IntegrationUrlError(
      "address_refused",
      `A URL da integração aponta para um endereço local, privado ou reservado (${url.hostname}); use um endereço público.`,
    );
}

const integrationNotFound = () =>
  new ApiError("not_found", { message: "A integração não foi encontrada nesta conta." });

/**
 * Create or update the account's integration for `url` (the CLI, the panel's Integrations section), or edit the
 * integration `integrationId` of the account (the panel's edit form, URL included). `deps.policy` says what URLs
 * are accepted: PRODUCTION_INTEGRATION_POLICY unless the deployment is a development one. The signing secret is
 * drawn once, at creation, and stored sealed with `deps.secrets` (bound to the row); editing never changes it.
 */
export async function setIntegration(
  deps: {
    db: Db;
    policy: IntegrationPolicy;
    secrets: SecretBox;
    /** Where deliveries released by switching ordering off are queued; absent (the CLI): the sweep queues them. */
    queue?: WebhookQueue;
    logger?: Logger;
    /** The most integrations an account may have (DEFAULT_MAX_INTEGRATIONS_PER_ACCOUNT unless given). */
    maxIntegrationsPerAccount?: number;
  },
  input: IntegrationInput,
) {
  checkIntegrationUrl(input.url, deps.policy);
  const events = [...new Set(input.events)];
  const { integrationId } = input;
  if (integrationId !== undefined) return updateIntegration(deps, { ...input, integrationId });
  // The id is drawn here: the sealed secret is bound to its row.
  const id = randomUUID();
  let released: AttemptToQueue[] = [];
  const saved = await deps.db.$transaction(async (tx) => {
    // The account's creations one at a time, so two cannot both take its last place. NO KEY UPDATE: the foreign-key
    // checks of rows written for the account meanwhile (KEY SHARE) do not wait for it.
    await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${input.accountId}::uuid FOR NO KEY UPDATE`;
    const before = await tx.integration.findUnique({
      where: { accountId_url: { accountId: input.accountId, url: input.url } },
      select: { deliverInOrder: true },
    });
    if (before === null)
      await refuseBeyondCap(
        tx,
        input.accountId,
        deps.maxIntegrationsPerAccount ?? DEFAULT_MAX_INTEGRATIONS_PER_ACCOUNT,
      );
    const row = await tx.integration.upsert({
      where: { accountId_url: { accountId: input.accountId, url: input.url } },
      create: {
        id,
        accountId: input.accountId,
        url: input.url,
        events,
        signingSecretEncrypted: sealIntegrationSecret(deps.secrets, id, "signing_secret", newSigningSecret()),
        active: input.active ?? true,
        deliverInOrder: input.deliverInOrder ?? false,
        signatureScheme: input.signatureScheme ?? "pt",
        payloadVersion: input.payloadVersion ?? 2,
      },
      update: {
        events,
        active: input.active ?? true,
        ...givenSettings(input),
      },
    });
    // The upsert found the URL's row (another id): rolled back with this throw, a concurrent creation included.
    if (input.onlyNew === true && row.id !== id)
      throw new IntegrationUrlError("url_taken", "Esta conta já tem uma integração com esta URL.");
    if (before?.deliverInOrder === true && !row.deliverInOrder)
      released = await releaseAllHeldDeliveries(tx, { integrationId: row.id, now: new Date() });
    await auditIntegrationSaved(tx, input, "integration.saved", row);
    const view = integrationView(row, currentSecretOf(deps.secrets, row));
    if (input.withinTransaction) await input.withinTransaction(tx, view);
    return view;
  });
  await queueReleasedDeliveries(deps, released);
  return saved;
}

/** A new integration of an account that has `max` already: 422 `integration_limit_reached` (under the account's lock). */
async function refuseBeyondCap(tx: Prisma.TransactionClient, accountId: string, max: number): Promise<void> {
  const count = await tx.integration.count({ where: { accountId } });
  if (count >= max)
    throw new ApiError("integration_limit_reached", {
      message: `Esta conta já tem o máximo de ${max} integrações; exclua uma (ou junte eventos numa só) antes de criar outra.`,
    });
}

/** The optional settings of a save or an edit, only those given: a setting left out keeps the row's. */
function givenSettings(input: {
  deliverInOrder?: boolean;
  signatureScheme?: SignatureScheme;
  payloadVersion?: PayloadVersion;
}) {
  return {
    ...(input.deliverInOrder === undefined ? {} : { deliverInOrder: input.deliverInOrder }),
    ...(input.signatureScheme === undefined ? {} : { signatureScheme: input.signatureScheme }),
    ...(input.payloadVersion === undefined ? {} : { payloadVersion: input.payloadVersion }),
  };
}

/** The audit of an integration saved or edited: its settings as the row now has them, and what `extra` adds. */
function auditIntegrationSaved(
  tx: AuditExecutor,
  input: { accountId: string; actor: Actor },
  name: string,
  row: {
    id: string;
    url: string;
    events: string[];
    deliverInOrder: boolean;
    signatureScheme: string;
    payloadVersion: number;
  },
  extra: Prisma.InputJsonObject = {},
): Promise<void> {
  return recordAuditAs(tx, input, name, {
    target: `integration:${row.id}`,
    details: {
      url: row.url,
      events: row.events,
      deliver_in_order: row.deliverInOrder,
      signature_scheme: row.signatureScheme,
      payload_version: row.payloadVersion,
      ...extra,
    },
  });
}

/** An edit of one integration of the account: only the fields given change (the public API's PATCH, the panel's form). */
interface IntegrationEdit {
  accountId: string;
  integrationId: string;
  url?: string;
  events?: WebhookEvent[];
  active?: boolean;
  deliverInOrder?: boolean;
  signatureScheme?: SignatureScheme;
  payloadVersion?: PayloadVersion;
  actor: Actor;
}

const isWebhookEvent = (event: string): event is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(event);

/**
 * Edit the integration `integrationId` of the account (URL included); a field not given keeps the value of the row
 * as locked here, so a concurrent edit of another field is never undone. The URL (given or kept) is checked against
 * `deps.policy`, as at registration. `not_found` when it is not the account's; `url_taken` when the account has the
 * URL on another integration.
 */
export async function updateIntegration(
  deps: { db: Db; policy: IntegrationPolicy; secrets: SecretBox; queue?: WebhookQueue; logger?: Logger },
  input: IntegrationEdit,
) {
  const { integrationId } = input;
  if (!UUID.test(integrationId)) throw integrationNotFound();
  try {
    let released: AttemptToQueue[] = [];
    const saved = await deps.db.$transaction(async (tx) => {
      // Locked: a concurrent edit or delete (delete-integration.ts) waits for this one or is waited for; after a
      // delete the row is not found (404) rather than missing from the update below, and the fields not given are
      // read after any edit committed before.
      const [before] = await tx.$queryRaw<{ url: string; events: string[]; deliverInOrder: boolean }[]>`
        SELECT url, events, deliver_in_order AS "deliverInOrder" FROM integrations
        WHERE id = ${integrationId}::uuid AND account_id = ${input.accountId}::uuid
        FOR UPDATE`;
      if (!before) throw integrationNotFound();
      const url = input.url ?? before.url;
      checkIntegrationUrl(url, deps.policy);
      const events = [...new Set(input.events ?? before.events.filter(isWebhookEvent))];
      const row = await tx.integration.update({
        where: { id: integrationId },
        data: {
          url,
          events,
          ...(input.active === undefined ? {} : { active: input.active }),
          ...givenSettings(input),
        },
      });
      if (before.deliverInOrder && !row.deliverInOrder)
        released = await releaseAllHeldDeliveries(tx, { integrationId: row.id, now: new Date() });
      await auditIntegrationSaved(tx, input, "integration.updated", row, { previous_url: before.url });
      return integrationView(row, currentSecretOf(deps.secrets, row));
    });
    await queueReleasedDeliveries(deps, released);
    return saved;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new IntegrationUrlError("url_taken", "Esta conta já tem uma integração com esta URL.");
    throw error;
  }
}

interface LockedSecrets {
  signing_secret: string | null;
  signing_secret_encrypted: string | null;
}

/**
 * A new signing secret for the integration. For `overlapHours` after the rotation deliveries are signed with the
 * new secret (X-PT-Signature) AND the one it replaces (X-PT-Signature-Previous), so a receiver still holding the
 * old secret verifies the retries already in flight; 0 ends the old secret at once (a leaked secret). A rotation
 * during another's overlap ends that overlap: only the secret just replaced stays valid. Both are stored sealed
 * (the replaced one re-sealed for its new column). Null when the integration does not exist (in `accountId`, when
 * given). A replaced secret that cannot be opened (SecretUnreadableError) refuses an overlap; without one the
 * rotation needs nothing old, so it is also how an unreadable secret is replaced.
 */
export async function rotateIntegrationSecret(
  deps: { db: Db; secrets: SecretBox },
  input: { integrationId: string; accountId?: string; overlapHours: number; now?: Date; actor: Actor },
) {
  if (!UUID.test(input.integrationId) || (input.accountId !== undefined && !UUID.test(input.accountId))) return null;
  if (!(input.overlapHours >= 0)) throw new RangeError("overlapHours must be a number >= 0");
  const now = input.now ?? new Date();
  const expiresAt = input.overlapHours > 0 ? new Date(now.getTime() + input.overlapHours * 3_600_000) : null;
  const integrationId = input.integrationId;
  const newSecret = newSigningSecret();
  const row = await deps.db.$transaction(async (tx) => {
    // Locked: the secret kept as previous is exactly the one this rotation replaces.
    const [locked] = await tx.$queryRaw<LockedSecrets[]>`
      SELECT signing_secret, signing_secret_encrypted FROM integrations
      WHERE id = ${integrationId}::uuid
        AND (${input.accountId ?? null}::uuid IS NULL OR account_id = ${input.accountId ?? null}::uuid)
      FOR UPDATE`;
    if (!locked) return null;
    const replaced =
      expiresAt === null
        ? null
        : openCurrentSigningSecret(deps.secrets, integrationId, {
            sealed: locked.signing_secret_encrypted,
            clear: locked.signing_secret,
          });
    const rotated = await tx.integration.update({
      where: { id: integrationId },
      data: {
        signingSecret: null,
        signingSecretEncrypted: sealIntegrationSecret(deps.secrets, integrationId, "signing_secret", newSecret),
        previousSigningSecret: null,
        previousSigningSecretEncrypted:
          replaced === null
            ? null
            : sealIntegrationSecret(deps.secrets, integrationId, "previous_signing_secret", replaced),
        previousSecretExpiresAt: expiresAt,
        updatedAt: now,
      },
    });
    await recordAudit(tx, {
      accountId: rotated.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "integration.secret_rotated"),
      target: `integration:${rotated.id}`,
      details: {
        overlap_hours: input.overlapHours,
        previous_secret_expires_at: rotated.previousSecretExpiresAt?.toISOString() ?? null,
      },
    });
    return rotated;
  });
  return row ? integrationView(row, newSecret) : null;
}

const SUMMARY_FIELDS = {
  id: true,
  accountId: true,
  url: true,
  events: true,
  active: true,
  signatureScheme: true,
  disabledAt: true,
  disabledReason: true,
  previousSecretExpiresAt: true,
  deliverInOrder: true,
  payloadVersion: true,
  createdAt: true,
  updatedAt: true,
} as const;

/**
 * The account's integrations, oldest first, without their secrets; keyset paged: `cursor` is the previous page's
 * `next_cursor`. `active` keeps only the active (true) or paused (false) ones.
 */
export async function listIntegrations(
  deps: { db: Db },
  input: { accountId: string; active?: boolean | undefined; limit?: number; cursor?: string | undefined },
) {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const after = parseIntegrationCursor(input.cursor);
  const rows = await deps.db.integration.findMany({
    where: {
      accountId: input.accountId,
      ...(input.active === undefined ? {} : { active: input.active }),
      ...(after
        ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] }
        : {}),
    },
    select: SUMMARY_FIELDS,
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    // One more than asked tells whether another page exists.
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    integrations: page.map(integrationSummary),
    next_cursor: rows.length > limit && last ? `${last.createdAt.toISOString()}_${last.id}` : null,
  };
}

function parseIntegrationCursor(cursor: string | undefined): { createdAt: Date; id: string } | null {
  const match = cursor ? /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)_([0-9a-f-]{36})$/i.exec(cursor) : null;
  if (!match?.[1] || !match[2] || !UUID.test(match[2])) return null;
  const createdAt = new Date(match[1]);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id: match[2] };
}

/** One integration of the account, without its secrets; null when it is not the account's. */
export async function getIntegration(deps: { db: Db }, input: { accountId: string; integrationId: string }) {
  if (!UUID.test(input.integrationId)) return null;
  const row = await deps.db.integration.findFirst({
    where: { id: input.integrationId, accountId: input.accountId },
    select: SUMMARY_FIELDS,
  });
  return row ? integrationSummary(row) : null;
}

/**
 * The integration with its current signing secret, opened from its sealed form, for the panel's reveal (after the
 * user confirmed the password); audited as `<origin>.integration.secret_revealed`. Null when it is not the
 * account's; SecretUnreadableError (nothing revealed, nothing audited) when the stored value cannot be opened.
 */
export async function revealIntegrationSecret(
  deps: { db: Db; secrets: SecretBox },
  input: { accountId: string; integrationId: string; actor: Actor },
) {
  if (!UUID.test(input.integrationId)) return null;
  return deps.db.$transaction(async (tx) => {
    const row = await tx.integration.findFirst({ where: { id: input.integrationId, accountId: input.accountId } });
    if (!row) return null;
    const secret = currentSecretOf(deps.secrets, row);
    await recordAuditAs(tx, input, "integration.secret_revealed", {
      target: `integration:${row.id}`,
    });
    return integrationView(row, secret);
  });
}

/**
 * Pause (false) or resume (true) an integration. Paused, new events create no deliveries for it (the outbox
 * selects active integrations only) and a delivery already queued fails without a request
 * (`integration_inactive`), to be resent once resumed. Null when it is not the account's.
 */
export async function setIntegrationActive(
  deps: { db: Db },
  input: { accountId: string; integrationId: string; active: boolean; actor: Actor },
) {
  if (!UUID.test(input.integrationId)) return null;
  const changed = await deps.db.$transaction(async (tx) => {
    const { count } = await tx.integration.updateMany({
      where: { id: input.integrationId, accountId: input.accountId },
      data: { active: input.active },
    });
    if (count === 0) return false;
    await recordAudit(tx, {
      accountId: input.accountId,
      actor: input.actor,
      action: auditAction(input.actor, input.active ? "integration.resumed" : "integration.paused"),
      target: `integration:${input.integrationId}`,
    });
    return true;
  });
  return changed ? getIntegration(deps, input) : null;
}
