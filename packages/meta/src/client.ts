import { Transform, type Readable } from "node:stream";
import got, { RequestError, TimeoutError } from "got";
import type { Got, PlainResponse, Response } from "got";
import type { Logger } from "@gw/logger";
import {
  MetaApiError,
  MetaCatalogueUnavailableError,
  MetaReadError,
  MetaUnavailableError,
  MetaUnconfirmedError,
} from "./errors.ts";
import { createJsonPoster, PostFailedError } from "./post.ts";
import { createMediaUploader, type MetaUploadInput, type MetaUploadResult } from "./upload.ts";
import type {
  GraphSendRoute,
  GraphErrorEnvelope,
  GraphMessagePayload,
  GraphReadReceiptPayload,
  GraphSendResponse,
  GraphThreadControlPayload,
  MetaMediaInfo,
  MetaMediaStream,
  MetaPhoneNumber,
  MetaSendResult,
  MetaTemplate,
  MetaTemplateComponent,
} from "./types.ts";

export interface MetaClientOptions {
  /** e.g. https://graph.facebook.com (or the provider sandbox). Paging links are only followed on this origin. */
  baseUrl: string;
  /** e.g. v23.0 */
  apiVersion: string;
  accessToken: string;
  /** Whole-request time limit (connect + upload + answer). */
  timeoutMs: number;
  /** Largest media download accepted, in bytes; default 100 MiB (Meta's largest media, documents). */
  maxMediaBytes?: number;
  /**
   * Media downloads: how long the answer may take to start, and the longest gap between its bytes; default the
   * larger of timeoutMs and 60 s. A whole download ends within 10 minutes.
   */
  mediaTimeoutMs?: number;
  /**
   * Hosts whose media URLs get the token (https only), besides `baseUrl`'s own origin; default Meta's media host
   * `lookaside.fbsbx.com`. Exact names: no subdomains.
   */
  mediaHosts?: string[];
  logger?: Logger;
}

export interface ListTemplatesOptions {
  /** Items per page requested from Meta; default 100. */
  pageSize?: number;
}

export interface MetaClient {
  /**
   * One send, never retried. Resolves with the wamid, or rejects with MetaApiError (confirmed refusal),
   * MetaUnavailableError (never connected: nothing went out) or MetaUnconfirmedError (may have gone out).
   */
  sendMessage(phoneNumberId: string, payload: GraphMessagePayload, route?: GraphSendRoute): Promise<MetaSendResult>;
  /** Every template of the WABA across all pages, or MetaCatalogueUnavailableError. */
  listTemplates(wabaId: string, options?: ListTemplatesOptions): Promise<MetaTemplate[]>;
  /** A business number's name, quality rating, messaging tier and throughput; MetaApiError or MetaReadError. */
  getPhoneNumber(phoneNumberId: string): Promise<MetaPhoneNumber>;
  /**
   * A media's short-lived download URL and metadata; MetaApiError (e.g. unknown or expired media) or MetaReadError.
   * With `phoneNumberId`, Meta answers only for media of that number (`?phone_number_id=`, meta-messages §2.5).
   */
  getMedia(mediaId: string, options?: { phoneNumberId?: string }): Promise<MetaMediaInfo>;
  /**
   * Uploads a file to a business number's media (upload.ts: a chunked multipart written as `body` arrives, never
   * retried). Resolves with Meta's media id; MetaApiError for Meta's refusal (4xx with its envelope),
   * MetaUnavailableError when no connection was made, MetaUnconfirmedError when the answer did not come (the media
   * may exist: it expires unused), and `body`'s own error when the file stream failed (nothing is created).
   */
  uploadMedia(phoneNumberId: string, input: MetaUploadInput): Promise<MetaUploadResult>;
  /**
   * The media at a URL from getMedia, fetched with the token and handed on as a stream (never held whole in
   * memory). Only URLs on a trusted host are fetched (Meta's media host or `baseUrl`'s origin), redirects are not
   * followed. Resolves once Meta answered with the file: MetaApiError or MetaReadError before that; a length
   * announced past `maxBytes` (default: the client's maxMediaBytes) is `too_large` at once, and a body that grows
   * past it fails the stream with `too_large`, as a cut connection fails it with a MetaReadError.
   */
  streamMedia(url: string, options?: { maxBytes?: number }): Promise<MetaMediaStream>;
  /**
   * Mark an inbound message read, with the typing indicator when `typing`; resolves when Meta answered
   * `{"success": true}`. MetaApiError (refused, e.g. an unknown message), MetaUnavailableError or MetaReadError.
   */
  markRead(phoneNumberId: string, input: { messageId: string; typing?: boolean }): Promise<void>;
  /**
   * Pass, take or release a customer's conversation (Conversation Routing); resolves when Meta answered 2xx.
   * MetaApiError (refused, e.g. 2494191 when the action does not fit who holds it), MetaUnavailableError or
   * MetaReadError (no answer: the call is safe to repeat, a repeat of a done action is refused as not permitted).
   */
  threadControl(phoneNumberId: string, payload: GraphThreadControlPayload): Promise<void>;
}

