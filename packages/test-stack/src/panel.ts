// The whole gateway in this test process for the panel's browser tests: provider sandbox, API, dispatcher and panel
// on loopback ports (startStack), and a connection to this worker's Chromium.
import type { Browser } from "playwright-core";
import type { ApiDeps } from "@gw/api";
import type { Db } from "@gw/db";
import type { Dispatcher } from "@gw/dispatcher";
import type { Redis } from "@gw/jobs";
import type { PanelDeps } from "@gw/panel";
import type { RunningSandbox } from "@gw/provider-sandbox";
import { sharedBrowser } from "./browser.ts";
import { startStack } from "./stack.ts";

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

/**
 * The stack on the test database, or on `databaseUrl` (a database of the test's own: the cost ledger's rollup, which
 * the dispatcher runs at start, is global).
 */
export async function startPanelStack(
  options: { panelEnv?: Record<string, string>; databaseUrl?: string } = {},
): Promise<PanelStack> {
  const stack = await startStack({
    db: options.databaseUrl ? { url: options.databaseUrl } : "shared",
    sandbox: true,
    api: { env: { META_VERIFY_TOKEN: "panel-test-verify-token", API_KEY_CACHE_TTL_MS: "5000" } },
    panel: { env: options.panelEnv ?? {} },
    dispatcher: true,
  });
  if (!stack.sandbox || !stack.api || !stack.panel || !stack.dispatcher) throw new Error("startStack incompleto");
  const browser = await sharedBrowser().catch(async (error: unknown) => {
    await stack.close();
    throw error;
  });
  return {
    db: stack.db,
    redis: stack.redis,
    sandbox: stack.sandbox,
    apiUrl: stack.api.url,
    panelUrl: stack.panel.url,
    api: stack.api.deps,
    panel: stack.panel.deps,
    dispatcher: stack.dispatcher,
    browser,
    async close() {
      await browser.close();
      await stack.close();
    },
  };
}
