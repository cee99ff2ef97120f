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

jest.setTimeout(90_000);

describe("panel Entregas in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let receiver: Receiver;
  let integrationId: string;
  let admin: Page;

  /** A delivery row written as it ends up, with no pending phase the dispatcher could pick up. */
  async function storedDelivery(event: string, status: string, createdAt: Date): Promise<bigint> {
    const row = await stack.db.delivery.create({
      data: {
        accountId: tenant.accountId,
        integrationId,
        event,
        status,
        body: JSON.stringify({ event, occurred_at: createdAt.toISOString(), delivery_id: "0", data: {} }),
        attemptCount: 7,
        lastStatusCode: status === "failed" ? 500 : 200,
        occurredAt: createdAt,
        createdAt,
      },
    });
    return row.id;
  }

  async function csrfOf(page: Page): Promise<string> {
    return page.locator('input[name="_csrf"]').first().inputValue();
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    receiver = await startReceiver((_request, res) => reply(res, 200, "ok"));
    const integration = await setIntegration(
      { db: stack.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      {
        actor: testActor,
        accountId: tenant.accountId,
        url: receiver.url,
        events: ["message.status", "message.received"],
      },
    );
    integrationId = integration.id;
    admin = await signIn(stack, tenant.users.admin.email);
    admin.on("dialog", (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await admin.context().close();
    await receiver.close();
    await stack.close();
  });

  it("shows a delivery that used all its attempts, with each attempt and the envelope, and resends it audited as webhook.retry", async () => {
    receiver.setHandler((_request, res) => reply(res, 500, "receptor fora do ar"));
    const inbound = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: tenant.phoneNumberId,
        from: "5511987650001",
        type: "text",
        text: "Cadê meu pedido?",
      }),
    });
    expect(await inbound.json()).toMatchObject({ webhook_status: 200 });
    // The stack's dispatcher retries every 50 ms: seven attempts, then failed.
    const failed = await eventually(
      () =>
        stack.db.delivery.findFirst({
          where: { accountId: tenant.accountId, status: "failed", body: { contains: "Cadê meu pedido?" } },
        }),
      { timeoutMs: 20_000, what: "the delivery to use all its attempts" },
    );
    const id = failed.id.toString();

    await admin.goto("/entregas");
    await admin.getByRole("combobox", { name: /^Status/ }).selectOption("failed");
    await admin.getByRole("button", { name: "Filtrar" }).click();
    await admin.waitForURL(/status=failed/);
    await screenshot(admin, "entregas");
    await admin.getByRole("link", { name: `#${id}` }).click();
    await admin.waitForURL(new RegExp(`/entregas/${id}$`));

    expect(await textOf(admin.getByRole("heading", { level: 1 }))).toBe(`Entrega #${id}`);
    expect(await textOf(admin.locator("dd .badge"))).toBe("falhou");
    const attempts = admin.getByRole("table", { name: "Tentativas" }).locator("tbody tr");
    expect(await attempts.count()).toBe(7);
    const cells = (await attempts.first().locator("td").allTextContents()).map((cell) => cell.trim());
    expect(cells).toEqual([
      "1",
      expect.stringMatching(/^\d\d\/\d\d\/\d{4}/),
      "500",
      expect.stringMatching(/^\d+ ms$/),
      "resposta de erro",
      "receptor fora do ar",
    ]);
    const envelope = await textOf(admin.getByLabel("Envelope JSON"));
    expect(JSON.parse(envelope)).toMatchObject({ event: "message.received", delivery_id: id });
    expect(await admin.getByLabel("Envelope JSON").textContent()).toContain(`\n  "delivery_id": "${id}"`);
    expect(await textOf(admin.getByText("calculados a cada tentativa"))).toContain("X-PT-Signature");
    await screenshot(admin, "entrega");

    receiver.setHandler((_request, res) => reply(res, 200, "ok"));
    await admin.getByRole("button", { name: "Reenviar entrega" }).click();
    await admin.waitForURL(/\?ok=reenviada$/);
    expect(await textOf(admin.getByRole("status"))).toContain("Entrega reenfileirada");
    const resent = await eventually(
      () =>
        receiver.requests.find(
          (request) => request.headers["x-pt-delivery-id"] === id && request.headers["x-pt-attempt"] === "8",
        ),
      { timeoutMs: 15_000, what: "the resent attempt" },
    );
    expect(resent.body).toContain("Cadê meu pedido?");
    await eventually(
      async () => (await stack.db.delivery.findUniqueOrThrow({ where: { id: failed.id } })).status === "delivered",
      { timeoutMs: 15_000, what: "the resent delivery to be delivered" },
    );
    await admin.reload();
    expect(await textOf(admin.locator("dd .badge"))).toBe("entregue");
    expect(await admin.getByRole("table", { name: "Tentativas" }).locator("tbody tr").count()).toBe(8);

    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: "webhook.retry", target: `delivery:${id}` },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: `panel:${tenant.users.admin.email}`,
      details: { previous_status: "failed" },
    });
  });

  it("filters the queue by status, event and São Paulo dates, with keyset paging", async () => {
    // 10 Jan 2026 in São Paulo (UTC-3): from 03:00 UTC on the 10th to 03:00 UTC on the 11th.
    for (let i = 0; i < 26; i += 1)
      await storedDelivery("message.status", "delivered", new Date(Date.UTC(2026, 0, 10, 12, i)));
    const lateEvening = await storedDelivery("message.status", "delivered", new Date("2026-01-11T02:30:00Z"));
    const nextDay = await storedDelivery("message.status", "delivered", new Date("2026-01-11T03:30:00Z"));
    const received = await storedDelivery("message.received", "delivered", new Date(Date.UTC(2026, 0, 10, 15)));

    await admin.goto("/entregas");
    await admin.getByRole("combobox", { name: /^Status/ }).selectOption("delivered");
    await admin.getByRole("combobox", { name: /^Evento/ }).selectOption("message.status");
    await admin.getByLabel("De", { exact: true }).fill("2026-01-10");
    await admin.getByLabel("Até", { exact: true }).fill("2026-01-10");
    await admin.getByRole("button", { name: "Filtrar" }).click();
    await admin.waitForURL(/de=2026-01-10/);
    const rows = admin.getByRole("table", { name: "Fila de entregas" }).locator("tbody tr");
    expect(await rows.count()).toBe(25);
    // Newest first: 23:30 in São Paulo is still the 10th; the 11th and the other event are left out.
    expect((await rows.first().locator("td").first().textContent())?.trim()).toBe(`#${lateEvening}`);
    for (const left of [nextDay, received])
      expect(await admin.getByRole("link", { name: `#${left}`, exact: true }).count()).toBe(0);

    await admin.getByRole("link", { name: "Próxima página →" }).click();
    await admin.waitForURL(/cursor=\d+/);
    expect(new URL(admin.url()).searchParams.get("evento")).toBe("message.status");
    expect(await rows.count()).toBe(2);
    expect(await admin.getByRole("link", { name: "Próxima página →" }).count()).toBe(0);

    await admin.goto("/entregas?evento=message.received&de=2026-01-10&ate=2026-01-10");
    expect(await rows.count()).toBe(1);
    expect((await rows.first().locator("td").first().textContent())?.trim()).toBe(`#${received}`);

    await admin.goto("/entregas?de=2026-01-01&ate=2026-01-09");
    expect(await textOf(admin.getByText("Nenhuma entrega com estes filtros."))).toBeTruthy();
    const invalid = await admin.goto("/entregas?status=perdida");
    expect(invalid?.status()).toBe(400);
  });

  it("resends every failed delivery at once, audited as webhook.retry", async () => {
    const failed = [
      await storedDelivery("message.status", "failed", new Date(Date.UTC(2026, 0, 12, 10))),
      await storedDelivery("message.received", "failed", new Date(Date.UTC(2026, 0, 12, 11))),
    ];
    expect(await stack.db.delivery.count({ where: { accountId: tenant.accountId, status: "failed" } })).toBe(2);

    await admin.goto("/entregas");
    await admin.getByRole("button", { name: "Reenviar todas as entregas com falha" }).click();
    await admin.waitForURL(/ok=reenviadas&n=2$/);
    expect(await textOf(admin.getByRole("status"))).toBe("2 entregas com falha voltaram para a fila.");
    await eventually(
      async () =>
        (await stack.db.delivery.count({ where: { id: { in: failed }, status: "delivered", attemptCount: 8 } })) === 2,
      { timeoutMs: 15_000, what: "both resent deliveries to be delivered" },
    );
    const audit = await stack.db.auditEntry.findFirstOrThrow({
      where: { accountId: tenant.accountId, action: "webhook.retry", target: "deliveries:failed" },
    });
    expect(audit).toMatchObject({ actor: `panel:${tenant.users.admin.email}`, details: { count: 2 } });

    await admin.getByRole("button", { name: "Reenviar todas as entregas com falha" }).click();
    await admin.waitForURL(/erro=nenhuma_falha$/);
    expect(await textOf(admin.getByRole("alert"))).toContain("Nenhuma entrega com falha");
  });

  it("lets a viewer read the queue and a delivery but not resend, even with a forged POST carrying a valid token", async () => {
    const id = await storedDelivery("message.status", "failed", new Date(Date.UTC(2026, 0, 13, 10)));
    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/entregas");
    expect(await viewer.getByRole("link", { name: `#${id}`, exact: true }).count()).toBe(1);
    expect(await viewer.getByRole("button", { name: "Reenviar todas as entregas com falha" }).count()).toBe(0);
    await viewer.goto(`/entregas/${id}`);
    expect(await textOf(viewer.locator("dd .badge"))).toBe("falhou");
    expect(await viewer.getByRole("button", { name: "Reenviar entrega" }).count()).toBe(0);

    const csrf = await csrfOf(viewer);
    for (const path of [`/entregas/${id}/reenviar`, "/entregas/reenviar-falhas"]) {
      const response = await viewer.request.post(path, { form: { _csrf: csrf }, maxRedirects: 0 });
      expect([path, response.status()]).toEqual([path, 403]);
    }
    expect((await stack.db.delivery.findUniqueOrThrow({ where: { id } })).status).toBe("failed");
    expect(await stack.db.auditEntry.count({ where: { target: `delivery:${id}` } })).toBe(0);
    await viewer.context().close();
  });

  it("answers 404 for another account's delivery, on its page and its resend", async () => {
    const id = await storedDelivery("message.status", "failed", new Date(Date.UTC(2026, 0, 14, 10)));
    const other = await createTenant(stack.db);
    const outsider = await signIn(stack, other.users.owner.email);
    const page = await outsider.goto(`/entregas/${id}`);
    expect(page?.status()).toBe(404);
    expect(await textOf(outsider.getByRole("alert"))).toContain("A entrega não foi encontrada nesta conta.");
    expect((await outsider.goto("/entregas/nao-e-um-id"))?.status()).toBe(404);
    const resend = await outsider.request.post(`/entregas/${id}/reenviar`, {
      form: { _csrf: await csrfOf(outsider) },
      maxRedirects: 0,
    });
    expect(resend.status()).toBe(404);
    await outsider.goto("/entregas");
    expect(await textOf(outsider.getByText("Nenhuma entrega ainda."))).toBeTruthy();
    expect((await stack.db.delivery.findUniqueOrThrow({ where: { id } })).status).toBe("failed");
    await outsider.context().close();
  });
});
