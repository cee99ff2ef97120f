import { z } from "zod";

/**
 * POST /public/v1/media and GET /public/v1/media/{media_id} (issue 27): an upload answered with Meta's media id, and
 * the bytes of a media the account uploaded or received. The multipart body is read by the route itself (streamed
 * to Meta as it arrives); these are the document's schemas and the answer's.
 */

export const MEDIA_TYPES = ["image", "video", "audio", "document", "sticker"] as const;

/** Meta's media ids: digits in practice; what a path segment may carry. */
export const MEDIA_ID_REGEX = /^[0-9A-Za-z._-]{1,128}$/;

export const MediaPath = z.object({
  media_id: z
    .string()
    .regex(MEDIA_ID_REGEX, "Informe o id de mídia como veio do upload ou do webhook (letras, dígitos, . _ -).")
    .describe(
      "A media id this account got from `POST /public/v1/media` or from a `message.received` event (`media_id`)",
    ),
});

/** The business number field of the multipart (it must come before the file). */
export const MediaUploadFields = z.object({
  phone_number_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^\d+$/, "Informe o phone_number_id só com dígitos.")
    .optional()
    .describe(
      "The business number to upload to (the account's default when absent); a media is sent from this number only",
    ),
});

/** The multipart body as the document shows it. */
export const MediaUploadIn = z
  .object({
    phone_number_id: MediaUploadFields.shape.phone_number_id,
    file: z
      .string()
      .meta({ format: "binary" })
      .describe(
        "The file, one part, with its `Content-Type` (the declared type; `application/octet-stream` lets the bytes decide) and file name. JPEG or PNG image (5 MB), MP4 or 3GP video (16 MB), AAC, AMR, MP3, M4A or OGG Opus audio (16 MB), PDF, Word, Excel, PowerPoint or text document (100 MB), WebP sticker (100 KB static, 500 KB animated)",
      ),
  })
  .meta({ id: "MediaUploadIn" });

export const MediaUploadOut = z
  .object({
    success: z.literal(true),
    data: z.object({
      media_id: z.string().describe("Meta's media id: send it as `media.media_id` from the same business number"),
      phone_number_id: z.string().describe("The business number it was uploaded to"),
      mime_type: z.string().describe("The type read from the file's bytes (without parameters)"),
      size: z.int().min(0).describe("Bytes"),
      type: z.enum(MEDIA_TYPES).describe("The WhatsApp media type this file is sent as (WebP is a sticker only)"),
      sha256: z.string().describe("Lowercase hex SHA-256 of the bytes"),
      filename: z.string().nullable().describe("The file part's name, as kept (null when none was given)"),
      expires_at: z.string().describe("ISO 8601 UTC: Meta keeps an uploaded media 30 days"),
    }),
  })
  .meta({ id: "MediaUploadOut" });
export type MediaUploadOut = z.infer<typeof MediaUploadOut>;
