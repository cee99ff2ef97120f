import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { testActor } from "@gw/testkit";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, PASSWORD, type TestTenant } from "@gw/test-stack";
import {
  capturingLogger,
  passwordChecks,
  signInForm,
  signInHttp,
  startHttpPanel,
  type PanelApp,
} from "./support/http.ts";

// The sign-in throttle takes its point before the password is checked (scrypt) and gives it back on success, so
// parallel guesses cannot run more checks than the budget; the password re-entry guarding a signing secret uses
// the same budget. Checks are counted from the panel's own log line per scrypt check.

jest.setTimeout(120_000);

const WRONG = "senha-errada-000";
const PER_EMAIL = 8;

const panels: PanelDeps[] = [];
let tenant: TestTenant;

function panel(env: Record<string, string> = {}) {
  const { logger, lines } = capturingLogger();
  const started = startHttpPanel({ PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL), ...env }, logger);
  panels.push(started.deps);
  return { ...started, lines };
}

beforeAll(async () => {
  const { deps } = panel();
  tenant = await createTenant(deps.db);
});
afterAll(async () => {
  for (const deps of panels) await closePanelDeps(deps);
});

async function wrongSignIn(app: PanelApp, form: { cookie: string; csrf: string }, email: string, ip?: string) {
  const call = request(app).post("/entrar").set("Cookie", form.cookie).type("form");
  if (ip) void call.set("X-Forwarded-For", ip);
  return call.send({ email, password: WRONG, _csrf: form.csrf });
}

describe("sign-in throttle under parallel guesses", () => {
  it("200 simultaneous wrong passwords for one email: only the budget is checked, the rest are 429 unchecked", async () => {
    // The per-address budget is out of the way: only the email's budget is under test.
    const { app, lines } = panel({ PANEL_LOGIN_MAX_FAILURES_PER_IP: "1000" });
    const form = await signInForm(app);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => wrongSignIn(app, form, tenant.users.viewer.email)),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(PER_EMAIL);
    expect(statuses.filter((s) => s === 429)).toHaveLength(200 - PER_EMAIL);
    expect(passwordChecks(lines)).toBe(PER_EMAIL);
    const refused = answers.find((res) => res.status === 429);
    expect(Number(refused?.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused?.text).toContain("Muitas tentativas de entrada");
    // The right password is refused too while the budget is spent, and not checked.
    const right = await request(app)
      .post("/entrar")
      .set("Cookie", form.cookie)
      .type("form")
      .send({ email: tenant.users.viewer.email, password: PASSWORD, _csrf: form.csrf });
    expect(right.status).toBe(429);
    expect(passwordChecks(lines)).toBe(PER_EMAIL);
  });

  it("a right password gives its point back: successes never use up the budget", async () => {
    const { app, lines } = panel({ PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: "3", PANEL_LOGIN_MAX_FAILURES_PER_IP: "3" });
    for (let i = 0; i < 5; i += 1) await signInHttp(app, tenant.users.admin.email);
    const form = await signInForm(app);
    const wrong = [];
    for (let i = 0; i < 4; i += 1) wrong.push((await wrongSignIn(app, form, tenant.users.admin.email)).status);
    // Five sign-ins left both budgets (email and address) whole: three failures are checked, the fourth is not.
    expect(wrong).toEqual([401, 401, 401, 429]);
    expect(passwordChecks(lines)).toBe(5 + 3);
  });

  it("counts an IPv6 client by its /64: addresses of one /64 share one budget, another /64 has its own", async () => {
    const { app, lines } = panel({ TRUST_PROXY_HOPS: "1", PANEL_LOGIN_MAX_FAILURES_PER_IP: "3" });
    const form = await signInForm(app);
    // A different email each time: only the address's budget can refuse.
    const statuses = [];
    for (let i = 1; i <= 4; i += 1)
      statuses.push((await wrongSignIn(app, form, `ninguem-${i}@exemplo.com.br`, `2001:db8:1:2::${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await wrongSignIn(app, form, "ninguem-5@exemplo.com.br", "2001:db8:1:2:ffff:1:2:3")).status).toBe(429);
    expect((await wrongSignIn(app, form, "ninguem-6@exemplo.com.br", "2001:db8:1:3::1")).status).toBe(401);
    expect(passwordChecks(lines)).toBe(4);
  });
});

describe("the password re-entry that reveals a signing secret", () => {
  it("50 simultaneous wrong confirmations from a stolen session run at most the budget of checks", async () => {
    const { app, deps, lines } = panel({ PANEL_LOGIN_MAX_FAILURES_PER_IP: "1000" });
    const integration = await setIntegration(
      { db: deps.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: deps.secrets },
      {
        actor: testActor,
        accountId: tenant.accountId,
        url: `http://127.0.0.1:9/segredo-${Date.now()}`,
        events: ["message.status"],
      },
    );
    const session = await signInHttp(app, tenant.users.owner.email);
    const before = passwordChecks(lines);
    const reveal = (password: string) =>
      request(app)
        .post(`/integracoes/${integration.id}/segredo`)
        .set("Cookie", session.cookie)
        .type("form")
        .send({ password, _csrf: session.csrf });
    const answers = await Promise.all(Array.from({ length: 50 }, () => reveal(WRONG)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(PER_EMAIL);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - PER_EMAIL);
    expect(passwordChecks(lines) - before).toBe(PER_EMAIL);
    for (const res of answers) expect(res.text).not.toContain(integration.signing_secret);
    // Spent: even the right password is not checked, and the secret stays hidden.
    const right = await reveal(PASSWORD);
    expect(right.status).toBe(429);
    expect(right.text).not.toContain(integration.signing_secret);
  });
});