const DEFAULT_PAGE_SIZE = 100;
// A runaway guard: 1000 pages of 100 is far beyond any real WABA (Meta caps templates per WABA).
const MAX_PAGES = 1000;
// quality_score, rejected_reason and message_send_ttl_seconds are not among Meta's default fields.
const TEMPLATE_FIELDS =
  "id,name,language,status,category,sub_category,parameter_format,components,quality_score,rejected_reason,message_send_ttl_seconds";

const PHONE_NUMBER_FIELDS = "id,display_phone_number,verified_name,quality_rating,messaging_limit_tier,throughput";
const DEFAULT_MAX_MEDIA_BYTES = 100 * 1024 * 1024;
/** A media download ends within this, however slowly its reader takes it (a stalled browser frees its turn). */
const MEDIA_STREAM_DEADLINE_MS = 10 * 60_000;
/** Where Meta serves media downloads (the `url` of GET /{media-id}). */
const META_MEDIA_HOSTS = ["lookaside.fbsbx.com"];

// Failures that happen before a TCP connection exists: no byte of the request can have left.
const NEVER_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

export function createMetaClient(options: MetaClientOptions): MetaClient {
  const base = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);
  const isHttps = base.protocol === "https:";
  const logger = options.logger;
  const versionPath = encodeURIComponent(options.apiVersion);

  const http: Got = got.extend({
    headers: { authorization: `Bearer ${options.accessToken}`, accept: "application/json" },
    timeout: { request: options.timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    responseType: "text",
    // Sends: no retry at all (a resend could duplicate a message). Reads override this below.
    retry: { limit: 0 },
  });

  // Sends go over node:http(s) with a keep-alive agent (post.ts): same headers, same whole-request limit, no retry.
  const poster = createJsonPoster({
    secure: isHttps,
    headers: { authorization: `Bearer ${options.accessToken}`, accept: "application/json" },
    timeoutMs: options.timeoutMs,
  });

  // Idempotent reads may retry ONCE on a network-level failure (reset, timeout, refused) with a short pause;
  // HTTP answers (5xx included) are not retried: the catalogue call fails and the caller repeats later.
  const reader: Got = http.extend({
    retry: { limit: 1, methods: ["GET"], statusCodes: [], backoffLimit: 250, noise: 0 },
  });

  function endpoint(...segments: string[]): URL {
    return new URL(`${versionPath}/${segments.map((s) => encodeURIComponent(s)).join("/")}`, base);
  }

  async function sendMessage(
    phoneNumberId: string,
    payload: GraphMessagePayload,
    route: GraphSendRoute = "messages",
  ): Promise<MetaSendResult> {
    const url = endpoint(phoneNumberId, route);
    let response: { status: number; body: string };
    try {
      response = await poster.post(url, JSON.stringify(payload));
    } catch (error) {
      throw classifySendFailure(error);
    }
    const status = response.status;
    const body = parseJson(response.body);

    if (status >= 200 && status < 300) {
      const result = readSendResult(body);
      if (!result) {
        logger?.warn("meta.send.bad_response", { phoneNumberId, httpStatus: status });
        throw new MetaUnconfirmedError("bad_response", `Meta respondeu ${status} sem o id da mensagem.`, {
          httpStatus: status,
        });
      }
      // Every send: debug (the send's own record and its statuses say it happened); refusals stay at info.
      logger?.debug("meta.send.accepted", { phoneNumberId, wamid: result.wamid, messageStatus: result.messageStatus });
      return result;
    }

    const envelope = readErrorEnvelope(body);
    if (status >= 400 && status < 500 && envelope) {
      const error = apiErrorOf(status, envelope);
      logger?.info("meta.send.refused", {
        phoneNumberId,
        httpStatus: status,
        code: error.code,
        reason: error.reason,
        fbtraceId: error.fbtraceId,
      });
      throw error;
    }

    // 5xx (even with an envelope), 3xx (redirects are not followed), or a 4xx that is not Meta's envelope:
    // the request reached something that did not confirm a refusal.
    const kind = status >= 500 ? "server_error" : "bad_response";
    logger?.warn("meta.send.unconfirmed", {
      phoneNumberId,
      httpStatus: status,
      kind,
      metaCode: envelope?.error.code ?? null,
    });
    throw new MetaUnconfirmedError(kind, `Meta respondeu ${status} sem confirmar o envio.`, {
      httpStatus: status,
      metaCode: envelope?.error.code ?? null,
    });
  }

  function classifySendFailure(error: unknown): MetaUnconfirmedError | MetaUnavailableError {
    // Before a (TLS) connection existed, no byte of the request can have left (a timeout while connecting too).
    if (error instanceof PostFailedError && (!error.connected || NEVER_CONNECTED_CODES.has(error.code))) {
      logger?.warn("meta.send.unavailable", { code: error.code });
      return new MetaUnavailableError(`Não foi possível conectar ao provedor (${error.code}).`, {
        errno: error.code,
        cause: error,
      });
    }
    if (error instanceof PostFailedError && error.timedOut) {
      logger?.warn("meta.send.unconfirmed", { kind: "timeout", event: "request" });
      return new MetaUnconfirmedError("timeout", `O provedor não respondeu em ${options.timeoutMs} ms.`, {
        cause: error,
      });
    }
    const code = error instanceof PostFailedError ? error.code : "unknown";
    logger?.warn("meta.send.unconfirmed", { kind: "network", code });
    return new MetaUnconfirmedError(
      "network",
      `A conexão com o provedor falhou após o envio da requisição (${code}).`,
      { cause: error },
    );
  }

  async function listTemplates(wabaId: string, listOptions: ListTemplatesOptions = {}): Promise<MetaTemplate[]> {
    const first = endpoint(wabaId, "message_templates");
    first.searchParams.set("fields", TEMPLATE_FIELDS);
    first.searchParams.set("limit", String(listOptions.pageSize ?? DEFAULT_PAGE_SIZE));

    const templates: MetaTemplate[] = [];
    const seen = new Set<string>();
    let next: URL | null = first;
    let page = 0;
    while (next) {
      page += 1;
      if (page > MAX_PAGES || seen.has(next.href)) {
        throw new MetaCatalogueUnavailableError("A paginação do catálogo de templates não terminou.", { page });
      }
      seen.add(next.href);
      const body = await fetchTemplatePage(next, page);
      templates.push(...body.items);
      next = null;
      if (body.next !== null) {
        let nextUrl: URL;
        try {
          nextUrl = new URL(body.next);
        } catch (cause) {
          throw new MetaCatalogueUnavailableError("O link da próxima página do catálogo é inválido.", { page, cause });
        }
        // The bearer token is attached to every request: never follow a link to another origin.
        if (nextUrl.origin !== base.origin) {
          logger?.warn("meta.templates.foreign_next", { page, origin: nextUrl.origin });
          throw new MetaCatalogueUnavailableError("O link da próxima página do catálogo aponta para outro servidor.", {
            page,
          });
        }
        next = nextUrl;
      }
    }
    logger?.info("meta.templates.listed", { wabaId, pages: page, count: templates.length });
    return templates;
  }

  async function fetchTemplatePage(url: URL, page: number): Promise<{ items: MetaTemplate[]; next: string | null }> {
    let response: Response<string>;
    try {
      response = await reader.get(url);
    } catch (cause) {
      const code = cause instanceof RequestError ? cause.code : "unknown";
      logger?.warn("meta.templates.failed", { page, code });
      throw new MetaCatalogueUnavailableError(
        `A página ${page} do catálogo de templates não pôde ser lida (${code}).`,
        { page, cause },
      );
    }
    const status = response.statusCode;
    const body = parseJson(response.body);
    if (status < 200 || status >= 300) {
      const envelope = readErrorEnvelope(body);
      logger?.warn("meta.templates.failed", { page, httpStatus: status, metaCode: envelope?.error.code ?? null });
      const cause = envelope && status < 500 ? apiErrorOf(status, envelope) : undefined;
      throw new MetaCatalogueUnavailableError(
        `A página ${page} do catálogo de templates foi recusada (HTTP ${status}).`,
        { page, cause },
      );
    }
    const parsed = readTemplatePage(body);
    if (!parsed) {
      logger?.warn("meta.templates.bad_response", { page, httpStatus: status });
      throw new MetaCatalogueUnavailableError(`A página ${page} do catálogo de templates veio em formato inesperado.`, {
        page,
      });
    }
    return parsed;
  }

  /** A GET of a Graph node: its JSON on 2xx, MetaApiError for Meta's refusals, MetaReadError for the rest. */
  async function readNode(url: URL, what: string, logFields: Record<string, unknown>): Promise<unknown> {
    let response: Response<string>;
    try {
      response = await reader.get(url);
    } catch (cause) {
      throw readFailure(cause, what, logFields);
    }
    const status = response.statusCode;
    const body = parseJson(response.body);
    if (status >= 200 && status < 300) return body;
    throw answerFailure(status, body, what, logFields);
  }

  function readFailure(cause: unknown, what: string, logFields: Record<string, unknown>): MetaReadError {
    const timedOut = cause instanceof TimeoutError;
    const code = cause instanceof RequestError ? cause.code : "unknown";
    logger?.warn("meta.read.failed", { ...logFields, what, code });
    return timedOut
      ? new MetaReadError("timeout", `O provedor não respondeu a tempo ao consultar ${what}.`, { cause })
      : new MetaReadError("network", `Não foi possível consultar ${what} no provedor (${code}).`, { cause });
  }

  function answerFailure(
    status: number,
    body: unknown,
    what: string,
    logFields: Record<string, unknown>,
  ): MetaApiError | MetaReadError {
    const envelope = readErrorEnvelope(body);
    logger?.warn("meta.read.refused", {
      ...logFields,
      what,
      httpStatus: status,
      metaCode: envelope?.error.code ?? null,
    });
    if (status >= 400 && status < 500 && envelope) {
      return apiErrorOf(status, envelope);
    }
    return new MetaReadError(
      status >= 500 ? "server_error" : "bad_response",
      `O provedor respondeu ${status} ao consultar ${what}.`,
      { httpStatus: status },
    );
  }

  async function getPhoneNumber(phoneNumberId: string): Promise<MetaPhoneNumber> {
    const url = endpoint(phoneNumberId);
    url.searchParams.set("fields", PHONE_NUMBER_FIELDS);
    const body = await readNode(url, "o número comercial", { phoneNumberId });
    if (!isRecord(body)) {
      logger?.warn("meta.read.bad_response", { phoneNumberId, what: "phone_number" });
      throw new MetaReadError("bad_response", "O provedor respondeu sem os dados do número comercial.");
    }
    const throughput = isRecord(body.throughput) ? body.throughput : undefined;
    return {
      id: typeof body.id === "string" ? body.id : phoneNumberId,
      displayPhoneNumber: stringOrNull(body.display_phone_number),
      verifiedName: stringOrNull(body.verified_name),
      qualityRating: stringOrNull(body.quality_rating),
      messagingLimitTier: stringOrNull(body.messaging_limit_tier),
      throughputLevel: stringOrNull(throughput?.level),
    };
  }

  async function getMedia(mediaId: string, mediaOptions: { phoneNumberId?: string } = {}): Promise<MetaMediaInfo> {
    const where = endpoint(mediaId);
    if (mediaOptions.phoneNumberId) where.searchParams.set("phone_number_id", mediaOptions.phoneNumberId);
    const body = await readNode(where, "a mídia", { mediaId });
    const url = isRecord(body) && typeof body.url === "string" && URL.canParse(body.url) ? body.url : null;
    if (!isRecord(body) || url === null) {
      logger?.warn("meta.read.bad_response", { mediaId, what: "media" });
      throw new MetaReadError("bad_response", "O provedor respondeu sem o endereço da mídia.");
    }
    const size = body.file_size;
    // Meta has sent file_size both as a number and as a numeric string.
    const fileSize =
      typeof size === "number" && Number.isFinite(size)
        ? size
        : typeof size === "string" && /^\d+$/.test(size)
          ? Number(size)
          : null;
    return {
      id: typeof body.id === "string" ? body.id : mediaId,
      url,
      mimeType: stringOrNull(body.mime_type),
      sha256: stringOrNull(body.sha256),
      fileSize,
    };
  }

  const trustedMediaHosts = new Set((options.mediaHosts ?? META_MEDIA_HOSTS).map((h) => h.toLowerCase()));
  const maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const mediaTimeoutMs = options.mediaTimeoutMs ?? Math.max(options.timeoutMs, 60_000);

  /** The token goes only to Meta's media host over https, or to the configured Graph origin itself. */
  function isTrustedMediaUrl(url: URL): boolean {
    if (url.origin === base.origin) return true;
    return url.protocol === "https:" && url.port === "" && trustedMediaHosts.has(url.hostname.toLowerCase());
  }

  async function streamMedia(url: string, downloadOptions: { maxBytes?: number } = {}): Promise<MetaMediaStream> {
    const target = URL.canParse(url) ? new URL(url) : null;
    if (!target || !isTrustedMediaUrl(target)) {
      // Only the host is logged: the URL itself is a short-lived credential.
      logger?.warn("meta.media.untrusted_url", { host: target?.host ?? null });
      throw new MetaReadError("untrusted_url", "O endereço da mídia não é de um servidor do provedor.");
    }
    const maxBytes = downloadOptions.maxBytes ?? maxMediaBytes;
    const logFields = { host: target.host };
    const tooLarge = () => {
      logger?.warn("meta.media.too_large", { ...logFields, maxBytes });
      return new MetaReadError("too_large", `A mídia passa do limite de ${maxBytes} bytes.`);
    };
    // A stream, never retried (its bytes go on to the caller as they come). The answer must start within the
    // media time limit, no gap between bytes may last longer, and the whole download ends within the deadline.
    const request = http.stream(target, {
      headers: { accept: "*/*" },
      timeout: { request: MEDIA_STREAM_DEADLINE_MS, response: mediaTimeoutMs, socket: mediaTimeoutMs },
    });
    let response: PlainResponse;
    try {
      response = await new Promise<PlainResponse>((resolve, reject) => {
        request.once("response", resolve);
        request.once("error", reject);
      });
    } catch (cause) {
      throw readFailure(cause, "a mídia", logFields);
    }
    const status = response.statusCode;
    if (status < 200 || status >= 300) {
      // Meta's refusal is a small JSON envelope; more than that is not read.
      const text = await readAtMost(request, 64 * 1024).catch(() => "");
      throw answerFailure(status, parseJson(text), "a mídia", logFields);
    }
    const announced = Number(response.headers["content-length"] ?? Number.NaN);
    const contentLength = Number.isSafeInteger(announced) && announced >= 0 ? announced : null;
    if (contentLength !== null && contentLength > maxBytes) {
      request.destroy();
      throw tooLarge();
    }
    let received = 0;
    const body = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > maxBytes) done(tooLarge());
        else done(null, chunk);
      },
      flush(done) {
        logger?.info("meta.media.downloaded", { ...logFields, bytes: received });
        done();
      },
    });
    request.on("error", (cause) => body.destroy(readFailure(cause, "a mídia", logFields)));
    // A reader that stops early (the browser went away) or a body past the cap ends the download at once.
    body.once("close", () => request.destroy());
    request.pipe(body);
    const contentType = response.headers["content-type"];
    return {
      contentType: typeof contentType === "string" && contentType !== "" ? contentType : "application/octet-stream",
      contentLength,
      body,
    };
  }

  const uploader = createMediaUploader({
    secure: isHttps,
    headers: { authorization: `Bearer ${options.accessToken}`, accept: "application/json" },
    idleTimeoutMs: mediaTimeoutMs,
    deadlineMs: MEDIA_STREAM_DEADLINE_MS,
  });

  async function uploadMedia(phoneNumberId: string, input: MetaUploadInput): Promise<MetaUploadResult> {
    const logFields = { phoneNumberId, mimeType: input.mimeType };
    const exchange = await uploader.upload(endpoint(phoneNumberId, "media"), input);
    if (exchange.kind === "body_failed") throw exchange.error;
    if (exchange.kind === "failed") {
      if (!exchange.connected || NEVER_CONNECTED_CODES.has(exchange.code)) {
        logger?.warn("meta.upload.unavailable", { ...logFields, code: exchange.code });
        throw new MetaUnavailableError(`Não foi possível conectar ao provedor (${exchange.code}).`, {
          errno: exchange.code,
          cause: exchange.cause,
        });
      }
      logger?.warn("meta.upload.unconfirmed", { ...logFields, code: exchange.code, timedOut: exchange.timedOut });
      throw new MetaUnconfirmedError(
        exchange.timedOut ? "timeout" : "network",
        `O provedor não respondeu ao envio da mídia (${exchange.code}).`,
        { cause: exchange.cause },
      );
    }
    const body = parseJson(exchange.text);
    if (exchange.status >= 200 && exchange.status < 300 && isRecord(body) && typeof body.id === "string" && body.id) {
      logger?.info("meta.upload.accepted", { ...logFields, mediaId: body.id });
      return { id: body.id };
    }
    const envelope = readErrorEnvelope(body);
    if (exchange.status >= 400 && exchange.status < 500 && envelope) {
      const error = apiErrorOf(exchange.status, envelope);
      logger?.info("meta.upload.refused", { ...logFields, httpStatus: exchange.status, code: error.code });
      throw error;
    }
    logger?.warn("meta.upload.unconfirmed", { ...logFields, httpStatus: exchange.status });
    throw new MetaUnconfirmedError(
      exchange.status >= 500 ? "server_error" : "bad_response",
      `Meta respondeu ${exchange.status} sem o id da mídia.`,
      { httpStatus: exchange.status, metaCode: envelope?.error.code ?? null },
    );
  }

  async function markRead(phoneNumberId: string, input: { messageId: string; typing?: boolean }): Promise<void> {
    const payload: GraphReadReceiptPayload = {
      messaging_product: "whatsapp",
      status: "read",
      message_id: input.messageId,
      ...(input.typing ? { typing_indicator: { type: "text" } } : {}),
    };
    await postAction(endpoint(phoneNumberId, "messages"), payload, "sem confirmar a leitura", (body) => {
      return isRecord(body) && body.success === true;
    });
  }

  async function threadControl(phoneNumberId: string, payload: GraphThreadControlPayload): Promise<void> {
    // Meta documents the answer as the product and request identifiers, not a `success` flag: any 2xx object is done.
    await postAction(endpoint(phoneNumberId, "thread_control"), payload, "sem confirmar a ação na conversa", isRecord);
  }

  /**
   * A POST that changes state at Meta but sends no message: safe to repeat, so an unconfirmed attempt is only a
   * failed call (MetaReadError), never a possible duplicate. `confirmed` tells a 2xx body that says it was done.
   */
  async function postAction(
    url: URL,
    payload: object,
    unconfirmed: string,
    confirmed: (body: unknown) => boolean,
  ): Promise<void> {
    let response: Response<string>;
    try {
      response = await http.post(url, { json: payload });
    } catch (error) {
      const failure = classifySendFailure(error);
      throw failure instanceof MetaUnavailableError
        ? failure
        : new MetaReadError("network", failure.message, { cause: failure });
    }
    const body = parseJson(response.body);
    if (response.statusCode >= 200 && response.statusCode < 300 && confirmed(body)) return;
    const envelope = readErrorEnvelope(body);
    if (response.statusCode >= 400 && response.statusCode < 500 && envelope) {
      throw apiErrorOf(response.statusCode, envelope);
    }
    throw new MetaReadError("bad_response", `Meta respondeu ${response.statusCode} ${unconfirmed}.`);
  }

  return { sendMessage, listTemplates, getPhoneNumber, getMedia, streamMedia, uploadMedia, markRead, threadControl };
}

