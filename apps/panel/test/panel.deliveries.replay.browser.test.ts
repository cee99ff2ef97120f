import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { eventually, reply, startReceiver, type Receiver, testActor, testSecretBox } from "@gw/testkit";
import {
  createTenant,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

// Issue 21 in the panel's Entregas page: "reenviar as entregas de um período" (the replay by time range, with its
// progress page) and "Exportar CSV" (the delivery log with the page's filters), in Chromium.

jest.setTimeout(90_000);

const DAY = 86_400_000;

describe("panel Entregas: replay of a period and CSV export, in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let receiver: Receiver;
  let integrationId: string;
  let admin: Page;
  let viewer: Page;
  /** Three days ago in São Paulo (YYYY-MM-DD). */
  const day = new Date(Date.now() - 3 * DAY - 3 * 3_600_000).toISOString().slice(0, 10);
  /** Noon of that day in São Paulo, plus `minutes`. */
  const onDay = (minutes: number, plusDays = 0) =>
    new Date(new Date(`${day}T12:00:00-03:00`).getTime() + plusDays * DAY + minutes * 60_000);

  async function storedDelivery(status: string, createdAt: Date, lastError: string | null = null): Promise<string> {
    const row = await stack.db.delivery.create({
      data: {
        accountId: tenant.accountId,
        integrationId,
        event: "message.status",
        status,
        body: "{}",
        attemptCount: 7,
        lastStatusCode: status === "failed" ? 500 : 200,
        lastError,
        occurredAt: createdAt,
        createdAt,
      },
    });
    const body = JSON.stringify({
      event: "message.status",
      occurred_at: createdAt.toISOString(),
      delivery_id: row.id.toString(),
      data: { message_id: `wamid.${row.id}` },
    });
    await stack.db.delivery.update({ where: { id: row.id }, data: { body } });
    return row.id.toString();
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    receiver = await startReceiver((_request, res) => reply(res, 200, "ok"));
    const integration = await setIntegration(
      { db: stack.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { actor: testActor, accountId: tenant.accountId, url: receiver.url, events: ["message.status"] },
    );
    integrationId = integration.id;
    admin = await signIn(stack, tenant.users.admin.email);
    admin.on("dialog", (dialog) => void dialog.accept());
    viewer = await signIn(stack, tenant.users.viewer.email);
  });
  afterAll(async () => {
    await admin.context().close();
    await viewer.context().close();
    await receiver.close();
    await stack.close();
  });

  it("replays the failed deliveries of a period from the form, shows its progress and audits it in the admin's name", async () => {
    const failed = [await storedDelivery("failed", onDay(0)), await storedDelivery("failed", onDay(5))];
    const delivered = await storedDelivery("delivered", onDay(10));
    const nextDay = await storedDelivery("failed", onDay(0, 1));

    await admin.goto("/entregas");
    await admin.getByText("Reenviar as entregas de um período").click();
    const form = admin.locator('form[action="/entregas/reenviar-periodo"]');
    await form.getByLabel("Início do período").fill(day);
    await form.getByLabel("Fim do período").fill(day);
    await form.getByRole("combobox", { name: /^Status do reenvio/ }).selectOption("failed");
    await form.getByRole("combobox", { name: /^Integração/ }).selectOption(integrationId);
    await screenshot(admin, "entregas-reenvio-periodo");
    await form.getByRole("button", { name: "Reenviar período" }).click();
    await admin.waitForURL(/\/entregas\/reenvios\/[0-9a-f-]{36}\?ok=criado$/);
    expect(await textOf(admin.getByRole("status"))).toContain("Reenvio registrado");
    const replayId = new URL(admin.url()).pathname.split("/").at(-1) ?? "";

    const sent = await eventually(
      () => {
        const ids = receiver.requests.map((request) => request.headers["x-pt-delivery-id"]);
        return failed.every((id) => ids.includes(id)) ? ids : null;
      },
      { timeoutMs: 20_000, what: "the period's failed deliveries to be sent again" },
    );
    expect(sent).not.toContain(delivered);
    expect(sent).not.toContain(nextDay);
    expect(receiver.requests.every((request) => request.headers["x-pt-attempt"] === "8")).toBe(true);

    await eventually(
      async () => {
        await admin.reload();
        return (await textOf(admin.locator("dd .badge"))) === "concluído";
      },
      { timeoutMs: 20_000, what: "the progress page to show the replay completed" },
    );
    const progress = admin.getByLabel("Andamento do reenvio");
    expect(await textOf(progress.locator("dt:has-text('Entregas encontradas') + dd"))).toBe("2");
    expect(await textOf(progress.locator("dt:has-text('Reenfileiradas') + dd"))).toBe("2");
    expect(await textOf(progress.locator("dt:has-text('Pedido por') + dd"))).toBe(`panel:${tenant.users.admin.email}`);

    await admin.goto("/entregas");
    const replays = admin.getByRole("table", { name: "Reenvios por período" });
    expect(await textOf(replays.locator("tbody tr").first())).toContain("concluído");
    expect(await replays.getByRole("link", { name: "Acompanhar" }).first().getAttribute("href")).toBe(
      `/entregas/reenvios/${replayId}`,
    );

    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, target: `replay:${replayId}` },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["panel.delivery_replay.created", `panel:${tenant.users.admin.email}`],
      ["webhook.retry", `panel:${tenant.users.admin.email}`],
    ]);
  });

  it("refuses a period over 31 days, and offers the replay only to who may resend", async () => {
    await admin.goto("/entregas");
    await admin.getByText("Reenviar as entregas de um período").click();
    const form = admin.locator('form[action="/entregas/reenviar-periodo"]');
    await form.getByLabel("Início do período").fill("2026-01-01");
    await form.getByLabel("Fim do período").fill("2026-03-01");
    await form.getByRole("button", { name: "Reenviar período" }).click();
    await admin.waitForURL(/erro=periodo_invalido$/);
    expect(await textOf(admin.getByRole("alert"))).toContain("no máximo 31 dias");

    await viewer.goto("/entregas");
    expect(await viewer.getByText("Reenviar as entregas de um período").count()).toBe(0);
    expect(await viewer.getByRole("link", { name: "Exportar CSV" }).count()).toBe(1);
  });

  it("exports the filtered log as formula-safe CSV", async () => {
    const hostile = await storedDelivery("failed", onDay(20), "=cmd|' /C calc'!A0");
    await admin.goto(`/entregas?status=failed&de=${day}&ate=${day}`);
    const href = await admin.getByRole("link", { name: "Exportar CSV" }).getAttribute("href");
    expect(href).toBe(`/entregas/exportar?status=failed&de=${day}&ate=${day}`);
    const res = await admin.request.get(href ?? "");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = (await res.text()).split("\r\n").filter(Boolean);
    // What Excel in Portuguese opens in columns: a UTF-8 BOM and `;` between cells.
    expect(lines[0]).toMatch(/^\uFEFF"delivery_id";"event";"status"/);
    // The earlier replay delivered the other failed ones of the day: only the new one is still failed.
    expect(lines.slice(1).map((line) => line.split(";")[0])).toEqual([hostile]);
    expect(lines[1]).toContain(`"'=cmd|' /C calc'!A0"`);
    const audit = await stack.db.auditEntry.count({
      where: { accountId: tenant.accountId, action: "panel.deliveries.exported" },
    });
    expect(audit).toBe(1);
  });
});
