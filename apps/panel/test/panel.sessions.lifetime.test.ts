import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { testActor } from "@gw/testkit";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, PASSWORD, type TestTenant } from "@gw/test-stack";
import { capturingLogger, csrfIn, passwordChecks, signInHttp, startHttpPanel, type PanelApp } from "./support/http.ts";

// Sessions end at an absolute time after sign-in however much they are used (PANEL_SESSION_MAX_HOURS), on top of
// the sliding idle expiry; managing users asks for the password again once the session has gone
// PANEL_REAUTH_IDLE_MINUTES without proving it, on a Portuguese page behind the sign-in throttle.

jest.setTimeout(60_000);

const HOUR = 3_600_000;
let deps: PanelDeps;
let app: PanelApp;
let lines: string[];
let tenant: TestTenant;

beforeAll(async () => {
  const captured = capturingLogger();
  lines = captured.lines;
  ({ deps, app } = startHttpPanel(
    { PANEL_SESSION_TTL_HOURS: "12", PANEL_SESSION_MAX_HOURS: "12", PANEL_REAUTH_IDLE_MINUTES: "15" },
    captured.logger,
  ));
  tenant = await createTenant(deps.db);
});
afterAll(async () => {
  await closePanelDeps(deps);
});

const sessionIdOf = (cookie: string) =>
  createHash("sha256")
    .update(cookie.split("=")[1] ?? "")
    .digest("hex");

describe("absolute session lifetime", () => {
  it("ends a session 12 h after sign-in even though it was used a minute ago", async () => {
    const session = await signInHttp(app, tenant.users.viewer.email);
    const id = sessionIdOf(session.cookie);
    // Signed in 12 h and a minute ago, used all along: the sliding expiry alone would keep it for 12 h more.
    await deps.db.panelSession.update({
      where: { id },
      data: {
        createdAt: new Date(Date.now() - 12 * HOUR - 60_000),
        lastSeenAt: new Date(Date.now() - 60_000),
        expiresAt: new Date(Date.now() + 11 * HOUR),
      },
    });
    const res = await request(app).get("/conversas").set("Cookie", session.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/entrar?next=%2Fconversas");
  });

  it("slides the idle expiry with use, but never past the absolute end", async () => {
    const session = await signInHttp(app, tenant.users.viewer.email);
    const id = sessionIdOf(session.cookie);
    const createdAt = new Date(Date.now() - 11 * HOUR);
    await deps.db.panelSession.update({
      where: { id },
      data: { createdAt, lastSeenAt: new Date(Date.now() - 5 * 60_000) },
    });
    expect((await request(app).get("/").set("Cookie", session.cookie)).status).toBe(200);
    const row = await deps.db.panelSession.findUniqueOrThrow({ where: { id } });
    expect(row.expiresAt.getTime()).toBe(createdAt.getTime() + 12 * HOUR);
  });

  it("gives the cookie the session's absolute lifetime", async () => {
    const session = await signInHttp(app, tenant.users.viewer.email);
    expect(session.setCookie).toMatch(/;\s*Max-Age=43200(;|$)/i);
  });
});

describe("re-authentication before managing users", () => {
  async function staleOwnerSession() {
    const session = await signInHttp(app, tenant.users.owner.email);
    await deps.db.panelSession.update({
      where: { id: sessionIdOf(session.cookie) },
      data: { reauthenticatedAt: new Date(Date.now() - 16 * 60_000) },
    });
    return session;
  }

  it("asks for the password again after 15 min without proving it, then lets the owner act", async () => {
    const session = await staleOwnerSession();
    const email = `reautenticar-${Date.now()}@exemplo.com.br`;
    const invite = () =>
      request(app)
        .post("/usuarios/convites")
        .set("Cookie", session.cookie)
        .type("form")
        .send({ email, role: "viewer", _csrf: session.csrf });

    const asked = await invite();
    expect(asked.status).toBe(303);
    expect(asked.headers.location).toBe("/confirmar-senha?next=%2Fusuarios");
    expect(await deps.db.panelInvite.count({ where: { email } })).toBe(0);
    // The list itself is not a change: it needs no fresh password.
    expect((await request(app).get("/usuarios").set("Cookie", session.cookie)).status).toBe(200);

    const page = await request(app)
      .get(asked.headers.location ?? "")
      .set("Cookie", session.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Confirme sua senha");
    expect(page.text).toContain('name="next" value="/usuarios"');

    const checks = passwordChecks(lines);
    const wrong = await request(app)
      .post("/confirmar-senha")
      .set("Cookie", session.cookie)
      .type("form")
      .send({ password: "senha-errada-000", next: "/usuarios", _csrf: csrfIn(page.text) });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("Senha incorreta.");
    expect((await invite()).status).toBe(303);

    const right = await request(app)
      .post("/confirmar-senha")
      .set("Cookie", session.cookie)
      .type("form")
      .send({ password: PASSWORD, next: "/usuarios", _csrf: csrfIn(page.text) });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe("/usuarios");
    expect(passwordChecks(lines) - checks).toBe(2);

    const created = await invite();
    expect(created.status).toBe(201);
    expect(await deps.db.panelInvite.count({ where: { email } })).toBe(1);
  });

  it("asks before a role change and a removal too, and never sends anywhere but a panel path", async () => {
    const session = await staleOwnerSession();
    for (const action of [`/usuarios/${tenant.users.viewer.id}/papel`, `/usuarios/${tenant.users.viewer.id}/remover`]) {
      const res = await request(app)
        .post(action)
        .set("Cookie", session.cookie)
        .type("form")
        .send({ role: "admin", _csrf: session.csrf });
      expect({ action, status: res.status, location: res.headers.location }).toEqual({
        action,
        status: 303,
        location: "/confirmar-senha?next=%2Fusuarios",
      });
    }
    expect(await deps.db.panelUser.findUniqueOrThrow({ where: { id: tenant.users.viewer.id } })).toMatchObject({
      role: "viewer",
    });
    const page = await request(app).get("/confirmar-senha?next=//evil.example.com").set("Cookie", session.cookie);
    const away = await request(app)
      .post("/confirmar-senha")
      .set("Cookie", session.cookie)
      .type("form")
      .send({ password: PASSWORD, next: "//evil.example.com", _csrf: csrfIn(page.text) });
    expect(away.headers.location).toBe("/");
  });

  it("a right password at a secret reveal counts as a fresh proof", async () => {
    const session = await staleOwnerSession();
    const id = sessionIdOf(session.cookie);
    const before = (await deps.db.panelSession.findUniqueOrThrow({ where: { id } })).reauthenticatedAt;
    const integration = await setIntegration(
      { db: deps.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: deps.secrets },
      { actor: testActor, accountId: tenant.accountId, url: "http://127.0.0.1:9/reauth", events: ["message.status"] },
    );
    const reveal = await request(app)
      .post(`/integracoes/${integration.id}/segredo`)
      .set("Cookie", session.cookie)
      .type("form")
      .send({ password: PASSWORD, _csrf: session.csrf });
    expect(reveal.status).toBe(200);
    const after = (await deps.db.panelSession.findUniqueOrThrow({ where: { id } })).reauthenticatedAt;
    expect(after.getTime()).toBeGreaterThan(before.getTime() + 15 * 60_000);
    const invite = await request(app)
      .post("/usuarios/convites")
      .set("Cookie", session.cookie)
      .type("form")
      .send({ email: `depois-${Date.now()}@exemplo.com.br`, role: "viewer", _csrf: session.csrf });
    expect(invite.status).toBe(201);
  });
});
