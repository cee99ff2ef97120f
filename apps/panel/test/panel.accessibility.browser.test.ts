import { AxeBuilder } from "@axe-core/playwright";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { Router } from "express";
import type { Page } from "playwright-core";
import { createCampaign } from "@gw/core/campaigns";
import { DEVELOPMENT_INTEGRATION_POLICY, setIntegration } from "@gw/core/accounts";
import { invitePanelUser } from "@gw/core/users";
import { testActor, testSecretBox } from "@gw/testkit";
import { PASSWORD, createTenant, signIn, startPanelStack, type PanelStack, type TestTenant } from "@gw/test-stack";
import { PUBLIC_PAGES, SIGNED_IN_PAGES } from "../src/pages/index.ts";
import { ensureOrderTables, seedOrder } from "./support/orders.ts";
import { pageOverflow, pluralMistakes, rawCodesIn, shopOwnerText } from "./support/reading.ts";

// Issue 27: every page of the panel passes axe-core's WCAG 2.1 A and AA rules, signed in as the owner (who sees
// every section and every button) over an account with something on each page: a conversation with every message
// kind both ways and sends delivered, read and failed, an integration with deliveries and a replay, a campaign with
// a refused row, an invite; and the signed-out pages. axe runs through Playwright's CDP evaluation, so the panel's
// strict CSP stays on while it checks.

jest.setTimeout(180_000);

const X = "5511987650808";
/** The tenant's business number as people dial it (createTenant's). */
const DISPLAY_NUMBER = "+55 11 4000-0000";
/** A phone's width and a laptop's. */
const WIDTHS = [375, 1280] as const;
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** GET routes that answer a file, not a page: nothing for axe to read. */
const DOWNLOADS = new Set(["/entregas/exportar", "/campanhas/:id/exportar", "/conversas/midia/:id"]);

/** Every GET route the panel's pages register (as the app does), in registration order. */
function panelGetRoutes(stack: PanelStack): string[] {
  const router = Router();
  for (const section of [...PUBLIC_PAGES, ...SIGNED_IN_PAGES]) section.register(router, stack.panel);
  const routes: string[] = [];
  for (const layer of router.stack as { route?: { path: unknown; methods: Record<string, boolean> } }[])
    if (layer.route?.methods.get && typeof layer.route.path === "string") routes.push(layer.route.path);
  return routes;
}

/**
 * The violations of `page`, one line each (rule, element, why): empty when it passes. Every <details> is opened
 * first: axe skips what is hidden (the replay form, the events' examples, the phone menu).
 */
async function violations(page: Page): Promise<string[]> {
  await page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })");
  // options() replaces what withTags() set: it goes first.
  const result = await new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .withTags(WCAG_21_AA)
    .analyze();
  return result.violations.flatMap((violation) =>
    violation.nodes.map(
      (node) => `${violation.id} ${JSON.stringify(node.target)}: ${node.failureSummary?.replace(/\s+/g, " ") ?? ""}`,
    ),
  );
}

