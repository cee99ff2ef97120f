import { PassThrough, Readable } from "node:stream";
import busboy from "busboy";
import type { Request, RequestHandler, Response } from "express";
import {
  MediaUploadFields,
  MediaUploadIn,
  MediaUploadOut,
  RequestValidationError,
  errorResponse,
  parseRequest,
  refusalOrValidation,
  tooManyRequests,
  type ValidationIssue,
} from "@gw/contracts";
import { MULTIPART_OVERHEAD_BYTES, takeMediaTransferTurn, uploadMedia } from "@gw/core/media";
import { ApiError } from "@gw/errors";
import { watchTransferRate, type RateWatch } from "@gw/http";
import { answerBeforeBody } from "../../http/early-answer.ts";
import { bodyCutShort } from "../../http/errors.ts";
import { streamedBody } from "../../http/streamed-body.ts";
import { ANSWERED, defineRoute } from "../define-route.ts";

/** Meta's largest media (a document, 100 MB) plus what a multipart carries besides the file. */
const BODY_LIMIT_BYTES = 100 * 1024 * 1024 + MULTIPART_OVERHEAD_BYTES;
/** What a refused upload's client may still send, and for how long, before its connection closes (issue 25, item 8). */
const DISCARD_AFTER_REFUSAL = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

const invalid = (loc: (string | number)[], msg: string, type = "value_error") =>
  new RequestValidationError([{ loc, msg, type }]);
const notMultipart = () =>
  invalid(["body"], "Envie o arquivo como multipart/form-data, na parte file (e phone_number_id antes dela).");

const unreadableMultipart = (error: unknown) =>
  invalid(["body"], `O multipart não pôde ser lido: ${error instanceof Error ? error.message : String(error)}.`);

/** The multipart as it arrives: its fields up to the file, then the file part as a stream. */
interface FilePart {
  fields: Record<string, string>;
  file: Readable;
  declaredType: string;
  filename: string | null;
  /** Settles when the rest of the multipart was read: rejects on a field after the file, a second file, a bad end. */
  rest: Promise<void>;
}

/**
 * Reads the request's multipart with busboy (streamed: no temporary file, nothing held but busboy's buffers) up to
 * the file part. The body is read through `streamedBody` (Content-Encoding, the length limit, a client that stops
 * sending); a failure there fails the file stream, so the upload to Meta is cut before it is finished.
 */
function readMultipart(
  req: Request,
  body: AsyncIterable<Buffer>,
): { part: Promise<FilePart>; stop: (error: unknown) => void } {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fields: 4, fieldSize: 1024, parts: 6, headerPairs: 20 },
      defParamCharset: "utf8",
    });
  } catch {
    const refused = Promise.reject(notMultipart());
    return { part: refused, stop: () => undefined };
  }
  const source = Readable.from(body, { objectMode: false });
  const fields: Record<string, string> = {};
  let file: PassThrough | null = null;
  let failure: Error | null = null;
  let settleHead: { resolve: (part: FilePart) => void; reject: (error: unknown) => void } | undefined;
  let settleRest: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  const rest = new Promise<void>((resolve, reject) => {
    settleRest = { resolve, reject };
  });
  // Awaited by the upload only once the file was read; a failure before that is the file stream's own.
  rest.catch(() => undefined);

  const fail = (error: unknown) => {
    if (failure !== null) return;
    const reason = error instanceof Error ? error : new Error("the multipart could not be read", { cause: error });
    failure = reason;
    settleHead?.reject(reason);
    settleRest?.reject(reason);
    file?.destroy(reason);
    source.unpipe(parser);
    source.destroy();
    parser.removeAllListeners("file");
    parser.on("file", (stream: Readable) => stream.resume());
  };

  parser.on("field", (name, value, info) => {
    if (file !== null) {
      fail(invalid(["body", name], `O campo ${name} deve vir antes do arquivo no multipart.`));
      return;
    }
    if (name === "file") {
      // A part without a file name is a field to busboy (a browser's empty file input sends one).
      fail(invalid(["body", "file"], "Envie o arquivo na parte file do multipart, com o nome do arquivo (filename)."));
      return;
    }
    if (info.valueTruncated) {
      fail(invalid(["body", name], `O campo ${name} passa de 1024 bytes.`, "string_too_long"));
      return;
    }
    fields[name] = value;
  });
  parser.on("file", (name, stream, info) => {
    if (name !== "file" || file !== null) {
      stream.resume();
      fail(
        name !== "file"
          ? invalid(["body", name], "O arquivo deve vir na parte file do multipart.")
          : invalid(["body", "file"], "Envie um arquivo por requisição."),
      );
      return;
    }
    // A PassThrough in between: the upload may stop reading (a refusal) without leaving busboy waiting forever.
    const part = new PassThrough();
    // Its reader (the upload) gets its error by reading it; a part no one reads any more must not crash the process.
    part.on("error", () => undefined);
    file = part;
    // busboy fails the part when the multipart breaks inside it (it ends before its boundary): the client's body.
    stream.on("error", (error: unknown) => fail(unreadableMultipart(error)));
    stream.pipe(part);
    settleHead?.resolve({ fields, file: part, declaredType: info.mimeType, filename: info.filename ?? null, rest });
  });
  parser.on("filesLimit", () => fail(invalid(["body", "file"], "Envie um arquivo por requisição.")));
  parser.on("fieldsLimit", () => fail(invalid(["body"], "O multipart tem campos demais (até 4).")));
  parser.on("partsLimit", () => fail(invalid(["body"], "O multipart tem partes demais.")));
  parser.on("error", (error: unknown) => fail(unreadableMultipart(error)));
  parser.on("close", () => {
    if (file === null) fail(invalid(["body", "file"], "Envie o arquivo na parte file do multipart.", "missing"));
    else settleRest?.resolve();
  });
  source.on("error", (error) => fail(error));
  source.pipe(parser);

  const part = new Promise<FilePart>((resolve, reject) => {
    if (failure !== null) reject(failure);
    settleHead = { resolve, reject };
  });
  // Stops reading the multipart (the upload was refused or failed): what the client still sends is read away.
  return { part, stop: fail };
}

