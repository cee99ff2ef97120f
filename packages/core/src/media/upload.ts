import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { inTransaction, type Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaUnavailableError, MetaUnconfirmedError, type MetaClient } from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { recordAuditAs, type Actor } from "../audit/audit.ts";
import { MEDIA_EXTENSIONS, mediaCap, tooLargeSentence, type MediaType } from "./caps.ts";
import { SNIFF_HEAD_BYTES, sniffMedia } from "./sniff.ts";

/** Meta keeps an uploaded media 30 days (meta-messages §2.4). */
export const UPLOADED_MEDIA_TTL_MS = 30 * 86_400_000;
/** What a multipart request may carry besides the file (fields, part headers, boundaries). */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
/** The longest file name kept (code points), as a document's `filename` on a send. */
const FILENAME_MAX = 200;

export interface UploadMediaDeps {
  db: Db;
  directory: Pick<AccountDirectory, "resolveNumber">;
  meta: Pick<MetaClient, "uploadMedia">;
  logger?: Logger;
}

export interface UploadMediaInput {
  accountId: string;
  actor: Actor;
  /** The business number to upload to; the account's default when absent. */
  phoneNumberId?: string | null | undefined;
  /** The file's bytes as they arrive (the multipart's file part). */
  file: Readable;
  /** The file part's Content-Type. */
  declaredType: string;
  /** The file part's name, as the client gave it. */
  filename?: string | null | undefined;
  /** The request's Content-Length, when it has one: a file that cannot fit its type is refused before Meta. */
  requestLength?: number | null | undefined;
  /**
   * Settles once the rest of the request was read: the upload to Meta is finished only when it resolves, so a request
   * refused after its file (a field after it, a second file, a body cut short) creates nothing at Meta.
   */
  rest?: Promise<void>;
  now?: Date;
}

export interface UploadedMedia {
  mediaId: string;
  phoneNumberId: string;
  mimeType: string;
  type: MediaType;
  size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  filename: string | null;
  expiresAt: Date;
}

/** The file name as kept: its last path segment, without control characters, at most 200 code points; null if empty. */
export function cleanFilename(name: string | null | undefined): string | null {
  if (!name) return null;
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  const kept = Array.from(base).slice(0, FILENAME_MAX).join("");
  return kept === "" ? null : kept;
}

/** Reads until `bytes` are in hand (or the stream ended); the stream stays readable for the rest. */
async function readHead(file: Readable, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of file.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= bytes) break;
  }
  return Buffer.concat(chunks);
}

const providerUnavailable = (cause: unknown) =>
  new ApiError("provider_unavailable", {
    message: "O provedor não confirmou o recebimento do arquivo; envie o arquivo de novo.",
    cause,
  });

/**
 * POST /public/v1/media (docs/decisions.md, "Upload streamed to Meta, type from bytes"): the file is read as it
 * arrives and written on to Meta's upload as it is read, never held whole. Its first bytes decide its type
 * (`sniffMedia`: 415 `media_type_unsupported`, 422 `media_type_mismatch`), the type decides its cap, counted on the
 * wire (413 `payload_too_large` with the type's sentence: the upload to Meta is cut, nothing is created), and Meta's
 * id is recorded in `account_media` (origin `uploaded`, 30 days) with the audit entry `api.media.uploaded`. The caller
 * holds the account's upload turn (`takeMediaTransferTurn`, MEDIA_UPLOADS_PER_ACCOUNT across the pods) from before it
 * reads the request: a client that trickles the multipart's fields holds its own account's turn, never another's.
 */
export async function uploadMedia(deps: UploadMediaDeps, input: UploadMediaInput): Promise<UploadedMedia> {
  const number = await deps.directory.resolveNumber(input.accountId, input.phoneNumberId);
  if (!number) {
    throw new ApiError("no_connected_number", {
      message: input.phoneNumberId ? `O número ${input.phoneNumberId} não está conectado a esta conta.` : undefined,
    });
  }
  return upload(deps, input, number.phoneNumberId);
}

