import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import { IntegrationUrlError } from "@gw/core/accounts";
import { PanelUserError } from "@gw/core/users";
import { isDatabaseUnavailable } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import multer from "multer";
import { errorPage } from "../views/layout.ts";

/** A refusal shown to the user as a page with this status and Portuguese message. */
export class PanelHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "PanelHttpError";
  }
}

export const notFound: RequestHandler = (req, res) => {
  res
    .status(404)
    .type("html")
    .send(errorPage(req, 404, "Página não encontrada.").value);
};

function describe(error: unknown): { status: number; message: string } | null {
  if (error instanceof PanelHttpError) return { status: error.status, message: error.message };
  if (error instanceof PanelUserError)
    return {
      status: error.code === "not_found" ? 404 : error.code === "email_taken" ? 409 : 400,
      message: error.message,
    };
  if (error instanceof IntegrationUrlError) return { status: 400, message: error.message };
  if (error instanceof ApiError) return { status: error.status, message: error.message };
  if (error instanceof multer.MulterError)
    return {
      status: error.code === "LIMIT_FILE_SIZE" ? 413 : 400,
      message:
        error.code === "LIMIT_FILE_SIZE"
          ? "O arquivo é grande demais (máximo 20 MB)."
          : "O envio do arquivo é inválido.",
    };
  const status = (error as { status?: unknown; type?: unknown }).status;
  // body-parser's refusals (too large, malformed) carry their 4xx.
  if (typeof status === "number" && status >= 400 && status < 500)
    return { status, message: status === 413 ? "O envio é grande demais." : "Requisição inválida." };
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req: Request, res, next) => {
    if (res.headersSent) return next(error);
    const known = describe(error);
    if (known) {
      res
        .status(known.status)
        .type("html")
        .send(errorPage(req, known.status, known.message).value);
      return;
    }
    if (isDatabaseUnavailable(error)) {
      res.setHeader("Retry-After", "5");
      res
        .status(503)
        .type("html")
        .send(errorPage(req, 503, "O serviço está indisponível no momento. Tente de novo em instantes.").value);
      return;
    }
    logger.error("panel request failed", { error: error instanceof Error ? error.stack : String(error) });
    res
      .status(500)
      .type("html")
      .send(
        errorPage(req, 500, "Algo deu errado do nosso lado. Tente de novo; se persistir, fale com o suporte.").value,
      );
  };
}
