import type { Readable } from "node:stream";
import type { Db } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { Logger } from "@gw/logger";
import type { MetaClient } from "@gw/meta";
import type { Actor } from "../audit/audit.ts";
import { LARGEST_MEDIA_BYTES, MEDIA_MAX_BYTES, ProviderMediaGoneError, streamProviderMedia } from "../media/index.ts";

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

/**
 * The largest media of each type WhatsApp carries: the one table of `@gw/core/media` (MEDIA_MAX_BYTES; a sticker's
 * is its animated size, as the panel cannot tell). A contact's file never makes the panel fetch more than its type
 * can weigh.
 */
export const INBOUND_MEDIA_MAX_BYTES: Readonly<Record<string, number>> = MEDIA_MAX_BYTES;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An inbound message's media for the panel's Conversas, through the media service the API's
 * GET /public/v1/media/{media_id} uses (`streamProviderMedia`: fetched from Meta with the gateway's token when asked
 * for, streamed, capped by its type — `INBOUND_MEDIA_MAX_BYTES`, or `maxBytes` when smaller — and audited once
 * Meta served it). A message of another account, without media, or whose media retention cleared, is `not_found`;
 * media Meta no longer has is `not_found` with its own sentence; anything else the provider did is
 * `provider_unavailable`.
 */
export async function openInboundMedia(
  deps: { db: Db; meta: Pick<MetaClient, "getMedia" | "streamMedia">; logger?: Logger },
  input: { accountId: string; inboundMessageId: string; maxBytes?: number; actor: Actor },
): Promise<InboundMediaStream> {
  const notFound = new ApiError("not_found", { message: "A mídia não foi encontrada nesta conta." });
  if (!UUID.test(input.accountId) || !UUID.test(input.inboundMessageId)) throw notFound;
  const { rows } = await deps.db.sql.query<{
    type: string;
    phone_number_id: string;
    media_id: string | null;
    media_mime: string | null;
    media_filename: string | null;
  }>({
    name: "inbound-media-of-account",
    text: `SELECT type, phone_number_id, media_id, media_mime, media_filename FROM inbound_messages
      WHERE id = $1::uuid AND account_id = $2::uuid`,
    values: [input.inboundMessageId, input.accountId],
  });
  const row = rows[0];
  if (!row?.media_id) throw notFound;

  try {
    const file = await streamProviderMedia(deps, {
      accountId: input.accountId,
      actor: input.actor,
      mediaId: row.media_id,
      phoneNumberId: row.phone_number_id,
      type: row.type,
      mimeType: row.media_mime,
      filename: row.media_filename,
      cap: Math.min(INBOUND_MEDIA_MAX_BYTES[row.type] ?? LARGEST_MEDIA_BYTES, input.maxBytes ?? Infinity),
      tooLarge: "A mídia é grande demais para abrir pelo painel.",
      auditTarget: `inbound_message:${input.inboundMessageId}`,
    });
    return {
      body: file.body,
      contentType: file.contentType,
      contentLength: file.contentLength,
      filename: file.filename,
      type: file.type,
    };
  } catch (error) {
    if (error instanceof ProviderMediaGoneError) {
      throw new ApiError("not_found", {
        message: "A mídia não está mais disponível no provedor (a Meta a guarda por tempo limitado).",
        cause: error.cause,
      });
    }
    throw error;
  }
}