// ---------------------------------------------------------------------------------------------
// Parsing of foreign JSON: nothing is trusted beyond what is checked here.
// ---------------------------------------------------------------------------------------------

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function readSendResult(body: unknown): MetaSendResult | null {
  if (!isRecord(body)) return null;
  const response = body as GraphSendResponse;
  const message = Array.isArray(response.messages) ? response.messages[0] : undefined;
  if (!isRecord(message) || typeof message.id !== "string" || message.id === "") return null;
  const contact = Array.isArray(response.contacts) ? response.contacts[0] : undefined;
  return {
    wamid: message.id,
    waId: isRecord(contact) && typeof contact.wa_id === "string" ? contact.wa_id : null,
    userId: isRecord(contact) && typeof contact.user_id === "string" ? contact.user_id : null,
    messageStatus: typeof message.message_status === "string" ? message.message_status : null,
  };
}

/** Meta's refusal, from its error envelope (reference C.2). */
function apiErrorOf(httpStatus: number, envelope: GraphErrorEnvelope): MetaApiError {
  const e = envelope.error;
  return new MetaApiError({
    httpStatus,
    code: e.code,
    subcode: typeof e.error_subcode === "number" ? e.error_subcode : undefined,
    type: typeof e.type === "string" ? e.type : undefined,
    message: typeof e.message === "string" ? e.message : undefined,
    details: typeof e.error_data?.details === "string" ? e.error_data.details : null,
    fbtraceId: typeof e.fbtrace_id === "string" ? e.fbtrace_id : null,
  });
}

