import express, { type RequestHandler, type Router } from "express";
import {
  createIngestBatcher,
  MalformedWebhookError,
  type IngestBatcherOptions,
  type IngestDeps,
} from "@gw/core/ingest";
import { safeEqual, verifyMetaSignature } from "@gw/signer";
import { answerBeforeBody, type DiscardLimits } from "../http/early-answer.ts";
import { clientErrorStatus } from "../http/errors.ts";

export interface ProviderWebhookDeps extends IngestDeps {
  appSecret: string;
  verifyToken: string;
  /** Largest body read (Meta's payloads stay well below it). */
  bodyLimitBytes: number;
  /** Status webhooks that arrive together share one transaction; absent: each alone. */
  groupCommit?: IngestBatcherOptions;
}

const SIGNATURE_HEADER = /^sha256=[0-9a-f]{64}$/i;

/**
 * The body of a request refused before it is read (no signature header, a declared length over the limit) is read
 * and thrown away before its connection closes, so the sender reads its answer rather than a reset: in full up to
 * 16 MiB (above the largest configurable body limit, 10 MiB), for at most 5 s.
 */
const DISCARD_AFTER_EARLY_ANSWER: DiscardLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/**
 * Meta's webhook: GET verification handshake, POST signed events (X-Hub-Signature-256 over the raw body).
 * A request without a well-formed signature header is refused before a byte of its body is read, so
 * unauthenticated traffic costs no parsing and no memory (its body is then discarded as it arrives).
 */
export function register(router: Router, deps: ProviderWebhookDeps): void {
  const ingest = createIngestBatcher(deps, deps.groupCommit ?? { maxPayloads: 1, maxInFlight: 1 });
  router.get("/provider/meta/webhook", (req, res) => {
    const mode = req.query["hub.mode"];
    const token = req.query["hub.verify_token"];
    const challenge = req.query["hub.challenge"];
    if (
      mode === "subscribe" &&
      typeof token === "string" &&
      safeEqual(token, deps.verifyToken) &&
      typeof challenge === "string"
    ) {
      res.status(200).type("text/plain").send(challenge);
      return;
    }
    res.status(403).type("text/plain").send("Forbidden");
  });

  const requireSignatureHeader: RequestHandler = (req, res, next) => {
    if (SIGNATURE_HEADER.test(req.header("x-hub-signature-256") ?? "")) return next();
    deps.logger.warn("provider webhook without a valid signature header");
    answerBeforeBody(req, res, { status: 401, body: { error: "invalid signature" } }, DISCARD_AFTER_EARLY_ANSWER);
  };

  // A declared length over the limit is refused at once: body-parser would read (and drop) the whole body before its
  // 413. As in body-parser, only an uncompressed body's length counts (the limit applies after inflating).
  const refuseDeclaredOversize: RequestHandler = (req, res, next) => {
    const declared = Number(req.header("content-length") ?? "0");
    const identity = (req.header("content-encoding") ?? "identity").toLowerCase() === "identity";
    if (!identity || !(declared > deps.bodyLimitBytes)) return next();
    deps.logger.warn("provider webhook body not read", { error: "declared length over the limit", declared });
    answerBeforeBody(req, res, { status: 413, body: { error: "body too large" } }, DISCARD_AFTER_EARLY_ANSWER);
  };

  // Meta reads this endpoint's own JSON answers, not the public API's envelope: a body that cannot be read (too
  // large, not inflatable, cut short) is answered here rather than by the app's error handler.
  const readRaw = express.raw({ type: () => true, limit: deps.bodyLimitBytes });
  const readBody: RequestHandler = (req, res, next) =>
    readRaw(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const tooLarge = clientErrorStatus(error) === 413;
      deps.logger.warn("provider webhook body not read", { error: (error as Error).message });
      res.status(tooLarge ? 413 : 400).json({ error: tooLarge ? "body too large" : "unreadable body" });
    });

  router.post("/provider/meta/webhook", requireSignatureHeader, refuseDeclaredOversize, readBody, async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifyMetaSignature(deps.appSecret, raw, req.header("x-hub-signature-256"))) {
      deps.logger.warn("provider webhook with an invalid signature");
      res.status(401).json({ error: "invalid signature" });
      return;
    }
    try {
      const result = await ingest.ingest(raw.toString("utf8"));
      res.status(200).json({ received: true, ...result });
    } catch (error) {
      if (error instanceof MalformedWebhookError) {
        res.status(400).json({ error: "malformed body" });
        return;
      }
      // Nothing was committed: a 5xx makes Meta deliver it again.
      deps.logger.error("provider webhook not stored", { error });
      res.status(503).json({ error: "not stored" });
    }
  });
}
