import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MediaPath, errorResponse, requestValidation, tooManyRequests, unreadablePath } from "@gw/contracts";
import {
  MEDIA_EXTENSIONS,
  findAccountMedia,
  normalizeMimeType,
  openAccountMedia,
  takeMediaTransferTurn,
} from "@gw/core/media";
import { ApiError } from "@gw/errors";
import { contentDisposition, watchTransferRate } from "@gw/http";
import { ANSWERED, defineRoute } from "../define-route.ts";

/** The types the 200 may carry: Meta's media types, else `application/octet-stream`. */
const SERVED_TYPES = [...Object.keys(MEDIA_EXTENSIONS), "application/octet-stream"];
const BINARY = { schema: { type: "string" as const, format: "binary" } };

/** GET /public/v1/media/{media_id} (issue 27): the bytes of a media this account uploaded or received. */
export const { register, operations } = defineRoute({
  method: "get",
  path: "/media/{media_id}",
  operationId: "getMedia",
  scope: "messages:read",
  summary: "Download a media this account uploaded or received",
  description:
    "Streams the file of a media id this account got from `POST /media` or from a `message.received` event (`media_id`), fetched from Meta with the gateway's credentials when asked for and never stored by the gateway. " +
    "Answered with the file's `Content-Type` (Meta's type, else the one the gateway recorded), `Content-Length` when known and `Content-Disposition: attachment` with its file name (the upload's or the document's, else `<media_id>.<ext>`). " +
    "Another account's media id is `404 not_found`, like an unknown one. Meta keeps received media 7 days and uploads 30 days: past that, or once Meta says it no longer has the file, the answer is `410 media_expired`. " +
    "A file past its type's cap is `413 payload_too_large`. At most a few downloads of one account run at once (`429 media_download_limit`, with `Retry-After`), and each server fetches a bounded number of media at once (`503 media_busy`, with `Retry-After`). " +
    "A download that breaks midway, or that the client reads below the server's minimum rate (a few KB/s, measured over successive windows of some seconds), is cut (the connection closes), never a short file that looks whole. Audited as `api.media.opened`.",
  request: { params: MediaPath },
  responses: {
    200: {
      description: "The file, streamed.",
      content: Object.fromEntries(SERVED_TYPES.map((type) => [type, BINARY])),
    },
    400: unreadablePath,
    404: errorResponse("No media of this account has this id (another account's media included).", ["not_found"]),
    410: errorResponse("Meta no longer has this media (7 days after it was received, 30 after the upload).", [
      "media_expired",
    ]),
    413: errorResponse("The file Meta reports passes its type's cap.", ["payload_too_large"]),
    422: requestValidation("path"),
    429: tooManyRequests(["api_rate_limited", "media_download_limit"]),
    503: errorResponse(
      "This server has too many media transfers now, or Meta could not be reached; repeat the call (`Retry-After`).",
      ["media_busy", "provider_unavailable"],
    ),
  },
  async handler({ accountId, actor, params, req, res }, deps) {
    // 404 and 410 are decided before a transfer slot is taken: they never wait.
    const row = await findAccountMedia(deps.media.open, { accountId, mediaId: params.media_id });
    // The account's turn (across the pods) before one of this pod's slots: an account's slow readers hold its own
    // turns, never the slots every other account's downloads need.
    const releaseTurn = await takeMediaTransferTurn(deps.media.downloadLimits, accountId);
    const gone = new AbortController();
    const onClose = () => gone.abort();
    res.once("close", onClose);
    let releaseSlot: (() => void) | null = null;
    try {
      releaseSlot = await deps.media.downloadSlots.acquire(gone.signal);
      if (!releaseSlot) {
        if (gone.signal.aborted) return ANSWERED;
        throw new ApiError("media_busy", { retryAfterSeconds: 5 });
      }
      const file = await openAccountMedia(deps.media.open, { accountId, mediaId: params.media_id, actor, row });
      const served = normalizeMimeType(file.contentType);
      const type = MEDIA_EXTENSIONS[served] ? served : "application/octet-stream";
      const length = file.contentLength ?? file.reportedSize;
      // Foreign content: never sniffed by a browser, never cached by a proxy.
      res.status(200);
      res.setHeader("Content-Type", type);
      if (length !== null) res.setHeader("Content-Length", String(length));
      res.setHeader("Content-Disposition", contentDisposition("attachment", file.filename));
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Cache-Control", "private, no-store");
      req.setTimeout(deps.config.MEDIA_TRANSFER_TIMEOUT_MS);
      // The bytes the client takes: they pass this point only as fast as the answer drains (backpressure).
      const { MEDIA_MIN_RATE_BYTES_PER_S: minBytesPerSecond, MEDIA_MIN_RATE_GRACE_MS: windowMs } = deps.config;
      let tooSlow = false;
      const rate = watchTransferRate({
        minBytesPerSecond,
        windowMs,
        onTooSlow: (slow) => {
          tooSlow = true;
          deps.logger.warn("media download cut below the minimum rate", {
            accountId,
            mediaId: params.media_id,
            minBytesPerSecond,
            ...slow,
          });
          file.body.destroy(new Error("the download went below the minimum rate"));
        },
      });
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          rate.add(chunk.length);
          done(null, chunk);
        },
      });
      // A download that breaks after the headers destroys the answer: the client sees a cut connection.
      await pipeline(file.body, meter, res)
        .catch((error: unknown) => {
          if (!tooSlow && (error as { code?: unknown }).code !== "ERR_STREAM_PREMATURE_CLOSE")
            deps.logger.warn("media download broke", {
              accountId,
              mediaId: params.media_id,
              error: error instanceof Error ? error.message : String(error),
            });
          res.destroy();
        })
        .finally(() => rate.stop());
      return ANSWERED;
    } finally {
      res.off("close", onClose);
      releaseSlot?.();
      releaseTurn();
    }
  },
});
