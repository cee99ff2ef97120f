import type { Request } from "express";
import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { RequestValidationError } from "@gw/contracts";
import { ApiError } from "@gw/errors";
import { bodyCutShort } from "./errors.ts";

/**
 * A request body read as it arrives, for a route that parses it as a stream (a campaign's CSV) instead of buffering
 * it: body-parser's rules (Content-Encoding gzip, deflate or br, inflated; the limit counted after inflating; a
 * client that stops sending is a 400), checked as it reads. Whatever the route does not read (it stopped at a row
 * it will not take) is discarded as it arrives, as Node does with a body no route reads, so the answer goes out at
 * once and the connection stays usable.
 */
export interface StreamedBody {
  /** The body's bytes; throws the 400/413 of body-parser when the body cannot be read or passes the limit. */
  bytes: AsyncIterable<Buffer>;
  /** The charset of Content-Type (utf-8 when none). */
  charset: string;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

const unsupportedEncoding = () =>
  new RequestValidationError([{ loc: ["body"], msg: "Codificação do corpo não suportada.", type: "value_error" }]);

function inflaterFor(encoding: string): Transform | null {
  switch (encoding) {
    case "":
    case "identity":
      return null;
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      throw unsupportedEncoding();
  }
}

function payloadTooLarge(limitBytes: number): ApiError {
  return new ApiError("payload_too_large", {
    message: `O corpo da requisição passa de ${limitBytes / (1024 * 1024)} MiB.`,
  });
}

/**
 * Checked before anything is read: a declared length over the limit is a 413 and an unknown Content-Encoding a
 * 422 (as body-parser answers them), so neither waits for the body.
 */
export function streamedBody(req: Request, options: { limitBytes: number; isCharset(label: string): boolean }) {
  if (req.readableAborted) throw bodyCutShort();
  const declared = Number(req.headers["content-length"]);
  const encoding = (req.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (Number.isFinite(declared) && declared > options.limitBytes && (encoding === "" || encoding === "identity"))
    throw payloadTooLarge(options.limitBytes);
  const inflater = inflaterFor(encoding);
  const charset = (CHARSET.exec(req.headers["content-type"] ?? "")?.[1] ?? "utf-8").toLowerCase();
  if (!options.isCharset(charset)) throw unsupportedEncoding();
  return { bytes: read(req, inflater, options.limitBytes), charset } satisfies StreamedBody;
}

async function* read(req: Request, inflater: Transform | null, limitBytes: number): AsyncGenerator<Buffer> {
  // pipe() does not pass the client's going away on to the inflater: make it the inflater's error.
  const cutShort = () => inflater?.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
  let source: Readable = req;
  if (inflater) {
    req.once("aborted", cutShort);
    req.once("error", cutShort);
    source = req.pipe(inflater);
  }
  let received = 0;
  try {
    for await (const chunk of source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > limitBytes) throw payloadTooLarge(limitBytes);
      yield chunk;
    }
    // The last bytes of a request that was cut short still end the iteration: say so rather than parse a partial file.
    if (req.readableAborted || !req.complete) throw bodyCutShort();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("Z_"))
      throw new ApiError("bad_request", {
        message: "O corpo não pôde ser descompactado conforme o Content-Encoding informado.",
      });
    if (req.readableAborted || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE") throw bodyCutShort();
    throw error;
  } finally {
    if (inflater) {
      req.off("aborted", cutShort);
      req.off("error", cutShort);
      req.unpipe(inflater);
      inflater.destroy();
    }
    if (!req.readableEnded) req.resume();
  }
}
