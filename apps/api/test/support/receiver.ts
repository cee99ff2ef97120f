import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webhookReceiver, type GatewayWebhookEvent, type WebhookMeta } from "@gw/receiver";

export interface ReceivedWebhook {
  event: GatewayWebhookEvent;
  meta: WebhookMeta;
  headers: Record<string, string | string[] | undefined>;
}

/** A real integrator endpoint on loopback that verifies every signature with the receiver package. */
export async function startReceiver(
  secret: () => string,
): Promise<{ url: string; received: ReceivedWebhook[]; rejected: number; close(): Promise<void> }> {
  const received: ReceivedWebhook[] = [];
  const state = { rejected: 0 };
  let current: { headers: ReceivedWebhook["headers"] } | null = null;
  const handler = webhookReceiver({
    getSecret: (req) => {
      current = { headers: req.headers };
      return secret();
    },
    onEvent: (event, meta) => {
      received.push({ event, meta, headers: current?.headers ?? {} });
    },
  });
  const server: Server = createServer((req, res) => {
    res.on("finish", () => {
      if (res.statusCode === 401) state.rejected++;
    });
    void handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    get rejected() {
      return state.rejected;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
