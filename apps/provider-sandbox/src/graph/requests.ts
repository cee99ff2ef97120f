import type express from "express";
import { remember, type GraphRequestRecord, type SandboxState } from "../state.ts";

/**
 * Puts a Graph call in the request history (`state.requests`, GET /_sandbox/requests) as it arrives; its status is
 * filled in once the answer is sent. Returns the record, for a fault to be noted on it.
 */
export function recordGraphRequest(
  state: SandboxState,
  req: express.Request,
  res: express.Response,
  path: string,
): GraphRequestRecord {
  const record: GraphRequestRecord = {
    method: req.method,
    path,
    url: req.originalUrl,
    status: null,
    fault: null,
    at: new Date(state.now()).toISOString(),
  };
  remember(state.requests, record, state.config.historyLimit);
  res.on("finish", () => {
    record.status = res.statusCode;
  });
  return record;
}
