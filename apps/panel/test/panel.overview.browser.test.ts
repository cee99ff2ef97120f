import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import {
  createTenant,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

jest.setTimeout(60_000);

const HOUR = 3600_000;
const ago = (ms: number) => new Date(Date.now() - ms);

const cardValue = (page: Page, label: string) => textOf(page.locator(".card", { hasText: label }).locator(".value"));

describe("the overview in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    const { db } = stack;
    const accountId = tenant.accountId;
    const integration = await db.integration.create({
      data: { accountId, url: "https://erp.exemplo.com.br/webhooks", events: ["message.status"], signingSecret: "s" },
    });
    // Written in their final state at once (never pending and due), so the running dispatcher leaves them alone.
    const delivery = async (status: string, fields: { attemptCount?: number; lastErrorKind?: string } = {}) => {
      await db.delivery.create({
        data: {
          accountId,
          integrationId: integration.id,
          event: "message.status",
          status,
          body: "{}",
          occurredAt: ago(HOUR),
          attemptCount: fields.attemptCount ?? 1,
          // Not due for hours: the sweep only queues pending rows due within minutes.
          nextAttemptAt: status === "pending" ? new Date(Date.now() + 6 * HOUR) : null,
          updatedAt: ago(5 * 60_000),
          ...(fields.lastErrorKind ? { lastErrorKind: fields.lastErrorKind, lastStatusCode: 503 } : {}),
        },
      });
    };
    for (const status of ["sent", "delivered", "read", "read"])
      await db.message.create({
        data: {
          accountId,
          phoneNumberId: tenant.phoneNumberId,
          to: "5511999990000",
          wamid: `wamid.${randomBytes(8).toString("hex")}`,
          kind: "template",
          status,
          createdAt: ago(HOUR),
        },
      });
    for (let i = 0; i < 3; i += 1) await delivery("delivered");
    await delivery("failed", { attemptCount: 7, lastErrorKind: "http_status" });
    await delivery("pending", { attemptCount: 2, lastErrorKind: "timeout" });
    for (const event of ["APPROVED", "REJECTED"])
      await db.templateNotice.create({
        data: {
          accountId,
          wabaId: tenant.wabaId,
          kind: "status",
          templateName: "pedido",
          event,
          occurredAt: new Date(),
        },
      });
  });
  afterAll(async () => {
    await stack.close();
  });

  it("shows the day's sends and deliveries, the success rate, failing integrations, dead letters and unread notices", async () => {
    const page = await signIn(stack, tenant.users.owner.email);
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Visão geral");
    expect(await cardValue(page, "Envios")).toBe("4");
    // Counts agree with their words, at a laptop's width and a phone's (one helper: views/glossary.ts, plural).
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      expect([width, await textOf(page.locator(".card", { hasText: "Envios" }).locator(".hint"))]).toEqual([
        width,
        "1 enviada · 1 entregue · 2 lidas",
      ]);
      expect([width, await textOf(page.locator(".card", { hasText: "Entregas de webhook" }).locator(".hint"))]).toEqual(
        [width, "1 pendente · 3 entregues · 1 falhou"],
      );
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await cardValue(page, "Entregas de webhook")).toBe("5");
    expect(await cardValue(page, "Taxa de sucesso")).toBe("75 %");
    expect(await cardValue(page, "Integrações falhando agora")).toBe("1");
    expect(await cardValue(page, "falha definitiva")).toBe("1");
    expect(await cardValue(page, "Avisos de template")).toBe("2");

    const failing = page.getByRole("table", { name: "Integrações com falhas na última hora" });
    const row = failing.getByRole("row", { name: /erp\.exemplo\.com\.br/ });
    expect(await textOf(row)).toContain("HTTP 503");
    await screenshot(page, "visao-geral");
    await page.getByRole("link", { name: "Ver as entregas pendentes" }).click();
    await page.waitForURL((url) => url.pathname === "/entregas" && url.searchParams.get("status") === "pending");
    await page.context().close();
  });

  it("fits a phone-width screen (375 px): wide tables scroll inside their frame, never the page", async () => {
    const page = await signIn(stack, tenant.users.owner.email);
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ["/", "/chaves", "/usuarios", "/auditoria"]) {
      await page.goto(path);
      expect({ path, width: await page.evaluate<number>("document.documentElement.scrollWidth") }).toEqual({
        path,
        width: 375,
      });
    }
    await page.context().close();
  });

  it("counts the notices each user has not read", async () => {
    const notice = await stack.db.templateNotice.findFirstOrThrow({ where: { accountId: tenant.accountId } });
    await stack.db.templateNoticeRead.create({ data: { noticeId: notice.id, userId: tenant.users.viewer.id } });
    const viewer = await signIn(stack, tenant.users.viewer.email);
    expect(await cardValue(viewer, "Avisos de template")).toBe("1");
    const admin = await signIn(stack, tenant.users.admin.email);
    expect(await cardValue(admin, "Avisos de template")).toBe("2");
    await viewer.context().close();
    await admin.context().close();
  });
});
