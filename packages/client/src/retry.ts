import { randomUUID } from "node:crypto";
import { OPERATIONS } from "./operations.ts";

/**
 * The client's `fetch`: retries what is safe to repeat, with the same `Idempotency-Key` on every attempt. openapi-fetch
 * hands it each request; the request is never sent itself, only clones of it, so its body can go out again.
 *
 * - 429 (the gateway refused before doing anything): repeated, any operation.
 * - 503, 502, 504 and a connection error: repeated when the call is safe to repeat: a GET, or a POST carrying an
 *   `Idempotency-Key` (one is generated for the operations that take it, `POST /messages`, when the caller gave
 *   none). Never `503 send_unconfirmed`: the send may have gone out, and the same key only replays that answer.
 * - 409 `idempotency_in_flight` (an earlier attempt with the key is still running): repeated with the same key.
 *
 * The wait is the answer's `Retry-After` when it has one, else an exponential backoff (±20 %); a `Retry-After`
 * longer than `maxDelayMs` is not waited: that answer is returned to the caller.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** Backoff before the second attempt when the answer has no `Retry-After` (default 500 ms); doubles each time. */
  baseDelayMs?: number;
  /** The longest wait between two attempts, a `Retry-After` included (default 30 000 ms). */
  maxDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const RETRIED_WHEN_REPEATABLE = new Set([502, 503, 504]);
const IDEMPOTENCY_HEADER = "Idempotency-Key";

interface OperationMatcher {
  method: string;
  pattern: RegExp;
  idempotencyKey: boolean;
}

/** Path templates as regular expressions; a prefix before them (a base URL with a path) is allowed. */
const MATCHERS: readonly OperationMatcher[] = Object.values(OPERATIONS).map((operation) => ({
  method: operation.method.toUpperCase(),
  pattern: new RegExp(`${operation.path.replace(/\{[^}]+\}/g, "[^/]+").replace(/[.]/g, "\\.")}$`),
  idempotencyKey: operation.idempotencyKey,
}));

/** Whether the document says this request's operation takes an `Idempotency-Key`. */
function takesIdempotencyKey(request: Request): boolean {
  const path = new URL(request.url).pathname;
  return MATCHERS.some((m) => m.method === request.method && m.idempotencyKey && m.pattern.test(path));
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | null {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function errorCode(response: Response): Promise<string | null> {
  try {
    const body: unknown = await response.clone().json();
    const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}

async function shouldRetry(response: Response, repeatable: boolean, keyed: boolean): Promise<boolean> {
  if (response.status === 429) return true;
  if (response.status === 409) return keyed && (await errorCode(response)) === "idempotency_in_flight";
  if (!RETRIED_WHEN_REPEATABLE.has(response.status) || !repeatable) return false;
  return response.status !== 503 || (await errorCode(response)) !== "send_unconfirmed";
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function retryingFetch(base: Fetch, options: RetryOptions = {}): Fetch {
  const attempts = Math.max(1, options.attempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const backoff = (attempt: number) =>
    Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4));

  return async (request) => {
    if (!request.headers.has(IDEMPOTENCY_HEADER) && takesIdempotencyKey(request))
      request.headers.set(IDEMPOTENCY_HEADER, randomUUID());
    const keyed = request.headers.has(IDEMPOTENCY_HEADER);
    const repeatable = request.method === "GET" || request.method === "HEAD" || keyed;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        response = await base(last ? request : request.clone());
      } catch (error) {
        if (last || !repeatable) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || !(await shouldRetry(response, repeatable, keyed))) return response;
      const wait = retryAfterMs(response) ?? backoff(attempt);
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
