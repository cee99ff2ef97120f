// `sendCsv` streams the API's and the panel's CSV downloads through `pipeline`. Over a real HTTP server: a client
// that destroys its socket mid-file ends the source (the generator's `finally` runs) before the call settles; a
// source that fails half-way cuts the answer and ends too; a whole file arrives whole.
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import express from "express";
import { createLogger } from "@gw/logger";
import { sendCsv, type CsvDownloadEnd } from "../src/index.ts";

const logger = createLogger({ service: "http-test", silent: true });

interface Source {
  lines: AsyncIterable<string>;
  /** Lines read from it so far. */
  read: () => number;
  /** Whether its `finally` ran. */
  finished: () => boolean;
}

/** A source of `total` lines of 1 KiB (unending when `total` is Infinity), failing after `failAfter` when given. */
function source(total: number, failAfter = Infinity): Source {
  let read = 0;
  let finished = false;
  async function* lines() {
    try {
      yield '"n","payload"\r\n';
      for (let n = 1; n <= total; n++) {
        if (n > failAfter) throw new Error("the database went away");
        await new Promise((resolve) => setImmediate(resolve));
        read++;
        yield `${n},"${"x".repeat(1024)}"\r\n`;
      }
    } finally {
      finished = true;
    }
  }
  return { lines: lines(), read: () => read, finished: () => finished };
}

let server: Server;
let url: string;
let next: Source;
/** Each download's end, and whether its source's `finally` had run by then. */
let ended: Promise<{ end: CsvDownloadEnd; finishedFirst: boolean }>;

beforeAll(async () => {
  const app = express();
  app.get("/file.csv", (_req, res) => {
    const current = next;
    ended = sendCsv(res, { filename: "file.csv", lines: current.lines, log: { download: "test" } }, logger).then(
      (end) => ({ end, finishedFirst: current.finished() }),
    );
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file.csv`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

/** Settles when `promise` does, or fails the test after 10 s: the download never ended. */
function within<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error("the download never ended")), 10_000).unref(),
    ),
  ]);
}

/** GETs the file; destroys the socket after the first chunk when `leave`. */
function download(
  leave: boolean,
): Promise<{ status: number; headers: Record<string, unknown>; text: string; complete: boolean }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false });
    let text = "";
    let status = 0;
    let headers: Record<string, unknown> = {};
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      headers = res.headers;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        if (leave) req.destroy();
      });
      res.on("end", () => resolve({ status, headers, text, complete: res.complete }));
    });
    req.on("error", () => undefined);
    req.on("close", () => resolve({ status, headers, text, complete: false }));
    req.end();
  });
}

describe("a CSV download streamed with sendCsv", () => {
  it("ends its source when the client destroys its socket mid-file: the generator's finally runs, the call settles", async () => {
    next = source(Infinity);
    const got = await download(true);
    expect(got.status).toBe(200);
    expect(got.text.startsWith('"n","payload"\r\n')).toBe(true);
    expect(await within(ended)).toEqual({ end: "client_gone", finishedFirst: true });
    // Read as the client took it: a few lines in the socket's buffers, not the unending rest.
    expect(next.read()).toBeLessThan(100_000);
  });

  it("cuts the answer when its source fails half-way, and settles", async () => {
    next = source(10_000, 200);
    const got = await download(false);
    expect(got.complete).toBe(false);
    expect(await within(ended)).toEqual({ end: "failed", finishedFirst: true });
  });

  it("sends a whole file whole, with the download's headers", async () => {
    next = source(3_000);
    const got = await download(false);
    expect(got.complete).toBe(true);
    expect(got.headers).toMatchObject({
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="file.csv"',
      "cache-control": "no-store",
    });
    expect(got.text.split("\r\n").filter(Boolean)).toHaveLength(3_001);
    expect(await within(ended)).toEqual({ end: "sent", finishedFirst: true });
  });
});
