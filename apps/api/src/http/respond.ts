import type { Response } from "express";

/** Send a pre-rendered JSON body as is: idempotent replays must be byte-for-byte identical. */
export function sendRaw(res: Response, status: number, body: string): void {
  res.status(status).type("application/json").send(Buffer.from(body, "utf8"));
}
