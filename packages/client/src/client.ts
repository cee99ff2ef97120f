import createClient, { type Client } from "openapi-fetch";
import { retryingFetch, type RetryOptions } from "./retry.ts";
import type { paths } from "./schema.ts";

/** openapi-fetch's client over the gateway's paths: `client.GET("/public/v1/deliveries", {...})`, typed end to end. */
export type GatewayClient = Client<paths>;

export interface GatewayClientOptions {
  /** The gateway's address, e.g. `https://gateway.exemplo.com.br` (the paths start with `/public/v1`). */
  baseUrl: string;
  /** The account's API key (`pt_live_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Retries (see retry.ts); `false` sends every request once. */
  retry?: RetryOptions | false;
  /** The underlying fetch (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
}

/** A client of the public API with the key, the retries and a generated `Idempotency-Key` on sends. */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? base : retryingFetch(base, options.retry),
  });
}

/** The error envelope every refusal carries (spec 7), or a validation error's `detail`. */
export class GatewayRequestError extends Error {
  override readonly name = "GatewayRequestError";
  constructor(
    readonly status: number,
    /** `error.code` of the envelope, `validation_error` for a 422 HTTPValidationError, null when unreadable. */
    readonly code: string | null,
    readonly body: unknown,
  ) {
    super(`${status} ${code ?? "sem código"}: ${messageOf(body)}`);
  }
}

function messageOf(body: unknown): string {
  if (typeof body !== "object" || body === null) return "resposta sem corpo legível";
  const error = (body as { error?: { message?: unknown } }).error;
  if (typeof error?.message === "string") return error.message;
  const detail = (body as { detail?: { msg?: unknown }[] }).detail;
  if (Array.isArray(detail)) return detail.map((item) => String(item.msg)).join("; ");
  return "resposta sem mensagem";
}

/** A GatewayRequestError for an answer openapi-fetch read as an error. */
export function requestError(response: Response, body: unknown): GatewayRequestError {
  const error = typeof body === "object" && body !== null ? (body as { error?: { code?: unknown } }).error : undefined;
  const code =
    typeof error?.code === "string"
      ? error.code
      : typeof body === "object" && body !== null && "detail" in body
        ? "validation_error"
        : null;
  return new GatewayRequestError(response.status, code, body);
}
