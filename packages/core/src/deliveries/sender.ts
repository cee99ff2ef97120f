import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { TextDecoder } from "node:util";
import { ADDRESS_REFUSED_CODE, classifyAddress, createGuardedLookup, ipLiteralHost } from "../net/address-guard.ts";

/**
 * Why an attempt failed, stored in `lastErrorKind` and on each attempt row. `http_status` = the endpoint
 * answered outside 2xx and 3xx; `redirect` = it answered 3xx (spec 6.4: redirects are not followed);
 * `address_refused` = the host is or resolves to a non-public address (SSRF guard): nothing was sent.
 * `integration_inactive` and `expired` are never an attempt's: a delivery failed without one (its integration
 * paused; its retry schedule's deadline passed while its attempts were held back, e.g. by the circuit breaker).
 * Nor is `secret_unavailable`: the integration's signing secret did not open (its key is not in SECRETS_KEYS, or the
 * stored value was altered), so nothing was sent and no attempt spent; the delivery keeps being tried until its
 * deadline, and fails with that kind if the secret never opens.
 */
export type DeliveryErrorKind =
  | "http_status"
  | "redirect"
  | "timeout"
  | "connection_refused"
  | "connection_reset"
  | "dns"
  | "tls"
  | "unreachable"
  | "invalid_url"
  | "address_refused"
  | "protocol"
  | "network"
  | "integration_inactive"
  | "expired"
  | "secret_unavailable";

/** Portuguese explanation of each error kind, for the panel and the API. */
export const DELIVERY_ERROR_KIND_MESSAGES: Readonly<Record<DeliveryErrorKind, string>> = {
  http_status: "O endpoint respondeu com um status fora da faixa 2xx.",
  redirect: "O endpoint respondeu com um redirecionamento, que não é seguido.",
  timeout: "O endpoint não respondeu dentro do tempo limite da tentativa.",
  connection_refused: "O endpoint recusou a conexão.",
  connection_reset: "A conexão com o endpoint foi encerrada antes da resposta.",
  dns: "Não foi possível resolver o nome do host do endpoint.",
  tls: "A conexão segura (TLS) com o endpoint falhou.",
  unreachable: "A rede ou o host do endpoint está inacessível.",
  invalid_url: "A URL cadastrada na integração é inválida.",
  address_refused:
    "O endpoint aponta para um endereço de rede local, privada ou reservada, que não é aceito; a entrega não foi enviada.",
  protocol: "O endpoint respondeu algo que não é HTTP válido.",
  network: "Falha de rede ao contatar o endpoint.",
  integration_inactive: "A integração está desativada; a entrega não foi enviada.",
  expired:
    "O prazo do cronograma de tentativas automáticas acabou sem que a entrega fosse tentada (o endpoint não respondia e as entregas aguardavam); ela pode ser reenviada.",
  secret_unavailable:
    "O segredo de assinatura da integração não pôde ser decifrado (a chave que o cifrou não está em SECRETS_KEYS, ou o valor guardado foi alterado); nada foi enviado. A entrega é tentada de novo até o prazo do cronograma; corrija as chaves do gateway ou troque o segredo da integração.",
};

export interface WebhookSenderOptions {
  /** Deadline of the whole attempt, connection to end of response (spec 6.4: 10 s). */
  timeoutMs: number;
  /** Deadline to establish the TCP connection once the address is known; it fires only if below `timeoutMs`. */
  connectTimeoutMs: number;
  /** Keep-alive sockets per integrator host. */
  maxSockets: number;
  /** Bytes of the answer kept; the rest is not read. */
  responseBodyLimit: number;
  /**
   * Development only (WEBHOOK_ALLOW_PRIVATE_NETWORKS): endpoints on loopback and private networks are called.
   * When false, every attempt checks the host's addresses and connects only to the ones checked; a host that is
   * or resolves to a non-public address fails with `address_refused` before anything is sent.
   */
  allowPrivateNetworks: boolean;
}

export interface WebhookRequest {
  url: string;
  /** The exact bytes to send. */
  body: string;
  headers: Record<string, string>;
}

