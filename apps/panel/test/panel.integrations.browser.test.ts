import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { safeEqual, signWebhook } from "@gw/signer";
import { eventually, reply, startReceiver, testSecretBox, type ReceivedRequest, type Receiver } from "@gw/testkit";
import {
  createTenant,
  PASSWORD,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

jest.setTimeout(90_000);

/** Spec 5.4 over the exact bytes received, against one signature header. */
function verifies(secret: string, request: ReceivedRequest, header = "x-pt-signature"): boolean {
  const timestamp = request.headers["x-pt-timestamp"];
  const signature = request.headers[header];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  return safeEqual(signWebhook(secret, timestamp, request.body), signature);
}

/** The form token of the signed-in page (every page's sign-out form carries it). */
async function csrfOf(page: Page): Promise<string> {
  return page.locator('input[name="_csrf"]').first().inputValue();
}

async function revealSecret(page: Page, password = PASSWORD): Promise<void> {
  await page.getByLabel("Confirme sua senha para revelar o segredo").fill(password);
  await page.getByRole("button", { name: "Revelar segredo" }).click();
}

describe("panel Integrações in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let receiver: Receiver;
  let admin: Page;
  let integrationPath: string;
  let firstSecret: string;
  let contact = 0;

  /** A contact writes to the tenant's number through the sandbox; the gateway has committed its deliveries once this returns. */
  async function contactWrites(text: string): Promise<void> {
    contact += 1;
    const response = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: tenant.phoneNumberId,
        from: `55119876500${String(contact).padStart(2, "0")}`,
        type: "text",
        text,
      }),
    });
    expect(await response.json()).toMatchObject({ webhook_status: 200 });
  }

  /** The request that carried `text` to the receiver. */
  function arrival(text: string): Promise<ReceivedRequest> {
    return eventually(() => receiver.requests.find((request) => request.body.includes(text)), {
      timeoutMs: 15_000,
      what: `the delivery of "${text}"`,
    });
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    receiver = await startReceiver((_request, res) => reply(res, 200, "ok"));
    admin = await signIn(stack, tenant.users.admin.email);
    admin.on("dialog", (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await admin.context().close();
    await receiver.close();
    await stack.close();
  });

  it("registers an endpoint, refusing a bad URL on the form, and a signed message.received arrives", async () => {
    await admin.goto("/integracoes");
    expect(await textOf(admin.getByText("Nenhuma integração cadastrada ainda."))).toBeTruthy();

    await admin.getByLabel("URL do endpoint").fill("ftp://exemplo.com.br/webhooks");
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    expect(await textOf(admin.getByRole("alert"))).toContain("A URL da integração deve ser http(s).");
    // The refused values are still on the form.
    expect(await admin.getByLabel("URL do endpoint").inputValue()).toBe("ftp://exemplo.com.br/webhooks");

    await admin.getByLabel("URL do endpoint").fill(receiver.url);
    // account.update (Meta's notices about the account) is listed, and opt-in: not selected for a new integration.
    expect(await admin.getByRole("checkbox", { name: /account\.update$/ }).isChecked()).toBe(false);
    expect(await admin.getByRole("checkbox", { name: /message\.received$/ }).isChecked()).toBe(true);
    await admin.getByRole("checkbox", { name: /message\.status$/ }).uncheck();
    await admin.getByRole("checkbox", { name: /message\.received$/ }).check();
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\/integracoes\/[0-9a-f-]{36}\?ok=criada$/);
    integrationPath = new URL(admin.url()).pathname;
    expect(await textOf(admin.getByRole("status"))).toContain("Integração salva");
    expect(await textOf(admin.locator("dd").first())).toBe(receiver.url);

    await revealSecret(admin);
    firstSecret = await textOf(admin.locator(".secret"));
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    await contactWrites("Oi, quero um pão de queijo");
    const request = await arrival("Oi, quero um pão de queijo");
    expect(request.headers["x-pt-event"]).toBe("message.received");
    expect(verifies(firstSecret, request)).toBe(true);
    expect(request.headers["x-pt-signature-previous"]).toBeUndefined();

    await admin.goto("/integracoes");
    expect(await textOf(admin.getByRole("table"))).toContain(receiver.url);
    await screenshot(admin, "integracoes");
  });

  it("lists the catalogue of events the gateway sends, each with its Portuguese description and a folded example", async () => {
    await admin.goto("/integracoes");
    for (const name of ["message.status", "message.received", "account.update"]) {
      const section = admin.getByRole("region", { name: `Evento ${name}` });
      expect(await textOf(section.getByRole("heading"))).toBe(name);
      expect(await textOf(section.locator("p"))).toMatch(/^[A-ZÀ-Ú].{40,}\.$/);
      const example = section.getByLabel(`Exemplo de ${name}`);
      // Folded until its summary is clicked.
      expect(await example.isVisible()).toBe(false);
      await section.getByText(`Exemplo de ${name}`).click();
      expect(await example.isVisible()).toBe(true);
      expect(JSON.parse(await textOf(example))).toMatchObject({ event: name, data: expect.any(Object) });
    }
    expect(await textOf(admin.getByRole("region", { name: "Evento account.update" }).locator("p"))).toContain(
      "Só chega às integrações que escolheram este evento.",
    );
  });

  it("reveals the secret only after the password, audited, and never on a GET page", async () => {
    await admin.goto(integrationPath);
    expect(await admin.content()).not.toContain(firstSecret);
    await revealSecret(admin, "senha-errada-000");
    expect(await textOf(admin.getByRole("alert"))).toContain("Senha incorreta");
    expect(await admin.locator(".secret").count()).toBe(0);
    expect(await admin.content()).not.toContain(firstSecret);

    await revealSecret(admin);
    expect(await textOf(admin.locator(".secret"))).toBe(firstSecret);
    await screenshot(admin, "integracao-segredo");
    await admin.goto(integrationPath);
    expect(await admin.content()).not.toContain(firstSecret);

    const audits = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: "panel.integration.secret_revealed" },
    });
    expect(audits.length).toBeGreaterThanOrEqual(2);
    expect(audits[0]).toMatchObject({
      actor: `panel:${tenant.users.admin.email}`,
      target: `integration:${integrationPath.split("/").at(-1)}`,
    });
  });

  it("rotates the secret with an overlap: the next delivery verifies with the new secret and with the old one on X-PT-Signature-Previous", async () => {
    await admin.goto(integrationPath);
    await admin.getByRole("button", { name: "Trocar segredo" }).click();
    await admin.waitForURL(/\?ok=segredo_trocado$/);
    expect(await textOf(admin.getByRole("status"))).toContain("Segredo trocado");
    expect(await textOf(admin.getByText("Troca de segredo em andamento"))).toContain("X-PT-Signature-Previous");

    await revealSecret(admin);
    const newSecret = await textOf(admin.locator(".secret"));
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(firstSecret);

    await contactWrites("Depois da troca do segredo");
    const request = await arrival("Depois da troca do segredo");
    expect(verifies(newSecret, request)).toBe(true);
    expect(verifies(firstSecret, request, "x-pt-signature-previous")).toBe(true);
    // Each header carries its own secret's signature: the old secret does not sign X-PT-Signature.
    expect(verifies(firstSecret, request)).toBe(false);

    const [rotation] = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, action: "panel.integration.secret_rotated" },
    });
    expect(rotation).toMatchObject({
      actor: `panel:${tenant.users.admin.email}`,
      details: { overlap_hours: 24 },
    });
  });

  it("pauses (no new deliveries) and resumes the integration, audited", async () => {
    const integrationId = integrationPath.split("/").at(-1)!;
    await admin.goto(integrationPath);
    await admin.getByRole("button", { name: "Pausar integração" }).click();
    await admin.waitForURL(/\?ok=pausada$/);
    expect(await textOf(admin.locator(".badge"))).toBe("pausada");

    const before = await stack.db.delivery.count({ where: { integrationId } });
    await contactWrites("Enquanto pausada");
    // The sandbox answered after the gateway committed the event: no delivery was created for it.
    expect(await stack.db.delivery.count({ where: { integrationId } })).toBe(before);

    await admin.getByRole("button", { name: "Retomar integração" }).click();
    await admin.waitForURL(/\?ok=retomada$/);
    expect(await textOf(admin.locator(".badge"))).toBe("ativa");
    await contactWrites("Depois de retomar");
    await arrival("Depois de retomar");
    expect(receiver.requests.some((request) => request.body.includes("Enquanto pausada"))).toBe(false);

    const actions = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, target: `integration:${integrationId}` },
      orderBy: { id: "asc" },
      select: { action: true },
    });
    expect(actions.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["panel.integration.paused", "panel.integration.resumed"]),
    );
  });

  it("switches ordered delivery per message on from the edit form (off by default), and new events carry their key", async () => {
    const integrationId = integrationPath.split("/").at(-1)!;
    await admin.goto(integrationPath);
    const option = admin.getByLabel(/Entregar em\s+ordem por mensagem/);
    expect(await option.isChecked()).toBe(false);
    await option.check();
    await admin.getByRole("button", { name: "Salvar alterações" }).click();
    await admin.waitForURL(/\?ok=salva$/);
    expect(await admin.getByLabel(/Entregar em\s+ordem por mensagem/).isChecked()).toBe(true);
    expect(await textOf(admin.locator("dt:has-text('Entregar em ordem por mensagem') + dd"))).toBe("sim");
    expect(await stack.db.integration.findUniqueOrThrow({ where: { id: integrationId } })).toMatchObject({
      deliverInOrder: true,
    });

    await contactWrites("Em ordem, por favor");
    await arrival("Em ordem, por favor");
    const delivery = await stack.db.delivery.findFirstOrThrow({
      where: { integrationId, body: { contains: "Em ordem, por favor" } },
    });
    // A contact's inbound messages are ordered by the contact's key.
    expect(delivery.orderingKey).toMatch(/^c:/);

    await admin.getByLabel(/Entregar em\s+ordem por mensagem/).uncheck();
    await admin.getByRole("button", { name: "Salvar alterações" }).click();
    await admin.waitForURL(/\?ok=salva$/);
    expect(await textOf(admin.locator("dt:has-text('Entregar em ordem por mensagem') + dd"))).toBe("não");
  });

  it("lets a viewer read but not reveal, rotate or pause, even with a forged POST carrying a valid token", async () => {
    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/integracoes");
    expect(await textOf(viewer.getByRole("table"))).toContain(receiver.url);
    expect(await viewer.getByRole("button", { name: "Salvar integração" }).count()).toBe(0);
    await viewer.goto(integrationPath);
    expect(await textOf(viewer.getByText("Seu papel nesta conta não permite ver o segredo."))).toBeTruthy();
    for (const name of ["Revelar segredo", "Trocar segredo", "Pausar integração", "Salvar alterações"])
      expect(await viewer.getByRole("button", { name }).count()).toBe(0);

    const before = await stack.db.integration.findFirstOrThrow({ where: { accountId: tenant.accountId } });
    const currentSecret = testSecretBox().open(before.signingSecretEncrypted!, {
      table: "integrations",
      id: before.id,
      field: "signing_secret",
    });
    const csrf = await csrfOf(viewer);
    for (const [action, form] of [
      ["segredo", { password: PASSWORD }],
      ["rotacionar", {}],
      ["pausar", {}],
      ["", { url: "http://127.0.0.1:9/outra", events: "message.status" }],
    ] as const) {
      const response = await viewer.request.post(`${integrationPath}${action ? `/${action}` : ""}`, {
        form: { _csrf: csrf, ...form },
        maxRedirects: 0,
      });
      expect([action, response.status()]).toEqual([action, 403]);
      expect(await response.text()).not.toContain(currentSecret);
    }
    const created = await viewer.request.post("/integracoes", {
      form: { _csrf: csrf, url: "http://127.0.0.1:9/nova", events: "message.status" },
      maxRedirects: 0,
    });
    expect(created.status()).toBe(403);
    const after = await stack.db.integration.findMany({ where: { accountId: tenant.accountId } });
    expect(after).toEqual([before]);
    await viewer.context().close();
  });

  it("answers 404 for another account's integration, on pages and actions", async () => {
    const other = await createTenant(stack.db);
    const outsider = await signIn(stack, other.users.owner.email);
    const response = await outsider.goto(integrationPath);
    expect(response?.status()).toBe(404);
    expect(await textOf(outsider.getByRole("alert"))).toContain("Integração não encontrada nesta conta.");
    const reveal = await outsider.request.post(`${integrationPath}/segredo`, {
      form: { _csrf: await csrfOf(outsider), password: PASSWORD },
      maxRedirects: 0,
    });
    expect(reveal.status()).toBe(404);
    const pause = await outsider.request.post(`${integrationPath}/pausar`, {
      form: { _csrf: await csrfOf(outsider) },
      maxRedirects: 0,
    });
    expect(pause.status()).toBe(404);
    expect((await stack.db.integration.findFirstOrThrow({ where: { accountId: tenant.accountId } })).active).toBe(true);
    await outsider.context().close();
  });
});
