import type { Readable } from "node:stream";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaReadError, type MetaClient } from "@gw/meta";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

export interface InboundMediaStream {
  /** The media's bytes as the provider sends them; fails (MetaReadError) if the download breaks or passes the cap. */
  body: Readable;
  /** What the provider served, else the type the webhook announced, else application/octet-stream. */
  contentType: string;
  /** The provider's Content-Length, when it gave one. */
  contentLength: number | null;
  /** Documents: the name the contact's file had. */
  filename: string | null;
  /** Meta's message type: image, audio, video, document or sticker. */
  type: string;
}

const MiB = 1024 * 1024;
/**
 * The largest media of each type WhatsApp carries (Meta's "Supported media types": images 5 MB, audio and video
 * 16 MB, documents 100 MB, stickers 500 KB animated / 100 KB static), read as binary units so nothing Meta accepted
 * is refused. A contact's file never makes the panel fetch more than its type can weigh.
 */
export const INBOUND_MEDIA_MAX_BYTES: Readonly<Record<string, number>> = {
  image: 5 * MiB,
  audio: 16 * MiB,
  video: 16 * MiB,
  document: 100 * MiB,
  sticker: 500 * 1024,
};
/** A type with media that the table does not name: Meta's largest media. */
const DEFAULT_MAX_BYTES = 100 * MiB;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GENERIC_TYPES = new Set(["application/octet-stream", "binary/octet-stream"]);

/**
 * An inbound message's media, fetched from Meta's media endpoint with the gateway's token at the moment it is asked
 * for and handed on as a stream (the gateway keeps only Meta's media id, never the media, and hands out no link).
 * Nothing is downloaded past its type's cap (`INBOUND_MEDIA_MAX_BYTES`, or `maxBytes` when smaller): a size Meta
 * reports or announces past it is `payload_too_large` before any byte is read, and a body that grows past it fails
 * the stream. A message of another account, without media, or whose media retention cleared, is `not_found`; media
 * Meta no longer has (it keeps it about 30 days) is `not_found` with its own sentence; anything else the provider
 * did is `provider_unavailable`. The open is audited once the provider answered with the file.
 */
export async function openInboundMedia(
  deps: { db: Db; meta: Pick<MetaClient, "getMedia" | "streamMedia">; logger?: Logger },
  input: { accountId: string; inboundMessageId: string; maxBytes?: number; actor: Actor },
): Promise<InboundMediaStream> {
  const notFound = new ApiError("not_found", { message: "A mídia não foi encontrada nesta conta." });
  if (!UUID.test(input.accountId) || !UUID.test(input.inboundMessageId)) throw notFound;
  const { rows } = await deps.db.sql.query<{
    type: string;
    media_id: string | null;
    media_mime: string | null;
    media_filename: string | null;
  }>({
    name: "inbound-media-of-account",
    text: `SELECT type, media_id, media_mime, media_filename FROM inbound_messages
      WHERE id = $1::uuid AND account_id = $2::uuid`,
    values: [input.inboundMessageId, input.accountId],
  });
  const row = rows[0];
  if (!row?.media_id) throw notFound;

  const cap = Math.min(INBOUND_MEDIA_MAX_BYTES[row.type] ?? DEFAULT_MAX_BYTES, input.maxBytes ?? Infinity);
  const tooLarge = (cause?: unknown) =>
    new ApiError("payload_too_large", { message: "A mídia é grande demais para abrir pelo painel.", cause });
  const logFields = { accountId: input.accountId, inboundMessageId: input.inboundMessageId };
  try {
    const info = await deps.meta.getMedia(row.media_id);
    if (info.fileSize !== null && info.fileSize > cap) {
      deps.logger?.warn("inbound media over its type's cap", {
        ...logFields,
        type: row.type,
        bytes: info.fileSize,
        cap,
      });
      throw tooLarge();
    }
    const file = await deps.meta.streamMedia(info.url, { maxBytes: cap });
    const announced = info.mimeType ?? row.media_mime;
    const served = file.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
    const contentType = GENERIC_TYPES.has(served) && announced ? announced : file.contentType;
    const bytes = file.contentLength ?? info.fileSize;
    deps.logger?.info("inbound media opened", { ...logFields, bytes });
    // The contact's file is leaving the gateway: who opened it is in the trail.
    try {
      await recordAudit(deps.db.sql, {
        accountId: input.accountId,
        actor: input.actor,
        action: auditAction(input.actor, "media.opened"),
        target: `inbound_message:${input.inboundMessageId}`,
        details: { type: row.type, content_type: contentType, bytes },
      });
    } catch (error) {
      file.body.destroy();
      throw error;
    }
    return {
      body: file.body,
      contentType,
      contentLength: file.contentLength,
      filename: row.media_filename,
      type: row.type,
    };
  } catch (error) {
    if (error instanceof MetaApiError && (error.httpStatus === 404 || error.code === 100)) {
      deps.logger?.info("inbound media gone from the provider", { ...logFields, metaCode: error.code });
      throw new ApiError("not_found", {
        message: "A mídia não está mais disponível no provedor (a Meta a guarda por tempo limitado).",
        cause: error,
      });
    }
    if (error instanceof MetaReadError && error.kind === "too_large") throw tooLarge(error);
    if (error instanceof MetaApiError || error instanceof MetaReadError) {
      deps.logger?.warn("inbound media not opened", { ...logFields, error: error.message });
      throw new ApiError("provider_unavailable", {
        message: "Não foi possível obter a mídia do provedor agora; tente novamente em instantes.",
        cause: error,
      });
    }
    throw error;
  }
}
