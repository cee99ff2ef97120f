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

const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

/** A table row's cells, whitespace collapsed. */
async function cells(row: Locator): Promise<string[]> {
  await row.first().waitFor({ state: "visible", timeout: 15_000 });
  return (await row.first().locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
}

describe("panel Templates and template notices in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;

  /** Meta's template webhook, emitted by the sandbox for the tenant's WABA and ingested by the API. */
  async function emit(kind: "status" | "quality", body: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/templates/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ waba_id: tenant.wabaId, ...body }),
    });
    // The sandbox answers once the API answered Meta's webhook, i.e. after the notice was committed.
    expect(await response.json()).toMatchObject({ webhook_status: 200 });
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
  });
  afterAll(async () => {
    await stack.close();
  });

  it("lists the catalogue with a status filter, a preview with highlighted variables, and an example the API sends", async () => {
    const page = await signIn(stack, tenant.users.viewer.email);
    await page.goto("/templates");
    const confirmed = page.getByRole("region", { name: "pedido_confirmado (pt_BR)" });
    const preview = confirmed.getByRole("group", { name: "Prévia do template pedido_confirmado" });
    expect(await textOf(preview.locator(".header"))).toBe("Pedido {{1}}");
    expect(await preview.locator("mark").allTextContents()).toEqual(["{{1}}", "{{1}}", "{{2}}", "{{3}}"]);
    expect(await textOf(preview.locator(".footer"))).toBe("Loja Exemplo");
    expect(await preview.locator(".buttons span").allTextContents()).toEqual([
      "Falar com atendente",
      "Cancelar pedido",
    ]);
    expect(await textOf(confirmed.getByRole("listitem").first())).toMatch(
      /variables: 3 valores, na ordem \{\{1\}\}, \{\{2\}\}, \{\{3\}\}/,
    );
    expect(await textOf(confirmed.getByRole("listitem").nth(1))).toMatch(/header_text/);
    // A media header is a labelled placeholder, never a fetched file.
    const image = page.getByRole("group", { name: "Prévia do template promo_imagem" });
    expect(await textOf(image.locator(".header"))).toBe("[imagem]");
    expect(await textOf(page.getByRole("region", { name: "vitrine_carrossel (pt_BR)" }))).toMatch(
      /A API pública não consegue enviar este template. O componente CAROUSEL/,
    );

    // The example body, as shown, is a send the public API accepts.
    await confirmed.getByText("Exemplo de corpo para POST /public/v1/messages").click();
    const example = JSON.parse(
      await textOf(confirmed.getByLabel("Exemplo de envio do template pedido_confirmado (pt_BR)")),
    ) as Record<string, unknown>;
    expect(example).toMatchObject({ template: "pedido_confirmado", variables: ["Maria", "12345", "3"] });
    const sent = await fetch(`${stack.apiUrl}/public/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.apiKey}` },
      body: JSON.stringify(example),
    });
    expect(sent.status).toBe(200);

    // The documentation's picture: the catalogue narrowed to one name, its example open.
    await page.goto("/templates?nome=pedido_confirmado");
    expect(await page.locator("section.template").count()).toBe(2);
    await page.getByText("Exemplo de corpo para POST /public/v1/messages").first().click();
    await screenshot(page, "templates");
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto("/templates");
    await page.locator('form select[name="status"]').selectOption("PENDING");
    await page.getByRole("button", { name: "Filtrar" }).click();
    await page.waitForURL(/status=PENDING/);
    const names = await page.locator("section.template h2").allTextContents();
    expect(names.map((name) => name.replace(/\s+/g, " ").trim())).toEqual(["novidades_semana (pt_BR)"]);
    expect(await textOf(page.getByRole("region", { name: "novidades_semana (pt_BR)" }))).toMatch(
      /Só templates aprovados \(APPROVED\) podem ser enviados/,
    );

    // Keyset paging: a cursor lists what comes after it, by name then language.
    await page.goto(`/templates?cursor=${encodeURIComponent("rastreio_pedido|pt_BR")}`);
    const after = (await page.locator("section.template h2").allInnerTexts()).map((name) => name.split(" ")[0]);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((name) => name! > "rastreio_pedido")).toBe(true);

    await page.goto("/templates?nome=naoexiste");
    expect(await textOf(page.locator(".empty"))).toBe("Nenhum template com estes filtros.");
    await page.context().close();
  });

  it("shows a notice after the sandbox emits it, with the unread count, and marks it read per user", async () => {
    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/templates");
    expect(await textOf(viewer.locator(".actions .badge").first())).toBe("nenhum não lido");

    await emit("status", { name: "oferta_relampago", event: "REJECTED", reason: "INVALID_FORMAT" });
    await emit("quality", { name: "pedido_confirmado", language: "pt_BR", new_quality_score: "YELLOW" });
    // Another account's WABA: never shown to this tenant.
    await emit("status", { name: "aviso_promocao", event: "PAUSED", waba_id: other.wabaId });

    await viewer.goto("/templates");
    expect(await textOf(viewer.locator(".actions .badge").first())).toBe("2 não lidos");
    await viewer.getByRole("link", { name: "Avisos de template" }).click();
    await viewer.waitForURL(/\/templates\/avisos$/);
    expect(await textOf(viewer.getByRole("status"))).toBe("2 avisos não lidos.");
    const rows = viewer.locator("tbody tr");
    expect(await rows.count()).toBe(2);
    const quality = rows.filter({ hasText: "pedido_confirmado" });
    expect(await textOf(quality.locator("td").nth(2))).toBe("qualidade alta → média");
    const rejected = rows.filter({ hasText: "oferta_relampago" });
    expect(await cells(rejected)).toEqual([
      expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}/),
      "oferta_relampago (pt_BR)",
      "rejeitado",
      "INVALID_FORMAT",
      "não lido Marcar como lido",
    ]);
    await screenshot(viewer, "templates-avisos");

    // A viewer may mark notices read: it is their own read state.
    await rejected.getByRole("button", { name: "Marcar como lido o aviso de oferta_relampago" }).click();
    await viewer.waitForURL(/ok=lido/);
    expect(await textOf(viewer.locator(".notice.ok"))).toBe("Aviso marcado como lido.");
    expect((await cells(rows.filter({ hasText: "oferta_relampago" })))[4]).toMatch(/^lido \d{2}\/\d{2}\/\d{4}/);
    expect(await textOf(viewer.getByRole("status").last())).toBe("1 aviso não lido.");

    await viewer.getByLabel("Estado").selectOption("nao_lidos");
    await viewer.getByRole("button", { name: "Filtrar" }).click();
    await viewer.waitForURL(/estado=nao_lidos/);
    expect(await viewer.locator("tbody tr").allTextContents()).toEqual([expect.stringContaining("pedido_confirmado")]);

    await viewer.getByRole("button", { name: "Marcar todos como lidos" }).click();
    await viewer.waitForURL(/ok=todos_lidos/);
    expect(await textOf(viewer.getByRole("status").last())).toBe("Nenhum aviso por ler.");
    expect(await viewer.locator("tbody tr").filter({ hasText: "não lido" }).count()).toBe(0);
    expect(await viewer.locator("tbody tr").count()).toBe(2);
    await viewer.goto("/templates");
    expect(await textOf(viewer.locator(".actions .badge").first())).toBe("nenhum não lido");

    // Read state is per user: the admin still has both unread.
    const admin = await signIn(stack, tenant.users.admin.email);
    await admin.goto("/templates");
    expect(await textOf(admin.locator(".actions .badge").first())).toBe("2 não lidos");

    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: { startsWith: "panel.template_notice." } },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual([
      ["panel.template_notice.read", `panel:${tenant.users.viewer.email}`],
      ["panel.template_notice.read_all", `panel:${tenant.users.viewer.email}`],
    ]);
    await viewer.context().close();
    await admin.context().close();
  });

  it("keeps notices per account: another account's notice is neither listed nor markable (404)", async () => {
    const foreign = await stack.db.templateNotice.findFirstOrThrow({ where: { accountId: other.accountId } });
    const page = await signIn(stack, tenant.users.owner.email);
    await page.goto("/templates/avisos");
    expect(await textOf(page.locator("tbody"))).not.toContain("aviso_promocao");
    const response = await page.request.post(`/templates/avisos/${foreign.id}/lido`, {
      form: { _csrf: await csrfOf(page) },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(404);
    expect(await stack.db.templateNoticeRead.count({ where: { noticeId: foreign.id } })).toBe(0);
    // Another account's number names no catalogue here.
    await page.goto(`/templates?numero=${other.phoneNumberId}`);
    expect(await textOf(page.getByRole("alert"))).toBe("Este número não está ligado a esta conta.");
    expect(await page.locator("section.template").count()).toBe(0);
    await page.context().close();
  });
});
