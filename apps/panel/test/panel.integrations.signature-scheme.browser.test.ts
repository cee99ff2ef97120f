// Issue 21: staff choose an integration's signature scheme on Integrações; the whole gateway (API, dispatcher, the
// provider sandbox) then delivers a contact's message signed that way, verified with the official Standard Webhooks
// library from npm and with the secret exactly as the panel reveals it.
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { safeEqual, signWebhook } from "@gw/signer";
import { eventually, reply, startReceiver, type ReceivedRequest, type Receiver } from "@gw/testkit";
import {
  createTenant,
  PASSWORD,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

jest.setTimeout(120_000);

async function revealSecret(page: Page): Promise<string> {
  await page.getByLabel("Confirme sua senha para revelar o segredo").fill(PASSWORD);
  await page.getByRole("button", { name: "Revelar segredo" }).click();
  return textOf(page.locator(".secret"));
}

describe("panel Integrações: signature scheme in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let receiver: Receiver;
  let admin: Page;

  async function contactWrites(text: string): Promise<ReceivedRequest> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: tenant.phoneNumberId, from: "5511987650099", type: "text", text }),
    });
    expect(await response.json()).toMatchObject({ webhook_status: 200 });
    return eventually(() => receiver.requests.find((request) => request.body.includes(text)), {
      timeoutMs: 20_000,
      what: `the delivery of "${text}"`,
    });
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    receiver = await startReceiver((_request, res) => reply(res, 200, "ok"));
    admin = await signIn(stack, tenant.users.admin.email);
  });
  afterAll(async () => {
    await admin.context().close();
    await receiver.close();
    await stack.close();
  });

  it("registers an endpoint on Standard Webhooks whose revealed whsec_ secret verifies the delivery in the official library, then switches it back to X-PT-Signature", async () => {
    await admin.goto("/integracoes");
    await admin.getByLabel("URL do endpoint").fill(receiver.url);
    // X-PT-Signature is the default choice.
    expect(await admin.getByLabel(/X-PT-Signature \(padrão\): cabeçalhos/).isChecked()).toBe(true);
    await admin.getByLabel(/Standard Webhooks: cabeçalhos/).check();
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\/integracoes\/[0-9a-f-]{36}\?ok=criada$/);
    const path = new URL(admin.url()).pathname;
    expect(await textOf(admin.locator("dl"))).toContain("Standard Webhooks");

    const shown = await revealSecret(admin);
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const standard = await contactWrites("Quero pagar com Pix");
    expect(standard.headers["webhook-id"]).toBe(JSON.parse(standard.body).delivery_id);
    expect(standard.headers["x-pt-signature"]).toBeUndefined();
    expect(new Webhook(shown).verify(standard.body, standard.headers as Record<string, string>)).toMatchObject({
      event: "message.received",
    });

    // Back to the contract's scheme on the edit form: same secret, shown as stored, X-PT headers again.
    await admin.goto(path);
    expect(await admin.getByLabel(/Standard Webhooks: cabeçalhos/).isChecked()).toBe(true);
    await admin.getByLabel(/X-PT-Signature \(padrão\): cabeçalhos/).check();
    await admin.getByRole("button", { name: "Salvar alterações" }).click();
    await admin.waitForURL(/\?ok=salva$/);
    await admin.goto("/integracoes");
    expect(await textOf(admin.getByRole("table"))).toContain("X-PT-Signature (padrão)");
    await admin.goto(path);
    const asStored = await revealSecret(admin);
    expect(asStored).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(asStored.slice(6), "base64url").equals(Buffer.from(shown.slice(6), "base64"))).toBe(true);
    const pt = await contactWrites("Pode entregar amanhã?");
    expect(pt.headers["webhook-signature"]).toBeUndefined();
    const timestamp = pt.headers["x-pt-timestamp"] as string;
    expect(safeEqual(signWebhook(asStored, timestamp, pt.body), pt.headers["x-pt-signature"] as string)).toBe(true);
  });
});
