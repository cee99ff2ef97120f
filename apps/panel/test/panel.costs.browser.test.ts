import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { addBusinessNumber } from "@gw/core/accounts";
import type { Db } from "@gw/db";
import { isolatedDatabase, testActor } from "@gw/testkit";
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

// The Custos page in Chromium, against a database of its own: two weeks of priced messages are written before the
// stack starts, so the dispatcher's rollup (run at start) rolls the closed days and today is read live, as in
// production. Totals, chart, tables, the number and date filters, the rate card, roles, the CSP and a phone screen.

const DAY_MS = 86_400_000;
const DAYS = 14;
const SECOND_NUMBER = "15550001234";

/** São Paulo's calendar day `daysAgo` days before today. */
function dayAgo(daysAgo: number): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(
    new Date(Date.now() - daysAgo * DAY_MS),
  );
}

/**
 * Each day `d` days ago: (d % 4) + 1 marketing and 2 utility templates charged, 1 utility inside the window (free)
 * on the first number; on the second, 1 authentication charged on even days and 1 free service reply. At 10:00 in
 * São Paulo (13:00 UTC), today's too. At the default rates (0.3350, 0.0364) that is 33 marketing, 28 utility and
 * 7 authentication charged: R$ 11,0550 + R$ 1,0192 + R$ 0,2548 = R$ 12,3290.
 */
async function seed(db: Db, tenant: TestTenant, other: TestTenant): Promise<void> {
  const rows: { accountId: string; number: string; at: Date; category: string; type: string }[] = [];
  for (let d = 0; d < DAYS; d += 1) {
    const at = new Date(`${dayAgo(d)}T13:00:00Z`);
    const add = (count: number, number: string, category: string, type = "regular") => {
      for (let i = 0; i < count; i += 1) rows.push({ accountId: tenant.accountId, number, at, category, type });
    };
    add((d % 4) + 1, tenant.phoneNumberId, "marketing");
    add(2, tenant.phoneNumberId, "utility");
    add(1, tenant.phoneNumberId, "utility", "free_customer_service");
    add(d % 2 === 0 ? 1 : 0, SECOND_NUMBER, "authentication");
    add(1, SECOND_NUMBER, "service", "free_customer_service");
  }
  // Another account's: a group message (no rate: estimated at marketing's), never on the tenant's page.
  rows.push({
    accountId: other.accountId,
    number: other.phoneNumberId,
    at: new Date(`${dayAgo(1)}T13:00:00Z`),
    category: "group_marketing",
    type: "regular",
  });
  await db.message.createMany({
    data: rows.map((row) => ({
      accountId: row.accountId,
      phoneNumberId: row.number,
      to: "5511999990000",
      wamid: `wamid.${randomBytes(10).toString("hex")}`,
      kind: "template",
      status: "delivered",
      createdAt: row.at,
      pricing: { pricing_model: "PMP", category: row.category, type: row.type },
    })),
  });
}

const cardValue = (page: Page, label: string) =>
  textOf(
    page
      .locator(".card")
      .filter({ has: page.getByText(label, { exact: true }) })
      .locator(".value"),
  );

async function tableRows(page: Page, caption: string): Promise<string[][]> {
  const rows = page.getByRole("table", { name: caption }).locator("tbody tr");
  await rows.first().waitFor({ state: "visible", timeout: 15_000 });
  const out: string[][] = [];
  for (const row of await rows.all())
    out.push((await row.locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim()));
  return out;
}

