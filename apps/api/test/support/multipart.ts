import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";

/** The sandbox's real sample files (apps/provider-sandbox/src/media/samples). */
export function sample(name: "document.pdf" | "image.jpg" | "image.png" | "sticker.webp" | "audio.ogg" | "video.mp4") {
  return readFileSync(new URL(`../../../provider-sandbox/src/media/samples/${name}`, import.meta.url));
}

/** A GIF (a type WhatsApp does not carry). */
export const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

export type Part = { name: string; value: string } | { name: string; file: Buffer; type: string; filename: string };

/** A quoted-string's content: a backslash escapes the next character (RFC 9110; busboy and curl read it so). */
function quotedStringContent(text: string): string {
  return text.replace(/[\\"]/g, (c) => `\\${c}`);
}

/** A multipart/form-data body (its boundary in `contentType`), optionally without its closing boundary. */
export function multipart(parts: Part[], options: { unterminated?: boolean } = {}) {
  const boundary = `----test${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ("value" in part) {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${quotedStringContent(part.filename)}"\r\nContent-Type: ${part.type}\r\n\r\n`,
        ),
        part.file,
        Buffer.from("\r\n"),
      );
    }
  }
  if (!options.unterminated) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
}

function read(res: http.IncomingMessage): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.once("error", reject);
    res.once("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
    });
  });
}

/**
 * An upload sent over node:http as the test says: all at once with its Content-Length, or chunked (no length), in
 * pieces the caller writes. `held` leaves the request open after `first` so the upload stays in flight.
 */
export function rawUpload(
  apiUrl: string,
  auth: Record<string, string>,
  body: { contentType: string; bytes: Buffer },
  options: { chunked?: boolean; path?: string } = {},
) {
  const url = new URL(options.path ?? "/public/v1/media", apiUrl);
  const req = http.request(url, {
    method: "POST",
    headers: {
      ...auth,
      "content-type": body.contentType,
      ...(options.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.bytes.length) }),
    },
  });
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req.once("response", (res) => void read(res).then(resolve, reject));
    req.once("error", reject);
  });
  answer.catch(() => undefined);
  return {
    req,
    answer,
    /** Writes the whole body and ends the request. */
    send(): Promise<RawAnswer> {
      req.end(body.bytes);
      return answer;
    },
    /** Writes bytes [from, to) of the body and leaves the request open. */
    write(from: number, to: number): void {
      req.write(body.bytes.subarray(from, to));
    },
    end(from: number): Promise<RawAnswer> {
      req.end(body.bytes.subarray(from));
      return answer;
    },
    abort(): void {
      req.destroy();
    },
  };
}
