import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Response } from "express";
import type { Logger } from "@gw/logger";

export interface CsvDownload {
  /** The name the browser saves it under. */
  filename: string;
  /** The file, in chunks of whole lines, read only as fast as the client takes them. */
  lines: AsyncIterable<string>;
  /** Fields of the log line written when the download does not end normally (`{download: "campaign", ...}`). */
  log: Record<string, unknown>;
}

/** How a download ended. */
export type CsvDownloadEnd = "sent" | "client_gone" | "failed";

/**
 * Answers 200 with a CSV file streamed from `lines` through `pipeline`: a page is read when the client has taken the
 * previous one (at most one waits in the stream), and whatever ends the answer also ends the source. A client that
 * goes away mid-file ends the source (an async generator's `finally` runs, at its next `yield`) and the call then
 * resolves; waiting for `drain` instead waited for ever, the socket being gone. A source that fails half-way cuts the answer (the
 * socket is destroyed), so the client never takes a partial file for the whole. Never rejects: the status line is
 * gone by then, there is nothing left to answer.
 */
export async function sendCsv(res: Response, download: CsvDownload, logger: Logger): Promise<CsvDownloadEnd> {
  res.status(200);
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename="${download.filename}"`);
  res.setHeader("Cache-Control", "no-store");
  const source = Readable.from(download.lines, { objectMode: true, highWaterMark: 1 });
  // Settles once the source is closed too: `pipeline` settles when it destroys the source, before an async
  // generator busy with a query reaches its next `yield` and runs its `finally`.
  const sourceClosed = new Promise((resolve) => source.once("close", resolve));
  try {
    await pipeline(source, res);
    return "sent";
  } catch (error) {
    await sourceClosed;
    if ((error as NodeJS.ErrnoException).code === "ERR_STREAM_PREMATURE_CLOSE") {
      logger.info("csv download stopped: the client went away", download.log);
      return "client_gone";
    }
    logger.error("csv download failed half-way", { ...download.log, error: (error as Error).message });
    return "failed";
  }
}
