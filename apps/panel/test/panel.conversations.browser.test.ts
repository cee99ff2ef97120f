import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import { eventually } from "@gw/testkit";
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

const X = "5511987650101";
const Y = "5521987650202";
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString("base64");

describe("panel Conversas in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let other: TestTenant;
  let viewer: Page;
  const ids: Record<string, string> = {};

  /** A contact's message through the sandbox's signed webhook; returns the gateway's inbound message id. */
  async function inbound(to: TestTenant, body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone_number_id: to.phoneNumberId, ...body }),
    });
    const answer = (await response.json()) as { id: string; webhook_status: number };
    expect(answer.webhook_status).toBe(200);
    return (await stack.db.inboundMessage.findUniqueOrThrow({ where: { wamid: answer.id } })).id;
  }

  /** The SHA-256 (hex) the sandbox recorded for the media of its newest inbound message of `type`. */
  async function sandboxMediaSha(mimeType: string): Promise<string> {
    const response = await fetch(`${stack.sandbox.url}/_sandbox/media`);
    const { media } = (await response.json()) as { media: { mime_type: string; sha256: string }[] };
    const found = media.findLast((item) => item.mime_type === mimeType);
    if (!found) throw new Error(`no ${mimeType} media in the sandbox`);
    return found.sha256;
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    other = await createTenant(stack.db);
    // Y wrote 25 h ago (window closed); X wrote in the last minute (window open).
    ids.y = await inbound(tenant, {
      from: Y,
      name: "João Lima",
      type: "text",
      text: "Vocês abrem domingo?",
      timestamp: Math.floor(Date.now() / 1000) - 25 * 3600,
    });
    // Meta's timestamps are whole seconds: a second apart each, so the conversation's order is known.
    const now = Math.floor(Date.now() / 1000);
    ids.xText = await inbound(tenant, {
      from: X,
      name: "Maria Souza",
      type: "text",
      text: "Oi, cadê meu pedido?",
      timestamp: now - 40,
    });
    ids.xImage = await inbound(tenant, {
      from: X,
      name: "Maria Souza",
      type: "image",
      media: { mime_type: "image/png", caption: "Foto da caixa amassada" },
      timestamp: now - 30,
    });
    ids.xDocument = await inbound(tenant, {
      from: X,
      name: "Maria Souza",
      type: "document",
      media: { mime_type: "application/pdf", filename: "nota fiscal ção.pdf" },
      timestamp: now - 20,
    });
    ids.xSvg = await inbound(tenant, {
      from: X,
      name: "Maria Souza",
      type: "image",
      media: { mime_type: "image/svg+xml", data: SVG },
      timestamp: now - 10,
    });
    ids.otherImage = await inbound(other, { from: X, type: "image", media: { mime_type: "image/png" } });
    // The account answers X through the public API (the window is open).
    const sent = await fetch(`${stack.apiUrl}/public/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.apiKey}` },
      body: JSON.stringify({ to: X, text: "Sua troca já foi aberta." }),
    });
    expect(sent.status).toBe(200);
    // The sandbox reports delivered then read within milliseconds; wait for the final status.
    await eventually(
      async () =>
        (await stack.db.message.findFirst({ where: { accountId: tenant.accountId, to: X } }))?.status === "read",
      { timeoutMs: 15_000, what: "the reply read" },
    );
    viewer = await signIn(stack, tenant.users.viewer.email);
  });
  afterAll(async () => {
    await viewer.context().close();
    await stack.close();
  });

  it("lists the contacts who wrote, newest first, with the last message and the 24 h window, and searches them", async () => {
    await viewer.goto("/conversas");
    const rows = viewer.locator("tbody tr");
    expect(await rows.count()).toBe(2);
    const x = (await rows.nth(0).locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    expect(x).toEqual([
      `Maria Souza +${X}`,
      // The business number as people dial it (Campanhas and Custos spell it so too), its id a detail.
      `+55 11 4000-0000 phone_number_id ${tenant.phoneNumberId}`,
      "Conta: mensagem de texto lida",
      expect.stringMatching(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2} 4 mensagens do contato$/),
      expect.stringMatching(/^aberta até \d{2}\/\d{2} às \d{2}:\d{2}$/),
    ]);
    const y = (await rows.nth(1).locator("td").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    expect(y).toEqual([
      `João Lima +${Y}`,
      `+55 11 4000-0000 phone_number_id ${tenant.phoneNumberId}`,
      "Contato: Vocês abrem domingo?",
      expect.stringMatching(/1 mensagem do contato$/),
      "fechada",
    ]);
    await screenshot(viewer, "conversas");

    await viewer.getByLabel("Buscar por nome ou número").fill("joão");
    await viewer.getByRole("button", { name: "Buscar" }).click();
    await viewer.waitForURL(/busca=/);
    expect(await viewer.locator("tbody tr").allInnerTexts()).toEqual([expect.stringContaining("João Lima")]);
    await viewer.getByLabel("Buscar por nome ou número").fill("98765-0101");
    await viewer.getByRole("button", { name: "Buscar" }).click();
    await viewer.waitForURL(/busca=98765-0101/);
    expect(await viewer.locator("tbody tr").allInnerTexts()).toEqual([expect.stringContaining("Maria Souza")]);
  });

  it("shows a conversation's messages oldest first, and an inbound image opened through the panel", async () => {
    await viewer.goto("/conversas");
    await viewer.getByRole("link", { name: "Maria Souza" }).click();
    await viewer.waitForURL(new RegExp(`/conversas/${tenant.phoneNumberId}/${X}$`));
    expect(await textOf(viewer.getByRole("heading", { level: 1 }))).toBe("Maria Souza");
    const bubbles = viewer.locator("article.bubble");
    expect(await bubbles.count()).toBe(5);
    expect(await textOf(bubbles.nth(0))).toMatch(/^Contato · .* Oi, cadê meu pedido\?$/);
    expect(await textOf(bubbles.nth(1))).toMatch(/· imagem Foto da caixa amassada Abrir imagem \(image\/png\)$/);
    expect(await textOf(bubbles.nth(2))).toMatch(/· documento Baixar documento nota fiscal ção\.pdf/);
    // The account's text, kept since issue 39 (the inbox shows both sides), under the inbound side's retention.
    expect(await textOf(bubbles.nth(4))).toMatch(/^Conta · .* lida Sua troca já foi aberta\.$/);
    expect(await bubbles.nth(4).getAttribute("class")).toBe("bubble out");

    // The image is fetched by the panel from Meta's media endpoint and served from the panel's own origin.
    const image = bubbles.nth(1).locator("img");
    expect(await image.getAttribute("src")).toBe(`/conversas/midia/${ids.xImage}`);
    expect(await image.getAttribute("alt")).toBe("imagem enviada pelo contato: Foto da caixa amassada");
    await image.scrollIntoViewIfNeeded();
    // Decoded pixels: a broken image (an error page, a refused type) keeps naturalWidth 0 until the deadline. Polled
    // from here with string expressions: waitForFunction would need 'unsafe-eval', which the panel's CSP refuses, and
    // these tests compile without the DOM library (as panel.overview's do).
    const naturalWidth = `document.querySelector('img[src="/conversas/midia/${ids.xImage}"]').naturalWidth`;
    expect(
      await eventually(async () => (await viewer.evaluate<number>(naturalWidth)) > 0, {
        timeoutMs: 10_000,
        what: "the image decoded",
      }).catch(() => false),
    ).toBe(true);
    // SVG is never shown inline: only a link, served as a download.
    expect(await bubbles.nth(3).locator("img").count()).toBe(0);
    expect(await textOf(bubbles.nth(3))).toMatch(/Abrir imagem \(image\/svg\+xml\)$/);
    await screenshot(viewer, "conversa");

    // Phone width: nothing wider than the screen (the image and bubbles shrink, no sideways scroll).
    await viewer.setViewportSize({ width: 375, height: 800 });
    expect(await viewer.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await viewer.setViewportSize({ width: 1280, height: 900 });

    const audit = await stack.db.auditEntry.findFirst({
      where: { accountId: tenant.accountId, action: "panel.media.opened", target: `inbound_message:${ids.xImage}` },
    });
    expect(audit).toMatchObject({ actor: `panel:${tenant.users.viewer.email}` });
  });

  it("answers the media with its type, nosniff and no-store; documents and SVG only as downloads", async () => {
    const image = await viewer.request.get(`/conversas/midia/${ids.xImage}`);
    expect(image.status()).toBe(200);
    expect(image.headers()).toMatchObject({
      "content-type": "image/png",
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      "content-disposition": "inline",
    });
    const bytes = await image.body();
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(await sandboxMediaSha("image/png"));

    const document = await viewer.request.get(`/conversas/midia/${ids.xDocument}`);
    expect(document.headers()).toMatchObject({
      "content-type": "application/pdf",
      "x-content-type-options": "nosniff",
      "content-disposition": `attachment; filename="nota fiscal __o.pdf"; filename*=UTF-8''nota%20fiscal%20%C3%A7%C3%A3o.pdf`,
    });

    const svg = await viewer.request.get(`/conversas/midia/${ids.xSvg}`);
    expect(svg.headers()).toMatchObject({
      "content-type": "image/svg+xml",
      "x-content-type-options": "nosniff",
      "content-disposition": "attachment",
    });
    expect(svg.headers()["content-security-policy"]).toMatch(/sandbox/);
  });

  it("answers 404 for another account's media and conversation, and for ids that name nothing", async () => {
    for (const path of [
      `/conversas/midia/${ids.otherImage}`,
      "/conversas/midia/00000000-0000-4000-8000-000000000000",
      "/conversas/midia/nao-e-um-id",
      `/conversas/${other.phoneNumberId}/${X}`,
      `/conversas/${tenant.phoneNumberId}/abc`,
    ]) {
      const response = await viewer.request.get(path);
      expect([path, response.status()]).toEqual([path, 404]);
    }
    // The refused media was never fetched for this account, so never audited.
    expect(
      await stack.db.auditEntry.count({
        where: { action: "panel.media.opened", target: `inbound_message:${ids.otherImage}` },
      }),
    ).toBe(0);
  });

  describe("read receipts (the account's setting)", () => {
    let admin: Page;

    /** The mark-as-read calls the sandbox accepted for the tenant's number. */
    async function readMarks(): Promise<{ message_id: string; typing_indicator: string | null }[]> {
      const response = await fetch(`${stack.sandbox.url}/_sandbox/read-marks?phone_number_id=${tenant.phoneNumberId}`);
      return ((await response.json()) as { read_marks: { message_id: string; typing_indicator: string | null }[] })
        .read_marks;
    }
    const wamidOf = async (id: string | undefined) =>
      (await stack.db.inboundMessage.findUniqueOrThrow({ where: { id: id ?? "" } })).wamid;
    const readAtOf = async (id: string | undefined) =>
      (await stack.db.inboundMessage.findUniqueOrThrow({ where: { id: id ?? "" } })).readAt;
    const contactBubbles = (page: Page) => page.locator("article.bubble:not(.out)");
    const setting = async () =>
      (await stack.db.account.findUniqueOrThrow({ where: { id: tenant.accountId } })).panelReadReceipts;

    beforeAll(async () => {
      admin = await signIn(stack, tenant.users.admin.email);
    });
    afterAll(async () => {
      await admin.context().close();
    });

    it("is off by default: the conversations opened above marked nothing read at Meta, and show as unread", async () => {
      expect(await setting()).toBe(false);
      expect(await readMarks()).toEqual([]);
      await viewer.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
      const bubbles = contactBubbles(viewer);
      expect(await bubbles.count()).toBe(4);
      for (const text of await bubbles.allInnerTexts()) expect(text).toMatch(/^Contato · \S+, \S+ não lida/);
      expect(await readMarks()).toEqual([]);
      expect(await readAtOf(ids.xText)).toBeNull();
    });

    it("shows a viewer the setting without the button, and refuses a viewer's forged POST (403)", async () => {
      await viewer.goto("/conversas");
      const section = viewer.getByRole("region", { name: "Confirmação de leitura" });
      expect(await textOf(section)).toMatch(/desligada Abrir uma conversa não marca as mensagens como lidas/);
      expect(await section.getByRole("button").count()).toBe(0);
      const _csrf = await viewer.locator('input[name="_csrf"]').first().inputValue();
      const forged = await viewer.request.post("/conversas/confirmacao-de-leitura", {
        form: { _csrf, ativar: "1" },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(await setting()).toBe(false);
    });

    it("an admin turns it on (audited); opening a conversation then marks its newest message read at Meta, and the contact's messages show as read", async () => {
      await admin.goto("/conversas");
      await admin.getByRole("button", { name: "Ligar confirmação de leitura" }).click();
      await admin.waitForURL(/\/conversas\?ok=confirmacao_ligada$/);
      expect(await textOf(admin.getByRole("status"))).toMatch(/^Confirmação de leitura ligada/);
      await screenshot(admin, "conversas-confirmacao-de-leitura");
      expect(await setting()).toBe(true);
      expect(
        await stack.db.auditEntry.findMany({
          where: { accountId: tenant.accountId, action: "panel.account.read_receipts_changed" },
        }),
      ).toEqual([
        expect.objectContaining({ actor: `panel:${tenant.users.admin.email}`, details: { from: false, to: true } }),
      ]);

      await viewer.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
      // The newest of X's messages (the SVG) is marked; Meta marks the earlier ones with it, and so does the gateway.
      expect(await readMarks()).toEqual([
        expect.objectContaining({ message_id: await wamidOf(ids.xSvg), typing_indicator: null }),
      ]);
      const bubbles = contactBubbles(viewer);
      for (const text of await bubbles.allInnerTexts()) expect(text).toMatch(/^Contato · \S+, \S+ lida/);
      expect(await bubbles.first().locator('[title^="Marcada como lida em"]').count()).toBe(1);
      await screenshot(viewer, "conversa-lida");
      for (const id of [ids.xText, ids.xImage, ids.xDocument, ids.xSvg]) expect(await readAtOf(id)).not.toBeNull();
      expect(await readAtOf(ids.y)).toBeNull();
      expect(
        await stack.db.auditEntry.count({
          where: { accountId: tenant.accountId, action: "panel.inbound_message.marked_read" },
        }),
      ).toBe(1);

      // Nothing unread any more: opening it again asks Meta nothing.
      await viewer.reload();
      expect(await readMarks()).toHaveLength(1);
    });

    it("keeps the page when Meta fails: the conversation is shown unread, and the next opening marks it", async () => {
      ids.yNew = await inbound(tenant, { from: Y, name: "João Lima", type: "text", text: "Alô?" });
      await fetch(`${stack.sandbox.url}/_sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ mode: "500", route: "messages" }),
      });
      const response = await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Y}`);
      expect(response?.status()).toBe(200);
      expect(await textOf(viewer.getByRole("heading", { level: 1 }))).toBe("João Lima");
      expect(await contactBubbles(viewer).last().innerText()).toMatch(/não lida/);
      expect(await readAtOf(ids.yNew)).toBeNull();
      const before = await readMarks();

      await viewer.reload();
      expect((await readMarks()).slice(before.length)).toEqual([
        expect.objectContaining({ message_id: await wamidOf(ids.yNew) }),
      ]);
      expect(await readAtOf(ids.y)).not.toBeNull();
    });

    it("does not hold the page for a Meta that does not answer: it is shown after about 2 s, the message unread", async () => {
      const slow = await inbound(tenant, { from: Y, name: "João Lima", type: "text", text: "Tem alguém?" });
      // Meta hangs 4 s, then drops the connection: the page must not wait for it.
      await fetch(`${stack.sandbox.url}/_sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ mode: "timeout", route: "messages", delay_ms: 4_000 }),
      });
      const started = Date.now();
      const response = await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Y}`);
      const elapsed = Date.now() - started;
      expect(response?.status()).toBe(200);
      expect(elapsed).toBeLessThan(3_500);
      expect(await contactBubbles(viewer).last().innerText()).toMatch(/não lida/);
      // The call went on in the background and failed when Meta dropped it: nothing was recorded.
      await new Promise((resolve) => setTimeout(resolve, 4_500 - elapsed));
      expect(await readAtOf(slow)).toBeNull();
    });

    it("turned off again, opening a conversation marks nothing", async () => {
      await admin.goto("/conversas");
      await admin.getByRole("button", { name: "Desligar confirmação de leitura" }).click();
      await admin.waitForURL(/ok=confirmacao_desligada$/);
      expect(await setting()).toBe(false);
      const newest = await inbound(tenant, { from: X, name: "Maria Souza", type: "text", text: "Oi de novo" });
      const before = (await readMarks()).length;
      await viewer.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
      expect(await contactBubbles(viewer).last().innerText()).toMatch(/não lida/);
      expect((await readMarks()).length).toBe(before);
      expect(await readAtOf(newest)).toBeNull();
    });
  });

  it("shows who answers a conversation (the bot, or a person after a handover) and who holds it under Meta's Conversation Routing (issues 37, 39)", async () => {
    const Z = "5531987650303";
    const sandbox = async (path: string, body: Record<string, unknown>) => {
      const response = await fetch(`${stack.sandbox.url}/_sandbox/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ phone_number_id: tenant.phoneNumberId, user: { from: Z }, ...body }),
      });
      expect(response.status).toBe(200);
    };
    const holder = () => textOf(viewer.locator("dt:text-is('Atendimento') + dd"));
    await inbound(tenant, { from: Z, name: "Bia", type: "text", text: "Oi" });
    await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Z}`);
    expect(await holder()).toMatch(/^este gateway desde \d{2}\/\d{2}\/\d{4}/);

    // Meta's Business AI agent holds it: the customer's message comes on standby.
    await sandbox("conversation-owner", { owner: "business_ai" });
    await inbound(tenant, { from: Z, name: "Bia", type: "text", text: "Quero um atendente" });
    await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Z}`);
    expect(await holder()).toMatch(/^outro app as mensagens do cliente chegam marcadas como standby desde/);

    // The AI agent passes the customer to this gateway's app (Meta's messaging_handovers).
    await sandbox("thread-control", { actor: "business_ai", action: "pass" });
    await eventually(
      async () => {
        await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Z}`);
        return /^este gateway \(parceiro de escalonamento\) desde/.test(await holder());
      },
      { what: "the handover shown" },
    );

    // The integrator's bot asks for a person through the API.
    const answerer = () => textOf(viewer.locator("dt:text-is('Quem responde') + dd"));
    expect(await answerer()).toBe("o bot da integração");
    const handed = await fetch(`${stack.apiUrl}/public/v1/conversations/${Z}/handover`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tenant.apiKey}` },
      body: JSON.stringify({ to: "human", note: "quer falar com atendente" }),
    });
    expect(handed.status).toBe(200);
    await viewer.goto(`/conversas/${tenant.phoneNumberId}/${Z}`);
    expect(await answerer()).toMatch(/^uma pessoa desde \d{2}\/\d{2}\/\d{4}.* motivo: quer falar com atendente$/);
  });

  it("lets an admin answer inside the window through the send service, once per composed reply; a viewer only reads (issue 39)", async () => {
    const admin = await signIn(stack, tenant.users.admin.email);
    const sentTexts = async (body: string) => {
      const response = await fetch(`${stack.sandbox.url}/_sandbox/sent?limit=10000`);
      const sent = (await response.json()) as { to: string | null; type: string; body: { text?: { body?: string } } }[];
      return sent.filter((s) => s.to === X && s.type === "text" && s.body.text?.body === body);
    };
    try {
      const path = `/conversas/${tenant.phoneNumberId}/${X}`;
      await admin.goto(path);
      const reply = "Olá, Maria! Sua troca foi aprovada.";
      await admin.getByLabel("Sua resposta").fill(reply);
      const form = {
        _csrf: await admin.locator('form[action$="/responder"] input[name="_csrf"]').inputValue(),
        chave: await admin.locator('form[action$="/responder"] input[name="chave"]').inputValue(),
        texto: reply,
      };
      await admin.getByRole("button", { name: "Enviar resposta" }).click();
      await admin.waitForURL(/ok=resposta_enviada/);
      expect(await textOf(admin.locator('[role="status"], .notice').first())).toContain("Resposta enviada.");
      expect(await textOf(admin.locator("article.bubble.out").last())).toContain(reply);
      expect(await sentTexts(reply)).toHaveLength(1);

      // A person answered: the person holds the conversation now (the bot stays quiet).
      expect(await textOf(admin.locator("dt:text-is('Quem responde') + dd"))).toMatch(/^uma pessoa desde/);

      // The same form again (a double click, a resubmit after a timeout, a second tab): the first answer, no new send.
      const again = await admin.request.post(`${path}/responder`, { form, maxRedirects: 0 });
      expect(again.status()).toBe(303);
      expect(again.headers().location).toMatch(/ok=resposta_enviada/);
      expect(await sentTexts(reply)).toHaveLength(1);

      // Assigned to someone of the account, then closed (back to the bot), then reopened.
      await admin.goto(path);
      await admin.getByLabel("Atribuir a").selectOption({ label: `admin ${tenant.users.admin.email.slice(6, 12)}` });
      await admin.getByRole("button", { name: "Atribuir", exact: true }).click();
      await admin.waitForURL(/ok=atribuida/);
      const state = () => textOf(admin.locator("#atendimento-da-conta + p"));
      expect(await state()).toBe(`aberta atribuída a admin ${tenant.users.admin.email.slice(6, 12)}`);
      await admin.getByRole("button", { name: "Encerrar conversa" }).click();
      await admin.waitForURL(/ok=encerrada/);
      expect(await state()).toMatch(/^encerrada atribuída a/);
      expect(await textOf(admin.locator("dt:text-is('Quem responde') + dd"))).toBe("o bot da integração");
      await admin.getByRole("button", { name: "Reabrir conversa" }).click();
      await admin.waitForURL(/ok=reaberta/);
      expect(await state()).toMatch(/^aberta/);
      const audit = await stack.db.auditEntry.findMany({
        where: { accountId: tenant.accountId, action: { startsWith: "panel.conversation." } },
        orderBy: { id: "asc" },
      });
      expect(audit.map((entry) => entry.action)).toEqual([
        "panel.conversation.assigned",
        "panel.conversation.closed",
        "panel.conversation.reopened",
      ]);

      // A closed window: no composer, the reason instead.
      const W = "5541987650404";
      await inbound(tenant, {
        from: W,
        type: "text",
        text: "Oi",
        timestamp: Math.floor(Date.now() / 1000) - 25 * 3600,
      });
      await admin.goto(`/conversas/${tenant.phoneNumberId}/${W}`);
      expect(await admin.locator('form[action$="/responder"]').count()).toBe(0);
      expect(await textOf(admin.locator("#responder + p"))).toMatch(/^A janela de 24 h está fechada/);

      // A viewer reads the conversation without a composer, and its forged POST is refused.
      await viewer.goto(path);
      expect(await viewer.locator('form[action$="/responder"]').count()).toBe(0);
      const forged = await viewer.request.post(`${path}/responder`, {
        form: {
          ...form,
          _csrf: await viewer.locator('input[name="_csrf"]').first().inputValue(),
          chave: "A".repeat(22),
        },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
    } finally {
      await admin.context().close();
    }
  });
});
