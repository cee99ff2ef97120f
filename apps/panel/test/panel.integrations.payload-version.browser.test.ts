// Issue 27: staff choose, on Integrações, which message.received body an integration gets — version 1 (the
// contract's, the default) or version 2 (with the option tapped, location, contacts, reactions, ad and media
// members). The select writes integrations.payload_version, audited; a form without it keeps the version.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { createTenant, signIn, startPanelStack, textOf, type PanelStack, type TestTenant } from "@gw/test-stack";

jest.setTimeout(90_000);

const SELECT = "Conteúdo de message.received";

describe("panel Integrações: message.received payload version in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let admin: Page;

  const stored = async (id: string) => (await stack.db.integration.findUniqueOrThrow({ where: { id } })).payloadVersion;

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    admin = await signIn(stack, tenant.users.admin.email);
  });
  afterAll(async () => {
    await admin.context().close();
    await stack.close();
  });

  it("creates an integration on version 2 by default, shows it chosen on the edit form, and switches it back to 1, audited", async () => {
    await admin.goto("/integracoes");
    const select = admin.getByRole("combobox", { name: SELECT });
    // Version 2 is a new integration's default choice, as over the API and the CLI (issue 38).
    expect(await select.inputValue()).toBe("2");
    expect(await select.locator("option").allTextContents()).toEqual([
      expect.stringMatching(/^\s*versão 1 \(contrato original\)\s*$/),
      expect.stringMatching(
        /^\s*versão 2 \(com opção escolhida, localização, contatos, reações, anúncio e mídia\)\s*$/,
      ),
    ]);
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/versao-2");
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\/integracoes\/[0-9a-f-]{36}\?ok=criada$/);
    const path = new URL(admin.url()).pathname;
    const id = path.split("/").at(-1) ?? "";
    expect(await stored(id)).toBe(2);
    expect(await admin.getByRole("combobox", { name: SELECT }).inputValue()).toBe("2");

    await admin.getByRole("combobox", { name: SELECT }).selectOption("1");
    await admin.getByRole("button", { name: "Salvar alterações" }).click();
    await admin.waitForURL(/\?ok=salva$/);
    expect(await stored(id)).toBe(1);
    const audits = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, target: `integration:${id}` },
      orderBy: { createdAt: "asc" },
    });
    expect(audits.map((audit) => (audit.details as { payload_version?: number }).payload_version)).toEqual([2, 1]);
  });

  it("shows each integration's payload version in the list and on its page", async () => {
    await admin.goto("/integracoes");
    const table = admin.getByRole("table", { name: "Integrações da conta" });
    const headers = (await table.locator("th").allInnerTexts()).map((text) => text.trim());
    const column = headers.indexOf("Versão do payload");
    expect(column).toBeGreaterThan(-1);
    const versions = new Map<string, string>();
    for (const row of await table.locator("tbody tr").all()) {
      const cells = (await row.locator("td").allInnerTexts()).map((text) => text.trim());
      versions.set(cells[0] ?? "", cells[column] ?? "");
    }
    const stored = await stack.db.integration.findMany({ where: { accountId: tenant.accountId } });
    expect(stored.length).toBeGreaterThan(0);
    expect(Object.fromEntries(versions)).toEqual(
      Object.fromEntries(stored.map((integration) => [integration.url, `versão ${integration.payloadVersion}`])),
    );
    const first = stored[0];
    await admin.goto(`/integracoes/${first?.id ?? ""}`);
    expect(await textOf(admin.locator("dt:has-text('Versão do payload') + dd"))).toBe(
      `versão ${first?.payloadVersion ?? ""}`,
    );
  });

  it("lays out 'Entregar em ordem por mensagem' as a labelled checkbox beside its words, at 375 px and 1280 px", async () => {
    for (const width of [375, 1280]) {
      await admin.setViewportSize({ width, height: 900 });
      await admin.goto("/integracoes");
      const box = await admin.getByRole("checkbox", { name: /^Entregar em ordem por mensagem/ }).boundingBox();
      const words = await admin
        .locator("label.check > span", { hasText: "Entregar em ordem por mensagem" })
        .boundingBox();
      if (!box || !words) throw new Error("the checkbox or its words are not shown");
      // A checkbox's own size (not a text field's 2.5rem), its words beginning on its right, on its line.
      expect([width, box.height <= 24, box.width <= 24]).toEqual([width, true, true]);
      expect([width, words.x >= box.x + box.width]).toEqual([width, true]);
      expect([width, Math.abs(words.y - box.y) < 12]).toEqual([width, true]);
    }
    await admin.setViewportSize({ width: 1280, height: 900 });
  });

  it("keeps the version when a form without the select is posted (a page loaded before this release)", async () => {
    await admin.goto("/integracoes");
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/sem-select");
    await admin.getByRole("combobox", { name: SELECT }).selectOption("2");
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\/integracoes\/[0-9a-f-]{36}\?ok=criada$/);
    const path = new URL(admin.url()).pathname;
    const _csrf = await admin.locator('input[name="_csrf"]').first().inputValue();
    const saved = await admin.request.post(path, {
      form: { _csrf, url: "http://127.0.0.1:9/sem-select", events: "message.received" },
      maxRedirects: 0,
    });
    expect(saved.status()).toBe(303);
    expect(await stored(path.split("/").at(-1) ?? "")).toBe(2);
  });
});
