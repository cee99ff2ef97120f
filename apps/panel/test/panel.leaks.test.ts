import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import request from "supertest";
import { closePanelDeps, type PanelDeps } from "../src/container.ts";
import { createTenant, type TestTenant } from "@gw/test-stack";
import { capturingLogger, csrfIn, signInForm, signInHttp, startHttpPanel, type PanelApp } from "./support/http.ts";

// Small leaks: an invite must not tell whether an email has access to another tenant, an invite's token must not
// reach the request log, and a malformed Origin header is refused like a foreign one (403, never a 500).

jest.setTimeout(60_000);

let deps: PanelDeps;
let app: PanelApp;
let lines: string[];
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  const captured = capturingLogger();
  lines = captured.lines;
  ({ deps, app } = startHttpPanel({}, captured.logger));
  [tenant, other] = await Promise.all([createTenant(deps.db), createTenant(deps.db)]);
});
afterAll(async () => {
  await closePanelDeps(deps);
});

/** The answer with what differs by nature between two invites (the email, the link's token, the dates) masked. */
function masked(text: string, email: string): string {
  return text
    .replaceAll(email, "<email>")
    .replace(/\/convite\/[A-Za-z0-9_-]+/g, "/convite/<token>")
    .replace(/\d{2}\/\d{2}\/\d{4},? \d{2}:\d{2}(:\d{2})?/g, "<date>");
}

describe("invites do not enumerate other tenants' users", () => {
  it("answers an email of another account exactly as a new one, and the invitee is told at acceptance", async () => {
    const owner = await signInHttp(app, tenant.users.owner.email);
    const invite = (email: string) =>
      request(app)
        .post("/usuarios/convites")
        .set("Cookie", owner.cookie)
        .type("form")
        .send({ email, role: "viewer", _csrf: owner.csrf });
    const fresh = `novo-${randomBytes(3).toString("hex")}@exemplo.com.br`;
    const [toNew, toOtherTenant] = [await invite(fresh), await invite(other.users.admin.email)];
    expect(toOtherTenant.status).toBe(toNew.status);
    expect(toNew.status).toBe(201);
    expect(masked(toOtherTenant.text, other.users.admin.email)).toBe(masked(toNew.text, fresh));
    // The same work behind both answers: a pending invite each, audited alike.
    for (const email of [fresh, other.users.admin.email])
      expect(await deps.db.panelInvite.count({ where: { accountId: tenant.accountId, email } })).toBe(1);
    const audits = await deps.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: "panel.user.invited" },
      orderBy: { id: "asc" },
    });
    expect(audits.map((a) => Object.keys(a.details as object).sort())).toEqual([
      ["email", "role"],
      ["email", "role"],
    ]);

    // The link shows the invite; accepting it cannot move that person to a second account.
    const link = /\/convite\/[A-Za-z0-9_-]+/.exec(toOtherTenant.text)?.[0] ?? "";
    const opened = await request(app).get(link);
    expect(opened.status).toBe(200);
    const cookie = (opened.headers["set-cookie"] as unknown as string[])[0]?.split(";")[0] ?? "";
    const accepted = await request(app)
      .post(link)
      .set("Cookie", cookie)
      .type("form")
      .send({
        name: "Outra",
        password: "senha-nova-1234",
        password_confirmation: "senha-nova-1234",
        _csrf: csrfIn(opened.text),
      });
    expect(accepted.status).toBe(409);
    expect(accepted.text).toContain("já tem acesso ao painel por outra conta");
    expect(await deps.db.panelUser.findUniqueOrThrow({ where: { email: other.users.admin.email } })).toMatchObject({
      accountId: other.accountId,
      role: "admin",
    });
  });

  it("still refuses an email that is already a user of this same account (the owner sees them listed)", async () => {
    const owner = await signInHttp(app, tenant.users.owner.email);
    const res = await request(app)
      .post("/usuarios/convites")
      .set("Cookie", owner.cookie)
      .type("form")
      .send({ email: tenant.users.viewer.email, role: "viewer", _csrf: owner.csrf });
    expect(res.status).toBe(409);
    expect(res.text).toContain("Já existe um usuário com este e-mail.");
  });
});

describe("the request log", () => {
  it("names an invite's route by its pattern, never with the token", async () => {
    const owner = await signInHttp(app, tenant.users.owner.email);
    const created = await request(app)
      .post("/usuarios/convites")
      .set("Cookie", owner.cookie)
      .type("form")
      .send({ email: `log-${randomBytes(3).toString("hex")}@exemplo.com.br`, role: "viewer", _csrf: owner.csrf });
    const link = /\/convite\/([A-Za-z0-9_-]+)/.exec(created.text);
    const token = link?.[1] ?? "";
    expect(token.length).toBeGreaterThan(20);
    const from = lines.length;
    const opened = await request(app).get(`/convite/${token}`);
    expect(opened.status).toBe(200);
    const cookie = (opened.headers["set-cookie"] as unknown as string[])[0]?.split(";")[0] ?? "";
    const refused = await request(app)
      .post(`/convite/${token}`)
      .set("Cookie", cookie)
      .type("form")
      .send({ name: "x", _csrf: csrfIn(opened.text) });
    expect(refused.status).toBe(400);
    await request(app).get(`/convite/${token}x`);
    const logged = lines.slice(from);
    const requestLines = logged.filter((line) => line.includes('"message":"request"'));
    expect(requestLines).toHaveLength(3);
    for (const line of requestLines) expect(line).toContain('"path":"/convite/:token"');
    for (const line of logged) expect(line).not.toContain(token);
  });
});

describe("the Origin check", () => {
  it.each(["http://[::1", "not a url", "http://exemplo.com.br:99999"])(
    "refuses a POST whose Origin is malformed (%s) with 403, not 500",
    async (origin) => {
      const form = await signInForm(app);
      const res = await request(app)
        .post("/entrar")
        .set("Cookie", form.cookie)
        .set("Origin", origin)
        .type("form")
        .send({ email: tenant.users.viewer.email, password: "x", _csrf: form.csrf });
      expect(res.status).toBe(403);
      expect(res.text).toContain("Requisição recusada");
    },
  );
});
