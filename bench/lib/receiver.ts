// Starting the helper processes (receiver, echo server) and reading the receiver's tallies.
import { freePort } from "@gw/testkit";
import type { Cleanup } from "./cleanup.ts";
import { launchHelper, waitUntilUp, type Child } from "./processes.ts";

export interface ReceiverReport {
  received: number;
  valid: number;
  unique: number;
  duplicates: number;
  duplicateIds: [string, number][];
  invalid: { signature: number; timestamp: number; headers: number; mismatch: number; body: number };
  invalidIds: string[];
  byStatus: Record<string, number>;
  byAttempt: Record<string, number>;
  firstAt: number | null;
  lastAt: number | null;
  perSecond?: number[];
  lagsMs?: number[];
  ids?: string[];
}

export interface Receiver {
  child: Child;
  url: string;
  report(what?: { ids?: boolean; lags?: boolean; series?: boolean }): Promise<ReceiverReport>;
}

/** A port for a helper that is started after its URL is needed (the integration URL is seeded first). */
export const reservePort = freePort;

export async function startReceiver(
  cleanup: Cleanup,
  stage: string,
  port: number,
  signingSecret: string,
): Promise<Receiver> {
  const child = launchHelper(
    cleanup,
    "receiver",
    "receiver.ts",
    { RECEIVER_PORT: String(port), RECEIVER_SECRET: signingSecret },
    { stage },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${base}/_health`, child);
  return {
    child,
    url: `${base}/webhooks`,
    async report(what = {}) {
      const query = new URLSearchParams();
      if (what.ids) query.set("ids", "1");
      if (what.lags) query.set("lags", "1");
      if (what.series) query.set("series", "1");
      const res = await fetch(`${base}/_report?${query.toString()}`);
      return (await res.json()) as ReceiverReport;
    },
  };
}

export interface EchoServer {
  child: Child;
  url: string;
}

export async function startEcho(cleanup: Cleanup, stage: string): Promise<EchoServer> {
  const port = await freePort();
  const child = launchHelper(cleanup, "echo", "echo.ts", { ECHO_PORT: String(port) }, { stage });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/healthz`, child);
  return { child, url };
}
