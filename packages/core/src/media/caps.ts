/**
 * What WhatsApp carries (meta-messages §2.1): the MIME types of each media type and the largest file of each, one
 * table for uploads (POST /public/v1/media), the API's media downloads and the panel's. Sizes are read as binary
 * units (5 MB = 5 MiB), so nothing Meta accepted is refused.
 */
export type MediaType = "image" | "video" | "audio" | "document" | "sticker";

const KiB = 1024;
const MiB = 1024 * KiB;

/** The largest file of each type; a sticker's is its animated size (a static one: `STATIC_STICKER_MAX_BYTES`). */
export const MEDIA_MAX_BYTES: Readonly<Record<MediaType, number>> = {
  image: 5 * MiB,
  audio: 16 * MiB,
  video: 16 * MiB,
  document: 100 * MiB,
  sticker: 500 * KiB,
};
/** A sticker without the WebP animation flag. */
export const STATIC_STICKER_MAX_BYTES = 100 * KiB;
/** Meta's largest media (a document): a type the table does not name is never fetched past it. */
export const LARGEST_MEDIA_BYTES = 100 * MiB;

/** The MIME types Meta takes, with the WhatsApp type each is sent as (WebP is a sticker only). */
export const WHATSAPP_MEDIA_TYPES: Readonly<Record<string, MediaType>> = {
  "image/jpeg": "image",
  "image/png": "image",
  "video/mp4": "video",
  "video/3gpp": "video",
  "audio/aac": "audio",
  "audio/amr": "audio",
  "audio/mpeg": "audio",
  "audio/mp4": "audio",
  "audio/ogg": "audio",
  "image/webp": "sticker",
  "text/plain": "document",
  "application/pdf": "document",
  "application/msword": "document",
  "application/vnd.ms-excel": "document",
  "application/vnd.ms-powerpoint": "document",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "document",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "document",
};

/** A file extension for a MIME type (a download's default file name, the name an upload without one is sent with). */
export const MEDIA_EXTENSIONS: Readonly<Record<string, string>> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "video/mp4": "mp4",
  "video/3gpp": "3gp",
  "audio/aac": "aac",
  "audio/amr": "amr",
  "audio/mpeg": "mp3",
  "audio/mp4": "m4a",
  "audio/ogg": "ogg",
  "image/webp": "webp",
  "text/plain": "txt",
  "application/pdf": "pdf",
  "application/msword": "doc",
  "application/vnd.ms-excel": "xls",
  "application/vnd.ms-powerpoint": "ppt",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
};

/** The cap of a media of `type` (a sticker's depends on its animation flag; unknown: the animated one). */
export function mediaCap(type: string, animated?: boolean): number {
  if (type === "sticker" && animated === false) return STATIC_STICKER_MAX_BYTES;
  return MEDIA_MAX_BYTES[type as MediaType] ?? LARGEST_MEDIA_BYTES;
}

const NOUNS: Readonly<Record<MediaType, string>> = {
  image: "imagens",
  video: "vídeos",
  audio: "áudios",
  document: "documentos",
  sticker: "figurinhas",
};

/** "5 MB", "100 KB": the cap as the WhatsApp docs write it. */
function humanSize(bytes: number): string {
  return bytes >= MiB ? `${bytes / MiB} MB` : `${bytes / KiB} KB`;
}

/** The 413's sentence for a file of `type` past its cap: "O arquivo passa de 5 MB, o limite do WhatsApp para imagens." */
export function tooLargeSentence(type: MediaType, animated?: boolean): string {
  const noun =
    type === "sticker" && animated !== undefined
      ? `figurinhas ${animated ? "animadas" : "estáticas"}`
      : (NOUNS[type] ?? "mídias");
  return `O arquivo passa de ${humanSize(mediaCap(type, animated))}, o limite do WhatsApp para ${noun}.`;
}
