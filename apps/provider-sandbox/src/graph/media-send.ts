import { charLength, isRecord, nonEmptyString, shown, type JsonRecord } from "../json.ts";
import type { SandboxState } from "../state.ts";
import { MetaError } from "./errors.ts";
import { findUsableMedia } from "./media.ts";

/*
 * Media objects of a send (meta-messages.md §2.1–2.2, §2.6): a media message (`image`, `video`, `audio`, `document`,
 * `sticker`) or the media header of reply buttons and URL buttons. Exactly one of `id` (media Meta keeps for this
 * number) or `link` (a URI Meta downloads later: a failure comes back as a `failed` status with 131053).
 */

export const MEDIA_SEND_TYPES = ["image", "video", "audio", "document", "sticker"] as const;
export type MediaSendType = (typeof MEDIA_SEND_TYPES)[number];

/** The MIME types WhatsApp takes for each media type (meta-messages.md §2.1). */
const MIME_TYPES: Record<MediaSendType, readonly string[]> = {
  image: ["image/jpeg", "image/png"],
  video: ["video/mp4", "video/3gpp"],
  audio: ["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"],
  document: [
    "text/plain",
    "application/pdf",
    "application/msword",
    "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ],
  sticker: ["image/webp"],
};

const CAPTION_MAX = 1024;
const FILENAME_MAX = 240;

/** What the send's later statuses report about its media: Meta downloads a link after answering. */
export interface MediaOutcome {
  /** 131053 comes as a `failed` status: the link cannot be downloaded, or the media's bytes are not of its type. */
  fails: boolean;
}

const mimeOf = (mimeType: string) => mimeType.split(";")[0]?.trim().toLowerCase() ?? "";

/** A link Meta would fail to download: a reserved `.invalid` host (RFC 2606), the sandbox's stand-in for a 404. */
function unreachableLink(link: string): boolean {
  try {
    return new URL(link).hostname.endsWith(".invalid");
  } catch {
    return true;
  }
}

/** Checks `{id | link}` of a media object named `name` (e.g. `image`, `header['document']`). */
export function checkMediaSource(
  state: SandboxState,
  phoneNumberId: string,
  type: MediaSendType,
  name: string,
  media: JsonRecord,
): MediaOutcome {
  const hasId = media.id !== undefined;
  const hasLink = media.link !== undefined;
  if (hasId === hasLink)
    throw new MetaError(100, `Param ${name} must have exactly one of ${name}['id'] or ${name}['link'].`);
  if (hasId) {
    // A media Meta keeps for this number, still alive: an expired or deleted id is refused as an unknown one.
    const found = nonEmptyString(media.id) ? findUsableMedia(state, phoneNumberId, media.id) : null;
    if (!found)
      throw new MetaError(100, `Param ${name}['id'] is not a valid whatsapp business account media attachment ID`);
    return { fails: !MIME_TYPES[type].includes(mimeOf(found.mime_type)) };
  }
  if (typeof media.link !== "string" || !/^https?:\/\/[^\s/]+\S*$/i.test(media.link))
    throw new MetaError(100, `(#100) Param ${name}['link'] is not a valid URI.`);
  return { fails: unreachableLink(media.link) };
}

/** A media message: `body[type]` with its source, and `caption`, `filename`, `voice` where the type allows them. */
export function checkMediaSend(
  state: SandboxState,
  phoneNumberId: string,
  type: MediaSendType,
  body: JsonRecord,
): MediaOutcome {
  const media = body[type];
  if (!isRecord(media)) throw new MetaError(100, `The parameter ${type} is required.`);
  const outcome = checkMediaSource(state, phoneNumberId, type, type, media);
  if (media.caption !== undefined) {
    if (type === "audio" || type === "sticker")
      throw new MetaError(100, `Param ${type}['caption'] is not allowed for media type ${type}.`);
    if (typeof media.caption !== "string" || charLength(media.caption) > CAPTION_MAX)
      throw new MetaError(100, `Param ${type}['caption'] must be at most ${CAPTION_MAX} characters long.`);
  }
  if (media.filename !== undefined) {
    if (type !== "document")
      throw new MetaError(100, `Param ${type}['filename'] is not allowed for media type ${type}.`);
    if (!nonEmptyString(media.filename) || charLength(media.filename) > FILENAME_MAX)
      throw new MetaError(100, `Param document['filename'] must be a file name: ${shown(media.filename)}`);
  }
  if (media.voice !== undefined) {
    if (typeof media.voice !== "boolean") throw new MetaError(100, `Param ${type}['voice'] must be a boolean.`);
    if (media.voice && type !== "audio") throw new MetaError(100, `Param ${type}['voice'] is only valid for audio.`);
  }
  return outcome;
}
