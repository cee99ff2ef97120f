import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomInt } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { addBusinessNumber } from "@gw/core/accounts";
import { setNumberMessagingRate } from "@gw/core/throughput";
import {
  createTenant,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";
import { testActor } from "@gw/testkit";

jest.setTimeout(60_000);

const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

/** The rows of the numbers table as their cells' text, whitespace collapsed. */
async function rowsOf(page: Page): Promise<string[][]> {
  const rows: Locator = page.locator("tbody tr");
  await rows.first().waitFor({ state: "visible", timeout: 15_000 });
  const out: string[][] = [];
  for (const row of await rows.all())
    out.push((await row.locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim()));
  return out;
}

describe("panel Números in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;
  // Its own id each run: phone_number_id is unique across the database, which a rerun on it keeps.
  const second = `1555${randomInt(1_000_000, 9_999_999)}`;

  async function control(path: string, body: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    await addBusinessNumber(
      { db: stack.db },
      {
        actor: testActor,
        accountId: tenant.accountId,
        phoneNumberId: second,
        wabaId: tenant.wabaId,
        displayNumber: "+55 21 3000-0000",
      },
    );
    await setNumberMessagingRate({ db: stack.db }, { phoneNumberId: second, ratePerSecond: 20, actor: testActor });
    await control("/numbers", {
      phone_number_id: tenant.phoneNumberId,
      verified_name: "Padaria Verificada",
      quality_rating: "YELLOW",
      messaging_limit_tier: "TIER_10K",
      throughput_level: "HIGH",
    });
    await control("/numbers", { phone_number_id: second, quality_rating: "RED", messaging_limit_tier: "TIER_250" });
  });
  afterAll(async () => {
    await stack.close();
  });

  it("shows each number with the quality, tier and throughput Meta reports, and the rate the operator set", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    await page.goto("/numeros");
    const rows = await rowsOf(page);
    expect(rows).toEqual([
      [
        expect.stringMatching(
          new RegExp(`^\\+55 11 4000-0000 padrão phone_number_id ${tenant.phoneNumberId} na Meta: \\+`),
        ),
        "Padaria Verificada",
        "média (YELLOW)",
        "10.000 contatos / 24 h",
        "alto",
        "80 msg/s",
        "desligada",
        `${tenant.wabaId} Templates`,
        "nenhum",
      ],
      [
        expect.stringMatching(new RegExp(`^\\+55 21 3000-0000 phone_number_id ${second}`)),
        "Empresa Sandbox",
        "baixa (RED)",
        "250 contatos / 24 h",
        "padrão",
        "20 msg/s",
        "desligada",
        `${tenant.wabaId} Templates`,
        "nenhum",
      ],
    ]);
    // Another account's number is not listed.
    expect(rows.flat().join(" ")).not.toContain(other.phoneNumberId);
    expect(await page.getByRole("alert").count()).toBe(0);
    await screenshot(page, "numeros");

    // Each number links to its WABA's catalogue.
    await page.getByRole("link", { name: "Templates da WABA do número +55 21 3000-0000" }).click();
    await page.waitForURL(new RegExp(`/templates\\?numero=${second}$`));
    expect(await page.locator("main .hint").first().textContent()).toContain(tenant.wabaId);
    await page.context().close();
  });

  it("shows a number Meta could not be asked about as unknown, without hiding the other", async () => {
    // One of the two reads fails (whichever comes first); the other is answered.
    await control("/faults", { mode: "500", route: "numbers", count: 1 });
    const page = await signIn(stack, tenant.users.viewer.email);
    await page.goto("/numeros");
    const rows = await rowsOf(page);
    expect(rows).toHaveLength(2);
    const unknown = rows.filter((row) => row[2]?.startsWith("desconhecida"));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.slice(1, 5)).toEqual([
      "desconhecido",
      "desconhecida Não foi possível consultar a Meta sobre este número agora.",
      "desconhecido",
      "desconhecido",
    ]);
    const known = rows.find((row) => !row[2]?.startsWith("desconhecida"));
    expect(["média (YELLOW)", "baixa (RED)"]).toContain(known?.[2]);
    expect(await page.getByRole("alert").textContent()).toMatch(/Não foi possível consultar a Meta sobre 1 número/);
    await page.context().close();
  });

  it("shows Meta's last health notice of each number, the rate it raised, the portfolio's limit and a blocked WABA", async () => {
    const healthy = await createTenant(stack.db);
    await control("/numbers", { phone_number_id: healthy.phoneNumberId, display_phone_number: "+55 11 4000-0000" });
    await control("/numbers/quality-update", {
      phone_number_id: healthy.phoneNumberId,
      waba_id: healthy.wabaId,
      event: "THROUGHPUT_UPGRADE",
    });
    await control("/business-capability", { waba_id: healthy.wabaId, max_daily_conversations_per_business: 2000 });
    const page = await signIn(stack, healthy.users.viewer.email);
    await page.goto("/numeros");
    const [row] = await rowsOf(page);
    expect(row?.slice(5)).toEqual([
      "1.000 msg/s",
      "desligada",
      `${healthy.wabaId} limite do portfólio: 2.000 contatos / 24 h Templates`,
      expect.stringMatching(/^vazão elevada a 1\.000 msg\/s \(THROUGHPUT_UPGRADE\) \d{2}\/\d{2}\/\d{4}/),
    ]);
    expect(await page.getByRole("alert").count()).toBe(0);

    // Meta cannot be asked now: the figures its last webhook reported are shown, marked as such.
    await control("/faults", { mode: "500", route: "numbers", count: 1 });
    await page.goto("/numeros");
    const [unknown] = await rowsOf(page);
    expect(unknown?.slice(3, 5)).toEqual(["ilimitado (último aviso da Meta)", "alto (último aviso da Meta)"]);

    await control("/account-update", { waba_id: healthy.wabaId, event: "PARTNER_REMOVED" });
    await page.goto("/numeros");
    expect(await page.getByRole("alert").first().textContent()).toMatch(/Envios bloqueados/);
    expect((await rowsOf(page))[0]?.[7]).toContain("envios bloqueados");
    await page.context().close();
  });

  describe("the Marketing Messages API setting of each number", () => {
    const MARKETING_COLUMN = 6;
    const formPath = (phoneNumberId: string) => `/numeros/${phoneNumberId}/mensagens-de-marketing`;

    /** The number's setting as the database keeps it. */
    const stored = async (phoneNumberId: string) =>
      (await stack.db.businessNumber.findUniqueOrThrow({ where: { phoneNumberId } })).marketingMessages;
    const audits = () =>
      stack.db.auditEntry.findMany({
        where: { accountId: tenant.accountId, action: "panel.number.marketing_messages" },
        orderBy: { id: "asc" },
      });
    /** GET /public/v1/numbers with the tenant's key: what the integrator sees. */
    async function apiSettings(): Promise<Record<string, string>> {
      const response = await fetch(`${stack.apiUrl}/public/v1/numbers`, {
        headers: { authorization: `Bearer ${tenant.apiKey}` },
      });
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as {
        data: { numbers: { phone_number_id: string; marketing_messages: string }[] };
      };
      return Object.fromEntries(data.numbers.map((number) => [number.phone_number_id, number.marketing_messages]));
    }

    it("an owner turns it on for one number and off again: the page, the API and the audit trail follow", async () => {
      const page = await signIn(stack, tenant.users.owner.email);
      await page.goto("/numeros");
      expect(await textOf(page.locator("#mensagens-de-marketing"))).toMatch(
        /^API de Mensagens de Marketing: ligada num número, os templates de marketing dele .* cobra como marketing_lite; .* adesão a essa API na Meta\. Uma recusa da Meta nela é mostrada como veio, e a mensagem nunca é reenviada pela Cloud API\.$/,
      );
      expect((await rowsOf(page)).map((row) => row[MARKETING_COLUMN])).toEqual(["desligada Ligar", "desligada Ligar"]);

      await page
        .getByRole("button", { name: "Ligar a API de Mensagens de Marketing do número +55 21 3000-0000" })
        .click();
      await page.waitForURL(new RegExp(`/numeros\\?ok=marketing_ligada&numero=${second}$`));
      expect(await textOf(page.getByRole("status"))).toBe(
        "API de Mensagens de Marketing ligada no número +55 21 3000-0000: a partir do próximo envio, os templates de marketing do número vão por ela.",
      );
      expect((await rowsOf(page)).map((row) => row[MARKETING_COLUMN])).toEqual(["desligada Ligar", "ligada Desligar"]);
      expect(await stored(second)).toBe(true);
      expect(await stored(tenant.phoneNumberId)).toBe(false);
      expect(await apiSettings()).toEqual({ [tenant.phoneNumberId]: "off", [second]: "on" });

      await page
        .getByRole("button", { name: "Desligar a API de Mensagens de Marketing do número +55 21 3000-0000" })
        .click();
      await page.waitForURL(new RegExp(`/numeros\\?ok=marketing_desligada&numero=${second}$`));
      expect(await textOf(page.getByRole("status"))).toMatch(
        /^API de Mensagens de Marketing desligada no número \+55 21 3000-0000: .* voltam à Cloud API\.$/,
      );
      expect((await rowsOf(page)).map((row) => row[MARKETING_COLUMN])).toEqual(["desligada Ligar", "desligada Ligar"]);
      expect(await stored(second)).toBe(false);
      expect(await apiSettings()).toEqual({ [tenant.phoneNumberId]: "off", [second]: "off" });

      // Each change audited once, as the owner, with the value before and after.
      const actor = `panel:${tenant.users.owner.email}`;
      expect(await audits()).toEqual([
        expect.objectContaining({ actor, target: `number:${second}`, details: { from: "off", to: "on" } }),
        expect.objectContaining({ actor, target: `number:${second}`, details: { from: "on", to: "off" } }),
      ]);
      // A resent "off" (a second tab, a double submit) changes nothing and is not audited again.
      const resent = await page.request.post(formPath(second), {
        form: { _csrf: await csrfOf(page), ativar: "0" },
        maxRedirects: 0,
      });
      expect(resent.status()).toBe(303);
      expect(await audits()).toHaveLength(2);
      await page.context().close();
    });

    it("shows an admin the buttons, and a viewer the setting without them; a viewer's forged POST is 403", async () => {
      const admin = await signIn(stack, tenant.users.admin.email);
      await admin.goto("/numeros");
      expect(await admin.locator("tbody").getByRole("button").count()).toBe(2);
      await admin.context().close();

      const viewer = await signIn(stack, tenant.users.viewer.email);
      await viewer.goto("/numeros");
      expect((await rowsOf(viewer)).map((row) => row[MARKETING_COLUMN])).toEqual(["desligada", "desligada"]);
      expect(await viewer.locator("main form[method=post]").count()).toBe(0);
      expect(await textOf(viewer.locator("#mensagens-de-marketing"))).toMatch(
        /Só o proprietário e os administradores da conta a ligam e desligam\.$/,
      );
      const before = await audits();
      const forged = await viewer.request.post(formPath(second), {
        form: { _csrf: await csrfOf(viewer), ativar: "1" },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toContain("Seu papel nesta conta não permite esta ação.");
      expect(await stored(second)).toBe(false);
      expect(await audits()).toEqual(before);
      await viewer.context().close();
    });

    it("refuses a POST without the CSRF token (403), another account's number (404) and a malformed form (400)", async () => {
      const owner = await signIn(stack, tenant.users.owner.email);
      const _csrf = await csrfOf(owner);
      const post = async (path: string, form: Record<string, string>) =>
        (await owner.request.post(path, { form, maxRedirects: 0 })).status();
      const before = await audits();

      expect(await post(formPath(second), { ativar: "1" })).toBe(403);
      expect(await stored(second)).toBe(false);
      expect(await post(formPath(other.phoneNumberId), { _csrf, ativar: "1" })).toBe(404);
      expect(await stored(other.phoneNumberId)).toBe(false);
      expect(await post(formPath("nao-e-um-numero"), { _csrf, ativar: "1" })).toBe(404);
      expect(await post(formPath(second), { _csrf, ativar: "sim" })).toBe(400);
      expect(await stored(second)).toBe(false);
      expect(await audits()).toEqual(before);
      // The same form with its token goes through: the refusals above were the token's and the ids' doing.
      expect(await post(formPath(second), { _csrf, ativar: "1" })).toBe(303);
      expect(await stored(second)).toBe(true);
      expect(await post(formPath(second), { _csrf, ativar: "0" })).toBe(303);
      await owner.context().close();
    });
  });
});