export interface WebhookResult {
  /** HTTP status, null when no response arrived. */
  statusCode: number | null;
  /** The answer, capped at `responseBodyLimit` bytes; null when no response arrived. */
  responseBody: string | null;
  /** null for a 2xx. */
  errorKind: DeliveryErrorKind | null;
  durationMs: number;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
  /** Closes the keep-alive sockets. */
  close(): void;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  // The agents' lookup is what the sockets connect with, so the addresses checked are the ones used.
  const guard = options.allowPrivateNetworks ? {} : { lookup: createGuardedLookup() };
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: options.maxSockets, ...guard }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: options.maxSockets, ...guard }),
  };

  // node:http directly rather than an HTTP client library: one POST with a known body, no redirects, no retries,
  // no decompression, and the dispatcher spends its CPU per delivery (docs/performance.md).
  function send(request: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    return new Promise<WebhookResult>((resolve) => {
      let settled = false;
      let statusCode: number | null = null;
      const timers: { attempt?: NodeJS.Timeout; connect?: NodeJS.Timeout } = {};
      const collector = new CappedText(options.responseBodyLimit);

      const finish = (errorKind: DeliveryErrorKind | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timers.attempt);
        clearTimeout(timers.connect);
        resolve({
          statusCode,
          responseBody: statusCode === null ? null : collector.text(),
          errorKind,
          durationMs: Math.round(performance.now() - started),
        });
      };
      const outcomeOfStatus = (): DeliveryErrorKind | null => {
        if (statusCode === null) return "network";
        if (statusCode >= 200 && statusCode < 300) return null;
        if (statusCode >= 300 && statusCode < 400) return "redirect";
        return "http_status";
      };
      // Once the status line arrived, the status decides (spec 6.4); a body cut short keeps what was read.
      const fail = (error: unknown) => finish(statusCode === null ? classifyError(error) : outcomeOfStatus());

      const target = parseTarget(request.url, options.allowPrivateNetworks);
      if (typeof target === "string") {
        finish(target);
        return;
      }

      const body = Buffer.from(request.body, "utf8");
      let req: http.ClientRequest;
      try {
        req = (target.protocol === "https:" ? https : http).request(target.url, {
          method: "POST",
          agent: agents[target.protocol],
          headers: { ...request.headers, "Content-Length": String(body.length) },
        });
      } catch (error) {
        finish(classifyError(error));
        return;
      }
      // The answer is not read to its end: the socket cannot serve another request, so it is closed.
      const abandon = (errorKind: DeliveryErrorKind | null) => {
        finish(errorKind);
        req.destroy();
      };

      timers.attempt = setTimeout(() => req.destroy(timedOut("the attempt")), options.timeoutMs);
      req.on("socket", (socket: Socket) => {
        // A kept-alive socket is already connected; a new one gets the connect deadline once its address is known
        // (at once for an IP literal, which is not looked up).
        if (!socket.connecting) return;
        const startConnectDeadline = () => {
          timers.connect = setTimeout(() => req.destroy(timedOut("the connection")), options.connectTimeoutMs);
          socket.once("connect", () => clearTimeout(timers.connect));
        };
        if (ipLiteralHost(target.url) !== null) startConnectDeadline();
        else
          socket.once("lookup", (error: Error | null) => {
            if (!error) startConnectDeadline();
          });
      });
      req.on("error", fail);
      req.on("response", (response: http.IncomingMessage) => {
        statusCode = response.statusCode ?? null;
        response.on("error", fail);
        if (options.responseBodyLimit === 0) {
          // Nothing of the body is kept: do not wait for it.
          abandon(outcomeOfStatus());
          return;
        }
        response.on("data", (chunk: Buffer) => {
          if (settled) return;
          // Cap reached: stop reading instead of buffering an unbounded answer.
          if (collector.push(chunk)) abandon(outcomeOfStatus());
        });
        response.on("end", () => finish(outcomeOfStatus()));
        // Closed before its end (the connection was cut mid-body): what was read is kept.
        response.on("close", () => finish(outcomeOfStatus()));
      });
      req.end(body);
    });
  }

  return {
    send,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

/** The error a deadline destroys the request with; classified as `timeout`. */
function timedOut(what: string): Error {
  return Object.assign(new Error(`${what} took too long`), { code: "ETIMEDOUT" });
}

/**
 * The URL to call, or what the URL alone forbids, checked before any connection: anything but http(s), userinfo
 * (node would send it as Basic auth) and, unless private networks are allowed, an IP literal host that is not
 * public (node does not call `lookup` for a literal, so the agents' guard would not see it).
 */
function parseTarget(
  rawUrl: string,
  allowPrivateNetworks: boolean,
): { url: URL; protocol: "http:" | "https:" } | DeliveryErrorKind {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return "invalid_url";
  }
  const protocol = url.protocol;
  if (protocol !== "http:" && protocol !== "https:") return "invalid_url";
  if (url.username !== "" || url.password !== "") return "invalid_url";
  if (!allowPrivateNetworks) {
    const literal = ipLiteralHost(url);
    if (literal !== null && !classifyAddress(literal).allowed) return "address_refused";
  }
  return { url, protocol };
}

/** Collects at most `limit` bytes and decodes them as UTF-8 (a character cut at the cap is dropped). */
class CappedText {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Returns true once the cap is reached. */
  push(chunk: Buffer): boolean {
    const room = this.limit - this.size;
    if (room <= 0) return true;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.size += part.length;
    return this.size >= this.limit;
  }

  text(): string {
    // stream: true keeps an incomplete trailing sequence out instead of turning it into U+FFFD.
    const decoded = new TextDecoder("utf-8").decode(Buffer.concat(this.chunks), { stream: true });
    // PostgreSQL text cannot hold NUL.
    return decoded.replaceAll("\u0000", "");
  }
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH$)/;

export function classifyError(error: unknown): DeliveryErrorKind {
  const code = errorCode(error);
  if (!code) return "network";
  if (code === ADDRESS_REFUSED_CODE) return "address_refused";
  if (code === "ETIMEDOUT" || code === "ESOCKETTIMEDOUT") return "timeout";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "ERR_STREAM_PREMATURE_CLOSE") return "connection_reset";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NODATA" || code === "EAI_FAIL") return "dns";
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "EHOSTDOWN" || code === "ENETDOWN")
    return "unreachable";
  if (code === "ERR_INVALID_URL" || code === "ERR_UNSUPPORTED_PROTOCOL") return "invalid_url";
  if (code.startsWith("HPE_")) return "protocol";
  if (TLS_CODES.test(code)) return "tls";
  return "network";
}

function errorCode(error: unknown): string | undefined {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return undefined;
}
