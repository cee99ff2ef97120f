import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunningSandbox, SentMessage } from "../src/index.ts";
import { bodyParams, control, PHONE_ID, pixOrder, sendMessage, start, template, text, type Answer } from "./helpers.ts";

const TO = "5511988887777";

function expectMetaError(answer: Answer, code: number, title: string, details?: string | RegExp): void {
  expect(answer.status).toBe(400);
  const error = answer.body.error;
  expect(Object.keys(answer.body)).toEqual(["error"]);
  expect(error).toBeDefined();
  if (!error) return;
  expect(Object.keys(error).filter((k) => k !== "error_subcode")).toEqual([
    "message",
    "type",
    "code",
    "error_data",
    "fbtrace_id",
  ]);
  expect(error.message).toBe(`(#${code}) ${title}`);
  expect(error.type).toBe("OAuthException");
  expect(error.code).toBe(code);
  expect(error.error_data?.messaging_product).toBe("whatsapp");
  expect(error.fbtrace_id).toMatch(/^[A-Za-z0-9_-]{23}$/);
  if (typeof details === "string") expect(error.error_data?.details).toBe(details);
  else if (details) expect(error.error_data?.details).toMatch(details);
}

describe("POST /:version/:phoneNumberId/messages", () => {
  let sandbox: RunningSandbox;
  let base: string;
  let clock = Date.parse("2026-11-20T12:00:00Z");

  beforeAll(async () => {
    sandbox = await start({ now: () => clock });
    base = sandbox.url;
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    sandbox.sandbox.reset({ config: true });
    clock = Date.parse("2026-11-20T12:00:00Z");
  });

  async function openWindow(from = TO): Promise<void> {
    const answer = await control(base, "/inbound", { phone_number_id: PHONE_ID, from, type: "text", text: "Olá" });
    expect(answer.status).toBe(200);
  }

  describe("text", () => {
    it("accepts a text inside the window with Meta's exact success body and records the exact request", async () => {
      await openWindow();
      const raw = JSON.stringify(text("+55 11 98888-7777", "Olá, tudo bem?"));
      const answer = await sendMessage(base, raw);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(["messaging_product", "contacts", "messages"]);
      expect(answer.body.messaging_product).toBe("whatsapp");
      expect(answer.body.contacts).toEqual([{ input: "+55 11 98888-7777", wa_id: TO }]);
      const wamid = answer.body.messages?.[0]?.id ?? "";
      expect(answer.body.messages).toEqual([{ id: wamid }]);
      expect(wamid).toMatch(/^wamid\.[A-Za-z0-9+/]+=*$/);

      const sent = await control<SentMessage[]>(base, "/sent");
      expect(sent.body).toHaveLength(1);
      expect(sent.body[0]).toMatchObject({
        phone_number_id: PHONE_ID,
        wamid,
        raw,
        body: JSON.parse(raw) as unknown,
        fault: null,
      });
    });

    it("gives every accepted message its own wamid", async () => {
      await openWindow();
      const first = await sendMessage(base, text(TO, "um"));
      const second = await sendMessage(base, text(TO, "dois"));
      expect(first.body.messages?.[0]?.id).not.toBe(second.body.messages?.[0]?.id);
    });

    it("carries a reply context through", async () => {
      await openWindow();
      const answer = await sendMessage(base, { ...text(TO, "resposta"), context: { message_id: "wamid.ORIGINAL" } });
      expect(answer.status).toBe(200);
      const bad = await sendMessage(base, { ...text(TO, "resposta"), context: { message_id: 12 } });
      expectMetaError(bad, 100, "Invalid parameter", "The parameter context['message_id'] is required.");
    });

    it("requires messaging_product whatsapp (100)", async () => {
      await openWindow();
      const { messaging_product: _omit, ...withoutProduct } = text(TO, "oi");
      expectMetaError(
        await sendMessage(base, withoutProduct),
        100,
        "Invalid parameter",
        "The parameter messaging_product is required.",
      );
      expectMetaError(
        await sendMessage(base, { ...text(TO, "oi"), messaging_product: "sms" }),
        100,
        "Invalid parameter",
        /messaging_product/,
      );
    });

    it("requires a phone number in `to` (100)", async () => {
      expectMetaError(await sendMessage(base, text("abc", "oi")), 100, "Invalid parameter", /to/);
    });

    it("refuses a body over 4096 characters (100) and accepts exactly 4096", async () => {
      await openWindow();
      expectMetaError(
        await sendMessage(base, text(TO, "a".repeat(4097))),
        100,
        "Invalid parameter",
        "Param text['body'] must be at most 4096 characters long.",
      );
      expect((await sendMessage(base, text(TO, "a".repeat(4096)))).status).toBe(200);
    });

    it("refuses invalid JSON (100) without recording a send", async () => {
      expectMetaError(await sendMessage(base, "{not json"), 100, "Invalid parameter");
      expect((await control<SentMessage[]>(base, "/sent")).body).toEqual([]);
    });
  });

  describe("24-hour window (131047)", () => {
    it("refuses free text to a contact who never wrote, then accepts it after the contact writes", async () => {
      expectMetaError(
        await sendMessage(base, text(TO, "oi")),
        131047,
        "Re-engagement message",
        "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
      );
      await openWindow();
      expect((await sendMessage(base, text(TO, "oi"))).status).toBe(200);
    });

    it("closes the window 24 hours after the contact's last message", async () => {
      await openWindow();
      clock += 24 * 60 * 60 * 1000 - 1;
      expect((await sendMessage(base, text(TO, "ainda dentro"))).status).toBe(200);
      clock += 1;
      expect((await sendMessage(base, text(TO, "fora"))).body.error?.code).toBe(131047);
    });

    it("counts the window from the message timestamp, so an old out-of-order message does not open it", async () => {
      const old = Math.floor(clock / 1000) - 25 * 60 * 60;
      await control(base, "/inbound", {
        phone_number_id: PHONE_ID,
        from: TO,
        type: "text",
        text: "antiga",
        timestamp: old,
      });
      expect((await sendMessage(base, text(TO, "oi"))).body.error?.code).toBe(131047);
    });

    it("is per business number", async () => {
      await openWindow();
      expect((await sendMessage(base, text(TO, "oi"), { phoneId: "999000111" })).body.error?.code).toBe(131047);
    });

    it("does not apply to templates, nor when enforceWindow is off", async () => {
      expect((await sendMessage(base, template(TO, "hello_world", [], "en_US"))).status).toBe(200);
      await control(base, "/config", { enforceWindow: false });
      expect((await sendMessage(base, text(TO, "oi"))).status).toBe(200);
    });
  });

  describe("templates", () => {
    it("accepts a complete template send with message_status accepted", async () => {
      const answer = await sendMessage(
        base,
        template(TO, "pedido_confirmado", [
          { type: "header", parameters: [{ type: "text", text: "12345" }] },
          bodyParams("Maria", "12345", "3"),
        ]),
      );
      expect(answer.status).toBe(200);
      expect(answer.body.messages).toEqual([{ id: expect.stringMatching(/^wamid\./), message_status: "accepted" }]);
    });

    it("132001 when the name does not exist", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "nao_existe", [])),
        132001,
        "Template name does not exist in the translation",
        "template name (nao_existe) does not exist in pt_BR",
      );
    });

    it("132001 when the name exists in another language only", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "hello_world", [])),
        132001,
        "Template name does not exist in the translation",
        "template name (hello_world) does not exist in pt_BR",
      );
      const en = await sendMessage(
        base,
        template(
          TO,
          "pedido_confirmado",
          [{ type: "header", parameters: [{ type: "text", text: "9" }] }, bodyParams("Mary", "9", "2")],
          "en_US",
        ),
      );
      expect(en.status).toBe(200);
      expect((await sendMessage(base, template(TO, "pedido_confirmado", [], "es_ES"))).body.error?.code).toBe(132001);
    });

    it("132001 for pending and rejected templates, 132015 for paused, 132016 for disabled", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "novidades_semana", [bodyParams("Maria")])),
        132001,
        "Template name does not exist in the translation",
      );
      expectMetaError(
        await sendMessage(base, template(TO, "oferta_relampago", [bodyParams("a", "b")])),
        132001,
        "Template name does not exist in the translation",
      );
      expectMetaError(
        await sendMessage(base, template(TO, "aviso_promocao", [bodyParams("Maria")])),
        132015,
        "Template is paused",
      );
      expectMetaError(
        await sendMessage(base, template(TO, "campanha_antiga", [bodyParams("Maria")])),
        132016,
        "Template is disabled",
      );
    });

    it("132000 when the body parameter count does not match", async () => {
      const button = { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "ABC" }] };
      expectMetaError(
        await sendMessage(base, template(TO, "rastreio_pedido", [bodyParams("ABC", "extra"), button])),
        132000,
        "Number of parameters does not match the expected number of params",
        "body: number of localizable_params (2) does not match the expected number of params (1)",
      );
      expectMetaError(
        await sendMessage(base, template(TO, "rastreio_pedido", [button])),
        132000,
        "Number of parameters does not match the expected number of params",
        "body: number of localizable_params (0) does not match the expected number of params (1)",
      );
      expect((await sendMessage(base, template(TO, "rastreio_pedido", [bodyParams("ABC"), button]))).status).toBe(200);
    });

    it("132000 when a text header variable has no value", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "pedido_confirmado", [bodyParams("Maria", "12345", "3")])),
        132000,
        "Number of parameters does not match the expected number of params",
        "header: number of localizable_params (0) does not match the expected number of params (1)",
      );
    });

    it("100 when a NAMED template gets parameters without names, accepted with the template's names", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "lembrete_consulta", [bodyParams("Maria", "10/12", "14:30")])),
        100,
        "Invalid parameter",
        "Parameter name is missing or empty",
      );
      const named = (names: string[]) => ({
        type: "body",
        parameters: names.map((name) => ({ type: "text", parameter_name: name, text: `valor de ${name}` })),
      });
      expect(
        (await sendMessage(base, template(TO, "lembrete_consulta", [named(["nome", "data", "hora"])]))).status,
      ).toBe(200);
      expect(
        (await sendMessage(base, template(TO, "lembrete_consulta", [named(["nome", "data", "outro"])]))).body.error
          ?.code,
      ).toBe(100);
    });

    it("132018 when a parameter has a new line", async () => {
      const answer = await sendMessage(
        base,
        template(TO, "video_boas_vindas", [
          { type: "header", parameters: [{ type: "video", video: { link: "https://cdn.exemplo.com.br/v.mp4" } }] },
          bodyParams("Maria\nSilva"),
        ]),
      );
      expect(answer.body.error?.code).toBe(132018);
    });

    it("132012 when a media header is missing or of another type; accepted with a link", async () => {
      const body = bodyParams("Maria", "20%");
      expectMetaError(
        await sendMessage(base, template(TO, "promo_imagem", [body])),
        132012,
        "Parameter format does not match format in the created template",
        "header: Format mismatch, expected IMAGE, received UNKNOWN",
      );
      expectMetaError(
        await sendMessage(
          base,
          template(TO, "promo_imagem", [
            {
              type: "header",
              parameters: [{ type: "document", document: { link: "https://cdn.exemplo.com.br/a.pdf" } }],
            },
            body,
          ]),
        ),
        132012,
        "Parameter format does not match format in the created template",
        "header: Format mismatch, expected IMAGE, received DOCUMENT",
      );
      const ok = await sendMessage(
        base,
        template(TO, "promo_imagem", [
          { type: "header", parameters: [{ type: "image", image: { link: "https://cdn.exemplo.com.br/promo.jpg" } }] },
          body,
        ]),
      );
      expect(ok.status).toBe(200);
      const doc = await sendMessage(
        base,
        template(TO, "boleto_documento", [
          {
            type: "header",
            parameters: [
              { type: "document", document: { link: "https://cdn.exemplo.com.br/boleto.pdf", filename: "boleto.pdf" } },
            ],
          },
          bodyParams("Maria", "10/12/2026"),
        ]),
      );
      expect(doc.status).toBe(200);
      const noLink = await sendMessage(
        base,
        template(TO, "boleto_documento", [
          { type: "header", parameters: [{ type: "document", document: { filename: "boleto.pdf" } }] },
          bodyParams("Maria", "10/12/2026"),
        ]),
      );
      expect(noLink.body.error?.code).toBe(131008);
    });

    it("131008 when a URL button variable has no value", async () => {
      expectMetaError(
        await sendMessage(base, template(TO, "rastreio_pedido", [bodyParams("ABC")])),
        131008,
        "Required parameter is missing",
        /button at index 0 of type URL/,
      );
    });

    it("131008 when a coupon template has no coupon_code; accepted at the button's index", async () => {
      const body = bodyParams("PROMO10", "10%");
      expectMetaError(
        await sendMessage(base, template(TO, "cupom_desconto", [body])),
        131008,
        "Required parameter is missing",
        /COPY_CODE/,
      );
      const coupon = (index: number) => ({
        type: "button",
        sub_type: "COPY_CODE",
        index,
        parameters: [{ type: "coupon_code", coupon_code: "PROMO10" }],
      });
      expect((await sendMessage(base, template(TO, "cupom_desconto", [body, coupon(1)]))).status).toBe(200);
      // Index 0 is the quick reply: the wrong button.
      expect((await sendMessage(base, template(TO, "cupom_desconto", [body, coupon(0)]))).body.error?.code).toBe(
        131009,
      );
    });

    it("131008 when an authentication template lacks the OTP in the body or in the button", async () => {
      const button = { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "482913" }] };
      expectMetaError(
        await sendMessage(base, template(TO, "codigo_verificacao", [button])),
        131008,
        "Required parameter is missing",
        /otp/,
      );
      expectMetaError(
        await sendMessage(base, template(TO, "codigo_verificacao", [bodyParams("482913")])),
        131008,
        "Required parameter is missing",
      );
      expect((await sendMessage(base, template(TO, "codigo_verificacao", [bodyParams("482913"), button]))).status).toBe(
        200,
      );
      const long = "1234567890123456";
      const tooLong = await sendMessage(
        base,
        template(TO, "codigo_verificacao", [
          bodyParams(long),
          { ...button, parameters: [{ type: "text", text: long }] },
        ]),
      );
      expect(tooLong.body.error?.code).toBe(131009);
    });

    it("131009 naming order_details for a Pix template without a valid order; accepted with one", async () => {
      const body = bodyParams("Maria", "12345");
      const button = (order: unknown) => ({
        type: "button",
        sub_type: "order_details",
        index: 0,
        parameters: [{ type: "action", action: { order_details: order } }],
      });
      expectMetaError(
        await sendMessage(base, template(TO, "cobranca_pix", [body])),
        131009,
        "Parameter value is not valid",
        /order_details/,
      );
      const badKey = pixOrder({
        payment_settings: [
          {
            type: "pix_dynamic_code",
            pix_dynamic_code: { code: "000201", merchant_name: "Loja", key: "x", key_type: "IBAN" },
          },
        ],
      });
      expectMetaError(
        await sendMessage(base, template(TO, "cobranca_pix", [body, button(badKey)])),
        131009,
        "Parameter value is not valid",
        /order_details: .*key_type/,
      );
      const wrongTotal = pixOrder({ total_amount: { value: 1, offset: 100 } });
      expectMetaError(
        await sendMessage(base, template(TO, "cobranca_pix", [body, button(wrongTotal)])),
        131009,
        "Parameter value is not valid",
        /total_amount/,
      );
      const { order: _omit, ...withoutItems } = pixOrder();
      expectMetaError(
        await sendMessage(base, template(TO, "cobranca_pix", [body, button(withoutItems)])),
        131009,
        "Parameter value is not valid",
        /order\.items|order with items/,
      );
      expect((await sendMessage(base, template(TO, "cobranca_pix", [body, button(pixOrder())]))).status).toBe(200);
    });
  });

  describe("interactive order_details (Pix)", () => {
    const interactive = (parameters: unknown) => ({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: TO,
      type: "interactive",
      interactive: {
        type: "order_details",
        body: { text: "Seu pedido" },
        action: { name: "review_and_pay", parameters },
      },
    });

    it("is accepted inside the window and refused with 131009 when the Pix data is invalid", async () => {
      await openWindow();
      expect((await sendMessage(base, interactive(pixOrder()))).status).toBe(200);
      expectMetaError(
        await sendMessage(base, interactive(pixOrder({ currency: "USD" }))),
        131009,
        "Parameter value is not valid",
        "order_details: currency must be BRL",
      );
    });

    it("needs the window like any free-form message", async () => {
      expect((await sendMessage(base, interactive(pixOrder()))).body.error?.code).toBe(131047);
    });
  });

  describe("recipients and throughput", () => {
    it("131026 for unreachable recipients, also when added at run time", async () => {
      await control(base, "/config", { unreachable: ["+55 11 97777-0000"] });
      expectMetaError(
        await sendMessage(base, template("5511977770000", "hello_world", [], "en_US")),
        131026,
        "Message undeliverable",
        "Message Undeliverable.",
      );
      expect((await sendMessage(base, template(TO, "hello_world", [], "en_US"))).status).toBe(200);
      expect((await control<SentMessage[]>(base, "/sent")).body.map((s) => s.wa_id)).toEqual([TO]);
    });

    it("130429 with Meta's example body once the per-second limit is reached, per phone number", async () => {
      await control(base, "/config", { rateLimitPerSecond: 2 });
      const send = (phoneId?: string) => sendMessage(base, template(TO, "hello_world", [], "en_US"), { phoneId });
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      const limited = await send();
      expect(limited.status).toBe(400);
      expect(limited.body).toEqual({
        error: {
          message: "(#130429) Rate limit hit",
          type: "OAuthException",
          code: 130429,
          error_data: { messaging_product: "whatsapp", details: "Cloud API message throughput has been reached." },
          error_subcode: 2494055,
          fbtrace_id: expect.stringMatching(/^[A-Za-z0-9_-]{23}$/),
        },
      });
      expect((await send("999000111")).status).toBe(200);
      clock += 1000;
      expect((await send()).status).toBe(200);
    });
  });
});

describe("access token (190)", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await start({ accessToken: "the-right-token", enforceWindow: false });
  });
  afterAll(() => sandbox.close());

  it("answers 401 code 190 without a token or with a wrong one, and records no send", async () => {
    for (const token of [undefined, "wrong-token"]) {
      const answer = await sendMessage(sandbox.url, text(TO, "oi"), { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ type: "OAuthException", code: 190 });
      expect(answer.body.error?.fbtrace_id).toEqual(expect.any(String));
    }
    const listing = await fetch(`${sandbox.url}/v23.0/123/message_templates`);
    expect(listing.status).toBe(401);
    expect((await control<SentMessage[]>(sandbox.url, "/sent")).body).toEqual([]);
  });

  it("accepts the right bearer token", async () => {
    const answer = await sendMessage(sandbox.url, text(TO, "oi"), { token: "the-right-token" });
    expect(answer.status).toBe(200);
  });
});
