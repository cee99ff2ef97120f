import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import {
  createTenant,
  PASSWORD,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

// Integrações with signing secrets stored sealed (SECRETS_KEYS): the panel still reveals them after the password,
// the table never holds them in clear text, a row stored in clear text by the previous release still reveals, and
// a stored value that does not open is refused with a clear notice (never a wrong secret).

jest.setTimeout(90_000);

async function revealSecret(page: Page): Promise<void> {
  await page.getByLabel("Confirme sua senha para revelar o segredo").fill(PASSWORD);
  await page.getByRole("button", { name: "Revelar segredo" }).click();
}

describe("panel Integrações with sealed signing secrets, in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let admin: Page;

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    admin = await signIn(stack, tenant.users.admin.email);
    admin.on("dialog", (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await admin.context().close();
    await stack.close();
  });

  async function rawRow(id: string): Promise<Record<string, string | null>> {
    const { rows } = await stack.db.sql.query<{ row: Record<string, string | null> }>(
      `SELECT row_to_json(i) AS row FROM integrations i WHERE id = $1::uuid`,
      [id],
    );
    return rows[0]!.row;
  }

  const reveals = (integrationId: string) =>
    stack.db.auditEntry.count({
      where: { target: `integration:${integrationId}`, action: "panel.integration.secret_revealed" },
    });

  it("reveals a secret the table holds only sealed", async () => {
    await admin.goto("/integracoes");
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/cifrada");
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\/integracoes\/[0-9a-f-]{36}\?ok=criada$/);
    const integrationId = new URL(admin.url()).pathname.split("/").at(-1)!;

    await revealSecret(admin);
    const secret = await textOf(admin.locator(".secret"));
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const row = await rawRow(integrationId);
    expect(row.signing_secret).toBeNull();
    expect(row.signing_secret_encrypted).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it("reveals a secret stored in clear text before this release", async () => {
    const id = randomUUID();
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    await stack.db.sql.query(
      `INSERT INTO integrations (id, account_id, url, events, signing_secret)
       VALUES ($1, $2, 'http://127.0.0.1:9/legada', '{message.status}', $3)`,
      [id, tenant.accountId, secret],
    );
    await admin.goto(`/integracoes/${id}`);
    await revealSecret(admin);
    expect(await textOf(admin.locator(".secret"))).toBe(secret);
  });

  it("refuses to reveal or keep an altered secret, with a clear notice, and a rotation marked as a leak replaces it", async () => {
    await admin.goto("/integracoes");
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/alterada");
    await admin.getByRole("button", { name: "Salvar integração" }).click();
    await admin.waitForURL(/\?ok=criada$/);
    const path = new URL(admin.url()).pathname;
    const integrationId = path.split("/").at(-1)!;
    // A value sealed for another row (copied across rows in the table).
    const { rows } = await stack.db.sql.query<{ sealed: string }>(
      `SELECT signing_secret_encrypted AS sealed FROM integrations
       WHERE account_id = $2::uuid AND signing_secret_encrypted IS NOT NULL AND id <> $1::uuid LIMIT 1`,
      [integrationId, tenant.accountId],
    );
    await stack.db.sql.query(`UPDATE integrations SET signing_secret_encrypted = $2 WHERE id = $1::uuid`, [
      integrationId,
      rows[0]!.sealed,
    ]);

    await admin.goto(path);
    const answer = admin.waitForResponse((response) => response.url().endsWith(`${path}/segredo`));
    await revealSecret(admin);
    expect((await answer).status()).toBe(500);
    expect(await textOf(admin.getByRole("alert"))).toContain("não pôde ser decifrado");
    expect(await admin.locator(".secret").count()).toBe(0);
    expect(await reveals(integrationId)).toBe(0);

    // An edit shows the secret to nobody but still needs it whole: refused with the way out, nothing saved.
    await admin.goto(path);
    await admin.getByLabel("URL do endpoint").fill("http://127.0.0.1:9/alterada-2");
    await admin.getByRole("button", { name: "Salvar alterações" }).click();
    expect(await textOf(admin.getByRole("alert"))).toContain("Nada foi salvo");
    expect((await rawRow(integrationId)).url).toBe("http://127.0.0.1:9/alterada");

    // Keeping it through an overlap would need it: refused, the notice says how to replace it.
    await admin.goto(path);
    await admin.getByRole("button", { name: "Trocar segredo" }).click();
    expect(await textOf(admin.getByRole("alert"))).toContain("marcando que o atual vazou");
    await admin.goto(path);
    await admin.getByLabel(/O segredo atual vazou/).check();
    await admin.getByRole("button", { name: "Trocar segredo" }).click();
    await admin.waitForURL(/\?ok=segredo_trocado$/);
    await revealSecret(admin);
    const replaced = await textOf(admin.locator(".secret"));
    expect(replaced).toMatch(/^whsec_/);
    expect(JSON.stringify(await rawRow(integrationId))).not.toContain(replaced);
  });
});