/** A refusal while the client is still sending: answered at once, the rest read away, then the connection closed. */
function refuseEarly(req: Request, res: Response, error: unknown): boolean {
  if (req.complete || res.headersSent) return false;
  let status: number;
  let body: unknown;
  if (error instanceof ApiError) {
    status = error.status;
    body = error.toBody();
    if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  } else if (error instanceof RequestValidationError) {
    status = 422;
    body = { detail: error.detail satisfies ValidationIssue[] };
  } else {
    return false;
  }
  answerBeforeBody(req, res, { status, body }, DISCARD_AFTER_REFUSAL);
  return true;
}

/** The bytes of `body` as they pass, counted by `rate`; the count stops with the body (Meta's answer is not timed). */
async function* counted(body: AsyncIterable<Buffer>, rate: RateWatch): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) {
      rate.add(chunk.length);
      yield chunk;
    }
  } finally {
    rate.stop();
  }
}

const decimal = new Intl.NumberFormat("pt-BR", { maximumFractionDigits: 1 });

/** The refusal of an upload cut below the minimum rate (its sentence names the rate and the window). */
const tooSlow = (minBytesPerSecond: number, windowMs: number) =>
  new ApiError("bad_request", {
    message: `O arquivo chegou a menos de ${decimal.format(minBytesPerSecond / 1024)} KB/s durante ${decimal.format(windowMs / 1000)} s e a transferência foi interrompida; envie de novo.`,
  });

/** The body is read by the handler, as it arrives. */
const noBodyParser: RequestHandler = (_req, _res, next) => next();

