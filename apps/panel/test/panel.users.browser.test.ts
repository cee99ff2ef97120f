import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { createTenant, screenshot, signIn, startPanelStack, textOf, type PanelStack } from "@gw/test-stack";

jest.setTimeout(60_000);

const NEW_PASSWORD = "outra-senha-forte-1";

/** The form's CSRF token of the signed-in page (the sign-out form carries it on every page). */
const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

describe("users of an account in the panel (Chromium)", () => {
  let stack: PanelStack;

  beforeAll(async () => {
    stack = await startPanelStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  it("invites by email with a role; the link, shown once and opened in a fresh browser, signs the new user in with that role", async () => {
    const tenant = await createTenant(stack.db);
    const email = `nova-${randomBytes(3).toString("hex")}@exemplo.com.br`;
    const owner = await signIn(stack, tenant.users.owner.email);
    await owner.getByRole("link", { name: "Usuários" }).click();
    await owner.getByLabel("E-mail de quem vai entrar").fill(email);
    await owner.getByLabel("Papel de quem vai entrar").selectOption("admin");
    await owner.getByRole("button", { name: "Convidar" }).click();

    expect(await textOf(owner.getByRole("status"))).toContain(`Convite criado para ${email} (administrador)`);
    const link = await textOf(owner.getByLabel("Link do convite"));
    expect(link).toMatch(new RegExp(`^${stack.panel.config.PANEL_PUBLIC_URL}/convite/[A-Za-z0-9_-]{32}$`));
    await screenshot(owner, "convite-criado");
    await owner.getByRole("link", { name: "Voltar aos usuários" }).click();
    expect(await textOf(owner.getByRole("table", { name: "Convites ainda não aceitos" }))).toContain(email);
    expect(await owner.content()).not.toContain(link);
    await screenshot(owner, "usuarios");

    // PANEL_PUBLIC_URL is the public address; the test panel listens on its own port.
    const path = new URL(link).pathname;
    const context = await stack.browser.newContext({ baseURL: stack.panelUrl });
    const invited = await context.newPage();
    await invited.goto(path);
    expect(await textOf(invited.locator("main"))).toContain(email);
    await invited.getByLabel("Seu nome").fill("Nova Pessoa");
    await invited.getByLabel(/^Senha/).fill(NEW_PASSWORD);
    await invited.getByLabel("Repita a senha").fill(NEW_PASSWORD);
    await invited.getByRole("button", { name: "Criar acesso" }).click();
    await invited.waitForURL((url) => url.pathname === "/");
    expect(await textOf(invited.locator(".who"))).toContain("Nova Pessoa (administrador)");

    // The link worked once.
    const again = await context.newPage();
    const response = await again.goto(path);
    expect(response?.status()).toBe(404);
    await context.close();

    await owner.reload();
    expect(await textOf(owner.getByRole("row", { name: new RegExp(email) }))).toContain("administrador");
    expect(await textOf(owner.locator("main"))).toContain("Nenhum convite pendente.");
    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: { in: ["panel.user.invited", "panel.user.invite_accepted"] } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor.startsWith("panel:") ? entry.actor : "user"])).toEqual([
      ["panel.user.invited", `panel:${tenant.users.owner.email}`],
      ["panel.user.invite_accepted", "user"],
    ]);
    await owner.context().close();
  });

  it("shows the service's refusal when the email is already a user, and cancels a pending invite", async () => {
    const tenant = await createTenant(stack.db);
    const owner = await signIn(stack, tenant.users.owner.email);
    await owner.goto("/usuarios");
    await owner.getByLabel("E-mail de quem vai entrar").fill(tenant.users.viewer.email);
    await owner.getByRole("button", { name: "Convidar" }).click();
    expect(await textOf(owner.getByRole("alert"))).toBe("Já existe um usuário com este e-mail.");

    const email = `cancelada-${randomBytes(3).toString("hex")}@exemplo.com.br`;
    await owner.getByLabel("E-mail de quem vai entrar").fill(email);
    await owner.getByRole("button", { name: "Convidar" }).click();
    const path = new URL(await textOf(owner.getByLabel("Link do convite"))).pathname;
    await owner.goto("/usuarios");
    owner.once("dialog", (dialog) => void dialog.accept());
    await owner.getByRole("button", { name: `Cancelar o convite de ${email}` }).click();
    expect(await textOf(owner.getByRole("status"))).toContain("Convite cancelado");
    const response = await owner.request.get(path);
    expect(response.status()).toBe(404);
    await owner.context().close();
  });

  it("changes a role, in force on the user's next click, and never demotes the last owner", async () => {
    const tenant = await createTenant(stack.db);
    const admin = await signIn(stack, tenant.users.admin.email);
    expect(await textOf(admin.locator(".who"))).toContain("(administrador)");
    const adminCsrf = await csrfOf(admin);

    const owner = await signIn(stack, tenant.users.owner.email);
    await owner.goto("/usuarios");
    await owner.getByRole("combobox", { name: `Novo papel de ${tenant.users.admin.email}` }).selectOption("viewer");
    await owner.getByRole("button", { name: `Alterar papel de ${tenant.users.admin.email}` }).click();
    expect(await textOf(owner.getByRole("status"))).toContain("Papel alterado");

    await admin.reload();
    expect(await textOf(admin.locator(".who"))).toContain("(leitura)");
    // The same session, the same token: now refused as a viewer.
    const resend = await admin.request.post("/entregas/reenviar-falhas", { form: { _csrf: adminCsrf } });
    expect(resend.status()).toBe(403);

    await owner.getByRole("combobox", { name: `Novo papel de ${tenant.users.owner.email}` }).selectOption("admin");
    await owner.getByRole("button", { name: `Alterar papel de ${tenant.users.owner.email}` }).click();
    expect(await textOf(owner.getByRole("alert"))).toBe("A conta precisa de pelo menos um proprietário.");
    expect((await stack.db.panelUser.findUniqueOrThrow({ where: { id: tenant.users.owner.id } })).role).toBe("owner");
    await admin.context().close();
    await owner.context().close();
  });

  it("removes a user, whose open session stops working at once, and never the last owner", async () => {
    const tenant = await createTenant(stack.db);
    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/auditoria");

    const owner = await signIn(stack, tenant.users.owner.email);
    await owner.goto("/usuarios");
    owner.once("dialog", (dialog) => void dialog.accept());
    await owner.getByRole("button", { name: `Remover ${tenant.users.viewer.email}` }).click();
    expect(await textOf(owner.getByRole("status"))).toContain("Usuário removido");
    expect(await owner.getByRole("row", { name: new RegExp(tenant.users.viewer.email) }).count()).toBe(0);

    await viewer.reload();
    expect(new URL(viewer.url()).pathname).toBe("/entrar");

    owner.once("dialog", (dialog) => void dialog.accept());
    await owner.getByRole("button", { name: `Remover ${tenant.users.owner.email}` }).click();
    expect(await textOf(owner.getByRole("alert"))).toBe("A conta precisa de pelo menos um proprietário.");
    const removed = await stack.db.auditEntry.findFirstOrThrow({
      where: { accountId: tenant.accountId, action: "panel.user.removed" },
    });
    expect(removed).toMatchObject({ actor: `panel:${tenant.users.owner.email}`, target: tenant.users.viewer.id });
    await viewer.context().close();
    await owner.context().close();
  });
});
