import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Request, RequestHandler, Response, Router } from "express";
import {
  createIngestBatcher,
  MalformedWebhookError,
  type IngestBatcherOptions,
  type IngestDeps,
} from "@gw/core/ingest";
import type { DownloadSlots } from "@gw/http";
import { safeEqual, verifyMetaSignature } from "@gw/signer";
import { answerBeforeBody, type DiscardLimits } from "../http/early-answer.ts";

export interface ProviderWebhookDeps extends IngestDeps {
  appSecret: string;
  verifyToken: string;
  /** Largest body read (Meta's payloads stay well below it). */
  bodyLimitBytes: number;
  /**
   * Bodies this process reads at once before their signature is checked (META_WEBHOOK_MAX_UNVERIFIED, no line):
   * past them a request is answered 503 unread. At most this many times `bodyLimitBytes` is held unverified.
   */
  unverifiedBodies: DownloadSlots;
  /** How long a body may take to arrive (META_WEBHOOK_BODY_TIMEOUT_MS); a slower one is answered 408. */
  bodyTimeoutMs: number;
  /** Status webhooks that arrive together share one transaction; absent: each alone. */
  groupCommit?: IngestBatcherOptions;
}

const SIGNATURE_HEADER = /^sha256=[0-9a-f]{64}$/i;

/**
 * The body of a request refused before it was read whole (no signature header, a length over the limit declared or
 * reached, too many bodies being read, too slow) is read and thrown away before its connection closes, so the sender
 * reads its answer rather than a reset: in full up to 16 MiB (above the largest configurable body limit, 10 MiB),
 * for at most 5 s.
 */
const DISCARD_AFTER_EARLY_ANSWER: DiscardLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/** Meta's webhook answers its own JSON, never the public API's envelope. */
type Refusal = { status: number; error: string };

const REFUSED = {
  unsigned: { status: 401, error: "invalid signature" },
  tooLarge: { status: 413, error: "body too large" },
  unreadable: { status: 400, error: "unreadable body" },
  tooSlow: { status: 408, error: "body too slow" },
  busy: { status: 503, error: "busy" },
} satisfies Record<string, Refusal>;

/**
 * Answers a refusal while the sender may still be sending: at once, then what it still sends is read away (bounded)
 * before the connection closes. A body already read to its end is answered as usual.
 */
function refuse(req: Request, res: Response, refusal: Refusal): void {
  if (req.readableEnded) {
    res.status(refusal.status).json({ error: refusal.error });
    return;
  }
  answerBeforeBody(req, res, { status: refusal.status, body: { error: refusal.error } }, DISCARD_AFTER_EARLY_ANSWER);
  // A body left mid-way (the limit, the time) was paused by its reader.
  req.resume();
}

type BodyRead =
  { kind: "read"; raw: Buffer } | { kind: "refused"; refusal: Refusal; reason: string } | { kind: "gone" };

/** The decoders of body-parser's (Content-Encoding); null: the bytes as they are; undefined: not one we read. */
function decoderFor(encoding: string): Transform | null | undefined {
  switch (encoding) {
    case "identity":
      return null;
    case "gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * Reads the body whole (the signature is over all of it), inflated as body-parser does, and stops at the first of:
 * its end, `limitBytes` passed (counted after inflating, so a chunked or compressed body is cut as soon as it passes,
 * not read to its end first), `timeoutMs` run out (Meta sends small bodies fast: a sender this slow only holds
 * memory), or the sender gone. What the sender still sends after a refusal is the caller's to read away.
 */
function readBody(req: Request, limitBytes: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const encoding = (req.header("content-encoding") ?? "identity").trim().toLowerCase() || "identity";
    const decoder = decoderFor(encoding);
    if (decoder === undefined) {
      resolve({ kind: "refused", refusal: REFUSED.unreadable, reason: `content encoding ${encoding} not read` });
      return;
    }
    const source = decoder ? req.pipe(decoder) : req;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.off("data", onData);
      source.off("end", onEnd);
      req.off("close", onClose);
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) settle({ kind: "refused", refusal: REFUSED.tooLarge, reason: "over the limit" });
      else chunks.push(chunk);
    };
    const onEnd = () => settle({ kind: "read", raw: Buffer.concat(chunks, size) });
    const onClose = () => {
      if (!req.complete) settle({ kind: "gone" });
    };
    const timer = setTimeout(
      () => settle({ kind: "refused", refusal: REFUSED.tooSlow, reason: `not read within ${timeoutMs} ms` }),
      timeoutMs,
    );
    source.on("data", onData);
    source.once("end", onEnd);
    // A decoder's error (the bytes do not inflate) or the request's own (the sender went away). Kept after the
    // settlement: a decoder destroyed mid-way may still report one.
    source.on("error", (error: Error) =>
      settle(
        req.destroyed && !req.complete
          ? { kind: "gone" }
          : { kind: "refused", refusal: REFUSED.unreadable, reason: error.message },
      ),
    );
    req.once("close", onClose);
  });
}

/**
 * Meta's webhook: GET verification handshake, POST signed events (X-Hub-Signature-256 over the raw body).
 * A request without a well-formed signature header is refused before a byte of its body is read, so
 * unauthenticated traffic costs no parsing and no memory (its body is then discarded as it arrives). A well-formed
 * header is no proof either (anyone can write one): the bodies read before their signature is checked are bounded
 * per process, in number (503 past them) and in time (408), so forged ones cannot pile up memory.
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
    refuse(req, res, REFUSED.unsigned);
  };

  // A declared length over the limit is refused at once, without waiting for the body. As in body-parser, only an
  // uncompressed body's length counts (the limit applies after inflating).
  const refuseDeclaredOversize: RequestHandler = (req, res, next) => {
    const declared = Number(req.header("content-length") ?? "0");
    const identity = (req.header("content-encoding") ?? "identity").toLowerCase() === "identity";
    if (!identity || !(declared > deps.bodyLimitBytes)) return next();
    deps.logger.warn("provider webhook body not read", { error: "declared length over the limit", declared });
    refuse(req, res, REFUSED.tooLarge);
  };

  router.post("/provider/meta/webhook", requireSignatureHeader, refuseDeclaredOversize, async (req, res) => {
    // Meta answered 503 retries the same bytes later (its backoff, up to 7 days): nothing is lost.
    const release = await deps.unverifiedBodies.acquire();
    if (!release) {
      deps.logger.warn("provider webhook body not read", { error: "too many bodies being read" });
      res.setHeader("Retry-After", "5");
      refuse(req, res, REFUSED.busy);
      return;
    }
    let raw: Buffer;
    try {
      const read = await readBody(req, deps.bodyLimitBytes, deps.bodyTimeoutMs);
      if (read.kind === "gone") return;
      if (read.kind === "refused") {
        deps.logger.warn("provider webhook body not read", { error: read.reason });
        refuse(req, res, read.refusal);
        return;
      }
      raw = read.raw;
      if (!verifyMetaSignature(deps.appSecret, raw, req.header("x-hub-signature-256"))) {
        deps.logger.warn("provider webhook with an invalid signature");
        res.status(401).json({ error: "invalid signature" });
        return;
      }
    } finally {
      // Verified or refused, the body no longer counts: what is ingested is Meta's.
      release();
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
