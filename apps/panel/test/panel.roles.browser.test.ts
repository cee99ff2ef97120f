import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Router } from "express";
import type { Page } from "playwright-core";
import { createPanelUser, invitePanelUser } from "@gw/core/users";
import { SIGNED_IN_PAGES } from "../src/pages/index.ts";
import { PASSWORD, createTenant, signIn, startPanelStack, type PanelStack, type TestTenant } from "@gw/test-stack";
import { testActor } from "@gw/testkit";

jest.setTimeout(90_000);

/** Every state-changing route of the signed-in sections, read from the routers the pages register. */
function postRoutes(stack: PanelStack): string[] {
  const router = Router();
  for (const section of SIGNED_IN_PAGES) section.register(router, stack.panel);
  return router.stack.flatMap((layer) =>
    layer.route?.stack.some((handler) => handler.method === "post") ? [layer.route.path] : [],
  );
}

/** Owner-only areas (capabilities users.manage and keys.manage of http/roles.ts). */
const OWNER_ONLY = /^\/(chaves|usuarios)(\/|$)/;
/**
 * A viewer's own bookkeeping is not a change to the account: marking template notices read, and confirming one's
 * own password (it only restarts the session's re-authentication clock).
 */
const VIEWER_OWN = /\/avisos?(\/|$)|^\/confirmar-senha$/;

/** The route with each `:param` filled: the role check comes before any lookup, so any value will do. */
const concrete = (path: string) => path.replace(/:\w+/g, () => randomUUID());

const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

async function post(page: Page, path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await page.request.post(path, { form, headers, maxRedirects: 0 });
  return { status: response.status(), text: await response.text() };
}

