import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import type { Page } from "playwright-core";
import {
  createTenant,
  screenshot,
  signIn,
  startPanelStack,
  textOf,
  type PanelStack,
  type TestTenant,
} from "@gw/test-stack";

// Issue 27 in the panel's Conversas: what a send carried beyond its kind (messages.content: buttons, lists, CTA,
// location request, media, reactions, locations) and what a received message carried beyond its text
// (inbound_messages.details, media_sha256, media_voice: the option tapped, a template button, reactions, a location,
// contact cards, an ad, forwarded flags, a voice note), in Portuguese, escaped; and the 24 h window with its date.
// The rows are written directly: the send and inbound services that fill these columns are tested on their own.

jest.setTimeout(90_000);

const X = "5511987650707";
const SCRIPT = "<script>alert(1)</script>";

const DAY_AND_TIME = (at: Date) => {
  const part = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo", ...options }).format(at);
  return `${part({ day: "2-digit", month: "2-digit" })} às ${part({ hour: "2-digit", minute: "2-digit" })}`;
};

describe("panel Conversas: every message kind, both ways, in Chromium", () => {
  let stack: PanelStack;
  let tenant: TestTenant;
  let viewer: Page;
  let contactKey: string;
  let base: number;
  let sequence = 0;
  /** What each bubble shows, in the order the page shows them (oldest first). */
  const expected: { direction: "in" | "out"; text: RegExp }[] = [];

  const nextAt = () => new Date(base + ++sequence * 1_000);

  async function sent(kind: string, content: unknown, text: RegExp, status = "delivered"): Promise<void> {
    const at = nextAt();
    await stack.db.message.create({
      data: {
        accountId: tenant.accountId,
        phoneNumberId: tenant.phoneNumberId,
        to: X,
        contactKey,
        wamid: `wamid.out.${tenant.accountId}.${sequence}`,
        kind,
        status,
        content: content as object,
        createdAt: at,
      },
    });
    expected.push({ direction: "out", text });
  }

  async function received(
    fields: { type: string; text?: string; details?: unknown; mediaId?: string; mediaMime?: string } & Record<
      string,
      unknown
    >,
    text: RegExp,
  ): Promise<void> {
    const at = nextAt();
    const { details, ...rest } = fields;
    await stack.db.inboundMessage.create({
      data: {
        accountId: tenant.accountId,
        phoneNumberId: tenant.phoneNumberId,
        from: X,
        contactKey,
        wamid: `wamid.in.${tenant.accountId}.${sequence}`,
        contactName: "Ana Kinds",
        occurredAt: at,
        windowExpiresAt: new Date(at.getTime() + 86_400_000),
        ...rest,
        ...(details === undefined ? {} : { details: details as object }),
      },
    });
    expected.push({ direction: "in", text });
  }

  beforeAll(async () => {
    stack = await startPanelStack();
    tenant = await createTenant(stack.db);
    // The contact writes through the sandbox's signed webhook: its contact row and its open window are the gateway's.
    const response = await fetch(`${stack.sandbox.url}/_sandbox/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        phone_number_id: tenant.phoneNumberId,
        from: X,
        name: "Ana Kinds",
        type: "text",
        text: "Oi",
      }),
    });
    const { id } = (await response.json()) as { id: string };
    const first = await stack.db.inboundMessage.findUniqueOrThrow({ where: { wamid: id } });
    contactKey = first.contactKey;
    expected.push({ direction: "in", text: /Oi$/ });
    base = first.occurredAt.getTime();

    await sent(
      "interactive",
      {
        kind: "interactive",
        type: "button",
        header_type: "image",
        buttons: [
          { id: "sim", title: "Sim" },
          { id: "nao", title: SCRIPT },
        ],
      },
      /Mensagem com botões \(cabeçalho: image\): «Sim» \(id sim\) «<script>alert\(1\)<\/script>» \(id nao\)$/,
    );
    await sent(
      "interactive",
      {
        kind: "interactive",
        type: "list",
        button: "Ver opções",
        sections: [
          {
            title: "Boletos",
            rows: [
              { id: "opcao-1", title: "Segunda via do boleto", description: "Enviamos o PDF" },
              { id: "opcao-2", title: "Rastrear pedido", description: null },
            ],
          },
          { title: "Atendimento", rows: [{ id: "opcao-3", title: "Falar com atendente", description: null }] },
        ],
      },
      /Lista com o botão «Ver opções»: Seção «Boletos» Segunda via do boleto · opcao-1 Enviamos o PDF Rastrear pedido · opcao-2 Seção «Atendimento» Falar com atendente · opcao-3$/,
      "read",
    );
    await sent(
      "interactive",
      { kind: "interactive", type: "cta_url", display_text: "Ver datas", url_host: "example.com" },
      /Botão «Ver datas» → example\.com$/,
    );
    await sent("interactive", { kind: "interactive", type: "location_request" }, /Pedido de localização$/);
    await sent(
      "media",
      {
        kind: "media",
        type: "document",
        media_id: "1234567890",
        link_host: null,
        filename: "boleto.pdf",
        voice: false,
      },
      /Documento enviado: boleto\.pdf \(mídia 1234567890\)$/,
    );
    await sent(
      "media",
      { kind: "media", type: "image", media_id: null, link_host: "cdn.example.com", filename: null, voice: false },
      /Imagem enviada por link \(cdn\.example\.com\)$/,
    );
    await sent(
      "media",
      { kind: "media", type: "audio", media_id: "998877", link_host: null, filename: null, voice: true },
      /Áudio enviado \(mídia 998877\) mensagem de voz$/,
    );
    await sent(
      "reaction",
      { kind: "reaction", message_id: "wamid.in.x", emoji: "👍" },
      /Reação 👍 a uma mensagem do contato$/,
    );
    await sent("reaction", { kind: "reaction", message_id: "wamid.in.x", emoji: "" }, /Reação removida$/);
    await sent(
      "location",
      { kind: "location", latitude: -23.5505, longitude: -46.6333, name: "Loja Centro", address: "Rua A, 1" },
      /Localização enviada: Loja Centro Rua A, 1 latitude -23\.5505, longitude -46\.6333$/,
      "failed",
    );

    await received(
      {
        type: "interactive",
        text: "Segunda via do boleto",
        details: {
          interactive: {
            type: "list_reply",
            id: "opcao-1",
            title: "Segunda via do boleto",
            description: "Enviamos o PDF",
          },
        },
      },
      /· resposta interativa Escolheu «Segunda via do boleto» \(opção opcao-1\) Enviamos o PDF$/,
    );
    await received(
      {
        type: "interactive",
        text: "Sim",
        details: { interactive: { type: "button_reply", id: "sim", title: "Sim", description: null } },
      },
      /· resposta interativa Tocou «Sim» \(botão sim\)$/,
    );
    await received(
      { type: "button", text: "Quero", details: { button: { payload: "QUERO_PROMO", text: "Quero" } } },
      /· resposta de botão Tocou «Quero» \(payload QUERO_PROMO\)$/,
    );
    await received(
      { type: "unsupported", details: { reaction: { message_id: "wamid.out.1", emoji: "❤️" } } },
      /· reação Reagiu com ❤️ a uma mensagem$/,
    );
    await received(
      { type: "unsupported", details: { reaction: { message_id: "wamid.out.1", emoji: null } } },
      /· reação Removeu a reação a uma mensagem$/,
    );
    await received(
      {
        type: "location",
        details: {
          location: { latitude: -22.9068, longitude: -43.1729, name: SCRIPT, address: "Av. Rio Branco, 1", url: null },
        },
      },
      /· localização Localização: <script>alert\(1\)<\/script> Av\. Rio Branco, 1 latitude -22\.9068, longitude -43\.1729$/,
    );
    await received(
      {
        type: "contacts",
        details: {
          contacts: [
            {
              formatted_name: "Carlos Dias",
              phones: [{ phone: "+55 11 91234-5678", wa_id: "5511912345678", type: "CELL" }],
            },
            { formatted_name: null, first_name: "Bia", last_name: null, phones: [] },
          ],
        },
      },
      /· contatos Contatos compartilhados: Carlos Dias · \+55 11 91234-5678 Bia$/,
    );
    await received(
      {
        type: "text",
        text: "Vi o anúncio",
        details: {
          referral: { headline: "Promoção de pão", body: null, source_url: "https://fb.me/ad", source_type: "ad" },
          forwarded: true,
          frequently_forwarded: false,
        },
      },
      /não lida · encaminhada Vi o anúncio Veio de um anúncio: Promoção de pão \(https:\/\/fb\.me\/ad\)$/,
    );
    await received(
      { type: "text", text: "Corrente", details: { forwarded: true, frequently_forwarded: true } },
      /não lida · encaminhada muitas vezes Corrente$/,
    );
    await received(
      {
        type: "audio",
        mediaId: "media-voice-1",
        mediaMime: "audio/ogg; codecs=opus",
        mediaSha256: "a".repeat(64),
        mediaVoice: true,
      },
      /· áudio Abrir áudio \(audio\/ogg\) mensagem de voz$/,
    );

    viewer = await signIn(stack, tenant.users.viewer.email);
  });
  afterAll(async () => {
    await viewer.context().close();
    await stack.close();
  });

  it("shows each kind sent and received, in Portuguese, with the contact's text escaped", async () => {
    await viewer.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
    const bubbles = viewer.locator("article.bubble");
    expect(await bubbles.count()).toBe(expected.length);
    const texts = (await bubbles.allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    texts.forEach((text, index) => {
      const want = expected[index];
      expect([index, text]).toEqual([
        index,
        expect.stringMatching(want?.direction === "out" ? /^Conta · / : /^Contato · /),
      ]);
      expect([index, text]).toEqual([index, expect.stringMatching(want?.text ?? /^$/)]);
    });
    // The titles and names are text: no element came out of them.
    expect(await viewer.locator("article.bubble script").count()).toBe(0);
    // A received file's checksum rides on its link's title, so the bubble's line reads as it did before issue 27.
    expect(await viewer.locator(`article.bubble a[title="SHA-256 ${"a".repeat(64)}"]`).textContent()).toBe(
      "Abrir áudio",
    );
    // Buttons and rows are lists the screen reader announces as such.
    expect(await viewer.getByRole("list", { name: "Botões enviados" }).getByRole("listitem").count()).toBe(2);
    expect(await viewer.getByRole("list", { name: "Opções da seção Boletos" }).getByRole("listitem").count()).toBe(2);
    await screenshot(viewer, "conversa-tipos");

    // Phone width: nothing wider than the screen (lists wrap).
    await viewer.setViewportSize({ width: 375, height: 800 });
    expect(await viewer.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await viewer.setViewportSize({ width: 1280, height: 900 });
  });

  it("names the last send's kind in the list, and shows the window's expiry with its date and a machine-readable time", async () => {
    const window = await stack.db.contactWindow.findUniqueOrThrow({
      where: { phoneNumberId_contact: { phoneNumberId: tenant.phoneNumberId, contact: contactKey } },
    });
    const expiry = `aberta até ${DAY_AND_TIME(window.expiresAt)}`;
    await viewer.goto("/conversas");
    const cells = (await viewer.locator("tbody tr").first().locator("td").allInnerTexts()).map((text) =>
      text.replace(/\s+/g, " ").trim(),
    );
    expect(cells[4]).toBe(expiry);
    expect(await viewer.locator("tbody tr time").first().getAttribute("datetime")).toBe(window.expiresAt.toISOString());

    await viewer.goto(`/conversas/${tenant.phoneNumberId}/${X}`);
    expect(await textOf(viewer.locator("dt:has-text('Janela de 24 h') + dd .badge"))).toBe(expiry);
    expect(await viewer.locator("dd time").first().getAttribute("datetime")).toBe(window.expiresAt.toISOString());
  });

  it("names a send of a new kind in the conversations list by its kind, not as a text", async () => {
    await sent(
      "media",
      { kind: "media", type: "image", media_id: "1", link_host: null, filename: null, voice: false },
      /./,
    );
    // The contact's last message is older: the list's last message is the account's send.
    await viewer.goto("/conversas");
    const cells = await viewer.locator("tbody tr").first().locator("td").allInnerTexts();
    expect(cells[2]?.replace(/\s+/g, " ").trim()).toBe("Conta: mídia entregue");
  });
});
