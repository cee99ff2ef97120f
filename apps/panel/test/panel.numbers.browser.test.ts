import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomInt } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { addBusinessNumber } from "@gw/core/accounts";
import { setNumberMessagingRate } from "@gw/core/throughput";
import { createTenant, screenshot, signIn, startPanelStack, type PanelStack, type TestTenant } from "@gw/test-stack";
import { testActor } from "@gw/testkit";

jest.setTimeout(60_000);

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
});
