import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";

/**
 * Media uploads to Graph (`POST /{phone-number-id}/media`, meta-messages §2.3) as a multipart body written while the
 * file arrives: `messaging_product`, `type`, then the file part, sent with `Transfer-Encoding: chunked` so nothing
 * is held to learn its length. The file's bytes come from a stream the caller owns; the closing boundary is written
 * only once that stream ended, so a stream that fails (the caller's size cap, a client that went away) leaves an
 * unfinished multipart that Meta discards: nothing is created.
 */
export interface MetaUploadInput {
  /** The file's MIME type (no parameters: Meta refuses `audio/ogg; codecs=opus`), sent as `type` and on the part. */
  mimeType: string;
  /** The file part's name (Meta keeps it for documents). */
  filename: string;
  /** The file's bytes. Its error destroys the upload and is what the upload rejects with. */
  body: Readable;
}

export interface MetaUploadResult {
  /** Meta's media id. */
  id: string;
}

/** What an upload got back: Meta's answer, or a failure of the exchange (`connected`: bytes may have left). */
export type UploadExchange =
  | { kind: "answer"; status: number; text: string }
  | { kind: "failed"; code: string; connected: boolean; timedOut: boolean; cause: unknown }
  | { kind: "body_failed"; error: unknown };

const ANSWER_LIMIT = 64 * 1024;

/** `filename="…"` as browsers write it (WHATWG multipart): `"` and line breaks percent-encoded, UTF-8 bytes raw. */
function multipartFilename(name: string): string {
  return name.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export interface MediaUploader {
  upload(url: URL, input: MetaUploadInput): Promise<UploadExchange>;
}

export function createMediaUploader(options: {
  secure: boolean;
  headers: Record<string, string>;
  /** The longest gap without progress (connect, a write, the answer). */
  idleTimeoutMs: number;
  /** The whole upload ends within this. */
  deadlineMs: number;
}): MediaUploader {
  const request = options.secure ? https.request : http.request;
  const connectEvent = options.secure ? "secureConnect" : "connect";

  function upload(url: URL, input: MetaUploadInput): Promise<UploadExchange> {
    const boundary = `----gw${randomBytes(16).toString("hex")}`;
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const head = Buffer.from(
      part("messaging_product", "whatsapp") +
        part("type", input.mimeType) +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${multipartFilename(input.filename)}"\r\n` +
        `Content-Type: ${input.mimeType}\r\n\r\n`,
      "utf8",
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`, "utf8");

    return new Promise<UploadExchange>((resolve) => {
      let connected = false;
      let timedOut = false;
      let settled = false;
      const settle = (outcome: UploadExchange) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(outcome);
      };
      const req = request(url, {
        method: "POST",
        headers: { ...options.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      const deadline = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error(`upload not done within ${options.deadlineMs} ms`));
      }, options.deadlineMs);
      req.setTimeout(options.idleTimeoutMs, () => {
        timedOut = true;
        req.destroy(new Error(`upload idle for ${options.idleTimeoutMs} ms`));
      });
      req.once("socket", (socket) => {
        if (!socket.connecting) connected = true;
        else
          socket.once(connectEvent, () => {
            connected = true;
          });
      });
      req.once("error", (error: NodeJS.ErrnoException) =>
        settle({
          kind: "failed",
          code: timedOut ? "ETIMEDOUT" : (error.code ?? "unknown"),
          connected,
          timedOut,
          cause: error,
        }),
      );
      // Meta may answer before the file ended (a refused type): its answer is what counts; the rest is not sent.
      req.once("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          if (size < ANSWER_LIMIT) chunks.push(chunk);
          size += chunk.length;
        });
        res.once("end", () => {
          settle({
            kind: "answer",
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).subarray(0, ANSWER_LIMIT).toString("utf8"),
          });
          if (!req.writableFinished) req.destroy();
        });
        res.once("error", (error: NodeJS.ErrnoException) =>
          settle({ kind: "failed", code: error.code ?? "ECONNRESET", connected: true, timedOut, cause: error }),
        );
      });

      void (async () => {
        try {
          if (!req.write(head)) await once(req, "drain");
          for await (const chunk of input.body as AsyncIterable<Buffer>) {
            if (settled || req.destroyed) return;
            if (!req.write(chunk)) await once(req, "drain");
          }
          if (settled || req.destroyed) return;
          req.end(tail);
        } catch (error) {
          // The caller's stream failed (its cap, its client gone) or the request died: never finish the multipart.
          if (!settled && !req.destroyed) {
            settle({ kind: "body_failed", error });
            req.destroy();
          } else if (!settled) {
            settle({ kind: "body_failed", error });
          }
        }
      })();
    });
  }

  return { upload };
}
