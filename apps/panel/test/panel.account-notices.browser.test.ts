import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Locator, Page } from "playwright-core";
import {
  createTenant,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

jest.setTimeout(90_000);

// "Avisos da conta" (issue 18 §4): Meta's account and number health webhooks, emitted by the provider sandbox and
// ingested by the API, shown as notices with what the gateway did; a banned WABA's banner on every page; the
// reason of a campaign the gateway paused; read per user; another account sees none of it.

const cells = async (row: Locator) =>
  (await row.locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());

const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

describe("panel Avisos da conta in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;
  let campaignId: string;

  async function sandbox(path: string, body: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { webhook_status: number }).webhook_status).toBe(200);
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    await fetch(`${stack.sandbox.url}/_sandbox/numbers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: tenant.phoneNumberId, display_phone_number: "+55 11 4000-0000" }),
    });
    const campaign = await stack.db.campaign.create({
      data: {
        accountId: tenant.accountId,
        name: "Black Friday",
        phoneNumberId: tenant.phoneNumberId,
        templateName: "hello_world",
        templateLanguage: "en_US",
        // Scheduled for later: the campaign worker another suite runs on this database leaves it alone.
        status: "scheduled",
        startAt: new Date(Date.now() + 3_600_000),
        createdBy: "test",
      },
    });
    campaignId = campaign.id;
    // In Meta's order: the number moves to high throughput, the portfolio's limit rises, an event Meta adds later,
    // a template's category is about to change, then the WABA is banned.
    await sandbox("/numbers/quality-update", {
      phone_number_id: tenant.phoneNumberId,
      waba_id: tenant.wabaId,
      event: "THROUGHPUT_UPGRADE",
    });
    await sandbox("/business-capability", { waba_id: tenant.wabaId, max_daily_conversations_per_business: "TIER_10K" });
    await sandbox("/account-update", { waba_id: tenant.wabaId, event: "SOMETHING_META_ADDS_LATER", detalhe: "novo" });
    await sandbox("/templates/category", {
      waba_id: tenant.wabaId,
      name: "hello_world",
      category: "MARKETING",
      impending: true,
    });
    await sandbox("/account-update", { waba_id: tenant.wabaId, event: "DISABLED_UPDATE" });
  });
  afterAll(async () => {
    await stack.close();
  });

  it("lists every notice as Meta sent it with what the platform did, the WABA's state above, and a banner on every page", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    // The banner is on every signed-in page.
    const banner = await textOf(page.getByRole("alert"));
    expect(banner).toContain(`Envios bloqueados na conta WhatsApp Business ${tenant.wabaId} desde`);
    expect(banner).toContain(`a Meta desativou a conta WhatsApp Business ${tenant.wabaId} (DISABLED_UPDATE: DISABLE)`);
    await page
      .getByRole("navigation", { name: "Seções do painel" })
      .getByRole("link", { name: "Avisos da conta" })
      .click();
    await page.waitForURL(/\/conta\/avisos$/);

    const situation = page.locator("table").first();
    expect(await cells(situation.locator("tbody tr").first())).toEqual([
      tenant.wabaId,
      expect.stringMatching(/^envios bloqueados desde \d{2}\/\d{2}\/\d{4}.* a Meta desativou a conta/),
      expect.stringMatching(/^10\.000 contatos \/ 24 h \(\d{2}\/\d{2}\/\d{4}/),
      "25",
    ]);

    expect(await textOf(page.getByRole("status"))).toBe("5 avisos não lidos.");
    const rows = page.locator("table").nth(1).locator("tbody tr");
    expect(await rows.count()).toBe(5);
    const texts = await Promise.all((await rows.all()).map(cells));
    // Newest first: [when, WABA, notice, details, what the platform did, read].
    expect(texts.map((row) => [row[2], row[4]])).toEqual([
      [
        "Conta conta desativada pela Meta DISABLED_UPDATE",
        expect.stringMatching(/^envios bloqueados campanha pausada$/),
      ],
      ["Categoria de template", "nada"],
      ["Conta evento novo SOMETHING_META_ADDS_LATER", "nada"],
      ["Limite do portfólio", "nada"],
      ["Número vazão elevada a 1.000 msg/s THROUGHPUT_UPGRADE", "vazão 1.000 msg/s"],
    ]);
    expect(texts[1]?.[3]).toMatch(
      /^O template hello_world \(en_US\) passará de UTILITY para MARKETING em .*: o preço de cada envio muda\./,
    );
    expect(texts[3]?.[3]).toMatch(/^Limite do portfólio: 10\.000 contatos \/ 24 h\. Até 25 números\./);
    expect(texts[4]?.[3]).toMatch(/^Número \+55 11 4000-0000\. Limite de mensagens: ilimitado\./);
    // An event the platform does not know is shown with everything Meta sent.
    const unknown = rows.nth(2);
    await unknown.getByText("Dados enviados pela Meta").click();
    expect(await textOf(unknown.locator("pre"))).toContain('"detalhe": "novo"');
    await screenshot(page, "conta-avisos");

    // The paused campaign links to its page, which says why.
    await rows.first().getByRole("link", { name: "campanha pausada" }).click();
    await page.waitForURL(new RegExp(`/campanhas/${campaignId}$`));
    expect(await textOf(page.locator(".pause-reason"))).toBe(
      `Pausada automaticamente: a Meta desativou a conta WhatsApp Business ${tenant.wabaId} (DISABLED_UPDATE: DISABLE). Os envios da conta estão bloqueados até a Meta reativá-la ou reconectá-la.`,
    );

    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto("/conta/avisos");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await page.context().close();
  });

  it("marks notices read per user (audited), filters by kind and unread, and refuses another account's notice (404)", async () => {
    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/conta/avisos");
    const rows = viewer.locator("table").nth(1).locator("tbody tr");
    await rows
      .nth(4)
      .getByRole("button", { name: /^Marcar como lido o aviso de / })
      .click();
    await viewer.waitForURL(/ok=lido/);
    expect(await textOf(viewer.locator(".notice.ok"))).toBe("Aviso marcado como lido.");
    expect(await textOf(viewer.getByRole("status").last())).toBe("4 avisos não lidos.");

    await viewer.getByLabel("Tipo").selectOption("account_update");
    await viewer.getByLabel("Estado").selectOption("nao_lidos");
    await viewer.getByRole("button", { name: "Filtrar" }).click();
    await viewer.waitForURL(/tipo=account_update/);
    expect(await viewer.locator("table").nth(1).locator("tbody tr").count()).toBe(2);

    await viewer.getByRole("button", { name: "Marcar todos como lidos" }).click();
    await viewer.waitForURL(/ok=todos_lidos/);
    expect(await textOf(viewer.getByRole("status").last())).toBe("Nenhum aviso por ler.");

    // Read state is the user's own: the admin still has all five unread.
    const admin = await signIn(stack, tenant.users.admin.email);
    await admin.goto("/conta/avisos");
    expect(await textOf(admin.getByRole("status"))).toBe("5 avisos não lidos.");
    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: { startsWith: "panel.account_event." } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["panel.account_event.read", `panel:${tenant.users.viewer.email}`],
      ["panel.account_event.read_all", `panel:${tenant.users.viewer.email}`],
    ]);

    // Resuming the campaign the ban paused is refused while the block lasts.
    await admin.goto(`/campanhas/${campaignId}`);
    await admin.getByRole("button", { name: "Retomar" }).click();
    await admin.waitForURL(/erro=bloqueada/);
    expect(await textOf(admin.locator(".notice.error").last())).toMatch(
      /^Os envios do número desta campanha estão bloqueados/,
    );

    // Another account: no banner, no notices, and this account's notice is not found.
    const stranger = await signIn(stack, other.users.owner.email);
    await stranger.goto("/conta/avisos");
    expect(await stranger.getByRole("alert").count()).toBe(0);
    expect(await textOf(stranger.locator(".empty"))).toBe("Nenhum aviso da Meta sobre a conta ainda.");
    const mine = await stack.db.accountEvent.findFirstOrThrow({ where: { accountId: tenant.accountId } });
    const response = await stranger.request.post(`/conta/avisos/${mine.id}/lido`, {
      form: { _csrf: await csrfOf(stranger) },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(404);
    await viewer.context().close();
    await admin.context().close();
    await stranger.context().close();
  });
});
