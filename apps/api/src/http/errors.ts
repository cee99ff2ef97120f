import type { ErrorRequestHandler, RequestHandler } from "express";
import { ApiError } from "@gw/errors";
import { RequestValidationError } from "@gw/contracts";
import { isDatabaseUnavailable } from "@gw/db";
import type { Logger } from "@gw/logger";

/** Unknown routes answer with the same envelope as every other error. */
export const notFound: RequestHandler = (_req, _res, next) =>
  next(new ApiError("not_found", { message: "Rota não encontrada." }));

interface BodyParserError {
  type?: string;
  status?: number;
  body?: string;
  message: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as BodyParserError).type === "string" &&
    "status" in error
  );
}

// Prisma's codes for "the database cannot be reached / answered in time" (not for a query that failed); the
// hand-written SQL's errors (pg) are read by isDatabaseUnavailable. Such a request may succeed moments later, so
// it is a 503, not a 500.
const PRISMA_UNAVAILABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);
const SOCKET_UNAVAILABLE = new Set(["EHOSTUNREACH", "ENETUNREACH"]);
const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

function isDependencyUnavailable(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (PRISMA_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The one place errors become HTTP answers. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof RequestValidationError) {
      res.status(422).json({ detail: error.detail });
      return;
    }
    if (isBodyParserError(error)) {
      if (error.type === "entity.parse.failed") {
        res.status(422).json({
          detail: [
            {
              loc: ["body", 0],
              msg: "O corpo não é um JSON válido.",
              type: "json_invalid",
              ctx: { error: error.message },
            },
          ],
        });
        return;
      }
      if (error.type === "entity.too.large") {
        const tooLarge = new ApiError("payload_too_large");
        res.status(tooLarge.status).json(tooLarge.toBody());
        return;
      }
      if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
        res
          .status(422)
          .json({ detail: [{ loc: ["body"], msg: "Codificação do corpo não suportada.", type: "value_error" }] });
        return;
      }
    }
    const apiError =
      error instanceof ApiError
        ? error
        : isDependencyUnavailable(error)
          ? new ApiError("service_unavailable", { cause: error, retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS })
          : new ApiError("internal_error", { cause: error });
    if (apiError.status >= 500) {
      logger.error("request failed", { code: apiError.code, error: apiError.cause ?? apiError, path: req.path });
    }
    if (apiError.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(apiError.retryAfterSeconds));
    res.status(apiError.status).json(apiError.toBody());
  };
}