describe("panel accessibility: axe-core WCAG 2.1 A/AA on every page, in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let owner: Page;
  /** Route pattern → the address visited for it. */
  const visits = new Map<string, string>();

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);

    // A conversation: the contact writes through the sandbox (its window opens), then every kind both ways.
    const inbound = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: tenant.phoneNumberId, from: X, name: "Rita", type: "text", text: "Oi" }),
    });
    const first = await stack.db.inboundMessage.findUniqueOrThrow({
      where: { wamid: ((await inbound.json()) as { id: string }).id },
    });
    let at = first.occurredAt.getTime();
    const sends: [string, string, unknown][] = [
      ["text", "read", null],
      [
        "interactive",
        "delivered",
        { kind: "interactive", type: "button", header_type: null, buttons: [{ id: "s", title: "Sim" }] },
      ],
      [
        "interactive",
        "read",
        {
          kind: "interactive",
          type: "list",
          button: "Menu",
          sections: [{ title: "Opções", rows: [{ id: "opcao-1", title: "Boleto", description: "PDF" }] }],
        },
      ],
      ["interactive", "sent", { kind: "interactive", type: "cta_url", display_text: "Ver", url_host: "example.com" }],
      [
        "media",
        "failed",
        { kind: "media", type: "document", media_id: "123", link_host: null, filename: "a.pdf", voice: false },
      ],
      ["reaction", "sent", { kind: "reaction", message_id: first.wamid, emoji: "👍" }],
      [
        "location",
        "delivered",
        { kind: "location", latitude: -23.5, longitude: -46.6, name: "Loja", address: "Rua A" },
      ],
    ];
    for (const [index, [kind, status, content]] of sends.entries())
      await stack.db.message.create({
        data: {
          accountId: tenant.accountId,
          phoneNumberId: tenant.phoneNumberId,
          to: X,
          contactKey: first.contactKey,
          wamid: `wamid.a11y.out.${tenant.accountId}.${index}`,
          kind,
          status,
          ...(status === "failed" ? { errorCode: 131053, errorReason: "Falha ao baixar a mídia" } : {}),
          ...(content === null ? {} : { content }),
          createdAt: new Date((at += 1_000)),
        },
      });
    const received: [string, Record<string, unknown>][] = [
      [
        "interactive",
        { text: "Boleto", details: { interactive: { type: "list_reply", id: "opcao-1", title: "Boleto" } } },
      ],
      ["unsupported", { details: { reaction: { message_id: "wamid.x", emoji: "❤️" } } }],
      ["location", { details: { location: { latitude: -22.9, longitude: -43.2, name: "Casa", address: "Rua B" } } }],
      ["contacts", { details: { contacts: [{ formatted_name: "Carlos", phones: [{ phone: "+55 11 91234-5678" }] }] } }],
      ["text", { text: "Vi o anúncio", details: { referral: { headline: "Promo" }, forwarded: true } }],
      ["audio", { mediaId: "voice-1", mediaMime: "audio/ogg", mediaSha256: "b".repeat(64), mediaVoice: true }],
    ];
    for (const [index, [type, fields]] of received.entries()) {
      const occurredAt = new Date((at += 1_000));
      await stack.db.inboundMessage.create({
        data: {
          accountId: tenant.accountId,
          phoneNumberId: tenant.phoneNumberId,
          from: X,
          contactKey: first.contactKey,
          wamid: `wamid.a11y.in.${tenant.accountId}.${index}`,
          type,
          contactName: "Rita",
          occurredAt,
          windowExpiresAt: new Date(occurredAt.getTime() + 86_400_000),
          ...fields,
        },
      });
    }

    // Two sends Meta priced (Custos: a charged one and a free one, by the business number).
    for (const [index, type] of ["regular", "free_customer_service"].entries())
      await stack.db.message.create({
        data: {
          accountId: tenant.accountId,
          phoneNumberId: tenant.phoneNumberId,
          to: "5511999990000",
          wamid: `wamid.a11y.priced.${tenant.accountId}.${index}`,
          kind: "template",
          status: "delivered",
          pricing: { pricing_model: "PMP", category: "utility", type },
        },
      });

    // An order of the contact's (Pedidos, and its messages' badges in Conversas): paid, then a shipment that failed.
    await ensureOrderTables(stack.db);
    await seedOrder(stack.db, {
      accountId: tenant.accountId,
      phoneNumberId: tenant.phoneNumberId,
      to: X,
      contactKey: first.contactKey,
      referenceId: "pedido-a11y",
      statuses: [
        { orderStatus: "processing", paymentStatus: "captured", description: "Separando", messageStatus: "read" },
        {
          orderStatus: "shipped",
          paymentStatus: null,
          messageStatus: "failed",
          error: { code: 131026, reason: "Mensagem não entregue" },
        },
      ],
    });

    // An integration with a delivered and a failed delivery (the replay is made from the page below).
    const integration = await setIntegration(
      { db: stack.db, policy: DEVELOPMENT_INTEGRATION_POLICY, secrets: testSecretBox() },
      { actor: testActor, accountId: tenant.accountId, url: "http://127.0.0.1:9/webhooks", events: ["message.status"] },
    );
    const deliveries = [];
    for (const status of ["delivered", "failed"])
      deliveries.push(
        await stack.db.delivery.create({
          data: {
            accountId: tenant.accountId,
            integrationId: integration.id,
            event: "message.status",
            status,
            body: JSON.stringify({ event: "message.status", data: { message_id: "wamid.1" } }),
            attemptCount: 3,
            lastStatusCode: status === "failed" ? 500 : 200,
            lastError: status === "failed" ? "HTTP 500" : null,
            occurredAt: new Date(),
          },
        }),
      );

    // A delivery whose endpoint refused the connection (no HTTP status: the failure's kind is what is shown).
    await stack.db.delivery.create({
      data: {
        accountId: tenant.accountId,
        integrationId: integration.id,
        event: "message.status",
        status: "pending",
        body: JSON.stringify({ event: "message.status", data: { message_id: "wamid.2" } }),
        attemptCount: 1,
        lastErrorKind: "connection_refused",
        lastError: "connect ECONNREFUSED 127.0.0.1:9",
        occurredAt: new Date(),
      },
    });

    // A campaign (draft) with an accepted and a refused row.
    const campaign = await createCampaign(
      {
        db: stack.db,
        directory: stack.panel.directory,
        templates: stack.panel.templates,
        throughput: stack.panel.throughput,
      },
      {
        accountId: tenant.accountId,
        actor: testActor,
        name: "Campanha acessível",
        template: "pedido_confirmado",
        language: "pt_BR",
        recipients: {
          kind: "list",
          rows: [
            { to: "5511960009999", variables: ["Maria", "1001", "3"], header_text: "1001" },
            { to: "123", variables: ["Zé", "1002", "1"], header_text: "1002" },
          ],
        },
      },
    );
    const invite = await invitePanelUser(
      { db: stack.db },
      {
        accountId: tenant.accountId,
        email: `convidado-${tenant.accountId.slice(0, 8)}@exemplo.com.br`,
        role: "viewer",
        invitedBy: tenant.users.owner.id,
        actor: testActor,
      },
    );

    owner = await signIn(stack, tenant.users.owner.email);
    owner.on("dialog", (dialog) => void dialog.accept());
    // The replay of the failed delivery's day, through the page's own form.
    const day = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    await owner.goto("/entregas");
    await owner.getByText("Reenviar as entregas de um período").click();
    const form = owner.locator('form[action="/entregas/reenviar-periodo"]');
    await form.getByLabel("Início do período").fill(day);
    await form.getByLabel("Fim do período").fill(day);
    await form.getByRole("button", { name: "Reenviar período" }).click();
    await owner.waitForURL(/\/entregas\/reenvios\/[0-9a-f-]{36}/);
    const replay = new URL(owner.url()).pathname;

    const conversation = `/conversas/${tenant.phoneNumberId}/${X}`;
    for (const [route, path] of [
      ["/entrar", "/entrar"],
      ["/convite/:token", `/convite/${invite.token}`],
      ["/", "/"],
      ["/integracoes", "/integracoes"],
      ["/integracoes/:id", `/integracoes/${integration.id}`],
      ["/entregas/reenvios/:id", replay],
      ["/entregas", "/entregas"],
      ["/entregas/:id", `/entregas/${deliveries[1]?.id.toString() ?? ""}`],
      ["/chaves", "/chaves"],
      ["/numeros", "/numeros"],
      ["/conta/avisos", "/conta/avisos"],
      ["/templates", "/templates"],
      ["/templates/avisos", "/templates/avisos"],
      ["/conversas", "/conversas"],
      ["/conversas/:phoneNumberId/:contact", conversation],
      ["/pedidos", "/pedidos"],
      ["/pedidos/:ref", "/pedidos/pedido-a11y"],
      ["/campanhas", "/campanhas"],
      ["/campanhas/nova", "/campanhas/nova"],
      ["/campanhas/:id", `/campanhas/${campaign.id}`],
      ["/campanhas/:id/recusadas", `/campanhas/${campaign.id}/recusadas`],
      ["/custos", "/custos"],
      ["/auditoria", "/auditoria"],
      ["/usuarios", "/usuarios"],
      ["/confirmar-senha", "/confirmar-senha"],
    ] as const)
      visits.set(route, path);
  });
  afterAll(async () => {
    await owner.context().close();
    await stack.close();
  });

  it("visits every page the panel registers (a new page cannot skip the check)", () => {
    const pages = panelGetRoutes(stack).filter((route) => !DOWNLOADS.has(route));
    expect([...visits.keys()].sort()).toEqual([...new Set(pages)].sort());
  });

  // axe on ~35 pages: past the file's 180 s when the machine runs other suites too.
  it("finds no WCAG 2.1 A/AA violation on any signed-in page", async () => {
    const found: Record<string, string[]> = {};
    for (const [route, path] of visits) {
      if (route === "/entrar" || route === "/convite/:token") continue;
      const response = await owner.goto(path);
      expect([path, response?.status()]).toEqual([path, 200]);
      const problems = await violations(owner);
      if (problems.length > 0) found[path] = problems;
    }
    // States a plain visit does not show: a confirmation notice, and the error pages (a 404, an export refused).
    for (const path of [
      `${visits.get("/entregas/reenvios/:id") ?? ""}?ok=criado`,
      `${visits.get("/integracoes/:id") ?? ""}?ok=salva`,
      "/conversas?ok=confirmacao_ligada",
      "/pedidos/pedido-a11y?ok=status_enviado",
      "/pedidos/pedido-a11y?erro=outside_24h_window",
      "/nao-existe",
      "/entregas/exportar?de=2020-01-01&ate=2026-01-01",
    ]) {
      await owner.goto(path);
      const problems = await violations(owner);
      if (problems.length > 0) found[path] = problems;
    }
    // The campaign in the states that colour it (paused: warn; completed: ok; cancelled: bad), its recipient failed.
    const campaign = visits.get("/campanhas/:id") ?? "";
    const campaignId = campaign.split("/").at(-1) ?? "";
    await stack.db.sql.query(`UPDATE campaign_recipients SET status = 'failed' WHERE campaign_id = $1::uuid`, [
      campaignId,
    ]);
    for (const status of ["paused", "completed", "cancelled"]) {
      await stack.db.sql.query(`UPDATE campaigns SET status = $2 WHERE id = $1::uuid`, [campaignId, status]);
      for (const path of [campaign, "/campanhas"]) {
        await owner.goto(path);
        const problems = await violations(owner);
        if (problems.length > 0) found[`${path} (campaign ${status})`] = problems;
      }
    }
    expect(found).toEqual({});
  }, 360_000);

  it("reads as a shop owner reads at 375 px and 1280 px: the display number, words for codes, plurals that agree", async () => {
    const found: Record<string, string[]> = {};
    const shows = new Set(["/conversas", "/conversas/:phoneNumberId/:contact", "/pedidos/:ref", "/campanhas/:id"]);
    for (const width of WIDTHS) {
      await owner.setViewportSize({ width, height: 900 });
      for (const [route, path] of visits) {
        if (route === "/entrar" || route === "/convite/:token") continue;
        await owner.goto(path);
        const text = await shopOwnerText(owner);
        const problems = [
          ...rawCodesIn(text).map((code) => `raw code ${code}`),
          ...pluralMistakes(text).map((mistake) => `plural "${mistake}"`),
        ];
        // The number is spelt as people dial it; its phone_number_id only as a detail (a <code>, removed above).
        if (text.includes(tenant.phoneNumberId)) problems.push("bare phone_number_id");
        if ((shows.has(route) || route === "/custos") && !text.includes(DISPLAY_NUMBER))
          problems.push(`no ${DISPLAY_NUMBER}`);
        // Nothing wider than the screen but what scrolls inside its own box (a table, a code block).
        const overflow = await pageOverflow(owner);
        if (overflow !== null) problems.push(`page wider than the screen: ${overflow}`);
        // No table header or term reads "Endpoint": the integration is named as such.
        const terms = await owner.locator("main th, main dt").allInnerTexts();
        if (terms.some((term) => term.trim() === "Endpoint")) problems.push("header Endpoint");
        if (problems.length > 0) found[`${width}px ${path}`] = problems;
      }
    }
    expect(found).toEqual({});
  }, 360_000);

  it("collapses the menu at 375 px (a tap opens it, no script needed) and shows it whole at 1280 px; axe stays clean", async () => {
    const context = await stack.browser.newContext({
      baseURL: stack.panelUrl,
      locale: "pt-BR",
      viewport: { width: 375, height: 800 },
      javaScriptEnabled: false,
    });
    const phone = await context.newPage();
    await phone.goto("/entrar");
    await phone.getByLabel("E-mail").fill(tenant.users.viewer.email);
    await phone.getByLabel("Senha").fill(PASSWORD);
    await phone.getByRole("button", { name: "Entrar" }).click();
    await phone.waitForURL((url) => !url.pathname.startsWith("/entrar"));
    await phone.goto("/conversas");
    const nav = phone.getByRole("navigation", { name: "Seções do painel" });
    expect(await nav.getByRole("link", { name: "Integrações" }).isVisible()).toBe(false);
    await nav.getByText("Menu", { exact: true }).click();
    expect(await nav.getByRole("link", { name: "Integrações" }).isVisible()).toBe(true);
    // The conversations table reflows into cards: every cell within the phone's width, nothing cut at its edge.
    const cells = phone.getByRole("table", { name: "Conversas, da mais recente à mais antiga" }).locator("td");
    expect(await cells.count()).toBeGreaterThan(0);
    for (const cell of await cells.all()) {
      const box = await cell.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    }
    expect(await phone.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    for (const path of ["/", "/conversas", "/integracoes"]) {
      await owner.setViewportSize({ width: 375, height: 900 });
      await owner.goto(path);
      expect([path, await violations(owner)]).toEqual([path, []]);
    }
    await context.close();

    await owner.setViewportSize({ width: 1280, height: 900 });
    await owner.goto("/conversas");
    const wide = owner.getByRole("navigation", { name: "Seções do painel" });
    expect(await wide.getByRole("link", { name: "Integrações" }).isVisible()).toBe(true);
    expect(await wide.getByText("Menu", { exact: true }).isVisible()).toBe(false);
  });

  it("finds no violation on the signed-out pages: sign-in, an invite, the error page", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.panelUrl, locale: "pt-BR" });
    const page = await context.newPage();
    const found: Record<string, string[]> = {};
    for (const path of [visits.get("/entrar") ?? "", visits.get("/convite/:token") ?? "", "/convite/nao-existe"]) {
      await page.goto(path);
      const problems = await violations(page);
      if (problems.length > 0) found[path] = problems;
    }
    await context.close();
    expect(found).toEqual({});
  });
});
