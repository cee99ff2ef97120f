import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { createApiKey } from "@gw/core/accounts";
import { eventually, testActor } from "@gw/testkit";
import {
  createTenant,
  PASSWORD,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

jest.setTimeout(60_000);

describe("API keys in the panel (Chromium)", () => {
  let stack: PanelStack;
  let tenant: TestTenant;

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
  });
  afterAll(async () => {
    await stack.close();
  });

  const deliveries = (key: string) =>
    fetch(`${stack.apiUrl}/public/v1/deliveries`, { headers: { Authorization: `Bearer ${key}` } });

  it("creates a named key shown once, which the API accepts; revoked, the API refuses it at once", async () => {
    const page = await signIn(stack, tenant.users.owner.email);
    await page.getByRole("link", { name: "Chaves de API" }).click();
    await page.getByLabel("Nome da chave").fill("ERP da loja");
    await page.getByRole("button", { name: "Criar chave" }).click();

    expect(await textOf(page.getByRole("status"))).toContain("não será mostrada de novo");
    const key = await textOf(page.getByLabel("Chave de API criada"));
    expect(key).toMatch(/^pt_live_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, "chave-criada");
    const ok = await deliveries(key);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();

    // Never again: the list shows the name and the prefix only.
    await page.getByRole("link", { name: "Voltar às chaves" }).click();
    const row = page.getByRole("row", { name: /ERP da loja/ });
    expect(await textOf(row)).toContain(`${key.slice(0, 14)}…`);
    expect(await page.content()).not.toContain(key);
    await screenshot(page, "chaves");

    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revogar a chave ERP da loja" }).click();
    expect(await textOf(page.getByRole("status"))).toContain("Chave revogada");
    expect(await textOf(page.getByRole("row", { name: /ERP da loja/ }))).toContain("revogada");
    // The API caches keys for 5 s (API_KEY_CACHE_TTL_MS of the stack): refused well within that, by the NOTIFY.
    const refused = await eventually(
      async () => {
        const res = await deliveries(key);
        if (res.status === 401) return res;
        await res.arrayBuffer();
        return null;
      },
      { timeoutMs: 2_500, intervalMs: 50, what: "the revoked key to be refused" },
    );
    expect(await refused.json()).toMatchObject({ success: false, error: { code: "invalid_api_key" } });
    // The tenant's other key still works.
    expect((await deliveries(tenant.apiKey)).status).toBe(200);

    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: { startsWith: "panel.api_key." } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor, entry.details])).toEqual([
      [
        "panel.api_key.created",
        `panel:${tenant.users.owner.email}`,
        { name: "ERP da loja", prefix: key.slice(0, 14), scopes: "all" },
      ],
      ["panel.api_key.revoked", `panel:${tenant.users.owner.email}`, { name: "ERP da loja", prefix: key.slice(0, 14) }],
    ]);
    await page.context().close();
  });

  it("creates a key with only the permissions checked and lists them; the API refuses it anything else (403 insufficient_scope)", async () => {
    // A tenant of its own: the audit tests count the first tenant's key entries.
    const own = await createTenant(stack.db);
    const page = await signIn(stack, own.users.owner.email);
    await page.goto("/chaves");
    const permissions = page.getByRole("group", { name: "Permissões" });
    // Every permission is offered, checked at first.
    expect(await permissions.getByRole("checkbox", { checked: true }).count()).toBe(6);
    await page.getByLabel("Nome da chave").fill("Plugin da loja");
    for (const scope of ["messages:read", "media:write", "integrations:manage", "usage:read"])
      await permissions.getByLabel(new RegExp(`${scope}:`)).uncheck();
    await page.getByRole("button", { name: "Criar chave" }).click();
    const key = await textOf(page.getByLabel("Chave de API criada"));
    expect(await textOf(page.getByText(/^Permissões:/))).toBe("Permissões: messages:send, orders:write");
    await screenshot(page, "chave-restrita-criada");

    const call = (path: string) => fetch(`${stack.apiUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    const refused = await call("/public/v1/integrations");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      success: false,
      error: { code: "insufficient_scope", message: expect.stringContaining("integrations:manage") },
    });
    const orders = await call("/public/v1/orders");
    expect(orders.status).toBe(200);
    await orders.arrayBuffer();

    await page.getByRole("link", { name: "Voltar às chaves" }).click();
    expect(await textOf(page.getByRole("row", { name: /Plugin da loja/ }))).toContain("messages:send, orders:write");

    // With every box checked, the key holds every permission, also the ones to come.
    await page.getByLabel("Nome da chave").fill("ERP completo");
    await page.getByRole("button", { name: "Criar chave" }).click();
    expect(await textOf(page.getByText(/^Permissões:/))).toContain("todas");
    await page.getByRole("link", { name: "Voltar às chaves" }).click();
    expect(await textOf(page.getByRole("row", { name: /ERP completo/ }))).toContain("todas");
    await screenshot(page, "chaves-com-permissoes");

    // None checked: refused, nothing created.
    await page.getByLabel("Nome da chave").fill("Chave vazia");
    for (const box of await permissions.getByRole("checkbox").all()) await box.uncheck();
    await page.getByRole("button", { name: "Criar chave" }).click();
    expect(await textOf(page.getByText(/Marque ao menos uma permissão/))).toContain("uma chave sem nenhuma");
    expect(await stack.db.apiKey.count({ where: { accountId: own.accountId, name: "Chave vazia" } })).toBe(0);
    await page.context().close();
  });

  it("shows the audit trail filtered by action, actor and date, newest first", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    await page.getByRole("link", { name: "Auditoria" }).click();
    await page.getByLabel("Ação", { exact: true }).fill("panel.api_key");
    await page.getByLabel("Ator", { exact: true }).fill(tenant.users.owner.email.toUpperCase());
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());
    await page.getByLabel("De", { exact: true }).fill(today);
    await page.getByLabel("Até", { exact: true }).fill(today);
    await page.getByRole("button", { name: "Filtrar" }).click();
    await page.waitForURL(/acao=panel.api_key/);

    const rows = page.locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    expect(await textOf(rows.nth(0))).toContain("panel.api_key.revoked");
    expect(await textOf(rows.nth(1))).toContain("panel.api_key.created");
    expect(await textOf(rows.nth(1))).toContain(`panel:${tenant.users.owner.email}`);
    await screenshot(page, "auditoria");

    // The day before today has none of it.
    const yesterday = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(
      new Date(Date.now() - 86_400_000),
    );
    await page.getByLabel("Até", { exact: true }).fill(yesterday);
    await page.getByLabel("De", { exact: true }).fill(yesterday);
    await page.getByRole("button", { name: "Filtrar" }).click();
    expect(await textOf(page.locator("main .empty"))).toBe("Nenhum registro com esses filtros.");
    await page.context().close();
  });

  it("pages the audit trail with a cursor that keeps the filters", async () => {
    for (let i = 0; i < 55; i += 1)
      await stack.db.auditEntry.create({
        data: { accountId: tenant.accountId, actor: "cli", action: "panel.test.paged", target: `n${i}` },
      });
    const page = await signIn(stack, tenant.users.admin.email);
    await page.goto("/auditoria?acao=panel.test");
    expect(await page.locator("tbody tr").count()).toBe(50);
    await page.getByRole("link", { name: "Próxima página" }).click();
    await page.waitForURL(/cursor=/);
    expect(new URL(page.url()).searchParams.get("acao")).toBe("panel.test");
    const rest = page.locator("tbody tr");
    expect(await rest.count()).toBe(5);
    expect(await textOf(rest.last())).toContain("n0");
    expect(await page.getByRole("link", { name: "Próxima página" }).count()).toBe(0);
    await page.context().close();
  });

  /** Backdates the page's session's last password proof to just past PANEL_REAUTH_IDLE_MINUTES. */
  async function idleSincePassword(page: Page): Promise<void> {
    const cookie = (await page.context().cookies()).find((c) => c.name === "gw_panel");
    if (!cookie) throw new Error("no session cookie");
    const { count } = await stack.db.panelSession.updateMany({
      where: { id: createHash("sha256").update(cookie.value).digest("hex") },
      data: { reauthenticatedAt: new Date(Date.now() - stack.panel.session.reauthIdleMs - 60_000) },
    });
    expect(count).toBe(1);
  }

  it("asks for the password before creating or revoking a key once the session went the idle time without it; nothing changes until it is confirmed", async () => {
    // A tenant of its own: the audit test above counts the first tenant's key entries.
    const own = await createTenant(stack.db);
    const old = await createApiKey(
      { db: stack.db },
      { actor: testActor, accountId: own.accountId, name: "ERP antigo" },
    );
    const keys = (name: string) => stack.db.apiKey.findMany({ where: { accountId: own.accountId, name } });
    const page = await signIn(stack, own.users.owner.email);
    await page.goto("/chaves");
    await idleSincePassword(page);

    await page.getByLabel("Nome da chave").fill("ERP novo");
    await page.getByRole("button", { name: "Criar chave" }).click();
    await page.waitForURL((url) => url.pathname === "/confirmar-senha");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/chaves");
    expect(await textOf(page.getByRole("status"))).toContain("confirme sua senha");
    expect(await keys("ERP novo")).toHaveLength(0);

    await page.goto("/chaves");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revogar a chave ERP antigo" }).click();
    await page.waitForURL((url) => url.pathname === "/confirmar-senha");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/chaves");
    expect((await keys("ERP antigo"))[0]?.revokedAt).toBeNull();
    expect((await deliveries(old.key)).status).toBe(200);
    expect(
      await stack.db.auditEntry.count({
        where: { accountId: own.accountId, action: { startsWith: "panel.api_key." } },
      }),
    ).toBe(0);

    // The password confirmed, the page the action came from is back and both actions go through.
    await page.getByLabel("Senha").fill(PASSWORD);
    await page.getByRole("button", { name: "Confirmar senha" }).click();
    await page.waitForURL((url) => url.pathname === "/chaves");
    await page.getByLabel("Nome da chave").fill("ERP novo");
    await page.getByRole("button", { name: "Criar chave" }).click();
    expect(await textOf(page.getByLabel("Chave de API criada"))).toMatch(/^pt_live_/);
    expect(await keys("ERP novo")).toHaveLength(1);

    await page.getByRole("link", { name: "Voltar às chaves" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revogar a chave ERP antigo" }).click();
    expect(await textOf(page.getByRole("status"))).toContain("Chave revogada");
    expect((await keys("ERP antigo"))[0]?.revokedAt).toBeInstanceOf(Date);
    await page.context().close();
  });

  it("lets admins and viewers see the keys but not create or revoke them", async () => {
    const page = await signIn(stack, tenant.users.admin.email);
    await page.goto("/chaves");
    await page.getByRole("table").waitFor();
    expect(await page.getByRole("button", { name: "Criar chave" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /Revogar/ }).count()).toBe(0);
    expect(await textOf(page.getByText("Só o proprietário da conta cria e revoga chaves."))).toBeTruthy();
    await page.context().close();
  });
});
