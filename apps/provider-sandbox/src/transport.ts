import http from "node:http";
import https from "node:https";

/** Meta gives the endpoint this long per webhook attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The outcome of one POST: the HTTP status (any, redirects included), or null and why it got none. */
export interface AttemptResult {
  status: number | null;
  error: string | null;
}

interface Target {
  module: typeof http | typeof https;
  agent: http.Agent;
  hostname: string;
  port: string;
  path: string;
}

/**
 * POSTs webhooks over node:http with keep-alive agents (one per protocol, sockets reused most-recent-first).
 * Each attempt has its own deadline; redirects are never followed (a 3xx is the answer); `close()` destroys
 * every request in flight and every pooled socket.
 */
export class WebhookTransport {
  private readonly httpAgent = new http.Agent({ keepAlive: true, scheduling: "lifo" });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, scheduling: "lifo" });
  private readonly inFlight = new Set<http.ClientRequest>();
  private cachedUrl: string | undefined;
  private cachedTarget: Target | undefined;
  private closed = false;

  constructor(private readonly timeoutMs: number = WEBHOOK_TIMEOUT_MS) {}

  /** Never rejects. */
  post(url: string, raw: string, signature: string): Promise<AttemptResult> {
    if (this.closed) return Promise.resolve({ status: null, error: "sandbox closed" });
    const target = this.target(url);
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let answered = false;
      const finish = (result: AttemptResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        this.inFlight.delete(req);
        resolve(result);
      };
      const req = target.module.request(
        {
          method: "POST",
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          agent: target.agent,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(raw),
            "x-hub-signature-256": signature,
            "user-agent": "facebookexternalua",
            accept: "*/*",
          },
        },
        (res) => {
          answered = true;
          const status = res.statusCode ?? null;
          // Drain the answer so the keep-alive socket goes back to the pool.
          res.on("end", () => finish({ status, error: null }));
          res.on("error", (error) => finish({ status: null, error: error.message }));
          res.on("close", () =>
            finish(res.complete ? { status, error: null } : { status: null, error: "answer cut short" }),
          );
          res.resume();
        },
      );
      // Callbacks run later, when `req` and `deadline` are set.
      const deadline = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      req.on("error", (error) => finish({ status: null, error: error.message }));
      // Closed before any answer (a response, once it started, settles through its own events).
      req.on("close", () => {
        if (!answered) finish({ status: null, error: "connection closed without an answer" });
      });
      this.inFlight.add(req);
      req.end(raw);
    });
  }

  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy(new Error("sandbox closed"));
    this.inFlight.clear();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** The webhook URL rarely changes: parse it once. */
  private target(url: string): Target {
    if (this.cachedTarget && this.cachedUrl === url) return this.cachedTarget;
    const parsed = new URL(url);
    const secure = parsed.protocol === "https:";
    const target: Target = {
      module: secure ? https : http,
      agent: secure ? this.httpsAgent : this.httpAgent,
      // WHATWG keeps the brackets of an IPv6 literal; node:http wants the bare address.
      hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: parsed.port || (secure ? "443" : "80"),
      path: `${parsed.pathname}${parsed.search}`,
    };
    this.cachedUrl = url;
    this.cachedTarget = target;
    return target;
  }
}
