// The one load generator every bench uses, for its target and for its baseline alike: a closed loop of
// `concurrency` clients over plain node:http with a keep-alive agent (one socket per client), each sending the
// next request as soon as the previous answer has been read. Bounded by `count` and by `timeoutMs` (no request
// starts after the deadline; one still in flight then is cut off by the socket timeout). Cheap on CPU: the
// request bodies are Buffers built by the caller, answers are only read when `onResponse` wants them.
import http from "node:http";
import { performance } from "node:perf_hooks";

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface LoadOptions {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  count: number;
  concurrency: number;
  timeoutMs: number;
  /** The i-th request (0-based, in issue order). */
  request: (i: number) => LoadRequest;
  /**
   * Called with each answer's status and body; returns the outcome label counted in `outcomes`. Without it the
   * body is discarded and the outcome is the status code.
   */
  onResponse?: (i: number, status: number, body: Buffer) => string;
  /** Idle socket timeout per request (default 30 s). */
  requestTimeoutMs?: number;
}

export interface LoadResult {
  requested: number;
  completed: number;
  /** Transport failures (no HTTP answer). */
  errors: number;
  seconds: number;
  /** Completed requests per second. */
  rps: number;
  /** Latency of each completed request in ms, issue to end of body, in completion order. */
  latenciesMs: Float64Array;
  outcomes: Record<string, number>;
  /** Mean request body size in bytes. */
  meanBodyBytes: number;
  timedOut: boolean;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const base = new URL(options.baseUrl);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.concurrency,
    maxFreeSockets: options.concurrency,
  });
  const latencies = new Float64Array(options.count);
  const outcomes: Record<string, number> = {};
  const count = (label: string): void => {
    outcomes[label] = (outcomes[label] ?? 0) + 1;
  };
  let next = 0;
  let completed = 0;
  let errors = 0;
  let bodyBytes = 0;
  const started = performance.now();
  const deadline = started + options.timeoutMs;

  const once = (i: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const spec = options.request(i);
      bodyBytes += spec.body?.length ?? 0;
      const t0 = performance.now();
      let settled = false;
      const fail = (label: string): void => {
        if (settled) return;
        settled = true;
        errors++;
        count(`error ${label}`);
        resolve();
      };
      const headers: Record<string, string | number> = { ...spec.headers };
      if (spec.body) headers["content-length"] = spec.body.length;
      const req = http.request(
        { host: base.hostname, port: base.port, method: spec.method, path: spec.path, headers, agent },
        (res) => {
          const status = res.statusCode ?? 0;
          const chunks: Buffer[] = [];
          if (options.onResponse) res.on("data", (chunk: Buffer) => chunks.push(chunk));
          else res.resume();
          res.once("end", () => {
            if (settled) return;
            settled = true;
            latencies[completed++] = performance.now() - t0;
            count(options.onResponse ? options.onResponse(i, status, Buffer.concat(chunks)) : String(status));
            resolve();
          });
          res.once("error", () => fail("response aborted"));
        },
      );
      req.setTimeout(options.requestTimeoutMs ?? 30_000, () => req.destroy(new Error("request timeout")));
      req.once("error", (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      req.end(spec.body);
    });

  async function client(): Promise<void> {
    while (next < options.count && performance.now() < deadline) await once(next++);
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, () => client()));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    requested: next,
    completed,
    errors,
    seconds,
    rps: completed / seconds,
    latenciesMs: latencies.subarray(0, completed),
    outcomes,
    meanBodyBytes: next ? bodyBytes / next : 0,
    timedOut: next < options.count,
  };
}

/** A JSON body as the Buffer the load generator sends. */
export function jsonBody(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), "utf8");
}
