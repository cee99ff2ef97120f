import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { eventually, freePort, isolatedDatabase, testEnv } from "@gw/testkit";
import {
  ACCESS_TOKEN,
  createTenant,
  downloadText,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
  spawnApp,
  type AppProcess,
} from "@gw/test-stack";

jest.setTimeout(180_000);

// The Campanhas page against the whole gateway: the campaign worker runs as its own process (as in production) on
// the stack's database, Redis prefix and provider sandbox, whose automatic statuses (sent, delivered, read) come
// back through the API's provider webhook.

/** Valid Brazilian mobile numbers, distinct per campaign (`base` apart). */
const mobile = (base: number, i: number) => `55119${String(60_000_000 + base + i)}`;

interface SandboxSend {
  phone_number_id: string;
  to: string;
}

describe("panel Campanhas in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let worker: AppProcess;
  let admin: Page;

  const sandboxSends = async (recipients: readonly string[]): Promise<SandboxSend[]> => {
    const sent = (await (await fetch(`${stack.sandbox.url}/_sandbox/sent`)).json()) as SandboxSend[];
    return sent.filter((send) => send.phone_number_id === tenant.phoneNumberId && recipients.includes(send.to));
  };

  /** The value of one of the page's count cards ("Lidas", "Aceitas"...). */
  const card = async (page: Page, label: string): Promise<number> => {
    const value = await textOf(
      page
        .locator(".card")
        .filter({ has: page.getByText(label, { exact: true }) })
        .locator(".value"),
    );
    return Number(value.replace(/\D/g, ""));
  };

  /** The page's own "Atualizar o progresso" link, as staff follow a campaign. */
  const refresh = async (page: Page): Promise<void> => {
    await Promise.all([
      page.waitForEvent("framenavigated"),
      page.getByRole("link", { name: "Atualizar o progresso" }).click(),
    ]);
    await page.waitForLoadState();
  };

  const campaignIdIn = (url: string) => /\/campanhas\/([0-9a-f-]{36})/.exec(url)?.[1] ?? "";

  /** Through the page's own form, with the recipients pasted as CSV text; the new campaign's id. */
  async function createWithText(name: string, csv: string, startAt?: string): Promise<string> {
    await admin.goto("/campanhas/nova");
    await admin.getByLabel("Nome da campanha").fill(name);
    await admin.getByLabel("Template").selectOption("pedido_confirmado|pt_BR");
    if (startAt) await admin.getByLabel(/^Início agendado/).fill(startAt);
    await admin.getByLabel("Ou cole o CSV aqui").fill(csv);
    await admin.getByRole("button", { name: "Criar campanha" }).click();
    await admin.waitForURL(/\/campanhas\/[0-9a-f-]{36}\?ok=criada$/);
    return campaignIdIn(admin.url());
  }

  const rowsOf = (base: number, count: number) =>
    Array.from(
      { length: count },
      (_, i) => `${mobile(base, i)},Cliente ${i},${base + i},2,${base + i},ref-${base + i}`,
    );
  const HEADER = "to,variable_1,variable_2,variable_3,header_text,client_ref";

  // A database of its own: the worker's sweep runs every running campaign it sees, so on the shared test database it
  // would also send other suites' campaigns (an API test cancelling its queued recipients, say).
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;

  beforeAll(async () => {
    database = await isolatedDatabase();
    stack = await startPanelStack({ databaseUrl: database.url });
    tenant = await createTenant(stack.db);
    // Slow enough for a pause to land in the middle of a campaign of 60, fast enough for a short test.
    await stack.db.businessNumber.update({
      where: { phoneNumberId: tenant.phoneNumberId },
      data: { messagingRatePerSecond: 8 },
    });
    const port = await freePort();
    worker = spawnApp("campaign-worker", {
      DATABASE_URL: database.url,
      REDIS_URL: testEnv().redisUrl,
      REDIS_KEY_PREFIX: stack.panel.config.REDIS_KEY_PREFIX,
      META_BASE_URL: stack.sandbox.url,
      META_ACCESS_TOKEN: ACCESS_TOKEN,
      META_TIMEOUT_MS: "2000",
      CAMPAIGN_WORKER_PORT: String(port),
      CAMPAIGN_SWEEP_INTERVAL_MS: "300",
      CAMPAIGN_TICK_BUDGET_MS: "3000",
      CAMPAIGN_TURN_MAX_WAIT_MS: "2000",
      CAMPAIGN_REDRIVE_AFTER_MS: "9000",
      CAMPAIGN_LOCK_DURATION_MS: "3000",
      CAMPAIGN_STALLED_INTERVAL_MS: "1000",
    });
    await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeoutMs: 30_000, intervalMs: 200, what: `the campaign worker to be ready\n${worker.output()}` },
    );
    admin = await signIn(stack, tenant.users.admin.email);
    admin.on("dialog", (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await admin.context().close();
    await worker.stop();
    await stack.close();
    await database.drop();
  });

  let firstId = "";

  it("creates a campaign from an uploaded CSV, reports the invalid and the repeated row, and follows it to every outcome", async () => {
    // Saved as Excel in Portuguese saves it: `;` and Windows-1252 ("João" is not UTF-8 here).
    const csv = [
      "to;variable_1;variable_2;variable_3;header_text;client_ref",
      `${mobile(0, 1)};Maria;1001;3;1001;cliente-1`,
      `${mobile(0, 2)};João;1002;2;1002;cliente-2`,
      `+55 11 9${mobile(0, 3).slice(5, 9)}-${mobile(0, 3).slice(9)};Ana;1003;1;1003;cliente-3`,
      `${mobile(0, 4)};Bruno;1004;5;1004;cliente-4`,
      "123;Zé;1005;1;1005;cliente-5",
      `${mobile(0, 2)};João de novo;1006;1;1006;cliente-6`,
    ].join("\r\n");
    // The fourth recipient is accepted by Meta, then fails (131026): its outcome carries the error code.
    await fetch(`${stack.sandbox.url}/_sandbox/config`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ failAfterSend: [mobile(0, 4)] }),
    });

    await admin.goto("/campanhas");
    await admin.getByRole("link", { name: "Nova campanha" }).click();
    await admin.waitForURL(/\/campanhas\/nova$/);
    expect(await textOf(admin.getByText("Número que envia"))).toContain("+55 11 4000-0000 (8 msg/s)");
    await admin.getByText("Formato do CSV").click();
    expect(await textOf(admin.getByLabel("Exemplo de CSV de destinatários"))).toContain(
      "to,variable_1,variable_2,variable_3,header_text,client_ref",
    );
    await admin.getByLabel("Nome da campanha").fill("Pedidos de março");
    await admin.getByLabel("Template").selectOption("pedido_confirmado|pt_BR");
    await admin.getByLabel("Arquivo CSV de destinatários").setInputFiles({
      name: "clientes.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(csv, "latin1"),
    });
    await admin.getByRole("button", { name: "Criar campanha" }).click();
    await admin.waitForURL(/\/campanhas\/[0-9a-f-]{36}\?ok=criada$/);
    firstId = campaignIdIn(admin.url());

    expect(await textOf(admin.getByRole("heading", { level: 1 }))).toBe("Pedidos de março");
    expect(await textOf(admin.getByRole("status"))).toContain("Campanha criada como rascunho");
    expect(await card(admin, "Linhas lidas")).toBe(6);
    expect(await card(admin, "Aceitas")).toBe(4);
    expect(await card(admin, "Recusadas")).toBe(2);
    const rejected = admin
      .getByRole("table", { name: "Linhas recusadas na validação, com o motivo" })
      .locator("tbody tr");
    const cells = async (row: number) =>
      (await rejected.nth(row).locator("td").allTextContents()).map((cell) => cell.replace(/\s+/g, " ").trim());
    expect(await rejected.count()).toBe(2);
    // The reason in words; the code (the CSV's error_code) only as a smaller detail.
    expect(await cells(0)).toEqual(["5", "123", "O número 123 não é válido para envio. invalid_recipient"]);
    expect(await cells(1)).toEqual([
      "6",
      mobile(0, 2),
      expect.stringMatching(/já aparece na linha 2.* duplicate_recipient$/),
    ]);
    // Nothing left before the start.
    expect(await sandboxSends([1, 2, 3, 4].map((i) => mobile(0, i)))).toEqual([]);
    const { rows: stored } = await stack.db.sql.query<{ parameters: { variables: string[] } }>(
      "SELECT parameters FROM campaign_recipients WHERE campaign_id = $1 AND row_number = 2",
      [firstId],
    );
    expect(stored[0]?.parameters.variables).toEqual(["João", "1002", "2"]);
    await screenshot(admin, "campanha-criada");

    await admin.getByRole("button", { name: "Iniciar" }).click();
    await admin.waitForURL(/\?ok=iniciada$/);
    expect(await textOf(admin.locator("dd .badge").first())).toBe("em andamento");

    // Followed as staff follow it: reloading the page until every recipient has its outcome.
    await eventually(
      async () => {
        await refresh(admin);
        return (await card(admin, "Lidas")) === 3 && (await card(admin, "Falhas")) === 1;
      },
      { timeoutMs: 45_000, intervalMs: 500, what: "three reads and one failure" },
    );
    await eventually(
      async () => {
        await refresh(admin);
        return (await textOf(admin.locator("dd .badge").first())) === "concluída";
      },
      { timeoutMs: 20_000, intervalMs: 500, what: "the campaign to complete" },
    );
    expect(await card(admin, "Na fila")).toBe(0);
    expect(await textOf(admin.getByRole("progressbar"))).toBe("4");
    expect(await textOf(admin.locator("label").filter({ has: admin.getByRole("progressbar") }))).toContain(
      "4 de 4 destinatários com resultado (100 %)",
    );
    const recipients = admin.getByRole("table", { name: "Resultado de cada destinatário, na ordem da lista" });
    const outcomes = (await recipients.locator("tbody tr td:nth-child(4)").allTextContents()).map((t) => t.trim());
    expect(outcomes).toEqual(["lida", "lida", "lida", "falhou"]);
    expect(await textOf(recipients.locator("tbody tr").nth(3).locator("td").nth(4))).toContain("recipient_unreachable");
    // Its cost: 4 utility templates estimated at R$ 0,0364; Meta priced all 4 on `sent`, and the one that failed
    // afterwards is not charged.
    const costCard = (label: string) =>
      textOf(admin.locator(".card").filter({ has: admin.getByText(label, { exact: true }) }));
    expect(await costCard("Custo estimado")).toBe("Custo estimado R$ 0,15 4 destinatários × R$ 0,0364 (Utilidade)");
    expect(await costCard("Custo até agora")).toBe(
      "Custo até agora R$ 0,11 3 cobradas de 4 mensagens com preço informado pela Meta (1 falhou e não é cobrada)",
    );
    await screenshot(admin, "campanha");

    // The outcome filter.
    await admin.getByRole("combobox", { name: /^Resultado/ }).selectOption("failed");
    await admin.getByRole("button", { name: "Filtrar" }).click();
    await admin.waitForURL(/resultado=failed/);
    expect(await recipients.locator("tbody tr").count()).toBe(1);
    expect(await textOf(recipients.locator("tbody tr td").nth(2))).toBe("cliente-4");

    const sends = await sandboxSends([1, 2, 3, 4].map((i) => mobile(0, i)));
    expect(sends.map((send) => send.to).sort()).toEqual([1, 2, 3, 4].map((i) => mobile(0, i)));
  });

  it("exports the outcome list as a CSV download, audited", async () => {
    await admin.goto(`/campanhas/${firstId}`);
    const [download] = await Promise.all([
      admin.waitForEvent("download"),
      admin.getByRole("link", { name: "Exportar CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`campanha-${firstId}.csv`);
    const lines = (await downloadText(download)).trimEnd().split("\r\n");
    // What Excel in Portuguese opens in columns: a UTF-8 BOM, `;` between cells; every text cell quoted, numbers bare.
    expect(lines[0]).toBe(
      '\uFEFF"row";"to";"client_ref";"status";"message_id";"error_code";"error_message";"attempts";"updated_at"',
    );
    expect(lines.slice(1).map((line) => line.split(";").slice(0, 4))).toEqual([
      ["1", `"${mobile(0, 1)}"`, '"cliente-1"', '"read"'],
      ["2", `"${mobile(0, 2)}"`, '"cliente-2"', '"read"'],
      ["3", `"${mobile(0, 3)}"`, '"cliente-3"', '"read"'],
      ["4", `"${mobile(0, 4)}"`, '"cliente-4"', '"failed"'],
    ]);
    expect(lines[4]).toContain("recipient_unreachable");
    await eventually(
      () =>
        stack.db.auditEntry.findFirst({
          where: { accountId: tenant.accountId, action: "panel.campaign.exported", target: `campaign:${firstId}` },
        }),
      { what: "the export's audit entry" },
    );
  });

  it("pauses a running campaign (the sends stop, the rest stays queued) and resumes it to the end, each recipient once", async () => {
    const numbers = Array.from({ length: 60 }, (_, i) => mobile(1_000, i));
    const id = await createWithText("Lembrete de pagamento", [HEADER, ...rowsOf(1_000, 60)].join("\n"));
    expect(await card(admin, "Aceitas")).toBe(60);
    await admin.getByRole("button", { name: "Iniciar" }).click();
    await admin.waitForURL(/\?ok=iniciada$/);
    await eventually(async () => (await sandboxSends(numbers)).length >= 5, {
      timeoutMs: 30_000,
      what: "the first sends",
    });

    await admin.getByRole("button", { name: "Pausar" }).click();
    await admin.waitForURL(/\?ok=pausada$/);
    expect(await textOf(admin.locator("dd .badge").first())).toBe("pausada");
    // Sends in flight finish; then nothing more leaves.
    let whilePaused = (await sandboxSends(numbers)).length;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const now = (await sandboxSends(numbers)).length;
      if (now === whilePaused) break;
      whilePaused = now;
    }
    expect(whilePaused).toBeLessThan(60);
    await refresh(admin);
    expect(await card(admin, "Na fila")).toBe(60 - whilePaused);
    expect(await textOf(admin.locator("dt:has-text('Número') + dd"))).toBe(
      `+55 11 4000-0000 (8 msg/s) phone_number_id ${tenant.phoneNumberId}`,
    );
    expect(await textOf(admin.getByText(/quando for retomada/))).toMatch(/^Faltam cerca de \d+ s de envios/);

    await admin.getByRole("button", { name: "Retomar" }).click();
    await admin.waitForURL(/\?ok=retomada$/);
    await eventually(
      async () => {
        await refresh(admin);
        return (await textOf(admin.locator("dd .badge").first())) === "concluída";
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: "the resumed campaign to complete" },
    );
    const sends = await sandboxSends(numbers);
    expect(sends).toHaveLength(60);
    expect(new Set(sends.map((send) => send.to)).size).toBe(60);
    expect(await card(admin, "Na fila")).toBe(0);

    const audit = await stack.db.auditEntry.findMany({
      where: { accountId: tenant.accountId, target: `campaign:${id}` },
      orderBy: { id: "asc" },
    });
    expect(audit.map((entry) => [entry.action, entry.actor])).toEqual(
      ["created", "started", "paused", "resumed"].map((verb) => [
        `panel.campaign.${verb}`,
        `panel:${tenant.users.admin.email}`,
      ]),
    );
  });

  it("schedules a campaign for a São Paulo time and cancels it before anything is sent", async () => {
    const numbers = Array.from({ length: 3 }, (_, i) => mobile(2_000, i));
    // Tomorrow at 09:30 in São Paulo, as the datetime-local field takes it.
    const tomorrow = new Date(Date.now() + 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 10);
    const id = await createWithText("Ofertas de amanhã", [HEADER, ...rowsOf(2_000, 3)].join("\n"), `${tomorrow}T09:30`);
    const [year, month, day] = tomorrow.split("-");
    expect(await textOf(admin.locator("dt:has-text('Início agendado') + dd"))).toBe(
      `${day}/${month}/${year}, 09:30:00`,
    );
    await admin.getByRole("button", { name: "Iniciar" }).click();
    await admin.waitForURL(/\?ok=agendada$/);
    expect(await textOf(admin.locator("dd .badge").first())).toBe("agendada");

    await admin.getByRole("button", { name: "Cancelar campanha" }).click();
    await admin.waitForURL(/\?ok=cancelada$/);
    expect(await textOf(admin.locator("dd .badge").first())).toBe("cancelada");
    expect(await card(admin, "Canceladas")).toBe(3);
    expect(await admin.getByRole("button", { name: "Pausar" }).count()).toBe(0);
    // A cancelled campaign takes no further control.
    const token = await admin.locator('input[name="_csrf"]').first().inputValue();
    const again = await admin.request.post(`/campanhas/${id}/retomar`, { form: { _csrf: token }, maxRedirects: 0 });
    expect(again.headers().location).toBe(`/campanhas/${id}?erro=estado`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await sandboxSends(numbers)).toEqual([]);
    expect(
      await stack.db.auditEntry.count({
        where: { accountId: tenant.accountId, target: `campaign:${id}`, action: "panel.campaign.cancelled" },
      }),
    ).toBe(1);
  });

  it("refuses a CSV without the to column and a past start time, keeping what was typed", async () => {
    await admin.goto("/campanhas/nova");
    await admin.getByLabel("Nome da campanha").fill("Sem coluna");
    await admin.getByLabel("Ou cole o CSV aqui").fill("numero,variable_1\n5511960001234,Maria");
    await admin.getByRole("button", { name: "Criar campanha" }).click();
    expect(await textOf(admin.getByRole("alert"))).toContain('A coluna "numero" do CSV não é conhecida');
    expect(await admin.getByLabel("Nome da campanha").inputValue()).toBe("Sem coluna");

    await admin.getByLabel("Ou cole o CSV aqui").fill(`${HEADER}\n${rowsOf(3_000, 1)[0] ?? ""}`);
    await admin.getByLabel(/^Início agendado/).fill("2020-01-01T09:00");
    await admin.getByRole("button", { name: "Criar campanha" }).click();
    expect(await textOf(admin.getByRole("alert"))).toContain("O início agendado já passou");
    const { rows } = await stack.db.sql.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM campaigns WHERE account_id = $1 AND name = 'Sem coluna'",
      [tenant.accountId],
    );
    expect(rows[0]?.count).toBe(0);
  });

  it("lists the campaigns with a status filter; a viewer follows them but cannot create or start one (403)", async () => {
    const draftId = await createWithText("Rascunho", [HEADER, ...rowsOf(4_000, 1)].join("\n"));
    await admin.goto("/campanhas");
    const names = async (page: Page) =>
      (
        await page
          .getByRole("table", { name: /^Campanhas da conta/ })
          .locator("tbody tr td:first-child")
          .allTextContents()
      ).map((name) => name.trim());
    expect(await names(admin)).toEqual(["Rascunho", "Ofertas de amanhã", "Lembrete de pagamento", "Pedidos de março"]);
    // Each campaign's estimate in the list: the draft's one recipient at the utility rate (R$ 0,0364).
    const draftRow = admin
      .getByRole("table", { name: /^Campanhas da conta/ })
      .locator("tbody tr")
      .first();
    expect(await textOf(draftRow.locator("td").nth(6))).toBe("R$ 0,04");
    await screenshot(admin, "campanhas");
    await admin.getByRole("combobox", { name: /^Status/ }).selectOption("completed");
    await admin.getByRole("button", { name: "Filtrar" }).click();
    await admin.waitForURL(/status=completed/);
    expect(await names(admin)).toEqual(["Lembrete de pagamento", "Pedidos de março"]);

    const viewer = await signIn(stack, tenant.users.viewer.email);
    await viewer.goto("/campanhas");
    expect(await names(viewer)).toHaveLength(4);
    expect(await viewer.getByRole("link", { name: "Nova campanha" }).count()).toBe(0);
    await viewer.goto(`/campanhas/${draftId}`);
    expect(await card(viewer, "Aceitas")).toBe(1);
    // A viewer reads the costs too (http/roles.ts, costs.view).
    expect(await textOf(viewer.getByRole("heading", { name: "Custo", exact: true }))).toBe("Custo");
    expect(await viewer.getByRole("button", { name: "Iniciar" }).count()).toBe(0);
    expect(await viewer.getByRole("button", { name: "Cancelar campanha" }).count()).toBe(0);
    const token = await viewer.locator('input[name="_csrf"]').first().inputValue();
    const start = await viewer.request.post(`/campanhas/${draftId}/iniciar`, {
      form: { _csrf: token, aceitos: "1" },
      maxRedirects: 0,
    });
    expect(start.status()).toBe(403);
    expect(await start.text()).toContain("Seu papel nesta conta não permite esta ação.");
    const create = await viewer.request.post("/campanhas", {
      multipart: { _csrf: token, nome: "x", numero: tenant.phoneNumberId, template: "pedido_confirmado|pt_BR" },
      maxRedirects: 0,
    });
    expect(create.status()).toBe(403);
    expect((await viewer.request.get("/campanhas/nova")).status()).toBe(403);
    await viewer.goto(`/campanhas/${draftId}`);
    expect(await textOf(viewer.locator("dd .badge").first())).toBe("rascunho");
    // A phone-width screen: the tables scroll inside their frame, never the page.
    await viewer.setViewportSize({ width: 375, height: 800 });
    for (const path of ["/campanhas", `/campanhas/${firstId}`]) {
      await viewer.goto(path);
      expect(await viewer.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    }
    // Another account's campaign, or none, is not found.
    expect((await viewer.request.get(`/campanhas/${randomUUID()}`)).status()).toBe(404);
    expect((await viewer.request.get(`/campanhas/nao-e-um-id`)).status()).toBe(404);
    await viewer.context().close();
  });
  it("offers no start when no row was accepted, and pages through every refused row", async () => {
    const bad = Array.from({ length: 25 }, (_, i) => `${100 + i},Cliente,1,2,1,ref-${i}`);
    const id = await createWithText("Só números inválidos", [HEADER, ...bad].join("\n"));
    expect(await card(admin, "Aceitas")).toBe(0);
    expect(await card(admin, "Recusadas")).toBe(25);
    expect(await textOf(admin.getByRole("alert"))).toContain("A campanha não tem destinatários aceitos");
    expect(await admin.getByRole("button", { name: "Iniciar" }).count()).toBe(0);
    const table = (page: Page) =>
      page.getByRole("table", { name: "Linhas recusadas na validação, com o motivo" }).locator("tbody tr");
    expect(await table(admin).count()).toBe(20);
    await admin.getByRole("link", { name: "Ver todas as 25 linhas recusadas" }).click();
    await admin.waitForURL(new RegExp(`/campanhas/${id}/recusadas$`));
    expect(await table(admin).count()).toBe(25);
    expect(await textOf(table(admin).last().locator("td").nth(1))).toBe("124");
  });

  it("exports a client_ref made to run in a spreadsheet as text: quoted, a formula defused by an apostrophe", async () => {
    await createWithText(
      "Fórmulas",
      [HEADER, `${mobile(500, 0)},Ana,1,2,1,x;=cmd|' /C calc'!A0;`, `${mobile(500, 1)},Bia,1,2,1,=1+1`].join("\n"),
    );
    const [attackDownload] = await Promise.all([
      admin.waitForEvent("download"),
      admin.getByRole("link", { name: "Exportar CSV" }).click(),
    ]);
    const attackLines = (await downloadText(attackDownload)).trimEnd().split("\r\n");
    // The `;` inside the value would start a cell `=cmd…` in Excel pt-BR: defused too.
    expect(attackLines[1]).toContain(`;"x;'=cmd|' /C calc'!A0;";`);
    expect(attackLines[2]).toContain(`;"'=1+1";`);
  });
});