describe("roles, CSRF and tenant isolation of the panel's forms (Chromium)", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;
  let routes: string[];

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    routes = postRoutes(stack);
  });
  afterAll(async () => {
    await stack.close();
  });

  const auditCount = (accountId: string) => stack.db.auditEntry.count({ where: { accountId } });

  it("finds the state-changing routes of every section, this area's included", () => {
    expect(routes).toEqual(
      expect.arrayContaining([
        "/chaves",
        "/chaves/:id/revogar",
        "/usuarios/convites",
        "/usuarios/convites/:id/cancelar",
        "/usuarios/:id/papel",
        "/usuarios/:id/remover",
      ]),
    );
  });

  it("refuses a viewer's POST with a valid CSRF token on every state-changing route (403), changing nothing", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    const token = await csrfOf(page);
    const before = await auditCount(tenant.accountId);
    const statuses: Record<string, number> = {};
    for (const route of routes.filter((path) => !VIEWER_OWN.test(path))) {
      const { status, text } = await post(page, concrete(route), { _csrf: token, name: "x", role: "owner" });
      statuses[route] = status;
      if (status === 403) expect(text).toContain("Seu papel nesta conta não permite esta ação.");
    }
    expect(Object.entries(statuses).filter(([, status]) => status !== 403)).toEqual([]);
    // Nothing was changed, so nothing was audited (the sign-in was before `before`).
    expect(await auditCount(tenant.accountId)).toBe(before);
    await page.context().close();
  });

  it("shows an agente Conversas, Pedidos and Templates only: any other section, page or form is 403, home is Conversas (issue 39)", async () => {
    const email = `agente-${randomUUID().slice(0, 8)}@exemplo.com.br`;
    await createPanelUser(
      { db: stack.db },
      {
        accountId: tenant.accountId,
        email,
        name: "Ana Atendente",
        role: "agente",
        password: PASSWORD,
        actor: testActor,
      },
    );
    const page = await signIn(stack, email);
    try {
      await page.goto("/");
      expect(new URL(page.url()).pathname).toBe("/conversas");
      const menu = await page.locator('nav[aria-label="Seções do painel"] a').allInnerTexts();
      expect(menu.map((text) => text.trim())).toEqual(["Templates", "Conversas", "Pedidos"]);
      for (const path of ["/conversas", "/pedidos", "/templates"])
        expect({ path, status: (await page.request.get(path)).status() }).toEqual({ path, status: 200 });
      const hidden = ["/chaves", "/integracoes", "/campanhas", "/custos", "/usuarios", "/entregas", "/auditoria"];
      for (const path of [...hidden, "/numeros", "/conta/avisos", `/integracoes/${randomUUID()}`]) {
        const response = await page.request.get(path);
        expect({ path, status: response.status() }).toEqual({ path, status: 403 });
      }
      // Every state-changing route outside its sections is refused before the page's own checks; the reply is its own.
      const token = await csrfOf(page);
      const outside = routes.filter((route) => !/^\/(conversas|pedidos|templates|confirmar-senha)(\/|$)/.test(route));
      const statuses = await Promise.all(
        outside.map(async (route) => [route, (await post(page, concrete(route), { _csrf: token, name: "x" })).status]),
      );
      expect(statuses.filter(([, status]) => status !== 403)).toEqual([]);
      const reply = await post(page, `/conversas/${tenant.phoneNumberId}/5511900000001/responder`, {
        _csrf: token,
        texto: "Oi",
        chave: "B".repeat(22),
      });
      expect(reply.status).not.toBe(403);
    } finally {
      await page.context().close();
    }
  });

  it("refuses an admin's POST to the owner-only routes (keys, users) with 403", async () => {
    const page = await signIn(stack, tenant.users.admin.email);
    const token = await csrfOf(page);
    const ownerOnly = routes.filter((path) => OWNER_ONLY.test(path));
    expect(ownerOnly.length).toBeGreaterThanOrEqual(6);
    const statuses = await Promise.all(
      ownerOnly.map(async (route) => [route, (await post(page, concrete(route), { _csrf: token, name: "x" })).status]),
    );
    expect(statuses.filter(([, status]) => status !== 403)).toEqual([]);
    expect(await stack.db.apiKey.count({ where: { accountId: tenant.accountId, name: "x" } })).toBe(0);
    await page.context().close();
  });

  it("refuses a POST without the CSRF token, with another session's token, or from another site (403)", async () => {
    const owner = await signIn(stack, tenant.users.owner.email);
    const admin = await signIn(stack, tenant.users.admin.email);
    const ownToken = await csrfOf(owner);
    const otherToken = await csrfOf(admin);
    expect(otherToken).not.toBe(ownToken);

    expect((await post(owner, "/chaves", { name: "sem token" })).status).toBe(403);
    expect((await post(owner, "/chaves", { name: "sem token", _csrf: otherToken })).status).toBe(403);
    expect(
      (await post(owner, "/chaves", { name: "sem token", _csrf: ownToken }, { Origin: "https://evil.example" })).status,
    ).toBe(403);
    expect(await stack.db.apiKey.count({ where: { accountId: tenant.accountId, name: "sem token" } })).toBe(0);
    // The same form with its token goes through: the refusals above were the token's doing.
    expect((await post(owner, "/chaves", { name: "com token", scopes: "messages:send", _csrf: ownToken })).status).toBe(
      201,
    );
    await owner.context().close();
    await admin.context().close();
  });

  it("answers 404 to another account's key, user and invite ids, and leaves them untouched", async () => {
    const otherKey = await stack.db.apiKey.findFirstOrThrow({ where: { accountId: other.accountId } });
    const otherInvite = await invitePanelUser(
      { db: stack.db },
      {
        accountId: other.accountId,
        email: `convidado-${randomUUID().slice(0, 6)}@exemplo.com.br`,
        role: "viewer",
        invitedBy: other.users.owner.id,
        actor: testActor,
      },
    );
    const page = await signIn(stack, tenant.users.owner.email);
    const _csrf = await csrfOf(page);

    const attempts = {
      revoke: await post(page, `/chaves/${otherKey.id}/revogar`, { _csrf }),
      role: await post(page, `/usuarios/${other.users.owner.id}/papel`, { _csrf, role: "viewer" }),
      remove: await post(page, `/usuarios/${other.users.viewer.id}/remover`, { _csrf }),
      cancel: await post(page, `/usuarios/convites/${otherInvite.invite.id}/cancelar`, { _csrf }),
    };
    expect(Object.fromEntries(Object.entries(attempts).map(([name, { status }]) => [name, status]))).toEqual({
      revoke: 404,
      role: 404,
      remove: 404,
      cancel: 404,
    });
    expect((await stack.db.apiKey.findUniqueOrThrow({ where: { id: otherKey.id } })).revokedAt).toBeNull();
    expect((await stack.db.panelUser.findUniqueOrThrow({ where: { id: other.users.owner.id } })).role).toBe("owner");
    expect(await stack.db.panelUser.findUnique({ where: { id: other.users.viewer.id } })).not.toBeNull();
    expect(await stack.db.panelInvite.findUnique({ where: { id: otherInvite.invite.id } })).not.toBeNull();

    // The lists show this account only.
    await page.goto("/usuarios");
    const users = await page.locator("main").textContent();
    expect(users).toContain(tenant.users.viewer.email);
    expect(users).not.toContain(other.users.viewer.email);
    expect(users).not.toContain(otherInvite.invite.email);
    await page.goto("/chaves");
    expect(await page.locator("main").textContent()).not.toContain(otherKey.prefix);
    await page.context().close();
  });
});
