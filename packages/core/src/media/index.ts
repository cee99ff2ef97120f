export {
  LARGEST_MEDIA_BYTES,
  MEDIA_EXTENSIONS,
  MEDIA_MAX_BYTES,
  STATIC_STICKER_MAX_BYTES,
  WHATSAPP_MEDIA_TYPES,
  mediaCap,
  tooLargeSentence,
} from "./caps.ts";
export type { MediaType } from "./caps.ts";
export { createMediaTransferLimits, takeMediaTransferTurn } from "./limits.ts";
export type { MediaTransferKind, MediaTransferLimits } from "./limits.ts";
export {
  MEDIA_ID_PATTERN,
  ProviderMediaGoneError,
  findAccountMedia,
  openAccountMedia,
  streamProviderMedia,
} from "./open.ts";
export type { AccountMediaRow, MediaFile, ProviderMediaDeps } from "./open.ts";
export { SNIFF_HEAD_BYTES, isAnimatedWebp, normalizeMimeType, sniffMedia } from "./sniff.ts";
export type { SniffOutcome } from "./sniff.ts";
export { MULTIPART_OVERHEAD_BYTES, UPLOADED_MEDIA_TTL_MS, cleanFilename, uploadMedia } from "./upload.ts";
export type { UploadMediaDeps, UploadMediaInput, UploadedMedia } from "./upload.ts";
