import type { Readable } from "node:stream";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaReadError, type MetaClient } from "@gw/meta";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";
import { MEDIA_EXTENSIONS, mediaCap, tooLargeSentence, type MediaType } from "./caps.ts";
import { normalizeMimeType } from "./sniff.ts";

/** A media on its way out, as Meta serves it. */
export interface MediaFile {
  /** The bytes as the provider sends them; fails (MetaReadError) if the download breaks or passes the cap. */
  body: Readable;
  /** What the provider served, else the type the gateway knows, else application/octet-stream. */
  contentType: string;
  /** The provider's Content-Length, when it gave one. */
  contentLength: number | null;
  /** The size Meta's media endpoint reported, when it did. */
  reportedSize: number | null;
  /** The file's name when the gateway knows one (documents, uploads). */
  filename: string | null;
  /** Meta's media type: image, audio, video, document or sticker. */
  type: string;
}

export type ProviderMediaDeps = { db: Db; meta: Pick<MetaClient, "getMedia" | "streamMedia">; logger?: Logger };

const GENERIC_TYPES = new Set(["application/octet-stream", "binary/octet-stream"]);
/** Meta's media ids (digits in practice). */
export const MEDIA_ID_PATTERN = /^[0-9A-Za-z._-]{1,128}$/;

/** Thrown by `streamProviderMedia` when Meta answers that it no longer has the media (404, or its code 100). */
export class ProviderMediaGoneError extends Error {
  constructor(override readonly cause: MetaApiError) {
    super("the provider no longer has the media");
    this.name = "ProviderMediaGoneError";
  }
}

/**
 * One media fetched from Meta with the gateway's token at the moment it is asked for and handed on as a stream (the
 * gateway keeps only Meta's media id, never the media): the API's GET /public/v1/media/{media_id} and the panel's
 * Conversas alike. Nothing is downloaded past `cap`: a size Meta reports or announces past it is `payload_too_large`
 * (with `tooLarge`'s sentence) before any byte is read, and a body that grows past it fails the stream. Meta's "no
 * such media" is ProviderMediaGoneError (the caller decides what it means); other provider failures are
 * `provider_unavailable`. The open is audited (`<origin>.media.opened`, `auditTarget`) once Meta served the file.
 */
export async function streamProviderMedia(
  deps: ProviderMediaDeps,
  input: {
    accountId: string;
    actor: Actor;
    mediaId: string;
    phoneNumberId: string | null;
    type: string;
    mimeType: string | null;
    filename: string | null;
    cap: number;
    tooLarge: string;
    auditTarget: string;
  },
): Promise<MediaFile> {
  const tooLarge = (cause?: unknown) => new ApiError("payload_too_large", { message: input.tooLarge, cause });
  const logFields = { accountId: input.accountId, target: input.auditTarget };
  try {
    const info = await deps.meta.getMedia(
      input.mediaId,
      input.phoneNumberId ? { phoneNumberId: input.phoneNumberId } : {},
    );
    if (info.fileSize !== null && info.fileSize > input.cap) {
      deps.logger?.warn("media over its type's cap", { ...logFields, type: input.type, bytes: info.fileSize });
      throw tooLarge();
    }
    const file = await deps.meta.streamMedia(info.url, { maxBytes: input.cap });
    const announced = info.mimeType ?? input.mimeType;
    const served = normalizeMimeType(file.contentType);
    const contentType = GENERIC_TYPES.has(served) && announced ? announced : file.contentType;
    const bytes = file.contentLength ?? info.fileSize;
    deps.logger?.info("media opened", { ...logFields, bytes });
    // The file is leaving the gateway: who opened it is in the trail.
    try {
      await recordAudit(deps.db.sql, {
        accountId: input.accountId,
        actor: input.actor,
        action: auditAction(input.actor, "media.opened"),
        target: input.auditTarget,
        details: { type: input.type, content_type: contentType, bytes },
      });
    } catch (error) {
      file.body.destroy();
      throw error;
    }
    return {
      body: file.body,
      contentType,
      contentLength: file.contentLength,
      reportedSize: info.fileSize,
      filename: input.filename,
      type: input.type,
    };
  } catch (error) {
    if (error instanceof MetaApiError && (error.httpStatus === 404 || error.code === 100)) {
      deps.logger?.info("media gone from the provider", { ...logFields, metaCode: error.code });
      throw new ProviderMediaGoneError(error);
    }
    if (error instanceof MetaReadError && error.kind === "too_large") throw tooLarge(error);
    if (error instanceof MetaApiError || error instanceof MetaReadError) {
      deps.logger?.warn("media not opened", { ...logFields, error: error.message });
      throw new ApiError("provider_unavailable", {
        message: "Não foi possível obter a mídia do provedor agora; tente novamente em instantes.",
        cause: error,
      });
    }
    throw error;
  }
}

