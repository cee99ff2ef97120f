// The panel in this test process without a browser: its Express app answered through supertest, with the test
// stack's PostgreSQL and Redis, and a logger whose lines the test can read.
import type { Logger } from "@gw/logger";
import { createLogger } from "@gw/logger";
import { expect } from "@jest/globals";
import request from "supertest";
import { testEnv } from "@gw/testkit";
import { createPanelApp } from "../../src/app.ts";
import { loadPanelConfig } from "../../src/config.ts";
import { buildPanelDeps, type PanelDeps } from "../../src/container.ts";
import { PASSWORD } from "@gw/test-stack";

export type PanelApp = ReturnType<typeof createPanelApp>;

/** A logger at `info` whose JSON lines are kept in `lines` (printed too with TEST_LOG=1). */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const logger = createLogger({ service: "panel-test", level: "info" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  const lines: string[] = [];
  logger.on("data", (info: unknown) => lines.push(JSON.stringify(info)));
  return { logger, lines };
}

/** The panel's app on the test stack (plain cookies, a fresh Redis prefix), with `env` over the defaults. */
export function startHttpPanel(
  env: Record<string, string> = {},
  logger: Logger = capturingLogger().logger,
): { deps: PanelDeps; app: PanelApp } {
  const stack = testEnv();
  const deps = buildPanelDeps(
    loadPanelConfig({
      DATABASE_URL: stack.databaseUrl,
      REDIS_URL: stack.redisUrl,
      REDIS_KEY_PREFIX: stack.redisPrefix,
      META_ACCESS_TOKEN: "panel-test-access-token",
      PANEL_COOKIE_SECURE: "false",
      SECRETS_KEYS: stack.secretsKeys,
      ...env,
    }),
    logger,
  );
  return { deps, app: createPanelApp(deps) };
}

const setCookies = (res: request.Response): string[] => {
  const header = res.headers["set-cookie"] as string[] | string | undefined;
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
};
export const cookieNamed = (res: request.Response, name: string): string | undefined =>
  setCookies(res).find((c) => c.startsWith(`${name}=`));
const pair = (cookie: string) => cookie.split(";")[0] ?? "";
export const csrfIn = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** The sign-in form's double-submit pair: the pre-session cookie and the token the form echoes. */
export async function signInForm(app: PanelApp): Promise<{ cookie: string; csrf: string }> {
  const form = await request(app).get("/entrar");
  const cookie = cookieNamed(form, "gw_panel_csrf");
  expect(cookie).toBeDefined();
  return { cookie: pair(cookie!), csrf: csrfIn(form.text) };
}

export interface SignedIn {
  /** The Cookie header of the session. */
  cookie: string;
  /** The session's CSRF token, for its forms. */
  csrf: string;
  /** The Set-Cookie of the session, as the sign-in answered it. */
  setCookie: string;
}

/** Signs in through the form; fails the test unless it succeeds. */
export async function signInHttp(app: PanelApp, email: string, password = PASSWORD): Promise<SignedIn> {
  const form = await signInForm(app);
  const signedIn = await request(app)
    .post("/entrar")
    .set("Cookie", form.cookie)
    .type("form")
    .send({ email, password, _csrf: form.csrf });
  expect(signedIn.status).toBe(303);
  const setCookie = cookieNamed(signedIn, "gw_panel");
  expect(setCookie).toBeDefined();
  const cookie = pair(setCookie!);
  const home = await request(app).get("/").set("Cookie", cookie);
  expect(home.status).toBe(200);
  return { cookie, csrf: csrfIn(home.text), setCookie: setCookie! };
}

/** How many password checks (scrypt) the panel logged. */
export function passwordChecks(lines: readonly string[]): number {
  return lines.filter((line) => line.includes('"message":"panel password checked"')).length;
}
