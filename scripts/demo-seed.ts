// Creates (once) the demo account used by `npm start` and prints shell assignments for it.
// The key and signing secret are kept in .data/demo.json (git-ignored) so later runs can print them again.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, sections, z } from "@gw/config";
import { createDb } from "@gw/db";
import {
  DEVELOPMENT_INTEGRATION_POLICY,
  addBusinessNumber,
  createAccount,
  createApiKey,
  createSecretBox,
  setIntegration,
} from "@gw/core/accounts";
import type { Actor } from "@gw/core/audit";
import { createPanelUser } from "@gw/core/users";
import { randomBytes } from "node:crypto";

/** `npm start`'s seeding, as the audit trail names it. */
const DEMO_SEED: Actor = { id: "system:demo-seed", origin: "system" };

interface DemoState {
  accountId: string;
  apiKey: string;
  phoneNumberId: string;
  signingSecret: string;
  /** The demo owner of the web panel (added later: older .data/demo.json files lack it). */
  panelEmail?: string;
  panelPassword?: string;
}

const file = join(import.meta.dirname, "..", ".data", "demo.json");
// Read first: without it nothing is created (npm start keeps the ring in .data/secrets-keys).
const secrets = createSecretBox(loadConfig(z.object(sections.secrets())).SECRETS_KEYS);
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL ausente");
const receiverUrl = `http://127.0.0.1:${process.env.DEMO_RECEIVER_PORT ?? "8099"}/webhooks`;
const db = createDb({ url: databaseUrl, poolSize: 1 });

async function load(): Promise<DemoState | null> {
  if (!existsSync(file)) return null;
  const state = JSON.parse(readFileSync(file, "utf8")) as DemoState;
  // A recreated database invalidates the saved state.
  return (await db.account.findUnique({ where: { id: state.accountId } })) ? state : null;
}

let state = await load();
if (!state) {
  const account = await createAccount({ db }, { actor: DEMO_SEED, name: "Conta demo (sandbox)" });
  const phoneNumberId = "100000000000001";
  await db.businessNumber.deleteMany({ where: { phoneNumberId } });
  await addBusinessNumber(
    { db },
    {
      actor: DEMO_SEED,
      accountId: account.id,
      phoneNumberId,
      wabaId: "200000000000001",
      displayNumber: "+55 11 4000-0001",
    },
  );
  const key = await createApiKey({ db }, { actor: DEMO_SEED, accountId: account.id });
  // The demo receiver listens on loopback: only a development policy accepts it (npm start is one).
  const integration = await setIntegration(
    // Sealed with npm start's key ring, as the panel would.
    { db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets },
    {
      actor: DEMO_SEED,
      accountId: account.id,
      url: receiverUrl,
      events: ["message.status", "message.received"],
      // As the API gives a new integration (issue 38): a tap on a list row or button arrives with its id.
      payloadVersion: 2,
    },
  );
  state = { accountId: account.id, apiKey: key.key, phoneNumberId, signingSecret: integration.signing_secret };
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}
if (!state.panelEmail || !state.panelPassword) {
  const panelEmail = "dona@demo.exemplo.com.br";
  const panelPassword = randomBytes(9).toString("base64url");
  await db.panelUser.deleteMany({ where: { email: panelEmail } });
  await createPanelUser(
    { db },
    {
      accountId: state.accountId,
      email: panelEmail,
      name: "Dona da conta demo",
      role: "owner",
      password: panelPassword,
      actor: DEMO_SEED,
    },
  );
  state = { ...state, panelEmail, panelPassword };
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}
await db.$disconnect();

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
process.stdout.write(
  [
    `DEMO_ACCOUNT_ID=${quote(state.accountId)}`,
    `DEMO_API_KEY=${quote(state.apiKey)}`,
    `DEMO_PHONE_NUMBER_ID=${quote(state.phoneNumberId)}`,
    `DEMO_SIGNING_SECRET=${quote(state.signingSecret)}`,
    `DEMO_PANEL_EMAIL=${quote(state.panelEmail ?? "")}`,
    `DEMO_PANEL_PASSWORD=${quote(state.panelPassword ?? "")}`,
  ].join("\n") + "\n",
);