/** POST /public/v1/media (issue 27): a file streamed to Meta's media upload, answered with its media id. */
export const { register, operations } = defineRoute({
  method: "post",
  path: "/media",
  operationId: "uploadMedia",
  scope: "media:write",
  summary: "Upload a media file (then send it by media_id)",
  description:
    "A `multipart/form-data` body with the file in the part `file` (and, before it, `phone_number_id` when the file is for a number other than the account's default). " +
    "The file is streamed to Meta's media upload as it arrives, never held whole. Its type is read from its bytes: a file of no type WhatsApp carries is `415 media_type_unsupported`, bytes of another type than the part's `Content-Type` are `422 media_type_mismatch` (`application/octet-stream` lets the bytes decide). " +
    "Each type has Meta's size cap, enforced while reading: image 5 MB, video and audio 16 MB, document 100 MB, sticker 100 KB static / 500 KB animated (binary units); past it `413 payload_too_large` and nothing is created at Meta. " +
    "Answered `201` with Meta's `media_id`, which this account can send (`media.media_id` on `POST /messages`) from the same number for 30 days, and read back with `GET /media/{media_id}`. " +
    "At most a few uploads of one account run at once (`429 media_upload_limit`), and each server takes a bounded number (`503 media_busy`); both answer `Retry-After`. " +
    "A body that arrives below the server's minimum rate (a few KB/s, measured over successive windows of some seconds) is cut with `400 bad_request`. Audited as `api.media.uploaded`.",
  ownRequest: {
    readBody: noBodyParser,
    documented: {
      body: {
        required: true,
        content: { "multipart/form-data": { schema: MediaUploadIn } },
      },
    },
  },
  responses: {
    201: {
      description: "Uploaded: Meta's media id, the type read from the bytes, the size and the SHA-256.",
      content: { "application/json": { schema: MediaUploadOut } },
    },
    400: errorResponse(
      "The business number is not the account's, or the body cannot be read (Content-Encoding, cut short, below the minimum rate).",
      ["no_connected_number", "bad_request"],
    ),
    413: errorResponse("The file passes its type's cap (or the body passes 100 MiB); nothing was created at Meta.", [
      "payload_too_large",
    ]),
    415: errorResponse("The bytes are of no type WhatsApp carries.", ["media_type_unsupported"]),
    422: refusalOrValidation(
      "The bytes are of another type than the one declared — error envelope, code: `media_type_mismatch`; or a multipart that does not validate (no `file` part, two files, a field after the file, an invalid `phone_number_id`) — `HTTPValidationError`.",
      ["media_type_mismatch"],
    ),
    429: tooManyRequests(["api_rate_limited", "media_upload_limit"]),
    503: errorResponse(
      "This server has too many media transfers now, or Meta did not confirm the upload; nothing was recorded, send the file again.",
      ["media_busy", "provider_unavailable"],
    ),
  },
  async handler({ accountId, actor, req, res }, deps) {
    const gone = new AbortController();
    const onClose = () => {
      if (!req.complete) gone.abort();
    };
    req.once("close", onClose);
    // A client that stops sending for this long is cut (the request's whole time is MEDIA_TRANSFER_TIMEOUT_MS).
    req.setTimeout(deps.config.MEDIA_IDLE_TIMEOUT_MS, () => req.destroy());
    const releases: (() => void)[] = [];
    let stopReading: (error: unknown) => void = () => undefined;
    let rate: RateWatch | null = null;
    // Set when the body was cut for its rate: that, not what the cut made of the upload to Meta, is the answer.
    const cut: { refusal?: ApiError } = {};
    try {
      // The account's turn (across the pods) before one of this pod's slots, and both before a byte is read: a
      // client that trickles its fields holds one of its own account's turns, and a busy account never takes a slot.
      releases.push(await takeMediaTransferTurn(deps.media.uploadLimits, accountId));
      const slot = await deps.media.uploadSlots.acquire(gone.signal);
      if (!slot) throw new ApiError("media_busy", { retryAfterSeconds: 5 });
      releases.push(slot);
      const { MEDIA_MIN_RATE_BYTES_PER_S: minBytesPerSecond, MEDIA_MIN_RATE_GRACE_MS: windowMs } = deps.config;
      rate = watchTransferRate({
        minBytesPerSecond,
        windowMs,
        onTooSlow: (slow) => {
          deps.logger.warn("media upload cut below the minimum rate", { accountId, minBytesPerSecond, ...slow });
          cut.refusal = tooSlow(minBytesPerSecond, windowMs);
          stopReading(cut.refusal);
        },
      });
      const body = streamedBody(req, { limitBytes: BODY_LIMIT_BYTES, isCharset: () => true });
      const reading = readMultipart(req, counted(body.bytes, rate));
      stopReading = reading.stop;
      const part = await reading.part;
      const fields = parseRequest(MediaUploadFields, "body", part.fields);
      const declared = Number(req.headers["content-length"]);
      const uploaded = await uploadMedia(deps.media.upload, {
        accountId,
        actor,
        phoneNumberId: fields.phone_number_id ?? null,
        file: part.file,
        declaredType: part.declaredType,
        filename: part.filename,
        requestLength: Number.isFinite(declared) && !req.headers["content-encoding"] ? declared : null,
        rest: part.rest,
      });
      res.status(201).json({
        success: true,
        data: {
          media_id: uploaded.mediaId,
          phone_number_id: uploaded.phoneNumberId,
          mime_type: uploaded.mimeType,
          size: uploaded.size,
          type: uploaded.type,
          sha256: uploaded.sha256,
          filename: uploaded.filename,
          expires_at: uploaded.expiresAt.toISOString(),
        },
      } satisfies MediaUploadOut);
      return ANSWERED;
    } catch (error) {
      const refusal = cut.refusal ?? error;
      stopReading(refusal);
      if (gone.signal.aborted) throw bodyCutShort();
      if (refuseEarly(req, res, refusal)) return ANSWERED;
      throw refusal;
    } finally {
      rate?.stop();
      for (const release of releases) release();
      req.off("close", onClose);
      req.setTimeout(0);
    }
  },
});
