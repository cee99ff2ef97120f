// What a test needs in the database before it starts: an account with a business number and a key, a panel user
// per role, and an integration (its scheme, its secret and, once rotated, its previous secret), through the same
// services the API and the panel use.
import { randomBytes } from "node:crypto";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  addBusinessNumber,
  createAccount,
  createApiKey,
  rotateIntegrationSecret,
  setIntegration,
  type WebhookEvent,
} from "@gw/core/accounts";
import { createPanelUser, type PanelRole } from "@gw/core/users";
import { createDb, type Db } from "@gw/db";
import { testActor, testSecretBox } from "@gw/testkit";

export const PASSWORD = "senha-de-teste-123";

/** A 15-digit id starting with `first` (phone number ids and WABA ids are unique across accounts). */
export function randomMetaId(first: "1" | "2"): string {
  return `${first}${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
}

export interface SeededIntegration {
  integrationId: string;
  /** The secret the gateway signs with now, as shown to the integrator (`whsec_…` for standard-webhooks). */
  secret: string;
  /** The replaced secret, still signed with during the overlap (when `rotate` was asked). */
  previousSecret: string | null;
}

/**
 * An integration of `accountId` on a loopback receiver (the development policy), with `scheme` (the default `pt`
 * when absent), `payloadVersion` (1 when absent) and, with `rotate`, its secret rotated once with that many hours of
 * overlap.
 */
export async function seedIntegration(
  db: Db,
  input: {
    accountId: string;
    url: string;
    events?: WebhookEvent[];
    scheme?: "pt" | "standard-webhooks";
    /** The `message.received` body version (1, the default, or 2). */
    payloadVersion?: 1 | 2;
    rotate?: { overlapHours: number };
  },
): Promise<SeededIntegration> {
  const secrets = testSecretBox();
  const saved = await setIntegration(
    { db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets },
    {
      actor: testActor,
      accountId: input.accountId,
      url: input.url,
      events: input.events ?? ["message.status", "message.received"],
      ...(input.scheme === undefined ? {} : { signatureScheme: input.scheme }),
      // 1 unless asked: the suites assert the contract's version-1 bodies through seeded integrations, while core
      // gives a new integration 2.
      payloadVersion: input.payloadVersion ?? 1,
    },
  );
  if (!input.rotate) return { integrationId: saved.id, secret: saved.signing_secret, previousSecret: null };
  const rotated = await rotateIntegrationSecret(
    { db, secrets },
    { actor: testActor, integrationId: saved.id, overlapHours: input.rotate.overlapHours },
  );
  if (!rotated) throw new Error("rotateIntegrationSecret não achou a integração recém-criada");
  return { integrationId: saved.id, secret: rotated.signing_secret, previousSecret: saved.signing_secret };
}

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
  phoneNumberId: string;
  wabaId: string;
  auth: { Authorization: string };
  /** Set when the account was given an integration. */
  signingSecret: string | null;
}

/**
 * A fresh account with one business number and a key and, with `integrationUrl`, an integration for `events`
 * (message.status and message.received unless said).
 */
export async function createTestAccount(
  db: Db,
  options: { integrationUrl?: string; events?: WebhookEvent[]; name?: string; displayNumber?: string } = {},
): Promise<TestAccount> {
  const account = await createAccount(
    { db },
    { actor: testActor, name: options.name ?? `test-${randomBytes(3).toString("hex")}` },
  );
  const phoneNumberId = randomMetaId("1");
  const wabaId = randomMetaId("2");
  await addBusinessNumber(
    { db },
    {
      actor: testActor,
      accountId: account.id,
      phoneNumberId,
      wabaId,
      displayNumber: options.displayNumber ?? "+55 11 4000-0000",
    },
  );
  const key = await createApiKey({ db }, { actor: testActor, accountId: account.id });
  const integration = options.integrationUrl
    ? await seedIntegration(db, {
        accountId: account.id,
        url: options.integrationUrl,
        ...(options.events ? { events: options.events } : {}),
      })
    : null;
  return {
    accountId: account.id,
    apiKey: key.key,
    keyId: key.id,
    phoneNumberId,
    wabaId,
    auth: { Authorization: `Bearer ${key.key}` },
    signingSecret: integration?.secret ?? null,
  };
}

export interface ProcessAccount {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  auth: { authorization: string };
  /** Set when the account has an integration. */
  signingSecret: string | null;
}

/**
 * What `npm start` seeds for its demo (scripts/demo-seed.ts), in the database at `databaseUrl` (the one the test's
 * processes use): an account, one business number, an API key and, with `integrationUrl`, an integration for
 * `message.status`.
 */
export async function seedAccount(
  databaseUrl: string,
  options: { integrationUrl?: string } = {},
): Promise<ProcessAccount> {
  const db = createDb({ url: databaseUrl, poolSize: 1 });
  try {
    const account = await createTestAccount(db, {
      name: `Conta de falhas ${randomBytes(3).toString("hex")}`,
      displayNumber: "+55 11 4000-0002",
      ...(options.integrationUrl ? { integrationUrl: options.integrationUrl, events: ["message.status"] } : {}),
    });
    return {
      accountId: account.accountId,
      phoneNumberId: account.phoneNumberId,
      wabaId: account.wabaId,
      auth: { authorization: account.auth.Authorization },
      signingSecret: account.signingSecret,
    };
  } finally {
    await db.$disconnect();
  }
}

export interface TestTenant {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  apiKey: string;
  /** One user per role, all with PASSWORD. */
  users: Record<PanelRole, { id: string; email: string }>;
}

/** A fresh account with a business number, a key and one panel user per role. */
export async function createTenant(db: Db): Promise<TestTenant> {
  const tag = randomBytes(3).toString("hex");
  const account = await createTestAccount(db, { name: `Padaria ${tag}` });
  const users = {} as Record<PanelRole, { id: string; email: string }>;
  for (const role of ["owner", "admin", "viewer"] as const) {
    const email = `${role}-${tag}@exemplo.com.br`;
    const user = await createPanelUser(
      { db },
      { accountId: account.accountId, email, name: `${role} ${tag}`, role, password: PASSWORD, actor: testActor },
    );
    users[role] = { id: user.id, email };
  }
  return {
    accountId: account.accountId,
    phoneNumberId: account.phoneNumberId,
    wabaId: account.wabaId,
    apiKey: account.apiKey,
    users,
  };
}