export interface AccountMediaRow {
  phone_number_id: string;
  type: string;
  mime_type: string | null;
  size: string | null;
  filename: string | null;
  expires_at: Date;
  gone_at: Date | null;
}

/**
 * A media this account uploaded or received, by Meta's id (docs/decisions.md, "404 across accounts, 410 once Meta
 * lost it"): `account_media` decides existence per account (one system token can read any media of the WABA), so
 * another account's id is `not_found`, like an unknown one. Past its lifetime (30 days for uploads, 7 for received
 * media) or once Meta said it no longer has it (`gone_at`) it is `media_expired`, without asking Meta.
 */
export async function findAccountMedia(
  deps: Pick<ProviderMediaDeps, "db">,
  input: { accountId: string; mediaId: string; now?: Date },
): Promise<AccountMediaRow> {
  const notFound = new ApiError("not_found", { message: "A mídia não foi encontrada nesta conta." });
  if (!MEDIA_ID_PATTERN.test(input.mediaId)) throw notFound;
  const { rows } = await deps.db.sql.query<AccountMediaRow>({
    name: "media-of-account",
    text: `SELECT phone_number_id, type, mime_type, size::text AS size, filename, expires_at, gone_at
      FROM account_media WHERE account_id = $1::uuid AND media_id = $2`,
    values: [input.accountId, input.mediaId],
  });
  const row = rows[0];
  if (!row) throw notFound;
  const now = input.now ?? new Date();
  if (row.gone_at !== null || row.expires_at.getTime() <= now.getTime()) throw new ApiError("media_expired");
  return row;
}

/**
 * GET /public/v1/media/{media_id}: the media `findAccountMedia` finds (or `row`, when the caller already found it),
 * streamed from Meta within its type's cap. Meta's "no such media" sets `gone_at` and is `media_expired`.
 */
export async function openAccountMedia(
  deps: ProviderMediaDeps,
  input: { accountId: string; mediaId: string; actor: Actor; now?: Date; row?: AccountMediaRow },
): Promise<MediaFile> {
  const row = input.row ?? (await findAccountMedia(deps, input));
  const mimeType = row.mime_type ? normalizeMimeType(row.mime_type) : null;
  const type = row.type as MediaType;
  const animated = type === "sticker" && row.size !== null && Number(row.size) > mediaCap("sticker", false);
  try {
    const file = await streamProviderMedia(deps, {
      accountId: input.accountId,
      actor: input.actor,
      mediaId: input.mediaId,
      phoneNumberId: row.phone_number_id,
      type: row.type,
      mimeType,
      filename: row.filename,
      cap: mediaCap(row.type),
      tooLarge: tooLargeSentence(type, type === "sticker" ? animated : undefined),
      auditTarget: `media:${input.mediaId}`,
    });
    return {
      ...file,
      filename: file.filename ?? `${input.mediaId}.${MEDIA_EXTENSIONS[mimeType ?? ""] ?? "bin"}`,
    };
  } catch (error) {
    if (!(error instanceof ProviderMediaGoneError)) throw error;
    await deps.db.sql.query({
      name: "media-gone",
      text: `UPDATE account_media SET gone_at = now() WHERE account_id = $1::uuid AND media_id = $2 AND gone_at IS NULL`,
      values: [input.accountId, input.mediaId],
    });
    throw new ApiError("media_expired", { cause: error.cause });
  }
}
