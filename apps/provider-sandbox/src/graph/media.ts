import { createHash, createHmac } from "node:crypto";
import type express from "express";
import { safeEqual } from "@gw/signer";
import { sampleBytes } from "../media/samples.ts";
import type { SandboxMedia, SandboxState } from "../state.ts";
import { invalidTokenResult, MetaError, unsupportedRequestResult, type GraphResult } from "./errors.ts";

/** Meta's media URLs are valid for 5 minutes after GET /{media-id}. */
export const MEDIA_URL_TTL_SECONDS = 5 * 60;
const MAX_REMEMBERED_MEDIA_IDS = 100_000;

/** Meta keeps received media 7 days and uploads 30 days (meta-messages §2.4). */
export const RECEIVED_MEDIA_TTL_MS = 7 * 86_400_000;
export const UPLOADED_MEDIA_TTL_MS = 30 * 86_400_000;

/** Meta's download host path; the sandbox serves it on its own origin. */
export const MEDIA_DOWNLOAD_PATH = "/whatsapp_business/attachments/";

/**
 * Keeps the bytes of an inbound message's media: the given ones, else the sample file of its MIME type, else a
 * few bytes naming the media (types the sandbox has no sample for). Returns the record; the oldest records go
 * once there are more than `historyLimit`.
 */
export function registerMedia(
  state: SandboxState,
  input: {
    id: string;
    phoneNumberId: string;
    mimeType: string;
    bytes?: Buffer | undefined;
    /** Default `received` (an inbound message's media). */
    origin?: SandboxMedia["origin"];
    filename?: string | null;
  },
): SandboxMedia {
  const origin = input.origin ?? "received";
  const bytes =
    input.bytes ??
    sampleBytes(input.mimeType) ??
    Buffer.from(`Sandbox media ${input.id} (${input.mimeType})\n`, "utf8");
  const record: SandboxMedia = {
    id: input.id,
    phone_number_id: input.phoneNumberId,
    mime_type: input.mimeType,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    file_size: bytes.length,
    bytes,
    at: new Date(state.now()).toISOString(),
    origin,
    filename: input.filename ?? null,
    expires_at_ms: state.now() + (origin === "uploaded" ? UPLOADED_MEDIA_TTL_MS : RECEIVED_MEDIA_TTL_MS),
    expired: false,
  };
  // Re-registering an id moves it to the newest end.
  state.media.delete(input.id);
  state.media.set(input.id, record);
  for (const oldest of state.media.keys()) {
    if (state.media.size <= state.config.historyLimit) break;
    state.media.delete(oldest);
  }
  state.mediaIds.delete(input.id);
  state.mediaIds.add(input.id);
  for (const oldest of state.mediaIds) {
    if (state.mediaIds.size <= MAX_REMEMBERED_MEDIA_IDS) break;
    state.mediaIds.delete(oldest);
  }
  return record;
}

/** Whether Meta still has the media: not expired by the control API, not past its lifetime on the sandbox clock. */
export function mediaAlive(state: SandboxState, media: SandboxMedia): boolean {
  return !media.expired && state.now() < media.expires_at_ms;
}

/**
 * What a send by media id may use (meta-messages §2.6: "not a valid whatsapp business account media attachment
 * ID" otherwise): a media the sandbox holds, still alive, of that business number. Null: unknown, expired, deleted
 * or another number's.
 */
export function findUsableMedia(state: SandboxState, phoneNumberId: string, id: string): SandboxMedia | null {
  const media = state.media.get(id);
  if (!media || !mediaAlive(state, media) || media.phone_number_id !== phoneNumberId) return null;
  return media;
}

/** DELETE /{version}/{media-id}: `{success: true}`; a media it does not have (or of another number) is missing. */
export function deleteMediaResult(state: SandboxState, id: string, requestUrl: URL): GraphResult {
  const media = state.media.get(id);
  const owner = requestUrl.searchParams.get("phone_number_id");
  if (!media || !mediaAlive(state, media) || (owner !== null && owner !== media.phone_number_id))
    return unsupportedRequestResult("DELETE", id);
  state.media.delete(id);
  return { status: 200, body: { success: true } };
}

function urlSignature(state: SandboxState, mediaId: string, expires: number): string {
  return createHmac("sha256", state.appSecret).update(`${mediaId}.${expires}`).digest("base64url").slice(0, 32);
}

/**
 * GET /{version}/{media-id}: Meta's `{messaging_product, url, mime_type, sha256, file_size, id}`. The url is this
 * server's copy of Meta's lookaside link (`mid`, `ext` = expiry in Unix seconds, `hash`), valid 5 minutes. With
 * `?phone_number_id=`, media of another number is answered as missing, as Meta does; so is an expired media.
 */
export function mediaResult(state: SandboxState, media: SandboxMedia, requestUrl: URL): GraphResult {
  const owner = requestUrl.searchParams.get("phone_number_id");
  if (owner !== null && owner !== media.phone_number_id) return unsupportedRequestResult("GET", media.id);
  // Expired media: Meta's "does not exist" answer.
  if (!mediaAlive(state, media)) return unsupportedRequestResult("GET", media.id);
  const expires = Math.floor(state.now() / 1000) + MEDIA_URL_TTL_SECONDS;
  const url = new URL(MEDIA_DOWNLOAD_PATH, requestUrl.origin);
  url.searchParams.set("mid", media.id);
  url.searchParams.set("ext", String(expires));
  url.searchParams.set("hash", urlSignature(state, media.id, expires));
  return {
    status: 200,
    body: {
      messaging_product: "whatsapp",
      url: url.toString(),
      mime_type: media.mime_type,
      sha256: media.sha256,
      file_size: media.file_size,
      id: media.id,
    },
  };
}

/**
 * The download URL. Like Meta's, it is useless without the token: the Authorization header is required even when
 * the sandbox runs without a token (a bare GET never yields the media), and `?access_token=` is not taken, so the
 * URL alone is never a public link. An unknown, altered or expired URL is a 404 with Meta's error envelope.
 */
export function downloadResult(state: SandboxState, req: express.Request, requestUrl: URL): GraphResult {
  const token = req.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (token === undefined) return invalidTokenResult(false);
  if (state.accessToken !== undefined && !safeEqual(token, state.accessToken)) return invalidTokenResult(true);
  const query = requestUrl.searchParams;
  const id = query.get("mid") ?? "";
  const expires = Number(query.get("ext"));
  const media = state.media.get(id);
  const valid =
    media !== undefined &&
    mediaAlive(state, media) &&
    Number.isInteger(expires) &&
    expires >= Math.floor(state.now() / 1000) &&
    safeEqual(query.get("hash") ?? "", urlSignature(state, id, expires));
  if (!valid) return new MetaError(100, "The media URL is invalid or has expired.", { httpStatus: 404 }).toResult();
  return {
    status: 200,
    headers: { "content-type": media.mime_type, "content-length": String(media.file_size) },
    body: media.bytes,
  };
}
