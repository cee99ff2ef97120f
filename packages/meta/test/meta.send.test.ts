import { createServer } from "node:http";
import type { Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { startSandbox } from "@gw/provider-sandbox";
import type { RunningSandbox } from "@gw/provider-sandbox";
import { freePort } from "@gw/testkit";
import type { ErrorCode } from "@gw/errors";
import { createMetaClient, MetaApiError, MetaUnavailableError, MetaUnconfirmedError } from "../src/index.ts";
import { createLogger } from "@gw/logger";
import type { GraphMessagePayload, GraphOrderDetails, GraphTemplatePayload, MetaClient } from "../src/index.ts";
import { capturingLogger, control } from "./helpers.ts";
import type { RecordedRequest } from "./helpers.ts";

const TOKEN = "EAAG-test-token-4f8a1c9e2b7d";
const PHONE_NUMBER_ID = "106540352242922";
const TO = "5511987654321";
const { logger, lines } = capturingLogger();
// The sandbox logs elsewhere: only the client's own lines are checked for the token.
const sandboxLogger = createLogger({ service: "provider-sandbox", silent: true });

let sandbox: RunningSandbox;
let meta: MetaClient;

function text(body = "Olá!"): GraphMessagePayload {
  return { messaging_product: "whatsapp", recipient_type: "individual", to: TO, type: "text", text: { body } };
}

function template(
  name: string,
  components?: GraphTemplatePayload["template"]["components"],
  language = "pt_BR",
): GraphTemplatePayload {
  return {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: TO,
    type: "template",
    template: { name, language: { code: language }, ...(components ? { components } : {}) },
  };
}

const body = (...texts: string[]) => ({
  type: "body" as const,
  parameters: texts.map((t) => ({ type: "text" as const, text: t })),
});
const pedido = (values: string[]) =>
  template("pedido_confirmado", [{ type: "header", parameters: [{ type: "text", text: "12345" }] }, body(...values)]);

async function refusal(payload: GraphMessagePayload, client: MetaClient = meta): Promise<MetaApiError> {
  const error = await client.sendMessage(PHONE_NUMBER_ID, payload).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof MetaApiError)) throw new Error(`expected MetaApiError, got ${String(error)}`);
  return error;
}

async function requests(): Promise<RecordedRequest[]> {
  return (await control(sandbox.url, "requests")) as RecordedRequest[];
}

beforeAll(async () => {
  sandbox = await startSandbox({
    appSecret: "app-secret",
    accessToken: TOKEN,
    autoStatuses: false,
    logger: sandboxLogger,
  });
  meta = createMetaClient({ baseUrl: sandbox.url, apiVersion: "v23.0", accessToken: TOKEN, timeoutMs: 5_000, logger });
});

afterAll(async () => {
  await sandbox.close();
  // Nothing this client logged may carry the access token.
  expect(lines.some((line) => line.includes("meta.send.accepted"))).toBe(true);
  expect(lines.some((line) => line.includes("meta.send.refused"))).toBe(true);
  for (const line of lines) expect(line).not.toContain(TOKEN);
});

beforeEach(async () => {
  await control(sandbox.url, "reset", { config: true });
  await control(sandbox.url, "config", { enforceWindow: false });
});

describe("sendMessage: accepted sends", () => {
  it("parses a text send: wamid, wa_id, no pacing status; the exact JSON reached the provider", async () => {
    const payload = text("Seu pedido saiu para entrega.");
    const result = await meta.sendMessage(PHONE_NUMBER_ID, payload);
    expect(result.wamid).toMatch(/^wamid\./);
    expect(result.waId).toBe(TO);
    expect(result.messageStatus).toBeNull();
    const sent = (await control(sandbox.url, "sent")) as { wamid: string; phone_number_id: string; body: unknown }[];
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ wamid: result.wamid, phone_number_id: PHONE_NUMBER_ID, body: payload });
  });

  it("parses a template send's pacing status", async () => {
    const result = await meta.sendMessage(PHONE_NUMBER_ID, pedido(["Maria", "12345", "3"]));
    expect(result.wamid).toMatch(/^wamid\./);
    expect(result.messageStatus).toBe("accepted");
  });
});

