// The delivery tests of @gw/core and @gw/dispatcher: a real HTTP receiver on loopback that records every request,
// and account/integration/delivery rows written with Prisma as the producer writes them.
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Db } from "@gw/db";
import { safeEqual, signWebhook } from "@gw/signer";
import { testSecretBox } from "./env.ts";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as received, decoded as UTF-8. */
  body: string;
  /** Local clock when the body was complete. */
  receivedAt: number;
}

export type ReceiverHandler = (request: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Requests whose handler has not answered yet. */
  open: Set<ServerResponse>;
  setHandler(handler: ReceiverHandler): void;
  close(): Promise<void>;
}

/** A node:http endpoint on 127.0.0.1 that records every request and answers through `handler`. */
export async function startReceiver(handler: ReceiverHandler): Promise<Receiver> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      const index = requests.push(request) - 1;
      open.add(res);
      res.on("close", () => open.delete(res));
      void Promise.resolve(current(request, res, index)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 1_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    open,
    setHandler(next) {
      current = next;
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function reply(res: ServerResponse, status: number, body = "", headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(body);
}

/** Spec 5.6: the receiver's check, over the raw body. */
export function signatureIsValid(secret: string, request: ReceivedRequest): boolean {
  const timestamp = request.headers["x-pt-timestamp"];
  const signature = request.headers["x-pt-signature"];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  if (!/^\d{1,12}$/.test(timestamp) || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  return safeEqual(signWebhook(secret, timestamp, request.body), signature);
}

export interface Fixture {
  accountId: string;
  integrationId: string;
  secret: string;
}

/** An account and its integration, the signing secret sealed with testSecretBox() as the services store it. */
export async function createFixture(db: Db, url: string, options: { active?: boolean } = {}): Promise<Fixture> {
  const secret = `whsec_${randomBytes(16).toString("hex")}`;
  const account = await db.account.create({ data: { name: `Conta ${randomBytes(3).toString("hex")}` } });
  const id = randomUUID();
  const integration = await db.integration.create({
    data: {
      id,
      accountId: account.id,
      url,
      events: ["message.status", "message.received"],
      signingSecretEncrypted: testSecretBox().seal(secret, { table: "integrations", id, field: "signing_secret" }),
      active: options.active ?? true,
    },
  });
  return { accountId: account.id, integrationId: integration.id, secret };
}

/**
 * A pending delivery as the producer writes it: the envelope serialized once, with non-ASCII text and an
 * unusual key order / spacing so that any re-serialization would change the bytes.
 */
export async function createDelivery(
  db: Db,
  fixture: Fixture,
  event = "message.status",
): Promise<{ id: bigint; body: string }> {
  const occurredAt = new Date();
  const row = await db.delivery.create({
    data: {
      accountId: fixture.accountId,
      integrationId: fixture.integrationId,
      event,
      status: "pending",
      body: "{}",
      occurredAt,
      // As the outbox writes it: every pending delivery is due at some time (the sweep reads by it).
      nextAttemptAt: occurredAt,
    },
  });
  const body =
    `{"event":"${event}","occurred_at":"${occurredAt.toISOString()}","delivery_id":"${row.id}",` +
    `"data": {"message_id":"wamid.${row.id}","status":"delivered","status_rank":3,"to":"5511999990000","error":null,` +
    `"phone_number_id":"1234","client_ref":"pedido-ação-nº1","campaign_id":null}}`;
  await db.delivery.update({ where: { id: row.id }, data: { body } });
  return { id: row.id, body };
}
