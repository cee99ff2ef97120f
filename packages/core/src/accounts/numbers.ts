import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import type { MetaClient } from "@gw/meta";

export interface BusinessNumberQualityView {
  phone_number_id: string;
  waba_id: string;
  /** As the operator registered it. */
  display_number: string;
  is_default: boolean;
  /** The rate every send from this number is paced by (messages/s), as the operator set it (`number set-rate`). */
  messaging_rate_per_second: number;
  created_at: string;
  /** Meta's own display of the number, and the verified business name. */
  meta_display_phone_number: string | null;
  verified_name: string | null;
  /** Meta's quality rating (GREEN, YELLOW, RED; NA for a new number); UNKNOWN when Meta could not be read. */
  quality_rating: string;
  /** TIER_250, TIER_1K, TIER_10K, TIER_100K, TIER_UNLIMITED...; null when unknown. */
  messaging_limit_tier: string | null;
  /** STANDARD or HIGH; null when unknown. */
  throughput_level: string | null;
  /** Null when Meta answered; otherwise why the figures are unknown (a Portuguese sentence). */
  error: string | null;
  /**
   * What Meta's last phone_number_quality_update webhook said of the number (core/src/health), null until one came:
   * its quality when the payload had one, its messaging limit, HIGH after a throughput upgrade, the event and when.
   */
  reported: {
    quality: string | null;
    messaging_limit: string | null;
    throughput: string | null;
    event: string | null;
    at: string | null;
  };
}

/**
 * The account's business numbers with the quality rating and messaging tier Meta reports now, read through the
 * adapter (one call per number, together). A number Meta could not be asked about is still listed, as UNKNOWN with
 * the reason: one failing number never hides the others.
 */
export async function listBusinessNumbersWithQuality(
  deps: { db: Db; meta: Pick<MetaClient, "getPhoneNumber">; logger?: Logger },
  input: { accountId: string },
): Promise<BusinessNumberQualityView[]> {
  // Not a uuid: no account, so no numbers (and no cast error from the database).
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.accountId)) return [];
  const numbers = await deps.db.businessNumber.findMany({
    where: { accountId: input.accountId },
    orderBy: [{ isDefault: "desc" }, { createdAt: "asc" }, { id: "asc" }],
  });
  return Promise.all(
    numbers.map(async (number): Promise<BusinessNumberQualityView> => {
      const base = {
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        display_number: number.displayNumber,
        is_default: number.isDefault,
        messaging_rate_per_second: number.messagingRatePerSecond,
        created_at: number.createdAt.toISOString(),
        reported: {
          quality: number.reportedQuality,
          messaging_limit: number.reportedMessagingLimit,
          throughput: number.reportedThroughput,
          event: number.healthEvent,
          at: number.healthEventAt?.toISOString() ?? null,
        },
      };
      try {
        const meta = await deps.meta.getPhoneNumber(number.phoneNumberId);
        return {
          ...base,
          meta_display_phone_number: meta.displayPhoneNumber,
          verified_name: meta.verifiedName,
          quality_rating: meta.qualityRating ?? "UNKNOWN",
          messaging_limit_tier: meta.messagingLimitTier,
          throughput_level: meta.throughputLevel,
          error: null,
        };
      } catch (error) {
        deps.logger?.warn("business number quality not read", {
          accountId: input.accountId,
          phoneNumberId: number.phoneNumberId,
          error: (error as Error).message,
        });
        return {
          ...base,
          meta_display_phone_number: null,
          verified_name: null,
          quality_rating: "UNKNOWN",
          messaging_limit_tier: null,
          throughput_level: null,
          error: "Não foi possível consultar a Meta sobre este número agora.",
        };
      }
    }),
  );
}

export interface AccountNumberView {
  phone_number_id: string;
  display_number: string;
  is_default: boolean;
}

/** The account's business numbers as people know them, the default first (no call to Meta). */
export async function listAccountNumbers(deps: { db: Db }, input: { accountId: string }): Promise<AccountNumberView[]> {
  const numbers = await deps.db.businessNumber.findMany({
    where: { accountId: input.accountId },
    orderBy: [{ isDefault: "desc" }, { createdAt: "asc" }, { id: "asc" }],
  });
  return numbers.map((number) => ({
    phone_number_id: number.phoneNumberId,
    display_number: number.displayNumber,
    is_default: number.isDefault,
  }));
}