async function upload(deps: UploadMediaDeps, input: UploadMediaInput, phoneNumberId: string): Promise<UploadedMedia> {
  const head = await readHead(input.file, SNIFF_HEAD_BYTES);
  const sniffed = await sniffMedia({ head, declaredType: input.declaredType });
  if (sniffed.kind === "unsupported") {
    throw new ApiError("media_type_unsupported");
  }
  if (sniffed.kind === "mismatch") {
    throw new ApiError("media_type_mismatch", {
      message: `Os bytes do arquivo são de ${sniffed.detected}, não de ${sniffed.declared}.`,
    });
  }
  const { mimeType, type, animated } = sniffed;
  const cap = mediaCap(type, type === "sticker" ? animated : undefined);
  const tooLarge = () =>
    new ApiError("payload_too_large", { message: tooLargeSentence(type, type === "sticker" ? animated : undefined) });
  const declared = input.requestLength;
  if (declared !== null && declared !== undefined && declared - MULTIPART_OVERHEAD_BYTES > cap) throw tooLarge();

  const filename = cleanFilename(input.filename);
  const hash = createHash("sha256");
  let size = 0;
  const file = input.file;
  const rest = input.rest;
  // The bytes Meta gets: the head, then the rest as it arrives, counted against the cap; the multipart to Meta ends
  // only once the request's rest was read and accepted.
  async function* bytes(): AsyncGenerator<Buffer> {
    const count = (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) throw tooLarge();
      hash.update(chunk);
      return chunk;
    };
    if (head.length > 0) yield count(head);
    for await (const chunk of file as AsyncIterable<Buffer>) yield count(chunk);
    if (rest) await rest;
  }

  const logFields = { accountId: input.accountId, phoneNumberId, mimeType };
  let mediaId: string;
  try {
    ({ id: mediaId } = await deps.meta.uploadMedia(phoneNumberId, {
      mimeType,
      filename: filename ?? `arquivo.${MEDIA_EXTENSIONS[mimeType] ?? "bin"}`,
      body: Readable.from(bytes(), { objectMode: false }),
    }));
  } catch (error) {
    if (error instanceof MetaApiError) {
      deps.logger?.info("media upload refused by the provider", { ...logFields, metaCode: error.code });
      // Meta's own type check (meta-messages §2.6): "Param file must be a file with one of the following types".
      if (error.code === 100 && /file.*type|type.*file/i.test(`${error.message} ${error.details ?? ""}`))
        throw new ApiError("media_type_unsupported", { cause: error });
      throw new ApiError(error.reason, { cause: error });
    }
    if (error instanceof MetaUnavailableError || error instanceof MetaUnconfirmedError) {
      deps.logger?.warn("media upload not confirmed by the provider", { ...logFields, error: error.message });
      throw providerUnavailable(error);
    }
    throw error;
  }

  const sha256 = hash.digest("hex");
  const expiresAt = new Date((input.now ?? new Date()).getTime() + UPLOADED_MEDIA_TTL_MS);
  await inTransaction(deps.db.sql, async (client) => {
    await client.query({
      name: "media-record-upload",
      text: `INSERT INTO account_media (account_id, phone_number_id, media_id, origin, type, mime_type, size, sha256,
          filename, expires_at)
        VALUES ($1::uuid, $2, $3, 'uploaded', $4, $5, $6, $7, $8, $9)
        ON CONFLICT (account_id, media_id) DO NOTHING`,
      values: [input.accountId, phoneNumberId, mediaId, type, mimeType, size, sha256, filename, expiresAt],
    });
    await recordAuditAs(client, input, "media.uploaded", {
      target: `media:${mediaId}`,
      details: { phone_number_id: phoneNumberId, type, mime_type: mimeType, size, sha256 },
    });
  });
  deps.logger?.info("media uploaded", { ...logFields, mediaId, size });
  return { mediaId, phoneNumberId, mimeType, type, size, sha256, filename, expiresAt };
}
