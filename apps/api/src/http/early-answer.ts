import type { Request, Response } from "express";

/** How much of a refused request's body is read and thrown away, and for how long, before its connection closes. */
export interface DiscardLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * Answers `status` with a JSON body before a byte of the request's body is read, then reads the rest of the body and
 * throws it away (never kept) before closing the connection: a socket closed with data unread sends a reset, which
 * can reach the client before it has read the answer (it then sees ECONNRESET or EPIPE, never the status). The
 * whole answer is written at once, with its length, so the client has all of it; ending the response is what lets
 * Node close the connection, so that waits for the body's end, at most `maxBytes` of it or `maxMs` (the client had
 * its answer long before: only then is a reset possible).
 */
export function answerBeforeBody(
  req: Request,
  res: Response,
  answer: { status: number; body: unknown },
  limits: DiscardLimits,
): void {
  const text = JSON.stringify(answer.body);
  res.status(answer.status);
  res.setHeader("Connection", "close");
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.write(text);
  let discarded = 0;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    req.off("data", onData);
    res.end();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) close();
  };
  const timer = setTimeout(close, limits.maxMs);
  req.on("data", onData);
  req.once("end", close);
  req.once("close", close);
}
