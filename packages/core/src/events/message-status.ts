import type { DbTx, Prisma } from "@gw/db";
import { mapMetaError } from "@gw/errors";
import { createDeliveries } from "./outbox.ts";

/**
 * The message status machine of spec 3.1. `accepted` is our own state between the provider's synchronous
 * acceptance and its first `sent` status, so that `sent` is itself a change and reaches the integrator.
 */
export const STATUS_RANK = { failed: 1, sent: 2, delivered: 3, read: 4 } as const;
export type ProviderStatus = keyof typeof STATUS_RANK;
export type StoredStatus = ProviderStatus | "accepted";

/** Whether `next` replaces `current`. Failures are not compared by rank (spec 3.1). */
export function shouldApply(current: StoredStatus, next: ProviderStatus): boolean {
  if (current === "failed") return false;
  if (next === "failed") return current === "accepted" || current === "sent";
  if (current === "accepted") return true;
  return STATUS_RANK[next] > STATUS_RANK[current];
}

// A type alias, not an interface: it is stored as Prisma JSON (early_statuses), which needs an index signature.
export type ProviderStatusUpdate = {
  id: string;
  status: string;
  timestamp?: string;
  recipient_id?: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
};

function isProviderStatus(value: string): value is ProviderStatus {
  return Object.hasOwn(STATUS_RANK, value);
}

/**
 * Apply one provider status to the stored message. Returns the deliveries created (none when the state did
 * not change, when the status is unknown to the machine, or when the message is not stored yet: then the
 * status is kept in early_statuses and applied when the send commits).
 */
/**
 * Serializes, per wamid, the send's commit with the provider's statuses for it. Without it a status whose
 * webhook runs while the send transaction is still open neither sees the new row nor waits for it: it would
 * be parked in early_statuses after the send had already looked there, and never applied.
 */
async function lockWamid(tx: DbTx, wamid: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${wamid}, 0))`;
}

/**
 * Store a message the provider just accepted (status `accepted`) and apply any status that arrived before
 * this commit. Returns the deliveries those statuses created.
 */
export async function storeAcceptedMessage(
  tx: DbTx,
  message: Omit<Prisma.MessageUncheckedCreateInput, "status"> & { wamid: string },
): Promise<bigint[]> {
  await lockWamid(tx, message.wamid);
  await tx.message.create({ data: { ...message, status: "accepted" } });
  return applyEarlyStatuses(tx, message.wamid);
}

export async function applyStatus(
  tx: DbTx,
  update: ProviderStatusUpdate,
  { deferIfUnknown = true } = {},
): Promise<bigint[]> {
  if (!isProviderStatus(update.status)) return [];
  const next = update.status;
  if (deferIfUnknown) await lockWamid(tx, update.id);
  // Row lock: concurrent webhooks for the same message apply one after the other.
  const rows = await tx.$queryRaw<
    { id: string; status: StoredStatus }[]
  >`SELECT id, status FROM messages WHERE wamid = ${update.id} FOR UPDATE`;
  const current = rows[0];
  if (!current) {
    if (deferIfUnknown) await tx.earlyStatus.create({ data: { wamid: update.id, payload: update } });
    return [];
  }
  if (!shouldApply(current.status, next)) return [];

  const error = next === "failed" ? update.errors?.[0] : undefined;
  const errorCode = error?.code ?? null;
  const errorMessage = error ? (error.error_data?.details ?? error.message ?? error.title ?? null) : null;
  const errorReason = next === "failed" ? mapMetaError(errorCode ?? -1, errorMessage) : null;
  const statusAt =
    update.timestamp && /^\d+$/.test(update.timestamp) ? new Date(Number(update.timestamp) * 1000) : new Date();
  const message = await tx.message.update({
    where: { id: current.id },
    data: { status: next, statusAt, errorCode, errorMessage, errorReason },
  });
  return createDeliveries(tx, message.accountId, "message.status", {
    message_id: message.wamid,
    status: next,
    status_rank: STATUS_RANK[next],
    to: message.to,
    // Meta always sends errors[] with a failure; 0 stands for "no provider code" should it ever not.
    error: next === "failed" ? { code: errorCode ?? 0, message: errorMessage ?? "", reason: errorReason } : null,
    phone_number_id: message.phoneNumberId,
    client_ref: message.clientRef,
    campaign_id: message.campaignId,
  });
}

/** Statuses that arrived before the send committed, applied in arrival order right after it. */
export async function applyEarlyStatuses(tx: DbTx, wamid: string): Promise<bigint[]> {
  const early = await tx.earlyStatus.findMany({ where: { wamid }, orderBy: { id: "asc" } });
  if (early.length === 0) return [];
  const ids: bigint[] = [];
  for (const row of early)
    ids.push(...(await applyStatus(tx, row.payload as unknown as ProviderStatusUpdate, { deferIfUnknown: false })));
  await tx.earlyStatus.deleteMany({ where: { wamid } });
  return ids;
}
