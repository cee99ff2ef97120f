import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import {
  ACCESS_TOKEN,
  createTenant,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";
import { ensureOrderTables, openAtSandbox, seedOrder } from "./support/orders.ts";

// Issue 28 in the panel: Pedidos lists the account's Pix orders (status and payment filters), shows an order's items,
// totals and history, and lets owners and admins send the next order_status through the send service (CSRF, a
// viewer refused, a form-minted Idempotency-Key so a double submit sends once); Conversas shows an order message's
// current status. Orders are written as the accepted Pix send writes them (support/orders.ts); the status goes out
// to the provider sandbox.

jest.setTimeout(120_000);

const X = "5511987652828";
const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

interface SandboxSent {
  phone_number_id: string;
  to: string | null;
  type: string;
  body: { interactive?: { type?: string; action?: { parameters?: Record<string, unknown> } } };
}

describe("panel Pedidos in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;
  let owner: Page;
  let viewer: Page;
  let contactKey: string;

  /** The Graph message POSTs the sandbox received from the tenant's number (answered or refused). */
  async function messagePosts(): Promise<number> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/requests?limit=10000`);
    const requests = (await response.json()) as { method: string; path: string }[];
    return requests.filter((r) => r.method === "POST" && r.path.endsWith(`/${tenant.phoneNumberId}/messages`)).length;
  }

  /** The rows of the page's `index`-th table, each as its cells' texts joined by one space. */
  async function rowsOf(page: Page, index: number): Promise<string[]> {
    return page.evaluate<string[]>(
      `[...document.querySelectorAll("table")[${index}].tBodies[0].rows].map((row) =>
         [...row.cells].map((cell) => cell.textContent.replace(/\\s+/g, " ").trim()).join(" "))`,
    );
  }

  async function orderStatusesSent(referenceId: string): Promise<SandboxSent[]> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/sent?limit=10000`);
    const sent = (await response.json()) as SandboxSent[];
    return sent.filter(
      (s) =>
        s.body.interactive?.type === "order_status" &&
        s.body.interactive.action?.parameters?.reference_id === referenceId,
    );
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    await ensureOrderTables(stack.db);
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    // The customer writes (their 24 h window opens): the statuses sent below are free-form messages.
    const inbound = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: tenant.phoneNumberId,
        from: X,
        name: "Bia",
        type: "text",
        text: "Paguei",
      }),
    });
    const { id } = (await inbound.json()) as { id: string };
    contactKey = (await stack.db.inboundMessage.findUniqueOrThrow({ where: { wamid: id } })).contactKey;
    const base = { accountId: tenant.accountId, phoneNumberId: tenant.phoneNumberId, to: X, contactKey };
    await seedOrder(stack.db, { ...base, referenceId: "pedido-aberto" });
    // The sandbox checks an order_status against the orders it saw: it sees this one's order_details.
    await openAtSandbox(stack.sandbox.url, {
      phoneNumberId: tenant.phoneNumberId,
      to: X,
      referenceId: "pedido-aberto",
      accessToken: ACCESS_TOKEN,
    });
    await seedOrder(stack.db, {
      ...base,
      referenceId: "pedido-pago",
      statuses: [
        {
          orderStatus: "processing",
          paymentStatus: "captured",
          description: "Separando os itens",
          messageStatus: "read",
        },
        {
          orderStatus: "shipped",
          paymentStatus: null,
          messageStatus: "failed",
          error: { code: 131026, reason: "Mensagem não entregue" },
          actor: "panel:ana@exemplo.com.br",
        },
      ],
    });
    await seedOrder(stack.db, {
      ...base,
      referenceId: "pedido-cancelado",
      statuses: [{ orderStatus: "canceled", paymentStatus: "failed", messageStatus: "delivered" }],
    });
    await seedOrder(stack.db, {
      accountId: other.accountId,
      phoneNumberId: other.phoneNumberId,
      to: X,
      referenceId: "pedido-de-outra-conta",
    });
    owner = await signIn(stack, tenant.users.owner.email);
    viewer = await signIn(stack, tenant.users.viewer.email);
  });
  afterAll(async () => {
    await owner.context().close();
    await viewer.context().close();
    await stack.close();
  });

  it("lists the account's orders only, filtered by order status and by payment status", async () => {
    const references = async (path: string) => {
      await owner.goto(path);
      return owner.locator("table tbody tr td:first-child").allTextContents();
    };
    expect(await references("/pedidos")).toEqual(["pedido-cancelado", "pedido-pago", "pedido-aberto"]);
    await owner.goto("/pedidos");
    const cells = await owner
      .getByRole("row", { name: /pedido-pago/ })
      .locator("td")
      .allTextContents();
    expect(cells.map((cell) => cell.replace(/\s+/g, " ").trim()).slice(0, 5)).toEqual([
      "pedido-pago",
      "+5511987652828",
      "R$ 61,50",
      "enviado",
      "pago",
    ]);
    expect(await references("/pedidos?status=shipped")).toEqual(["pedido-pago"]);
    expect(await references("/pedidos?pagamento=failed")).toEqual(["pedido-cancelado"]);
    expect(await references("/pedidos?status=pending&pagamento=pending")).toEqual(["pedido-aberto"]);
    await owner.goto("/pedidos?status=completed");
    expect(await textOf(owner.locator(".empty"))).toBe("Nenhum pedido com estes filtros.");
    // The filters' form keeps the choice, and a bad value is refused, not ignored.
    await owner.goto("/pedidos?status=shipped");
    expect(await owner.getByLabel("Status do pedido").inputValue()).toBe("shipped");
    // The navigation names the section.
    expect(await owner.locator('a[aria-current="page"]').first().textContent()).toBe("Pedidos");
    expect((await owner.goto("/pedidos?status=enviado"))?.status()).toBe(400);
  });

  it("shows an order's items, totals, payment methods and history with each message's outcome", async () => {
    await owner.goto("/pedidos/pedido-pago");
    // The reference "pedido-pago" is not repeated after the word ("Pedido pedido-pago"); it stays on the page.
    expect(await textOf(owner.locator("h1"))).toBe("Pedido pago");
    expect(await rowsOf(owner, 0)).toEqual([
      "Pão de queijo (kg) PQ-1 2 R$ 25,00 R$ 50,00",
      "Café <especial> — 1 R$ 10,50 R$ 10,50",
    ]);
    const body = await textOf(owner.locator("main"));
    expect(body).toContain("Subtotal R$ 60,50 Impostos R$ 1,00 Total R$ 61,50");
    expect(body).toContain("Formas de pagamento oferecidas Pix, boleto");
    expect(body).toContain("Referência pedido-pago");
    // The business number as people dial it, its phone_number_id a detail; client_ref under a Portuguese term.
    expect(body).toContain(`Número da conta +55 11 4000-0000 phone_number_id ${tenant.phoneNumberId}`);
    expect(body).toContain("Referência interna loja-77 client_ref");
    // The last status message (shipped) had no description: the order keeps none.
    expect(body).not.toContain("Descrição do último status");
    const history = await rowsOf(owner, 1);
    expect(history).toHaveLength(3);
    // Each message's wamid is a detail for integrators (its title), not text.
    expect(history[0]).toMatch(/^Pedido \(cobrança\) pendente pagamento pendente — .+ API lida$/);
    expect(history[1]).toMatch(/^Status do pedido em preparação pago Separando os itens .+ API lida$/);
    expect(history[2]).toMatch(/^Status do pedido enviado — .+ painel falhou Erro 131026: Mensagem não entregue$/);
    expect(await owner.getByTitle(/^ID da mensagem na Meta: wamid\./).count()).toBe(history.length);
    // Another account's reference and an unknown one are the same 404.
    for (const path of ["/pedidos/pedido-de-outra-conta", "/pedidos/nao-existe"]) {
      const response = await owner.goto(path);
      expect(response?.status()).toBe(404);
    }
  });

  it("offers only the moves the rules allow, and none after a final status", async () => {
    await owner.goto("/pedidos/pedido-aberto");
    expect(await owner.getByLabel("Novo status").locator("option").allTextContents()).toEqual([
      "em preparação",
      "enviado em parte",
      "enviado",
      "concluído",
      "cancelado",
    ]);
    // Paid: nothing moves the payment back, and cancelling is not offered.
    await owner.goto("/pedidos/pedido-pago");
    expect(await owner.getByLabel("Novo status").locator("option").allTextContents()).toEqual(["enviado", "concluído"]);
    await owner.goto("/pedidos/pedido-cancelado");
    expect(await owner.locator('form[action$="/status"]').count()).toBe(0);
    expect(await textOf(owner.locator("#proximo-status + p"))).toBe(
      "Este pedido está cancelado: nenhum status pode ser enviado depois.",
    );
  });

  it("lets a viewer read an order but not send a status: no form, and the POST is refused with 403", async () => {
    const before = await messagePosts();
    await viewer.goto("/pedidos/pedido-aberto");
    expect(await viewer.locator('form[action$="/status"]').count()).toBe(0);
    expect(await textOf(viewer.locator("#proximo-status + p"))).toBe(
      "Seu papel nesta conta permite consultar os pedidos, não enviar status.",
    );
    const response = await viewer.request.post("/pedidos/pedido-aberto/status", {
      form: { _csrf: await csrfOf(viewer), status: "processing", pagamento: "captured", chave: "a".repeat(22) },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(403);
    expect(await messagePosts()).toBe(before);
  });

  it("refuses a status POST without the form's CSRF token, before anything is sent", async () => {
    const before = await messagePosts();
    const response = await owner.request.post("/pedidos/pedido-aberto/status", {
      form: { status: "processing", pagamento: "captured", chave: "b".repeat(22) },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(403);
    const forged = await owner.request.post("/pedidos/pedido-aberto/status", {
      form: { _csrf: "x".repeat(43), status: "processing", pagamento: "captured", chave: "b".repeat(22) },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await messagePosts()).toBe(before);
  });

  it("refuses a move the rules forbid with a notice, sending nothing and leaving the order as it was", async () => {
    await owner.goto("/pedidos/pedido-cancelado");
    const before = await messagePosts();
    const response = await owner.request.post("/pedidos/pedido-cancelado/status", {
      form: { _csrf: await csrfOf(owner), status: "processing", pagamento: "", chave: "c".repeat(22) },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(303);
    const location = response.headers().location ?? "";
    expect(location).toMatch(/^\/pedidos\/pedido-cancelado\?erro=[a-z_]+$/);
    await owner.goto(location);
    expect(await textOf(owner.getByRole("alert"))).toMatch(/não é permitida|recusou/);
    expect(await textOf(owner.locator("dl dd").first())).toBe("cancelado pagamento falhou");
    expect(await messagePosts()).toBe(before);
  });

  it("sends the chosen status to the order's customer once, however often the same form is submitted", async () => {
    await owner.goto("/pedidos/pedido-aberto");
    const form = owner.locator('form[action="/pedidos/pedido-aberto/status"]');
    const fields = {
      _csrf: await csrfOf(owner),
      chave: await form.locator('input[name="chave"]').inputValue(),
      status: "processing",
      pagamento: "captured",
      descricao: "Separando os itens",
      texto: "",
    };
    expect(fields.chave).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const before = await messagePosts();
    // A double click: the same form twice, at once.
    const answers = await Promise.all(
      [1, 2].map(() => owner.request.post("/pedidos/pedido-aberto/status", { form: fields, maxRedirects: 0 })),
    );
    const locations = answers.map((answer) => [answer.status(), answer.headers().location]);
    // One send reaches Meta; the other submit replays its answer (or, still in flight, is told so). Then a third.
    const third = await owner.request.post("/pedidos/pedido-aberto/status", { form: fields, maxRedirects: 0 });
    expect(third.headers().location).toBe("/pedidos/pedido-aberto?ok=status_enviado");
    expect(locations).toContainEqual([303, "/pedidos/pedido-aberto?ok=status_enviado"]);
    expect(await messagePosts()).toBe(before + 1);
    const sent = await orderStatusesSent("pedido-aberto");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.to).toBe(X);
    expect(sent[0]?.body.interactive?.action?.parameters).toMatchObject({
      reference_id: "pedido-aberto",
      order: { status: "processing", description: "Separando os itens" },
      payment: { status: "captured" },
    });

    // The order moved with Meta's acceptance: the page says so, and the history names the panel.
    await owner.goto(third.headers().location ?? "");
    expect(await textOf(owner.getByRole("status"))).toMatch(/^Status enviado ao cliente/);
    expect(await textOf(owner.locator("dl dd").first())).toBe("em preparação pago");
    const history = await rowsOf(owner, 1);
    expect(history.at(-1)).toMatch(/em preparação pago Separando os itens .+ painel/);
    // A newly rendered form is a new send: its key differs.
    expect(await owner.locator('input[name="chave"]').inputValue()).not.toBe(fields.chave);
  });

  it("shows in Conversas the current status of an order's message, linked to its page in Pedidos", async () => {
    await owner.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
    const link = owner.getByRole("link", { name: "Pedido pago" }).first();
    expect(await link.getAttribute("href")).toBe("/pedidos/pedido-pago");
    // The order's current pair, on its charge and on each of its status messages alike.
    const lines = (
      await owner
        .locator("article.bubble.out p", { has: owner.locator('a[href="/pedidos/pedido-pago"]') })
        .allTextContents()
    ).map((line) => line.replace(/\s+/g, " ").trim());
    expect(lines).toEqual(["Pedido pago: enviado pago", "Pedido pago: enviado pago", "Pedido pago: enviado pago"]);
    expect(await owner.getByText("Status do pedido").count()).toBeGreaterThan(0);
    // Another account's order with the same customer never shows here.
    expect(await owner.locator('a[href="/pedidos/pedido-de-outra-conta"]').count()).toBe(0);
  });

  it("with the customer's window closed, offers the number's order-status templates and sends the status by one", async () => {
    const Y = "5511987652829";
    const inbound = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: tenant.phoneNumberId, from: Y, name: "Caio", type: "text", text: "Oi" }),
    });
    const { id } = (await inbound.json()) as { id: string };
    const key = (await stack.db.inboundMessage.findUniqueOrThrow({ where: { wamid: id } })).contactKey;
    await seedOrder(stack.db, {
      accountId: tenant.accountId,
      phoneNumberId: tenant.phoneNumberId,
      to: Y,
      contactKey: key,
      referenceId: "pedido-sem-janela",
    });
    await openAtSandbox(stack.sandbox.url, {
      phoneNumberId: tenant.phoneNumberId,
      to: Y,
      referenceId: "pedido-sem-janela",
      accessToken: ACCESS_TOKEN,
    });
    // A day and a half later, as the gateway sees it: the customer has not written since.
    await stack.db.contactWindow.updateMany({
      where: { phoneNumberId: tenant.phoneNumberId, contact: key },
      data: { lastInboundAt: new Date(Date.now() - 36 * 3_600_000), expiresAt: new Date(Date.now() - 12 * 3_600_000) },
    });

    await owner.goto("/pedidos/pedido-sem-janela");
    expect(await textOf(owner.locator("#janela"))).toMatch(/^Janela de 24 horas: fechada/);
    const form = owner.locator('form[action="/pedidos/pedido-sem-janela/status"]');
    // The template form: no payment and no text of ours, only the account's ORDER_STATUS templates.
    expect(await form.locator('select[name="pagamento"]').count()).toBe(0);
    expect(await form.locator('textarea[name="texto"]').count()).toBe(0);
    const options = await form.locator('select[name="modelo"] option').allTextContents();
    expect(options.map((o) => o.trim())).toEqual(["status_do_pedido (pt_BR) (1 variáveis)"]);

    await form.locator('select[name="status"]').selectOption("processing");
    await form.locator('textarea[name="variaveis"]').fill("Caio");
    await form.locator('input[name="descricao"]').fill("Pagamento confirmado");
    const before = await messagePosts();
    await form.getByRole("button", { name: "Enviar status ao cliente" }).click();
    await owner.waitForURL("**/pedidos/pedido-sem-janela?ok=status_enviado");
    expect(await messagePosts()).toBe(before + 1);
    const response = await fetch(`${stack.sandbox.url}/_sandbox/sent?limit=10000`);
    const sent = ((await response.json()) as { body: { template?: { name: string; components: unknown[] } } }[])
      .map((s) => s.body.template)
      .filter((t) => t?.name === "status_do_pedido");
    expect(sent.at(-1)?.components).toEqual([
      { type: "body", parameters: [{ type: "text", text: "Caio" }] },
      {
        type: "order_status",
        parameters: [
          {
            type: "order_status",
            order_status: {
              reference_id: "pedido-sem-janela",
              order: { status: "processing", description: "Pagamento confirmado" },
            },
          },
        ],
      },
    ]);
    expect(await textOf(owner.locator("dl dd").first())).toBe("em preparação pagamento pendente");
    expect((await rowsOf(owner, 1)).at(-1)).toMatch(/pelo template status_do_pedido/);
  });
});
