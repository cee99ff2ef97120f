import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import { MetaApiError, MetaReadError, type MetaClient } from "@gw/meta";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

export interface InboundMediaFile {
  bytes: Buffer;
  /** What the provider served, else the type the webhook announced, else application/octet-stream. */
  contentType: string;
  /** Documents: the name the contact's file had. */
  filename: string | null;
  /** Meta's message type: image, audio, video, document or sticker. */
  type: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GENERIC_TYPES = new Set(["application/octet-stream", "binary/octet-stream"]);

/**
 * The bytes of an inbound message's media, fetched from Meta's media endpoint with the gateway's token at the
 * moment it is asked for (the gateway keeps only Meta's media id, never the media, and hands out no link). A
 * message of another account, without media, or whose media retention cleared, is `not_found`; media Meta no
 * longer has (it keeps it about 30 days) is `not_found` with its own sentence; a media over the size cap is
 * `payload_too_large`; anything else the provider did is `provider_unavailable`.
 */
export async function openInboundMedia(
  deps: { db: Db; meta: Pick<MetaClient, "getMedia" | "downloadMedia">; logger?: Logger },
  input: { accountId: string; inboundMessageId: string; maxBytes?: number; actor: Actor },
): Promise<InboundMediaFile> {
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

  const logFields = { accountId: input.accountId, inboundMessageId: input.inboundMessageId };
  try {
    const info = await deps.meta.getMedia(row.media_id);
    const file = await deps.meta.downloadMedia(info.url, input.maxBytes ? { maxBytes: input.maxBytes } : {});
    const announced = info.mimeType ?? row.media_mime;
    const served = file.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
    const contentType = GENERIC_TYPES.has(served) && announced ? announced : file.contentType;
    deps.logger?.info("inbound media opened", { ...logFields, bytes: file.bytes.length });
    // The contact's file left the gateway: who opened it is in the trail.
    await recordAudit(deps.db.sql, {
      accountId: input.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "media.opened"),
      target: `inbound_message:${input.inboundMessageId}`,
      details: { type: row.type, content_type: contentType, bytes: file.bytes.length },
    });
    return { bytes: file.bytes, contentType, filename: row.media_filename, type: row.type };
  } catch (error) {
    if (error instanceof MetaApiError && (error.httpStatus === 404 || error.code === 100)) {
      deps.logger?.info("inbound media gone from the provider", { ...logFields, metaCode: error.code });
      throw new ApiError("not_found", {
        message: "A mídia não está mais disponível no provedor (a Meta a guarda por tempo limitado).",
        cause: error,
      });
    }
    if (error instanceof MetaReadError && error.kind === "too_large")
      throw new ApiError("payload_too_large", {
        message: "A mídia é grande demais para abrir pelo painel.",
        cause: error,
      });
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
