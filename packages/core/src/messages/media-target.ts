import type { Sql } from "@gw/db";
import { ApiError } from "@gw/errors";
import type { FreeFormContent, MediaType } from "./free-form.ts";

/*
 * A media sent by `media_id` (a media message, or the media header of reply buttons and URL buttons) must be an upload
 * of this account on this number that Meta still keeps (docs/decisions.md, "Media by id only from this account's
 * uploads, on the same number"): with one system token for the whole deployment, Meta would send any media id of
 * the WABA, so `account_media` is the tenancy boundary. Checked before Meta; links are Meta's to fetch (a link it
 * cannot fetch comes back as a `failed` status, 131053).
 */

/** What a sendable upload is: its WhatsApp type, MIME type and file name. */
export interface SendableMedia {
  type: string;
  mimeType: string | null;
  filename: string | null;
}

/** An upload is not offered when Meta would drop it within the hour (it keeps uploads 30 days). */
const MIN_REMAINING_MS = 3_600_000;

/**
 * May this account send this media id on this number: an `uploaded` row of the account and the number, not gone at
 * Meta and not expiring within the hour. Null otherwise (another account's id is indistinguishable from none).
 */
export async function findSendableMedia(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; mediaId: string; now?: Date },
): Promise<SendableMedia | null> {
  const now = input.now ?? new Date();
  const { rows } = await sql.query<{ type: string; mime_type: string | null; filename: string | null }>({
    name: "sendable-media",
    text: `SELECT type, mime_type, filename FROM account_media
      WHERE account_id = $1::uuid AND media_id = $2 AND phone_number_id = $3 AND origin = 'uploaded'
        AND gone_at IS NULL AND expires_at > $4`,
    values: [input.accountId, input.mediaId, input.phoneNumberId, new Date(now.getTime() + MIN_REMAINING_MS)],
  });
  const row = rows[0];
  return row ? { type: row.type, mimeType: row.mime_type, filename: row.filename } : null;
}

/** A media reference of a send: where it is (`media` or the interactive header), its type and whether a voice note. */
interface MediaReference {
  mediaId: string;
  type: MediaType;
  voice: boolean;
}

/** Whether a send names an upload by its id (checked against the account's uploads before Meta). */
export function referencesMedia(content: FreeFormContent): boolean {
  return referenceOf(content) !== null;
}

function referenceOf(content: FreeFormContent): MediaReference | null {
  if (content.kind === "media" && content.media.mediaId !== null)
    return { mediaId: content.media.mediaId, type: content.media.type, voice: content.media.voice };
  if (content.kind === "interactive") {
    const { interactive } = content;
    const header = interactive.type === "button" || interactive.type === "cta_url" ? interactive.header : null;
    if (header && header.type !== "text" && header.mediaId !== null)
      return { mediaId: header.mediaId, type: header.type, voice: false };
  }
  return null;
}

const TYPE_NAMES: Record<string, string> = {
  image: "uma imagem",
  video: "um vídeo",
  audio: "um áudio",
  document: "um documento",
  sticker: "uma figurinha",
};

/** Voice notes are OGG/Opus recordings (meta-messages.md §2.2). */
const isOgg = (mimeType: string | null) => mimeType !== null && /^audio\/ogg\b/i.test(mimeType);

/**
 * Checks the send's media id, if it has one, and returns the content to send: a document sent by id without a file
 * name gets the upload's. `media_unavailable` when the id is not a sendable upload of this account on this number;
 * `media_type_mismatch` when it is of another type than asked (a sticker is a WebP upload, a voice note an OGG one).
 */
export async function checkMediaReference(
  sql: Sql,
  input: { accountId: string; phoneNumberId: string; content: FreeFormContent; now?: Date },
): Promise<FreeFormContent> {
  const reference = referenceOf(input.content);
  if (reference === null) return input.content;
  const media = await findSendableMedia(sql, {
    accountId: input.accountId,
    phoneNumberId: input.phoneNumberId,
    mediaId: reference.mediaId,
    ...(input.now ? { now: input.now } : {}),
  });
  if (!media) throw new ApiError("media_unavailable");
  if (media.type !== reference.type)
    throw new ApiError("media_type_mismatch", {
      message: `A mídia ${reference.mediaId} é ${TYPE_NAMES[media.type] ?? media.type}, não ${TYPE_NAMES[reference.type] ?? reference.type}.`,
    });
  if (reference.voice && !isOgg(media.mimeType))
    throw new ApiError("media_type_mismatch", {
      message: `Uma mensagem de voz precisa de um áudio OGG (Opus); a mídia ${reference.mediaId} é ${media.mimeType ?? "de outro formato"}.`,
    });
  const { content } = input;
  if (
    content.kind === "media" &&
    content.media.type === "document" &&
    content.media.filename === null &&
    media.filename
  )
    return { kind: "media", media: { ...content.media, filename: media.filename } };
  return content;
}
