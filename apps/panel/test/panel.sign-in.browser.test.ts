import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
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

describe("panel sign-in in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;

  beforeAll(async () => {
    stack = await startPanelStack({ panelEnv: { PANEL_LOGIN_MAX_FAILURES_PER_EMAIL: "3" } });
    tenant = await createTenant(stack.db);
  });
  afterAll(async () => {
    await stack.close();
  });

  it("signs in, shows the account, and signs out (the old cookie no longer works)", async () => {
    const page = await signIn(stack, tenant.users.owner.email);
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toMatch("Visão geral");
    expect(await textOf(page.locator(".who"))).toContain("Padaria");
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === "gw_panel");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict" });

    await page.getByRole("button", { name: "Sair" }).click();
    await page.waitForURL(/\/entrar\?ok=saiu/);
    expect(await textOf(page.getByRole("status"))).toContain("Você saiu do painel");
    // The session row is gone: replaying the old cookie lands on the sign-in page.
    await page.context().addCookies([{ ...session!, expires: -1 }]);
    await page.goto("/integracoes");
    expect(new URL(page.url()).pathname).toBe("/entrar");
    await page.context().close();
  });

  it("refuses a wrong password, then throttles the email after the configured failures", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.panelUrl });
    const page = await context.newPage();
    await page.goto("/entrar");
    await screenshot(page, "entrar");
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await page.getByLabel("E-mail").fill(tenant.users.viewer.email);
      await page.getByLabel("Senha").fill("senha-errada-000");
      await page.getByRole("button", { name: "Entrar" }).click();
      expect(await textOf(page.getByRole("alert"))).toMatch(/E-mail ou senha incorretos/);
    }
    // Even the right password is refused while the email is throttled.
    await page.getByLabel("E-mail").fill(tenant.users.viewer.email);
    await page.getByLabel("Senha").fill(PASSWORD);
    await page.getByRole("button", { name: "Entrar" }).click();
    expect(await textOf(page.getByRole("alert"))).toMatch(/Muitas tentativas/);
    await context.close();
  });

  it("returns to the page asked for before signing in, but never to another site", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.panelUrl });
    const page = await context.newPage();
    await page.goto("/auditoria");
    expect(new URL(page.url()).pathname).toBe("/entrar");
    await page.getByLabel("E-mail").fill(tenant.users.admin.email);
    await page.getByLabel("Senha").fill(PASSWORD);
    await page.getByRole("button", { name: "Entrar" }).click();
    await page.waitForURL(/\/auditoria$/);

    await page.goto("/entrar?next=//evil.example.com/x");
    expect(new URL(page.url()).pathname).toBe("/");
    await context.close();
  });
});
