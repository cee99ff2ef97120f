import busboy from "busboy";
import type express from "express";
import { safeEqual } from "@gw/signer";
import { newMediaId } from "../ids.ts";
import { remember, type SandboxState, type SandboxUpload } from "../state.ts";
import { fbtraceId, invalidTokenResult, MetaError, type GraphResult } from "./errors.ts";
import { registerMedia } from "./media.ts";
import { recordGraphRequest } from "./requests.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

/** The MIME types Meta's upload takes (meta-messages §2.1), with each one's largest file (binary units; U#: wording). */
const UPLOAD_TYPES: Readonly<Record<string, number>> = {
  "audio/aac": 16 * MiB,
  "audio/amr": 16 * MiB,
  "audio/mpeg": 16 * MiB,
  "audio/mp4": 16 * MiB,
  "audio/ogg": 16 * MiB,
  "text/plain": 100 * MiB,
  "application/pdf": 100 * MiB,
  "application/vnd.ms-powerpoint": 100 * MiB,
  "application/msword": 100 * MiB,
  "application/vnd.ms-excel": 100 * MiB,
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": 100 * MiB,
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": 100 * MiB,
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": 100 * MiB,
  "image/jpeg": 5 * MiB,
  "image/png": 5 * MiB,
  "image/webp": 500 * KiB,
  "video/mp4": 16 * MiB,
  "video/3gpp": 16 * MiB,
};

/** How much of the body is kept to read the file part's raw Content-Type line. */
const HEAD_BYTES = 64 * 1024;
const FILE_PART_TYPE = /name="file"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*?Content-Type:[ \t]*([^\r\n]+)/i;

/** `(#100) …` with the whole sentence in `message`, as Meta answers upload refusals (meta-messages §2.6). */
function uploadRefusal(message: string): GraphResult {
  return {
    status: 400,
    body: { error: { message: `(#100) ${message}`, type: "OAuthException", code: 100, fbtrace_id: fbtraceId() } },
  };
}

function typeRefusal(received: string): GraphResult {
  return uploadRefusal(
    `Param file must be a file with one of the following types: ${Object.keys(UPLOAD_TYPES).join(", ")}. Received file of type '${received}'.`,
  );
}

function send(res: express.Response, result: GraphResult): void {
  if (res.headersSent || res.destroyed) return;
  if (result.headers) res.set(result.headers);
  res.status(result.status).json(result.body);
}

/**
 * POST /{version}/{phone-number-id}/media (meta-messages §2.3): a multipart upload read with busboy as it arrives
 * (chunked bodies too), so `bytes_received` of its record (GET /_sandbox/media/uploads) grows while the client
 * sends. The bearer token is required; `messaging_product=whatsapp` too (100); the file part's own type decides
 * (a parameterised type such as `audio/ogg; codecs=opus` is refused, as observed at Meta), each type has its size
 * (100). A multipart that never ends (a client that cut its upload) stores nothing. Answers `{id}`; the media is
 * the number's, for 30 days on the sandbox clock.
 */
export function handleMediaUpload(state: SandboxState): express.RequestHandler {
  return (req, res) => {
    const phoneNumberId = String(req.params.phoneNumberId);
    recordGraphRequest(
      state,
      req,
      res,
      req.path === "/" ? req.originalUrl : (req.originalUrl.split("?")[0] ?? req.originalUrl),
    );
    const token = req.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (token === undefined) return send(res, invalidTokenResult(false));
    if (state.accessToken !== undefined && !safeEqual(token, state.accessToken))
      return send(res, invalidTokenResult(true));

    let parser: busboy.Busboy;
    try {
      // Browsers and Graph clients write the file name as raw UTF-8.
      parser = busboy({ headers: req.headers, limits: { files: 1 }, defParamCharset: "utf8" });
    } catch {
      return send(res, new MetaError(100, "The parameter file is required.").toResult());
    }
    const upload: SandboxUpload = {
      id: newMediaId(),
      phone_number_id: phoneNumberId,
      mime_type: null,
      filename: null,
      bytes_received: 0,
      status: "receiving",
      at: new Date(state.now()).toISOString(),
    };
    remember(state.uploads, upload, state.config.historyLimit);
    const fields: Record<string, string> = {};
    let refusal: GraphResult | null = null;
    let file: { mimeType: string; filename: string | null; chunks: Buffer[] } | null = null;
    const refuse = (result: GraphResult) => {
      refusal ??= result;
      upload.status = "refused";
    };

    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    // busboy hands out the part's type without its parameters: the raw header line says whether it had any.
    let head = Buffer.alloc(0);
    const onHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length >= HEAD_BYTES) req.off("data", onHead);
    };
    req.on("data", onHead);
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || file !== null) {
        stream.resume();
        return;
      }
      const raw = FILE_PART_TYPE.exec(head.subarray(0, HEAD_BYTES).toString("latin1"))?.[1]?.trim() ?? info.mimeType;
      const declared = raw.toLowerCase();
      upload.mime_type = raw;
      upload.filename = info.filename ?? null;
      const cap = UPLOAD_TYPES[declared];
      if (cap === undefined) refuse(typeRefusal(raw));
      const current = { mimeType: declared, filename: info.filename ?? null, chunks: [] as Buffer[] };
      file = current;
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        upload.bytes_received += chunk.length;
        size += chunk.length;
        if (cap !== undefined && size > cap) {
          refuse(
            uploadRefusal(`Param file must be smaller than ${cap / MiB >= 1 ? `${cap / MiB} MB` : `${cap / KiB} KB`}.`),
          );
          current.chunks = [];
        }
        if (refusal === null) current.chunks.push(chunk);
      });
    });
    parser.on("error", () => {
      // An unfinished or broken multipart creates nothing.
      if (upload.status === "receiving") upload.status = "aborted";
      req.unpipe(parser);
      req.resume();
      send(res, new MetaError(100, "The parameter file is required.").toResult());
    });
    parser.on("close", () => {
      if (refusal) return send(res, refusal);
      if (fields.messaging_product !== "whatsapp" || !file) {
        const missing = fields.messaging_product !== "whatsapp" ? "messaging_product" : "file";
        const result = new MetaError(100, `The parameter ${missing} is required.`).toResult();
        refuse(result);
        return send(res, result);
      }
      const stored = registerMedia(state, {
        id: upload.id,
        phoneNumberId,
        mimeType: file.mimeType,
        bytes: Buffer.concat(file.chunks),
        origin: "uploaded",
        filename: file.filename,
      });
      upload.status = "stored";
      send(res, { status: 200, body: { id: stored.id } });
    });
    req.on("aborted", () => {
      if (upload.status === "receiving") upload.status = "aborted";
    });
    req.on("close", () => {
      if (!req.complete && upload.status === "receiving") upload.status = "aborted";
    });
    req.pipe(parser);
  };
}
