import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { TextDecoder } from "node:util";
import {
  ADDRESS_REFUSED_CODE,
  classifyAddress,
  createGuardedLookup,
  ipLiteralHost,
  type AddressPolicy,
  type Resolver,
} from "./address-guard.ts";

/**
 * How a webhook POST ended when it did not get a 2xx (`WebhookResult.errorKind`). `http_status` = the endpoint
 * answered outside 2xx and 3xx; `redirect` = it answered 3xx (spec 6.4: redirects are not followed);
 * `address_refused` = the host is or resolves to a non-public address (SSRF guard): nothing was sent. The
 * deliveries' own kinds (an integration paused, a deadline passed, a secret that did not open) are core's
 * `DeliveryErrorKind`, which holds these.
 */
export type SendErrorKind =
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
  | "network";

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
   * Development only (WEBHOOK_ALLOW_PRIVATE_NETWORKS): endpoints on loopback and private networks are called too.
   * Either way every attempt checks the host's addresses and connects only to the ones checked; a host that is or
   * resolves to an address the setting does not allow (with it: link-local or a cloud metadata address) fails with
   * `address_refused` before anything is sent.
   */
  allowPrivateNetworks: boolean;
  /** How names are resolved before the check (tests); the system's resolver (dns.lookup) by default. */
  resolve?: Resolver;
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
  errorKind: SendErrorKind | null;
  durationMs: number;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
  /** Closes the keep-alive sockets. */
  close(): void;
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  // The agents' lookup is what the sockets connect with, so the addresses checked are the ones used. Development
  // keeps the guard too: it only widens what is allowed (metadata addresses stay refused).
  const policy: AddressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks };
  const guard = { lookup: createGuardedLookup(options.resolve, policy) };
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

      const finish = (errorKind: SendErrorKind | null) => {
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
      const outcomeOfStatus = (): SendErrorKind | null => {
        if (statusCode === null) return "network";
        if (statusCode >= 200 && statusCode < 300) return null;
        if (statusCode >= 300 && statusCode < 400) return "redirect";
        return "http_status";
      };
      // Once the status line arrived, the status decides (spec 6.4); a body cut short keeps what was read.
      const fail = (error: unknown) => finish(statusCode === null ? classifyError(error) : outcomeOfStatus());

      const target = parseTarget(request.url, policy);
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
      const abandon = (errorKind: SendErrorKind | null) => {
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
 * (node would send it as Basic auth) and an IP literal host that `policy` refuses (node does not call `lookup` for
 * a literal, so the agents' guard would not see it).
 */
function parseTarget(
  rawUrl: string,
  policy: AddressPolicy,
): { url: URL; protocol: "http:" | "https:" } | SendErrorKind {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return "invalid_url";
  }
  const protocol = url.protocol;
  if (protocol !== "http:" && protocol !== "https:") return "invalid_url";
  if (url.username !== "" || url.password !== "") return "invalid_url";
  const literal = ipLiteralHost(url);
  if (literal !== null && !classifyAddress(literal, policy).allowed) return "address_refused";
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

export function classifyError(error: unknown): SendErrorKind {
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
