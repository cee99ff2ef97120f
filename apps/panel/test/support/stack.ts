// The whole gateway in this test process, for the panel's browser tests: provider sandbox, API, dispatcher and
// panel on loopback ports, a signed-webhook receiver, and Debian's Chromium driven by Playwright.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildApiDeps, closeApiDeps, createApp, loadApiConfig, type ApiDeps } from "@gw/api";
import { addBusinessNumber, createAccount, createApiKey, createPanelUser, type PanelRole } from "@gw/core";
import { createDb, type Db } from "@gw/db";
import { createDispatcher, loadDispatcherConfig, type Dispatcher } from "@gw/dispatcher";
import { createRedis, type Redis } from "@gw/jobs";
import { startSandbox, type RunningSandbox } from "@gw/provider-sandbox";
import { REPO_ROOT, silentLogger, testEnv, testActor } from "@gw/testkit";
import { createPanelApp } from "../../src/app.ts";
import { loadPanelConfig } from "../../src/config.ts";
import { buildPanelDeps, closePanelDeps, type PanelDeps } from "../../src/container.ts";

export const APP_SECRET = "panel-test-app-secret";
export const ACCESS_TOKEN = "panel-test-access-token";
export const PASSWORD = "senha-de-teste-123";

export interface PanelStack {
  db: Db;
  redis: Redis;
  sandbox: RunningSandbox;
  apiUrl: string;
  panelUrl: string;
  api: ApiDeps;
  panel: PanelDeps;
  dispatcher: Dispatcher;
  browser: Browser;
  close(): Promise<void>;
}

function listen(app: {
  listen: (port: number, host: string, cb: () => void) => Server;
}): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * The stack on the test database, or on `databaseUrl` (a database of the test's own: the cost ledger's rollup, which
 * the dispatcher runs at start, is global).
 */
export async function startPanelStack(
  options: { panelEnv?: Record<string, string>; databaseUrl?: string } = {},
): Promise<PanelStack> {
  const env = { ...testEnv(), ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}) };
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath)
    throw new Error("CHROMIUM_PATH ausente: rode os testes com `npm test` (ele instala o Chromium).");
  const sandbox = await startSandbox({
    logger: silentLogger,
    appSecret: APP_SECRET,
    accessToken: ACCESS_TOKEN,
    statusDelaysMs: { sent: 20, delivered: 40, read: 60 },
  });
  const db = createDb({ url: env.databaseUrl, poolSize: 5 });
  const redis = createRedis(env.redisUrl);
  const api = buildApiDeps(
    loadApiConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      META_BASE_URL: sandbox.url,
      META_ACCESS_TOKEN: ACCESS_TOKEN,
      META_APP_SECRET: APP_SECRET,
      META_VERIFY_TOKEN: "panel-test-verify-token",
      META_TIMEOUT_MS: "2000",
      API_KEY_CACHE_TTL_MS: "5000",
    }),
    silentLogger,
    { db, redis },
  );
  const apiServer = await listen(createApp(api));
  await fetch(`${sandbox.url}/_sandbox/config`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ webhookUrl: `${apiServer.url}/provider/meta/webhook` }),
  });
  const panel = buildPanelDeps(
    loadPanelConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      META_BASE_URL: sandbox.url,
      META_ACCESS_TOKEN: ACCESS_TOKEN,
      PANEL_COOKIE_SECURE: "false",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: env.secretsKeys,
      ...options.panelEnv,
    }),
    silentLogger,
    { db, redis },
  );
  const panelServer = await listen(createPanelApp(panel));
  const dispatcher = createDispatcher(
    loadDispatcherConfig({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: env.redisPrefix,
      DISPATCHER_PORT: "0",
      WEBHOOK_RETRY_SCHEDULE_MS: "50,50,50,50,50,50",
      RECONCILE_INTERVAL_MS: "500",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      SECRETS_KEYS: env.secretsKeys,
    }),
    { logger: silentLogger },
  );
  await dispatcher.start();
  const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  return {
    db,
    redis,
    sandbox,
    apiUrl: apiServer.url,
    panelUrl: panelServer.url,
    api,
    panel,
    dispatcher,
    browser,
    async close() {
      await browser.close();
      await dispatcher.stop();
      await closeServer(panelServer.server);
      await closeServer(apiServer.server);
      await sandbox.close();
      await closePanelDeps(panel);
      await closeApiDeps(api);
    },
  };
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
  const account = await createAccount({ db }, { actor: testActor, name: `Padaria ${tag}` });
  const phoneNumberId = `1${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  const wabaId = `2${randomBytes(6).readUIntBE(0, 6).toString().padStart(14, "0").slice(0, 14)}`;
  await addBusinessNumber(
    { db },
    { actor: testActor, accountId: account.id, phoneNumberId, wabaId, displayNumber: "+55 11 4000-0000" },
  );
  const key = await createApiKey({ db }, { actor: testActor, accountId: account.id });
  const users = {} as Record<PanelRole, { id: string; email: string }>;
  for (const role of ["owner", "admin", "viewer"] as const) {
    const email = `${role}-${tag}@exemplo.com.br`;
    const user = await createPanelUser(
      { db },
      {
        accountId: account.id,
        email,
        name: `${role} ${tag}`,
        role,
        password: PASSWORD,
        actor: testActor,
      },
    );
    users[role] = { id: user.id, email };
  }
  return { accountId: account.id, phoneNumberId, wabaId, apiKey: key.key, users };
}

/** A new browser context (own cookies) signed in as `email`. */
export async function signIn(stack: PanelStack, email: string, password = PASSWORD): Promise<Page> {
  const context = await stack.browser.newContext({
    baseURL: stack.panelUrl,
    viewport: { width: 1280, height: 900 },
    locale: "pt-BR",
    timezoneId: "America/Sao_Paulo",
  });
  const page = await context.newPage();
  await page.goto("/entrar");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Senha").fill(password);
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/entrar"));
  return page;
}

/**
 * With PANEL_SCREENSHOTS=1 (see docs/panel.md), the page as shown is saved under docs/panel/ for the documentation.
 * Otherwise nothing is written, so test runs leave the checkout clean.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.PANEL_SCREENSHOTS !== "1") return;
  const dir = join(REPO_ROOT, "docs", "panel");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** The text of the first element `locator` matches, once it is visible (Playwright's auto-wait, jest's expect). */
export async function textOf(locator: import("playwright-core").Locator): Promise<string> {
  await locator.first().waitFor({ state: "visible", timeout: 15_000 });
  return ((await locator.first().textContent()) ?? "").replace(/\s+/g, " ").trim();
}