describe("panel Custos in Chromium", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    database = await isolatedDatabase();
    tenant = await createTenant(database.db);
    other = await createTenant(database.db);
    await addBusinessNumber(
      { db: database.db },
      {
        actor: testActor,
        accountId: tenant.accountId,
        phoneNumberId: SECOND_NUMBER,
        wabaId: tenant.wabaId,
        displayNumber: "+55 21 3000-0000",
      },
    );
    await seed(database.db, tenant, other);
    stack = await startPanelStack({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await stack.close();
    await database.drop();
  });

  it("shows the estimated cost of the last 30 days: totals, a chart per day and category, the tables and the rates", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.getByRole("link", { name: "Custos" }).click();
    await page.waitForURL((url) => url.pathname === "/custos");
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Custos");

    expect(await cardValue(page, "Custo estimado")).toBe("R$ 12,33");
    expect(await cardValue(page, "Mensagens cobradas")).toBe("68");
    expect(await cardValue(page, "Não cobradas")).toBe("28");
    expect(await cardValue(page, "Com preço informado")).toBe("96");
    // Nothing of the other account's unrated group message.
    expect(await page.getByRole("status").count()).toBe(0);

    // One stacked bar per day with charges: 14 days × (marketing + utility) + 7 authentication segments.
    const chart = page.getByRole("img", { name: "Custo estimado por dia, por categoria" });
    expect(await chart.locator("rect").count()).toBe(DAYS * 2 + 7);
    expect(await chart.locator("rect.serie-0").count()).toBe(DAYS);
    expect(await page.locator(".legend li").allInnerTexts()).toEqual(["Marketing", "Utilidade", "Autenticação"]);

    expect(await tableRows(page, "Mensagens com preço informado pela Meta, por categoria e tipo de preço")).toEqual([
      ["Autenticação", "cobrada", "7", "7", "R$ 0,25"],
      ["Marketing", "cobrada", "33", "33", "R$ 11,06"],
      ["Serviço", "gratuita (janela de atendimento)", "14", "0", "R$ 0,00"],
      ["Utilidade", "gratuita (janela de atendimento)", "14", "0", "R$ 0,00"],
      ["Utilidade", "cobrada", "28", "28", "R$ 1,02"],
    ]);
    const byDay = await tableRows(page, "Mensagens e custo estimado de cada dia com mensagens");
    expect(byDay).toHaveLength(DAYS);
    const [year, month, date] = dayAgo(0).split("-");
    // Today (0 days ago): 1 marketing, 2 + 1 utility, 1 authentication, 1 service; read live, not from the rollup.
    expect(byDay.at(-1)).toEqual([`${date}/${month}/${year}`, "6", "4", "R$ 0,44"]);
    expect(await tableRows(page, "Mensagens e custo estimado de cada número da conta")).toEqual([
      [`+55 11 4000-0000 phone_number_id ${tenant.phoneNumberId}`, "75", "61", "R$ 12,07"],
      [`+55 21 3000-0000 phone_number_id ${SECOND_NUMBER}`, "21", "7", "R$ 0,25"],
    ]);
    const rates = await tableRows(page, "Preço por mensagem cobrada, por categoria");
    expect(rates.find((row) => row[0] === "Marketing")).toEqual([
      "Marketing",
      "R$ 0,3350",
      "01/07/2025",
      "tabela do gateway",
    ]);
    await screenshot(page, "custos");
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it("filters by number and by dates, and says why a date typed was not used", async () => {
    const page = await signIn(stack, tenant.users.admin.email);
    await page.goto("/custos");
    await page.getByRole("combobox", { name: /^Número/ }).selectOption(SECOND_NUMBER);
    await page.getByRole("button", { name: "Filtrar" }).click();
    await page.waitForURL(/numero=15550001234/);
    expect(await cardValue(page, "Custo estimado")).toBe("R$ 0,25");
    expect(await cardValue(page, "Mensagens cobradas")).toBe("7");

    // The last two days only: day 1 (2 marketing, 2 utility) and today (1 marketing, 2 utility, 1 authentication).
    await page.goto(`/custos?de=${dayAgo(1)}&ate=${dayAgo(0)}`);
    expect(await cardValue(page, "Mensagens cobradas")).toBe("8");
    expect(await cardValue(page, "Custo estimado")).toBe("R$ 1,19");
    expect(
      await page
        .getByRole("img", { name: /Custo estimado por dia/ })
        .locator("rect.serie-0")
        .count(),
    ).toBe(2);

    await page.goto(`/custos?de=2026-02-30&ate=${dayAgo(0)}`);
    expect(await textOf(page.getByRole("alert"))).toContain("Data inválida");
    await page.goto(`/custos?de=${dayAgo(0)}&ate=${dayAgo(3)}`);
    expect(await textOf(page.getByRole("alert"))).toContain("A data inicial é posterior à final");
    await page.goto("/custos?de=2020-01-01&ate=2026-11-28");
    expect(await textOf(page.getByRole("alert"))).toContain("no máximo 366 dias");
    await page.context().close();
  });

  it("flags charged messages of a category without a rate, estimated at the marketing rate", async () => {
    const page = await signIn(stack, other.users.owner.email);
    await page.goto("/custos");
    expect(await cardValue(page, "Custo estimado")).toBe("R$ 0,34");
    expect(await textOf(page.getByRole("status"))).toContain(
      "1 mensagem cobrada é de uma categoria sem tarifa na tabela e foi estimada pela tarifa de marketing",
    );
    expect(await tableRows(page, "Mensagens com preço informado pela Meta, por categoria e tipo de preço")).toEqual([
      ["Grupo: marketing", "cobrada", "1", "1 1 pela tarifa de marketing", "R$ 0,34"],
    ]);
    await page.context().close();
  });

  it("fits a phone-width screen (375 px): the chart shrinks and the tables scroll inside their frame", async () => {
    const page = await signIn(stack, tenant.users.owner.email);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto("/custos");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBe(375);
    await page.context().close();
  });
});
