import { createLogger } from "@gw/logger";
import type { Logger } from "@gw/logger";

/** A real @gw/logger whose console output is muted; every formatted entry is kept as JSON text. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const logger = createLogger({ service: "meta-test", level: "debug" });
  for (const transport of logger.transports) transport.silent = process.env.TEST_LOG !== "1";
  const lines: string[] = [];
  logger.on("data", (info: unknown) => lines.push(JSON.stringify(info)));
  return { logger, lines };
}

/** Calls the sandbox's control API. */
export async function control(baseUrl: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}/_sandbox/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`sandbox control ${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

export interface RecordedRequest {
  method: string;
  path: string;
  url: string;
  status: number | null;
  fault: string | null;
}