function readErrorEnvelope(body: unknown): GraphErrorEnvelope | null {
  if (!isRecord(body) || !isRecord(body.error)) return null;
  const code = body.error.code;
  if (typeof code !== "number" || !Number.isInteger(code)) return null;
  return body as unknown as GraphErrorEnvelope;
}

function readTemplatePage(body: unknown): { items: MetaTemplate[]; next: string | null } | null {
  if (!isRecord(body) || !Array.isArray(body.data)) return null;
  const items: MetaTemplate[] = [];
  for (const raw of body.data) {
    const item = readTemplate(raw);
    if (!item) return null;
    items.push(item);
  }
  const paging = isRecord(body.paging) ? body.paging : undefined;
  const next = paging && typeof paging.next === "string" && paging.next !== "" ? paging.next : null;
  return { items, next };
}

function readTemplate(raw: unknown): MetaTemplate | null {
  if (!isRecord(raw)) return null;
  const { name, language, status, category, components } = raw;
  if (typeof name !== "string" || typeof language !== "string" || typeof status !== "string") return null;
  if (components !== undefined && !Array.isArray(components)) return null;
  const list = (components ?? []) as unknown[];
  if (!list.every((c) => isRecord(c) && typeof c.type === "string")) return null;
  return {
    ...raw,
    name,
    language,
    status,
    category: typeof category === "string" ? category : "",
    components: list as MetaTemplateComponent[],
  };
}

/** Up to `limit` bytes of a stream as UTF-8 text; the stream is destroyed afterwards. */
async function readAtMost(stream: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}
