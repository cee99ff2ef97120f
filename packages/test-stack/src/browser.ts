// Debian's Chromium for the panel's browser tests, one per jest worker: the first browser file of a worker starts
// it (chromium-server.mjs, a process that outlives the file and ends with the worker), the next files of that
// worker connect to it again. Each file gets its own connection, whose contexts (one per sign-in) close with it.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Browser, Download, Locator, Page } from "playwright-core";
import { REPO_ROOT } from "@gw/testkit";
import { PASSWORD } from "./seed.ts";

const endpointFile = () => join(tmpdir(), `gw-chromium-${process.pid}.json`);

async function launchServer(file: string): Promise<string> {
  const executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath)
    throw new Error("CHROMIUM_PATH ausente: rode os testes com `npm test` (ele instala o Chromium).");
  const server = join(REPO_ROOT, "packages/test-stack/src/chromium-server.mjs");
  const child = spawn(process.execPath, [server, file, String(process.pid), executablePath], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`o Chromium não iniciou (código ${code})`)));
    });
    return endpoint;
  } finally {
    lines.close();
    child.stdout.destroy();
    child.unref();
  }
}

/** A connection to this worker's Chromium, started on first use; `close()` it at the end of the file. */
export async function sharedBrowser(): Promise<Browser> {
  // Loaded here, not with the module: most test files that import the stack drive no browser.
  const { chromium } = await import("playwright-core");
  const file = endpointFile();
  if (existsSync(file)) {
    const { wsEndpoint } = JSON.parse(readFileSync(file, "utf8")) as { wsEndpoint: string };
    try {
      return await chromium.connect(wsEndpoint, { timeout: 10_000 });
    } catch {
      // The server is gone (killed by hand): start another.
    }
  }
  return chromium.connect(await launchServer(file), { timeout: 30_000 });
}

/** A new browser context (own cookies) on `baseURL`, signed in as `email`. */
export async function signIn(
  stack: { browser: Browser; panelUrl: string },
  email: string,
  password = PASSWORD,
): Promise<Page> {
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

/**
 * A download's content as text. The browser is remote (this worker's browser server), where `download.path()` is
 * not available: the file is streamed over the connection instead.
 */
export async function downloadText(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The text of the first element `locator` matches, once it is visible (Playwright's auto-wait, jest's expect). */
export async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ state: "visible", timeout: 15_000 });
  return ((await locator.first().textContent()) ?? "").replace(/\s+/g, " ").trim();
}
