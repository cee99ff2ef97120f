// Parallel password guesses against a running panel process (hardening issue, item 7): the sign-in throttle takes
// its point atomically in Redis before the password is checked, so 200 simultaneous wrong sign-ins for one email run
// at most the email's budget of scrypt checks, and 200 more for 200 different emails from one address run at most
// the address's budget in all. The checks are counted from the process's own log: one line per password checked.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createAccount } from "@gw/core/accounts";
import { createPanelUser } from "@gw/core/users";
import { createDb, type Db } from "@gw/db";
import { testActor, testEnv } from "@gw/testkit";
import { kill, startPanel, tail, type RunningApp } from "../src/index.ts";

const GUESSES = 200;
const PER_EMAIL = 8;
const PER_ADDRESS = 30;
const PASSWORD = "senha-certa-do-teste-1";

let db: Db;
let panel: RunningApp;
let email: string;
/** Password checks the first test ran. */
let phaseOne = 0;

beforeAll(async () => {
  const env = testEnv();
  db = createDb({ url: env.databaseUrl, poolSize: 2 });
  const account = await createAccount(
    { db },
    { actor: testActor, name: `Sign-in paralelo ${randomBytes(3).toString("hex")}` },
  );
  email = `alvo-${randomBytes(4).toString("hex")}@exemplo.com.br`;
  await createPanelUser(
    { db },
    { accountId: account.id, email, name: "Alvo", role: "owner", password: PASSWORD, actor: testActor },
  );
  panel = await startPanel("panel", env, {
    env: {
      // The line per password check is written at info.
      LOG_LEVEL: "info",
      PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL),
      PANEL_LOGIN_MAX_FAILURES_PER_IP: String(PER_ADDRESS),
    },
  });
}, 60_000);

afterAll(async () => {
  if (panel) await kill(panel);
  await db?.$disconnect();
});

/** Password checks the panel process logged so far. */
const checks = () =>
  panel.process
    .output()
    .split("\n")
    .filter((line) => line.includes('"panel password checked"')).length;

/** The sign-in form's double-submit cookie and token, shared by every guess. */
async function signInForm(): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${panel.url}/entrar`);
  const cookie =
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith("gw_panel_csrf="))
      ?.split(";")[0] ?? "";
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] ?? "";
  expect(cookie).not.toBe("");
  return { cookie, csrf };
}

async function guess(form: { cookie: string; csrf: string }, who: string): Promise<number> {
  const res = await fetch(`${panel.url}/entrar`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: form.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: who, password: "senha-errada-000", _csrf: form.csrf }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("a running panel under parallel sign-in guesses", () => {
  it(`${GUESSES} simultaneous wrong passwords for one email: at most ${PER_EMAIL} are checked with scrypt`, async () => {
    const form = await signInForm();
    const statuses = await Promise.all(Array.from({ length: GUESSES }, () => guess(form, email)));
    const checked = checks();
    // Each check answered 401; everything else was refused (429) before any check.
    expect({
      wrongPassword: statuses.filter((s) => s === 401).length,
      unexpected: statuses.filter((s) => s !== 401 && s !== 429),
    }).toEqual({ wrongPassword: checked, unexpected: [] });
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(PER_EMAIL);
    phaseOne = checked;
    // The right password now waits for the window like any guess: it is not checked either.
    const right = await fetch(`${panel.url}/entrar`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: form.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password: PASSWORD, _csrf: form.csrf }).toString(),
    });
    expect(right.status).toBe(429);
    expect(checks()).toBe(phaseOne);
  }, 120_000);

  it(`${GUESSES} simultaneous guesses for ${GUESSES} different emails from one address: at most ${PER_ADDRESS} checks in all`, async () => {
    const form = await signInForm();
    const statuses = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) =>
        guess(form, `ninguem-${i}-${randomBytes(2).toString("hex")}@exemplo.com.br`),
      ),
    );
    const checked = checks() - phaseOne;
    expect({
      wrongPassword: statuses.filter((s) => s === 401).length,
      unexpected: statuses.filter((s) => s !== 401 && s !== 429),
    }).toEqual({ wrongPassword: checked, unexpected: [] });
    expect(checked).toBeGreaterThan(0);
    // The first test's checks took their points from this address too.
    expect(phaseOne + checked).toBeLessThanOrEqual(PER_ADDRESS);
    if (panel.process.child.exitCode !== null) throw new Error(`the panel exited:\n${tail(panel)}`);
  }, 120_000);
});
