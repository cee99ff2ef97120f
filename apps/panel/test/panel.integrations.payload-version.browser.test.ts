// Issue 27: staff choose, on Integrações, which message.received body an integration gets — version 1 (the
// contract's, the default) or version 2 (with the option tapped, location, contacts, reactions, ad and media
// members). The select writes integrations.payload_version, audited; a form without it keeps the version.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { createTenant, signIn, startPanelStack, type PanelStack, type TestTenant } from "@gw/test-stack";

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

  it("creates an integration on version 2 from the select, shows it chosen on the edit form, and switches it back to 1, audited", async () => {
    await admin.goto("/integracoes");
    const select = admin.getByRole("combobox", { name: SELECT });
    // Version 1 (today's bodies) is the default choice.
    expect(await select.inputValue()).toBe("1");
    expect(await select.locator("option").allTextContents()).toEqual([
      expect.stringMatching(/^\s*versão 1 \(contrato original\)\s*$/),
      expect.stringMatching(
        /^\s*versão 2 \(com opção escolhida, localização, contatos, reações, anúncio e mídia\)\s*$/,
      ),
    ]);
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/versao-2");
    await select.selectOption("2");
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
