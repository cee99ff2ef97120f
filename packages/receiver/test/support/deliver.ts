// Builds and sends signed webhook requests the way the gateway's dispatcher does (spec 5.4, 6.1).
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signWebhook } from "@gw/signer";
import type { MessageReceivedEvent, MessageStatusEvent } from "../../src/index.ts";

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function receivedEvent(deliveryId = "101"): MessageReceivedEvent {
  return {
    event: "message.received",
    occurred_at: "2026-11-22T12:00:00.000Z",
    delivery_id: deliveryId,
    data: {
      message_id: "wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjA",
      from: "5511987654321",
      phone_number_id: "100000000000001",
      type: "text",
      text: "Oi! Tudo bem?",
      media_id: null,
      media_mime: null,
      media_filename: null,
      reply_to_message_id: null,
      contact_name: "Maria",
      occurred_at: "2026-11-22T11:59:58.000Z",
      window_expires_at: "2026-11-23T11:59:58.000Z",
    },
  };
}

export function failedStatusEvent(deliveryId = "202"): MessageStatusEvent {
  return {
    event: "message.status",
    occurred_at: "2026-11-22T12:00:01.000Z",
    delivery_id: deliveryId,
    data: {
      message_id: "wamid.out-1",
      status: "failed",
      status_rank: 1,
      to: "5511987654321",
      error: { code: 131026, message: "Mensagem não entregue.", reason: "recipient_unreachable" },
      phone_number_id: "100000000000001",
      client_ref: "pedido-42",
      campaign_id: null,
    },
  };
}

export interface DeliverOptions {
  secret: string;
  body: string;
  event?: string;
  deliveryId?: string;
  attempt?: number;
  timestamp?: number;
  signature?: string;
  /** A rotation's overlap: also send X-PT-Signature-Previous made with this (replaced) secret. */
  previousSecret?: string;
}

/** POSTs `body` signed with `secret`, with the headers of spec 6.1 (event and delivery id taken from the body). */
export async function deliver(url: string, options: DeliverOptions): Promise<{ status: number; body: unknown }> {
  const parsed = JSON.parse(options.body) as { event?: string; delivery_id?: string };
  const timestamp = options.timestamp ?? nowSeconds();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-PT-Timestamp": String(timestamp),
      "X-PT-Signature": options.signature ?? signWebhook(options.secret, timestamp, options.body),
      "X-PT-Delivery-Id": options.deliveryId ?? parsed.delivery_id ?? "",
      "X-PT-Attempt": String(options.attempt ?? 1),
      "X-PT-Event": options.event ?? parsed.event ?? "",
      ...(options.previousSecret === undefined
        ? {}
        : { "X-PT-Signature-Previous": signWebhook(options.previousSecret, timestamp, options.body) }),
    },
    body: options.body,
    redirect: "manual",
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

export async function listen(server: Server): Promise<string> {
  if (!server.listening) await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
