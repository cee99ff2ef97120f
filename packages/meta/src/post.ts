import http from "node:http";
import https from "node:https";
import { startSpan } from "@gw/tracing";

/**
 * The send's transport: one JSON POST over node:http(s) with a keep-alive agent, without got. A send is the hot
 * path (one per message, at up to 1 000/s per number) and got's per-request machinery (options merging, hooks,
 * timings, retries it must not do anyway) cost more CPU than the request itself (docs/performance.md). Reads
 * (catalogue, phone number, media) keep got: they are rare and use its retry.
 */
export interface PostAnswer {
  status: number;
  body: string;
}

/**
 * A POST that got no whole answer. `connected`: a (TLS) connection existed when it failed (a kept-alive socket
 * counts), so bytes of the request may have reached the provider; otherwise nothing can have been written.
 */
export class PostFailedError extends Error {
  constructor(
    readonly code: string,
    readonly connected: boolean,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(`POST failed (${code})`, options);
    this.name = "PostFailedError";
  }
}

/** Idle kept-alive sockets are closed after this: below node's default server keep-alive (5 s), so a socket the
 * other side is about to close is not reused. */
const FREE_SOCKET_TIMEOUT_MS = 4_000;

export interface JsonPoster {
  /** POST `body` (already JSON) to `url`; the whole exchange ends within the poster's timeout. */
  post(url: URL, body: string): Promise<PostAnswer>;
}

export function createJsonPoster(options: {
  secure: boolean;
  headers: Record<string, string>;
  timeoutMs: number;
}): JsonPoster {
  const { secure, timeoutMs } = options;
  const agent = secure
    ? new https.Agent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS })
    : new http.Agent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS });
  const request = secure ? https.request : http.request;
  const connectEvent = secure ? "secureConnect" : "connect";

  /**
   * The POST as a client span of the current one (the send's request), its `traceparent` sent along (W3C trace
   * context; Meta ignores it, a proxy or the sandbox may read it). Attributes: host, path and status, never a body.
   */
  async function post(url: URL, body: string): Promise<PostAnswer> {
    const span = startSpan("POST graph messages", {
      kind: "client",
      attributes: { "http.request.method": "POST", "server.address": url.hostname, "url.path": url.pathname },
    });
    try {
      const answer = await postOnce(url, body, span.traceparent);
      span.setAttributes({ "http.response.status_code": answer.status });
      if (answer.status >= 400) span.fail();
      return answer;
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }

  function postOnce(url: URL, body: string, traceparent: string): Promise<PostAnswer> {
    return new Promise<PostAnswer>((resolve, reject) => {
      const payload = Buffer.from(body, "utf8");
      let connected = false;
      let timedOut = false;
      let settled = false;
      const settle = (error: NodeJS.ErrnoException | null, answer?: PostAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error === null && answer) resolve(answer);
        else {
          const code = timedOut ? "ETIMEDOUT" : (error?.code ?? "unknown");
          reject(new PostFailedError(code, connected, timedOut, { cause: error }));
        }
      };
      const req = request(
        url,
        {
          method: "POST",
          agent,
          headers: {
            ...options.headers,
            "content-type": "application/json",
            "content-length": payload.length,
            traceparent,
          },
        },
        (res) => {
          res.setEncoding("utf8");
          let text = "";
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.once("end", () => settle(null, { status: res.statusCode ?? 0, body: text }));
          res.once("error", (error) => settle(error));
          res.once("aborted", () => settle(Object.assign(new Error("answer cut"), { code: "ECONNRESET" })));
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      req.once("socket", (socket) => {
        // A kept-alive socket is connected already; a new one once its (TLS) connection is made.
        if (!socket.connecting) connected = true;
        else
          socket.once(connectEvent, () => {
            connected = true;
          });
      });
      req.once("error", (error) => settle(error));
      req.end(payload);
    });
  }

  return { post };
}
