import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { ApiError } from "@gw/errors";
import { RequestValidationError, type ValidationIssue } from "@gw/contracts";
import { isDatabaseUnavailable } from "@gw/db";
import type { Logger } from "@gw/logger";

/** Unknown routes answer with the same envelope as every other error. */
export const notFound: RequestHandler = (_req, _res, next) =>
  next(new ApiError("not_found", { message: "Rota não encontrada." }));

/** What the errors of Express's own layers carry: router (URIError), body-parser/raw-body and send (http-errors). */
interface HttpLayerError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  code?: unknown;
  message: string;
}

function asHttpLayerError(error: unknown): HttpLayerError | undefined {
  if (!(error instanceof Error)) return undefined;
  const candidate = error as HttpLayerError;
  // http-errors marks what it builds with `expose`; the router's undecodable parameter is a URIError with a status.
  return candidate.expose !== undefined || error instanceof URIError ? candidate : undefined;
}

/**
 * The 4xx status Express's own layers put on the errors they raise (router, body-parser, send), or undefined for
 * any other error: a status on an error of ours or of a library is not the client's fault.
 */
export function clientErrorStatus(error: unknown): number | undefined {
  const layer = asHttpLayerError(error);
  const status = typeof layer?.status === "number" ? layer.status : layer?.statusCode;
  return typeof status === "number" && Number.isInteger(status) && status >= 400 && status < 500 ? status : undefined;
}

const BODY_CUT_SHORT = "O corpo da requisição foi interrompido antes do fim.";

/** A body the client stopped sending before its end (the answer is for the logs and metrics: nobody reads it). */
export const bodyCutShort = () => new ApiError("bad_request", { message: BODY_CUT_SHORT });

/** Portuguese sentence for a request the HTTP layer could not read. */
function unreadableSentence(error: HttpLayerError | undefined): string | undefined {
  if (error?.type === "request.aborted") return BODY_CUT_SHORT;
  if (error instanceof URIError) return "A URL contém uma sequência de escape (%) inválida.";
  if (error?.type === "request.size.invalid") return "O corpo não tem o tamanho informado em Content-Length.";
  if (typeof error?.code === "string" && error.code.startsWith("Z_")) {
    return "O corpo não pôde ser descompactado conforme o Content-Encoding informado.";
  }
  return undefined;
}

/** An error of the HTTP layer as the envelope of a registry code; undefined when it is not one. */
function httpLayerApiError(error: unknown): ApiError | undefined {
  const status = clientErrorStatus(error);
  if (status === undefined) return undefined;
  if (status === 404) return new ApiError("not_found", { message: "Rota não encontrada." });
  if (status === 413) return new ApiError("payload_too_large");
  const message = unreadableSentence(asHttpLayerError(error));
  return new ApiError("bad_request", message === undefined ? {} : { message });
}

/** body-parser's failures that are validation errors of the body (spec 7's HTTPValidationError, 422). */
function bodyValidationIssue(error: unknown): ValidationIssue | undefined {
  const layer = asHttpLayerError(error);
  if (layer?.type === "entity.parse.failed") {
    return {
      loc: ["body", 0],
      msg: "O corpo não é um JSON válido.",
      type: "json_invalid",
      ctx: { error: layer.message },
    };
  }
  if (layer?.type === "encoding.unsupported" || layer?.type === "charset.unsupported") {
    return { loc: ["body"], msg: "Codificação do corpo não suportada.", type: "value_error" };
  }
  return undefined;
}

// A database that cannot be reached (isDatabaseUnavailable: pg and Prisma alike) may answer moments later: 503.
const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fromHttpLayer = httpLayerApiError(error);
  if (fromHttpLayer) return fromHttpLayer;
  return isDatabaseUnavailable(error)
    ? new ApiError("service_unavailable", { cause: error, retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS })
    : new ApiError("internal_error", { cause: error });
}

/** Headers a handler may have set for the answer it meant to give (send sets them before it fails). */
const CONTENT_HEADERS = [
  "Content-Type",
  "Content-Encoding",
  "Content-Language",
  "Content-Range",
  "Content-Disposition",
  "Cache-Control",
  "ETag",
  "Last-Modified",
];

function sendApiError(res: Response, apiError: ApiError): void {
  for (const header of CONTENT_HEADERS) res.removeHeader(header);
  if (apiError.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(apiError.retryAfterSeconds));
  res.status(apiError.status).json(apiError.toBody());
}

/**
 * HTTPValidationError (422). Each item echoes the refused `input`, as pydantic does; an input JSON.stringify cannot
 * write (lists nested thousands deep: JSON.parse reads them, the serializer overflows the stack) is left out of
 * its item instead of turning the answer into a 500.
 */
function sendValidationError(res: Response, detail: ValidationIssue[]): void {
  let body: string;
  try {
    body = JSON.stringify({ detail });
  } catch {
    body = JSON.stringify({ detail: detail.map(({ input: _input, ...item }) => item) });
  }
  res.status(422).type("application/json").send(body);
}

/**
 * The one place errors become HTTP answers: request validation as HTTPValidationError (422), everything else as
 * the envelope. Errors of Express's own layers with a 4xx status (an undecodable URL, a body that cannot be
 * inflated or was cut short, send's refusals) are the client's: their envelope, never a 500.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof RequestValidationError) return sendValidationError(res, error.detail);
    const issue = bodyValidationIssue(error);
    if (issue) return sendValidationError(res, [issue]);
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      logger.error("request failed", { code: apiError.code, error: apiError.cause ?? apiError, path: req.path });
    }
    sendApiError(res, apiError);
  };
}
