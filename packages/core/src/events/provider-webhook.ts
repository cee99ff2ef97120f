import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import { applyInbound, type MetaContact, type MetaInboundMessage } from "./inbound.ts";
import { applyStatus, type ProviderStatusUpdate } from "./message-status.ts";
import type { Outbox } from "./outbox.ts";

interface MetaWebhookBody {
  object?: string;
  entry?: {
    id?: string;
    changes?: {
      field?: string;
      value?: {
        metadata?: { phone_number_id?: string; display_phone_number?: string };
        contacts?: MetaContact[];
        messages?: MetaInboundMessage[];
        statuses?: ProviderStatusUpdate[];
      };
    }[];
  }[];
}

export class MalformedWebhookError extends Error {}

export interface IngestResult {
  statuses: number;
  messages: number;
  deliveries: number;
}

/**
 * Apply one (signature-checked) provider webhook: store it raw, apply statuses and inbound messages, and
 * create the outbox deliveries, all in one transaction committed before Meta gets its 200. A storage
 * failure throws, so the route answers 5xx and Meta retries; duplicates are applied once.
 */
export async function ingestProviderWebhook(
  deps: { db: Db; outbox: Outbox; logger: Logger },
  rawBody: string,
): Promise<IngestResult> {
  let body: MetaWebhookBody;
  try {
    body = JSON.parse(rawBody) as MetaWebhookBody;
  } catch {
    throw new MalformedWebhookError("corpo não é JSON");
  }
  const result: IngestResult = { statuses: 0, messages: 0, deliveries: 0 };
  const deliveryIds = await deps.db.$transaction(async (tx) => {
    // createMany: no RETURNING of the (possibly large) body we already hold.
    await tx.providerEvent.createMany({ data: [{ body: rawBody }] });
    const ids: bigint[] = [];
    for (const entry of body.entry ?? []) {
      for (const change of entry.changes ?? []) {
        if (change.field !== "messages" || !change.value) continue;
        const value = change.value;
        // By wamid (stable, so one message's statuses keep their order): two webhooks touching the same
        // messages then take the per-wamid locks in the same order and cannot deadlock.
        const statuses = [...(value.statuses ?? [])].sort((a, b) => (a?.id ?? "").localeCompare(b?.id ?? ""));
        for (const status of statuses) {
          if (typeof status?.id !== "string" || typeof status.status !== "string") continue;
          ids.push(...(await applyStatus(tx, status)));
          result.statuses++;
        }
        const phoneNumberId = value.metadata?.phone_number_id;
        if (!value.messages?.length || !phoneNumberId) continue;
        const number = await tx.businessNumber.findUnique({ where: { phoneNumberId } });
        if (!number) {
          deps.logger.warn("inbound message for an unknown business number", { phoneNumberId });
          continue;
        }
        for (const message of value.messages) {
          if (typeof message?.id !== "string" || typeof message.from !== "string") continue;
          ids.push(...(await applyInbound(tx, number.accountId, phoneNumberId, message, value.contacts ?? [])));
          result.messages++;
        }
      }
    }
    return ids;
  });
  result.deliveries = deliveryIds.length;
  await deps.outbox.dispatch(deliveryIds);
  return result;
}
