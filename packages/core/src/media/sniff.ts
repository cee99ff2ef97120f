import { fileTypeFromBuffer } from "file-type";
import { WHATSAPP_MEDIA_TYPES, type MediaType } from "./caps.ts";

/**
 * The type of an uploaded file, from its first bytes (docs/decisions.md, "Upload streamed to Meta, type from bytes"):
 * `file-type` reads the magic numbers, and three rules cover what it cannot tell from a head alone — plain text (no
 * magic number, valid UTF-8, no NUL byte), an OLE2 compound file (`application/x-cfb`) declared as a Word, Excel or
 * PowerPoint 97 file, and a zip declared as a docx, xlsx or pptx (the head may end before `[Content_Types].xml`).
 * The declared type (parameters dropped) must agree with the bytes unless it is generic (`application/octet-stream`).
 */
export const SNIFF_HEAD_BYTES = 4_100;

export type SniffOutcome =
  | { kind: "ok"; mimeType: string; type: MediaType; animated: boolean }
  /** The bytes are of no type WhatsApp takes (415); `detected` is what they are, when known. */
  | { kind: "unsupported"; detected: string | null }
  /** The bytes are of a type WhatsApp takes, but not the declared one (422). */
  | { kind: "mismatch"; detected: string; declared: string };

const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream", "application/x-binary"]);

/** Names some clients give to the types Meta lists. */
const ALIASES: Readonly<Record<string, string>> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/m4a": "audio/mp4",
  "audio/x-m4a": "audio/mp4",
  "audio/x-aac": "audio/aac",
  "audio/opus": "audio/ogg",
  "video/3gp": "video/3gpp",
};

const OLE2_DOCUMENTS = new Set(["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"]);
const OOXML_DOCUMENTS = new Set([
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
]);

/** A MIME type without parameters, lower-cased, under the name Meta's table gives it. */
export function normalizeMimeType(value: string): string {
  const bare = (value.split(";")[0] ?? "").trim().toLowerCase();
  return ALIASES[bare] ?? bare;
}

/** Valid UTF-8 without NUL; a sequence cut by the end of the head counts as valid. */
function looksLikeText(head: Uint8Array): boolean {
  let i = 0;
  while (i < head.length) {
    const byte = head[i] as number;
    if (byte === 0) return false;
    if (byte < 0x80) {
      i += 1;
      continue;
    }
    const length = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 && byte <= 0xdf ? 2 : 0;
    if (length === 0) return false;
    for (let k = 1; k < length; k++) {
      if (i + k >= head.length) return true;
      const next = head[i + k] as number;
      if ((next & 0xc0) !== 0x80) return false;
    }
    i += length;
  }
  return true;
}

/** A WebP whose VP8X header has the animation flag (byte 20, bit 0x02). */
export function isAnimatedWebp(head: Uint8Array): boolean {
  return (
    head.length > 20 &&
    Buffer.from(head.subarray(12, 16)).toString("latin1") === "VP8X" &&
    ((head[20] as number) & 0x02) !== 0
  );
}

/** What the head's bytes are, as one of Meta's MIME types when they are one (null: no magic number known). */
async function detect(head: Uint8Array): Promise<{ mime: string | null; ext: string | null }> {
  const found = await fileTypeFromBuffer(head);
  if (!found) return { mime: looksLikeText(head) ? "text/plain" : null, ext: null };
  const mime = normalizeMimeType(found.mime);
  return { mime, ext: found.ext };
}

export async function sniffMedia(input: { head: Uint8Array; declaredType: string }): Promise<SniffOutcome> {
  const head = input.head.subarray(0, SNIFF_HEAD_BYTES);
  const declared = normalizeMimeType(input.declaredType);
  const generic = GENERIC.has(declared);
  const { mime, ext } = await detect(head);
  const ok = (mimeType: string): SniffOutcome => {
    const type = WHATSAPP_MEDIA_TYPES[mimeType];
    if (!type) return { kind: "unsupported", detected: mimeType };
    return { kind: "ok", mimeType, type, animated: mimeType === "image/webp" && isAnimatedWebp(head) };
  };

  if (mime === null) return { kind: "unsupported", detected: null };
  // Ogg is taken with Opus only (Meta: "OPUS codecs only"); file-type names an Opus stream `opus`.
  if (mime === "audio/ogg" && ext !== "opus") return { kind: "unsupported", detected: "audio/ogg" };
  // Office files whose head cannot say which: the declared type decides among the ones the container can hold.
  if (mime === "application/x-cfb") {
    return OLE2_DOCUMENTS.has(declared) ? ok(declared) : { kind: "unsupported", detected: mime };
  }
  if (mime === "application/zip") {
    return OOXML_DOCUMENTS.has(declared) ? ok(declared) : { kind: "unsupported", detected: mime };
  }
  if (!WHATSAPP_MEDIA_TYPES[mime]) return { kind: "unsupported", detected: mime };
  if (generic || declared === mime) return ok(mime);
  // An M4A file may carry an MP4 brand: declared as audio, it is audio.
  if (declared === "audio/mp4" && mime === "video/mp4") return ok("audio/mp4");
  return { kind: "mismatch", detected: mime, declared };
}