describe("sendMessage: every refusal the provider produces is a MetaApiError with its stable reason", () => {
  const PIX_CODE = "00020101021226700014br.gov.bcb.pix2548pix.example.com";
  const orderDetails = (total: number): GraphOrderDetails => ({
    reference_id: "r1",
    type: "digital-goods",
    payment_type: "br",
    payment_settings: [
      {
        type: "pix_dynamic_code",
        pix_dynamic_code: { code: PIX_CODE, merchant_name: "Loja", key: "39580525000189", key_type: "CNPJ" },
      },
    ],
    currency: "BRL",
    total_amount: { value: total, offset: 100 },
    order: {
      status: "pending",
      tax: { value: 0, offset: 100 },
      items: [{ name: "Curso", amount: { value: 1000, offset: 100 }, quantity: 1 }],
      subtotal: { value: 1000, offset: 100 },
    },
  });

  // [label, payload, control config before the send, Meta code, reason, HTTP status]
  const CASES: [string, () => GraphMessagePayload, Record<string, unknown>, number, ErrorCode, number][] = [
    ["free text with the window closed", () => text(), { enforceWindow: true }, 131047, "outside_24h_window", 400],
    ["an unreachable recipient", () => text(), { unreachable: [TO] }, 131026, "recipient_unreachable", 400],
    [
      "a wrong number of body parameters",
      () => pedido(["Maria", "12345"]),
      {},
      132000,
      "template_params_mismatch",
      400,
    ],
    ["an unknown template", () => template("nao_existe"), {}, 132001, "template_not_found", 400],
    [
      "a template still PENDING",
      () => template("novidades_semana", [body("Maria")]),
      {},
      132001,
      "template_not_found",
      400,
    ],
    [
      "a body too long once filled",
      () => pedido(["Maria", "x".repeat(1020), "3"]),
      {},
      132005,
      "variable_too_long",
      400,
    ],
    [
      "a media header sent without media",
      () => template("promo_imagem", [body("Maria", "20%")]),
      {},
      132012,
      "template_required_header_media",
      400,
    ],
    [
      "a document sent to an image header",
      () =>
        template("promo_imagem", [
          {
            type: "header",
            parameters: [{ type: "document", document: { link: "https://cdn.exemplo.com.br/a.pdf" } }],
          },
          body("Maria", "20%"),
        ]),
      {},
      132012,
      "template_header_mismatch",
      400,
    ],
    ["a PAUSED template", () => template("aviso_promocao", [body("Maria")]), {}, 132015, "template_paused", 400],
    ["a DISABLED template", () => template("campanha_antiga", [body("Maria")]), {}, 132016, "invalid_template", 400],
    [
      "an image header without link",
      () =>
        template("promo_imagem", [
          { type: "header", parameters: [{ type: "image", image: { link: "" } }] },
          body("Maria", "20%"),
        ]),
      {},
      131008,
      "template_params_mismatch",
      400,
    ],
    [
      "an interactive order without body text",
      () => ({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: TO,
        type: "interactive",
        interactive: {
          type: "order_details",
          body: { text: "" },
          action: { name: "review_and_pay", parameters: orderDetails(1000) },
        },
      }),
      {},
      131008,
      "invalid_pix_order",
      400,
    ],
    [
      "a Pix order whose total disagrees",
      () =>
        template("cobranca_pix", [
          body("Maria", "1"),
          {
            type: "button",
            sub_type: "order_details",
            index: 0,
            parameters: [{ type: "action", action: { order_details: orderDetails(999) } }],
          },
        ]),
      {},
      131009,
      "invalid_pix_order",
      400,
    ],
    [
      "an OTP longer than 15 characters",
      () =>
        template("codigo_verificacao", [
          body("1234567890123456"),
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "1234567890123456" }] },
        ]),
      {},
      131009,
      "invalid_otp",
      400,
    ],
    [
      "a button index the template does not have",
      () =>
        template("rastreio_pedido", [
          body("A"),
          { type: "button", sub_type: "url", index: "5", parameters: [{ type: "text", text: "A" }] },
        ]),
      {},
      131009,
      "variable_bad_format",
      400,
    ],
    [
      "positional values sent to a NAMED template",
      () => template("lembrete_consulta", [body("Maria", "10/12", "14:30")]),
      {},
      100,
      "template_params_mismatch",
      400,
    ],
    [
      "an invalid recipient number",
      () => ({ ...text(), to: "12" }) as GraphMessagePayload,
      {},
      100,
      "provider_rejected",
      400,
    ],
    [
      "a parameter with a line break",
      () => pedido(["Maria\nSilva", "12345", "3"]),
      {},
      132018,
      "variable_bad_format",
      400,
    ],
  ];

  it.each(CASES)("%s", async (_label, payload, config, code, reason, httpStatus) => {
    if (Object.keys(config).length > 0) await control(sandbox.url, "config", config);
    const error = await refusal(payload());
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.httpStatus).toBe(httpStatus);
    expect(error.type).toBe("OAuthException");
    expect(error.message).toMatch(new RegExp(`^\\(#${code}\\) `));
    expect(typeof error.details).toBe("string");
    expect(error.fbtraceId).toMatch(/^[A-Za-z0-9_-]{10,}$/);
    // A confirmed refusal: nothing was sent.
    expect(await control(sandbox.url, "sent")).toEqual([]);
  });

  it("throughput over the limit: 130429 -> rate_limited, with Meta's subcode", async () => {
    // A frozen clock keeps both sends inside the same one-second window.
    const paced = await startSandbox({
      appSecret: "app-secret",
      accessToken: TOKEN,
      autoStatuses: false,
      enforceWindow: false,
      rateLimitPerSecond: 1,
      now: () => 1_763_000_000_000,
      logger: sandboxLogger,
    });
    try {
      const client = createMetaClient({
        baseUrl: paced.url,
        apiVersion: "v23.0",
        accessToken: TOKEN,
        timeoutMs: 5_000,
        logger,
      });
      await client.sendMessage(PHONE_NUMBER_ID, text());
      const error = await refusal(text(), client);
      expect(error).toMatchObject({
        code: 130429,
        reason: "rate_limited",
        httpStatus: 400,
        subcode: 2494055,
        details: "Cloud API message throughput has been reached.",
      });
    } finally {
      await paced.close();
    }
  });

  it("a wrong access token: 190 (HTTP 401) -> provider_unavailable", async () => {
    const client = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: "wrong-token",
      timeoutMs: 5_000,
      logger,
    });
    const error = await refusal(text(), client);
    expect(error).toMatchObject({
      code: 190,
      reason: "provider_unavailable",
      httpStatus: 401,
      details: null,
      subcode: undefined,
    });
  });
});

