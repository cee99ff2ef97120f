import type express from "express";
import { mediaAlive } from "../graph/media.ts";
import { recent, type SandboxMedia, type SandboxState } from "../state.ts";

/** What the control API shows of a media (never its bytes). */
function mediaView(state: SandboxState, media: SandboxMedia) {
  const upload = state.uploads.find((u) => u.id === media.id);
  return {
    id: media.id,
    origin: media.origin,
    mime_type: media.mime_type,
    file_size: media.file_size,
    sha256: media.sha256,
    filename: media.filename,
    phone_number_id: media.phone_number_id,
    expired: !mediaAlive(state, media),
    expires_at: new Date(media.expires_at_ms).toISOString(),
    bytes_received: upload?.bytes_received ?? media.file_size,
  };
}

/**
 * The control API's media routes (mounted under /_sandbox by control.ts):
 * - `GET /media/uploads`: the uploads, finished or not, with `bytes_received` (grows while the client sends) and
 *   `status` (receiving, stored, refused, aborted);
 * - `GET /media/{id}`: `{id, origin, mime_type, file_size, sha256 (hex), filename, phone_number_id, expired,
 *   expires_at, bytes_received}` of a media the sandbox holds (an upload still arriving: its upload record);
 * - `POST /media/{id}/expire`: Meta no longer has it (GET /{media-id} answers it missing, its URL 404s, a send by id
 *   is refused).
 */
export function registerMediaControlRoutes(router: express.Router, state: SandboxState): void {
  router.get(
    "/media/uploads",
    (_req, res) => void res.json({ uploads: recent(state.uploads, state.config.historyLimit) }),
  );
  router.get("/media/:id", (req, res) => {
    const id = String(req.params.id);
    const media = state.media.get(id);
    if (media) return void res.json(mediaView(state, media));
    const upload = state.uploads.find((u) => u.id === id);
    if (upload) return void res.json({ ...upload, origin: "uploaded", expired: false });
    res.status(404).json({ error: { message: `Mídia desconhecida: ${id}.` } });
  });
  router.post("/media/:id/expire", (req, res) => {
    const id = String(req.params.id);
    const media = state.media.get(id);
    if (!media) return void res.status(404).json({ error: { message: `Mídia desconhecida: ${id}.` } });
    media.expired = true;
    res.json(mediaView(state, media));
  });
}
