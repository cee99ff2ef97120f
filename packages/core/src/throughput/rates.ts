import type { Db } from "@gw/db";
import { auditAction, recordAudit, type Actor } from "../audit/audit.ts";

/** Meta's messaging rates: 80/s by default, up to 1 000/s; 20/s for a number shared with the WhatsApp Business app. */
export const MIN_MESSAGING_RATE = 1;
export const MAX_MESSAGING_RATE = 1_000;

/** A rate outside what Meta allows; its message is a Portuguese sentence for the operator. */
export class MessagingRateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MessagingRateError";
  }
}

export interface NumberRateView {
  phone_number_id: string;
  account_id: string;
  messaging_rate_per_second: number;
  previous_rate_per_second: number;
}

/**
 * Set the number's messaging rate (what Meta granted it). Every pod paces the number by it once its cached copy of
 * the number expires (NUMBER_CACHE_TTL_MS, 30 s by default). Null when the number is not connected to any account.
 */
export async function setNumberMessagingRate(
  deps: { db: Db },
  input: { phoneNumberId: string; ratePerSecond: number; actor: Actor },
): Promise<NumberRateView | null> {
  const rate = input.ratePerSecond;
  if (!Number.isInteger(rate) || rate < MIN_MESSAGING_RATE || rate > MAX_MESSAGING_RATE) {
    throw new MessagingRateError(
      `A vazão deve ser um número inteiro de mensagens por segundo entre ${MIN_MESSAGING_RATE} e ${MAX_MESSAGING_RATE} (a Meta concede 80 por padrão, até 1000; 20 para um número compartilhado com o app WhatsApp Business).`,
    );
  }
  return deps.db.$transaction(async (tx) => {
    const before = await tx.businessNumber.findUnique({ where: { phoneNumberId: input.phoneNumberId } });
    if (!before) return null;
    const after = await tx.businessNumber.update({
      where: { phoneNumberId: input.phoneNumberId },
      data: { messagingRatePerSecond: rate },
    });
    await recordAudit(tx, {
      accountId: after.accountId,
      actor: input.actor,
      action: auditAction(input.actor, "number.messaging_rate_changed"),
      target: `number:${after.phoneNumberId}`,
      details: { from: before.messagingRatePerSecond, to: rate },
    });
    return {
      phone_number_id: after.phoneNumberId,
      account_id: after.accountId,
      messaging_rate_per_second: after.messagingRatePerSecond,
      previous_rate_per_second: before.messagingRatePerSecond,
    };
  });
}