describe("sendMessage: outcomes without confirmation are never retried", () => {
  it("a 500 -> MetaUnconfirmedError server_error (Meta's 131000 kept for the logs)", async () => {
    await control(sandbox.url, "faults", { mode: "500", route: "messages" });
    const error = await meta.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnconfirmedError);
    expect(error).toMatchObject({ kind: "server_error", httpStatus: 500, metaCode: 131000 });
    expect((await requests()).filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a hung answer past timeoutMs -> MetaUnconfirmedError timeout, sent once", async () => {
    await control(sandbox.url, "faults", { mode: "timeout", route: "messages", delay_ms: 10_000 });
    const impatient = createMetaClient({
      baseUrl: sandbox.url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 300,
      logger,
    });
    const error = await impatient.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnconfirmedError);
    expect(error).toMatchObject({ kind: "timeout", httpStatus: null });
    expect((await requests()).filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a connection reset after the request was written -> MetaUnconfirmedError network, sent once", async () => {
    await control(sandbox.url, "faults", { mode: "reset", route: "messages" });
    const error = await meta.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnconfirmedError);
    expect(error).toMatchObject({ kind: "network", httpStatus: null });
    const posts = (await requests()).filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    expect(posts[0]?.fault).toBe("reset");
  });

  it("a send that went out but whose answer was lost is still unconfirmed (the sandbox did send it)", async () => {
    await control(sandbox.url, "faults", { mode: "reset", route: "messages", deliver: true });
    const error = await meta.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "MetaUnconfirmedError", kind: "network" });
    expect(await control(sandbox.url, "sent")).toHaveLength(1);
  });
});

describe("sendMessage: nothing went out", () => {
  it("connection refused -> MetaUnavailableError ECONNREFUSED", async () => {
    const port = await freePort();
    const client = createMetaClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await client.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnavailableError);
    expect(error).toMatchObject({ errno: "ECONNREFUSED" });
  });

  it("a host name that does not resolve -> MetaUnavailableError", async () => {
    const client = createMetaClient({
      baseUrl: "http://graph.gateway-test.invalid",
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await client.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnavailableError);
  });
});

describe("sendMessage: answers that are not Meta's (a misconfigured base URL, a proxy)", () => {
  let server: Server;
  let url: string;
  let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: "" };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(answer.status, { "content-type": "text/html", ...answer.headers });
        res.end(answer.body);
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  });

  it.each([
    ["200 with HTML", { status: 200, body: "<html>ok</html>" }, "bad_response"],
    [
      "200 without messages[0].id",
      { status: 200, body: JSON.stringify({ messaging_product: "whatsapp", messages: [] }) },
      "bad_response",
    ],
    [
      "302 redirect (not followed)",
      { status: 302, body: "", headers: { location: "https://evil.example/steal" } },
      "bad_response",
    ],
    ["400 that is not Meta's envelope", { status: 400, body: "<html>Bad Request</html>" }, "bad_response"],
    ["502 from a proxy", { status: 502, body: "<html>Bad Gateway</html>" }, "server_error"],
  ])("%s -> MetaUnconfirmedError %s", async (_label, reply, kind) => {
    answer = reply;
    const client = createMetaClient({
      baseUrl: url,
      apiVersion: "v23.0",
      accessToken: TOKEN,
      timeoutMs: 2_000,
      logger,
    });
    const error = await client.sendMessage(PHONE_NUMBER_ID, text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetaUnconfirmedError);
    expect(error).toMatchObject({ kind, httpStatus: reply.status });
  });
});
