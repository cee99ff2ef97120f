import { requestError, type GatewayClient } from "./client.ts";
import type { components } from "./schema.ts";

/** What `POST /public/v1/media` answers in `data`. */
export type UploadedMedia = components["schemas"]["MediaUploadOut"]["data"];

export interface UploadMediaInput {
  /** The file's bytes (a Blob is re-sendable: the client's 429 retries send it again). */
  file: Blob | Uint8Array | ArrayBuffer;
  /** The file name (documents keep it: the recipient sees it). */
  filename: string;
  /** The declared type, e.g. `application/pdf`; `application/octet-stream` lets the gateway read it from the bytes. */
  mimeType: string;
  /** The business number to upload to; the account's default when absent. */
  phoneNumberId?: string;
}

/**
 * Uploads a file (`POST /public/v1/media`) and returns its `media_id` and what the gateway read from it; send it with
 * `media: {type, media_id}` from the same number. A refusal throws GatewayRequestError (415 media_type_unsupported,
 * 413 payload_too_large, 422 media_type_mismatch, 429 media_upload_limit after the client's retries, ...).
 */
export async function uploadMedia(client: GatewayClient, input: UploadMediaInput): Promise<UploadedMedia> {
  const blob = input.file instanceof Blob ? input.file : new Blob([input.file], { type: input.mimeType });
  const form = new FormData();
  // The number's field must come before the file.
  if (input.phoneNumberId !== undefined) form.append("phone_number_id", input.phoneNumberId);
  form.append("file", new Blob([blob], { type: input.mimeType }), input.filename);
  const { data, error, response } = await client.POST("/public/v1/media", {
    body: {} as components["schemas"]["MediaUploadIn"],
    bodySerializer: () => form,
  });
  if (!data) throw requestError(response, error);
  return data.data;
}

export interface DownloadedMedia {
  /** The bytes, as they arrive (read them once). */
  body: ReadableStream<Uint8Array>;
  contentType: string;
  /** Content-Length, when the gateway knew it. */
  contentLength: number | null;
  /** The file name of Content-Disposition (its UTF-8 form when given). */
  filename: string | null;
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''…` first, then `filename="…"`). */
function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // fall through to the ASCII form
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
}

/**
 * Downloads a media this account uploaded or received (`GET /public/v1/media/{media_id}`) as a stream. A refusal
 * throws GatewayRequestError (404 not_found, 410 media_expired, 429 media_download_limit or 503 media_busy after the
 * client's retries, ...).
 */
export async function downloadMedia(client: GatewayClient, mediaId: string): Promise<DownloadedMedia> {
  const { data, error, response } = await client.GET("/public/v1/media/{media_id}", {
    params: { path: { media_id: mediaId } },
    parseAs: "stream",
  });
  if (!response.ok || !data) throw requestError(response, error);
  const length = response.headers.get("content-length");
  return {
    body: data as ReadableStream<Uint8Array>,
    contentType: response.headers.get("content-type") ?? "application/octet-stream",
    contentLength: length === null ? null : Number(length),
    filename: filenameOf(response.headers.get("content-disposition")),
  };
}
