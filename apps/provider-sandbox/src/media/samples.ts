import { readFileSync } from "node:fs";

/**
 * Real files served as the bytes of inbound media, so a client that opens them (the panel's browser tests) gets
 * something its decoder accepts: a 32×32 PNG, JPEG and WebP, a one-page PDF, one second of Ogg Opus silence and
 * half a second of MP4 video. Read once, on first use.
 */
const SAMPLE_FILES: Record<string, string> = {
  "image/png": "image.png",
  "image/jpeg": "image.jpg",
  "image/webp": "sticker.webp",
  "application/pdf": "document.pdf",
  "audio/ogg": "audio.ogg",
  "video/mp4": "video.mp4",
};

const loaded = new Map<string, Buffer>();

/** The sample file for a MIME type (parameters such as `; codecs=opus` ignored); null when the sandbox has none. */
export function sampleBytes(mimeType: string): Buffer | null {
  const base = mimeType.split(";")[0]?.trim().toLowerCase() ?? "";
  const file = SAMPLE_FILES[base];
  if (!file) return null;
  let bytes = loaded.get(file);
  if (!bytes) {
    bytes = readFileSync(new URL(`./samples/${file}`, import.meta.url));
    loaded.set(file, bytes);
  }
  return bytes;
}
