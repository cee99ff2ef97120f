import { replaceUnstorable, type AccountUpdateData } from "@gw/contracts";
import type { Sql } from "@gw/db";
import type { MetaAccountEvent } from "@gw/meta";
import type { Actor } from "../audit/audit.ts";
import { subscribedDeliveries, type PendingDelivery } from "../deliveries/attempt/outbox.ts";
import { applyMessagingRate } from "../throughput/rates.ts";
import { blockSending, lockWabaHealth, unblockSending } from "./blocks.ts";
import {
  HIGH_THROUGHPUT_RATE,
  TEMPLATE_CATALOGUE_FIELDS,
  displayNumberDigits,
  eventName,
  healthAction,
  reportedLimit,
  reportedMaxPhoneNumbers,
  reportedQuality,
  type HealthAction,
} from "./meta-events.ts";

/** One account or number health event (Meta's account_update, phone_number_quality_update...), for an account. */
export interface AccountEventInput {
  accountId: string;
  event: MetaAccountEvent;
}

/**
 * Who acts when the gateway acts on Meta's word (a campaign paused, a rate raised, sends blocked): audited as
 * `system.<noun>.<verb>` by `meta`, with the stored event's id in the details.
 */
export const META_ACTOR: Actor = { id: "meta", origin: "system", requestId: null };

type AccountEventEffects = AccountUpdateData["effects"];

/**
 * Pauses, inside the caller's transaction, every running or scheduled campaign of the account sending from one of
 * `phoneNumberIds`, keeping `reason`; the ids paused. Campaigns' `pauseCampaignsOfNumbers`, passed in by the
 * ingestion (campaigns sit above health: they read its sending blocks).
 */
export type PauseCampaignsOfNumbers = (
  sql: Sql,
  input: {
    accountId: string;
    actor: Actor;
    phoneNumberIds: readonly string[];
    reason: string;
    details?: Record<string, string>;
  },
) => Promise<string[]>;

/** What applying health events needs besides the transaction and the events. */
export interface ApplyAccountEventsOptions {
  /** When the webhook arrived: an event without Meta's time is ordered by it. */
  receivedAt: Date;
  pauseCampaigns: PauseCampaignsOfNumbers;
}

interface StoredEvent {
  id: string;
  accountId: string;
  wabaId: string;
  field: MetaAccountEvent["field"];
  event: string | null;
  value: Record<string, unknown>;
  /** Meta's time (`entry[].time`), else when the gateway received it: orders the WABA's events. */
  at: Date;
  /** The business numbers a phone_number_quality_update names (by display number), in the account and WABA. */
  numbers: { phoneNumberId: string; displayNumber: string }[];
}

/** Meta's value as jsonb takes it: a string holding U+0000 or a lone surrogate would refuse the whole payload. */
function storableValue(value: Record<string, unknown>): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "string" ? replaceUnstorable(item, "\ufffd") : item,
  );
}

// Meta's redeliveries (the same bytes, or the same change in another payload) are stored once per account: the key
// is the SHA-256 of the field, the WABA, Meta's time (seconds) and the value (jsonb's text is canonical: key order
// and spacing do not matter).
const STORE_EVENT = `
INSERT INTO account_events (account_id, waba_id, field, event, phone_number_id, value, occurred_at, received_at,
  dedupe_key)
VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7, $8,
  encode(sha256(convert_to(jsonb_build_array($3::text, $2::text, $9::bigint, $6::jsonb)::text, 'UTF8')), 'hex'))
ON CONFLICT (account_id, dedupe_key) DO NOTHING
RETURNING id::text`;

// A display number matched digits only ("+55 11 4000-0000" is 551140000000, as Meta writes it).
const NUMBERS_BY_DISPLAY = `SELECT phone_number_id, display_number FROM business_numbers
  WHERE account_id = $1::uuid AND waba_id = $2 AND regexp_replace(display_number, '[^0-9]', '', 'g') = $3
  ORDER BY phone_number_id`;

/**
 * Store and act on account and number health events, inside the provider webhook's transaction (docs/decisions.md,
 * "Account and number health (issue 18)"). Every event is stored, whatever its field or event (unknown ones are
 * shown, never refused); one already stored (Meta redelivers) does nothing again. Then its effects, each audited
 * by META_ACTOR: a throughput upgrade raises the number's rate to 1,000/s; a quality drop to low pauses the
 * number's running and scheduled campaigns; a restriction pauses the WABA's; a ban or disconnection blocks every
 * send of the WABA (`account_disabled`) and pauses its campaigns, until a reinstatement or reconnection lifts the
 * block (the campaigns stay paused for a person to resume). Returns the `account.update` deliveries of the
 * integrations subscribed to it.
 */
export async function applyAccountEvents(
  sql: Sql,
  events: readonly AccountEventInput[],
  options: ApplyAccountEventsOptions,
): Promise<PendingDelivery[]> {
  const deliveries: PendingDelivery[] = [];
  for (const input of events) {
    const stored = await storeAccountEvent(sql, input, options.receivedAt);
    if (stored === null) continue;
    const effects = await applyEffects(sql, stored, options.pauseCampaigns);
    await sql.query({
      name: "account-event-effects",
      text: `UPDATE account_events SET effects = $2::jsonb WHERE id = $1::bigint`,
      values: [stored.id, JSON.stringify(effects)],
    });
    const data: AccountUpdateData = {
      account_event_id: stored.id,
      waba_id: stored.wabaId,
      field: stored.field,
      event: stored.event,
      phone_number_id: stored.numbers[0]?.phoneNumberId ?? null,
      occurred_at: stored.at.toISOString(),
      value: stored.value,
      effects,
    };
    deliveries.push(...(await subscribedDeliveries(sql, stored.accountId, "account.update", data)));
  }
  return deliveries;
}

/** The WABAs whose template catalogue an event changed (a template's components or category): read them again. */
export function changedTemplateCatalogues(events: readonly AccountEventInput[]): string[] {
  return [...new Set(events.filter((e) => TEMPLATE_CATALOGUE_FIELDS.has(e.event.field)).map((e) => e.event.wabaId))];
}

/** Insert the event; null when it was stored before. */
async function storeAccountEvent(sql: Sql, input: AccountEventInput, receivedAt: Date): Promise<StoredEvent | null> {
  const { accountId, event } = input;
  const digits = event.field === "phone_number_quality_update" ? displayNumberDigits(event.value) : null;
  const numbers =
    digits === null
      ? []
      : (
          await sql.query<{ phone_number_id: string; display_number: string }>({
            name: "business-numbers-by-display",
            text: NUMBERS_BY_DISPLAY,
            values: [accountId, event.wabaId, digits],
          })
        ).rows.map((row) => ({ phoneNumberId: row.phone_number_id, displayNumber: row.display_number }));
  const name = eventName(event.value);
  const value = storableValue(event.value);
  const { rows } = await sql.query<{ id: string }>({
    name: "store-account-event",
    text: STORE_EVENT,
    values: [
      accountId,
      event.wabaId,
      event.field,
      name === null ? null : replaceUnstorable(name, "\ufffd"),
      numbers[0]?.phoneNumberId ?? null,
      value,
      event.time,
      receivedAt,
      event.time === null ? null : Math.floor(event.time.getTime() / 1000),
    ],
  });
  const id = rows[0]?.id;
  if (id === undefined) return null;
  return {
    id,
    accountId,
    wabaId: event.wabaId,
    field: event.field,
    event: name,
    value: JSON.parse(value) as Record<string, unknown>,
    at: event.time ?? receivedAt,
    numbers,
  };
}

const NO_EFFECTS: AccountEventEffects = {
  sending_blocked: null,
  paused_campaign_ids: [],
  messaging_rate_per_second: null,
};

async function applyEffects(
  sql: Sql,
  stored: StoredEvent,
  pauseCampaigns: PauseCampaignsOfNumbers,
): Promise<AccountEventEffects> {
  if (stored.field === "phone_number_quality_update") await recordNumberHealth(sql, stored);
  if (stored.field === "business_capability_update") await recordCapability(sql, stored);
  const action = healthAction(stored.field, stored.wabaId, stored.value);
  const details = { account_event_id: stored.id, event: stored.event ?? stored.field };
  switch (action.kind) {
    case "throughput_upgrade":
      return { ...NO_EFFECTS, messaging_rate_per_second: await upgradeThroughput(sql, stored, details) };
    case "quality_drop": {
      const paused: string[] = [];
      for (const number of stored.numbers)
        paused.push(
          ...(await pauseCampaigns(sql, {
            accountId: stored.accountId,
            actor: META_ACTOR,
            phoneNumberIds: [number.phoneNumberId],
            reason: `Pausada automaticamente: a Meta informou que a qualidade do número ${number.displayNumber} caiu (${action.detail}). Confira a qualidade na página Números antes de retomar.`,
            details,
          })),
        );
      return { ...NO_EFFECTS, paused_campaign_ids: paused };
    }
    case "restriction":
      return {
        ...NO_EFFECTS,
        paused_campaign_ids: await pauseWabaCampaigns(sql, stored, capitalized(action.cause), pauseCampaigns),
      };
    case "block":
    case "lift":
      return changeBlock(sql, stored, action, details, pauseCampaigns);
    case "none":
      return NO_EFFECTS;
  }
}

function capitalized(clause: string): string {
  return `Pausada automaticamente: ${clause}.`;
}

/** Every running or scheduled campaign of the account's numbers in the event's WABA pauses with `reason`. */
async function pauseWabaCampaigns(
  sql: Sql,
  stored: StoredEvent,
  reason: string,
  pauseCampaigns: PauseCampaignsOfNumbers,
): Promise<string[]> {
  const { rows } = await sql.query<{ phone_number_id: string }>({
    name: "business-numbers-of-waba",
    text: `SELECT phone_number_id FROM business_numbers WHERE account_id = $1::uuid AND waba_id = $2`,
    values: [stored.accountId, stored.wabaId],
  });
  return pauseCampaigns(sql, {
    accountId: stored.accountId,
    actor: META_ACTOR,
    phoneNumberIds: rows.map((row) => row.phone_number_id),
    reason,
    details: { account_event_id: stored.id, event: stored.event ?? stored.field },
  });
}

/** The matched numbers move to 1,000 messages/s (audited and announced per number that was below it). */
async function upgradeThroughput(
  sql: Sql,
  stored: StoredEvent,
  details: Record<string, string>,
): Promise<number | null> {
  let raised: number | null = null;
  for (const number of stored.numbers) {
    const { rowCount } = await sql.query({
      name: "number-below-rate",
      text: `SELECT 1 FROM business_numbers WHERE phone_number_id = $1 AND messaging_rate_per_second <> $2`,
      values: [number.phoneNumberId, HIGH_THROUGHPUT_RATE],
    });
    if (rowCount === 0) continue;
    const changed = await applyMessagingRate(sql, {
      phoneNumberId: number.phoneNumberId,
      ratePerSecond: HIGH_THROUGHPUT_RATE,
      actor: META_ACTOR,
      details,
    });
    if (changed) raised = changed.messaging_rate_per_second;
  }
  return raised;
}

/**
 * A ban or a reinstatement, in Meta's order: an event older than the last block change applied (a late
 * redelivery) changes nothing. A block pauses the WABA's campaigns too; a lift leaves them paused.
 */
async function changeBlock(
  sql: Sql,
  stored: StoredEvent,
  action: Extract<HealthAction, { kind: "block" } | { kind: "lift" }>,
  details: Record<string, string>,
  pauseCampaigns: PauseCampaignsOfNumbers,
): Promise<AccountEventEffects> {
  const current = await lockWabaHealth(sql, stored.accountId, stored.wabaId);
  const blockedNow = current.blockedAt !== null;
  if (current.blockChangedAt !== null && current.blockChangedAt > stored.at)
    return { ...NO_EFFECTS, sending_blocked: blockedNow };
  const event = stored.event ?? stored.field;
  if (action.kind === "block") {
    await blockSending(sql, {
      accountId: stored.accountId,
      wabaId: stored.wabaId,
      event,
      reason: action.cause,
      at: stored.at,
      wasBlocked: blockedNow,
      actor: META_ACTOR,
      details,
    });
    const reason = `${capitalized(action.cause)} Os envios da conta estão bloqueados até a Meta reativá-la ou reconectá-la.`;
    return {
      ...NO_EFFECTS,
      sending_blocked: true,
      paused_campaign_ids: await pauseWabaCampaigns(sql, stored, reason, pauseCampaigns),
    };
  }
  const lifts = action.lifts === "any" || (current.blockEvent !== null && action.lifts.includes(current.blockEvent));
  if (!blockedNow || !lifts) return { ...NO_EFFECTS, sending_blocked: blockedNow };
  await unblockSending(sql, {
    accountId: stored.accountId,
    wabaId: stored.wabaId,
    at: stored.at,
    previousEvent: current.blockEvent,
    actor: META_ACTOR,
    details,
  });
  return { ...NO_EFFECTS, sending_blocked: false };
}

/** The matched numbers' health as last reported, unless a later event was recorded already. */
async function recordNumberHealth(sql: Sql, stored: StoredEvent): Promise<void> {
  if (stored.numbers.length === 0) return;
  await sql.query({
    name: "number-health-reported",
    text: `UPDATE business_numbers SET reported_quality = COALESCE($3, reported_quality),
        reported_messaging_limit = COALESCE($4, reported_messaging_limit),
        reported_throughput = CASE WHEN $5::boolean THEN 'HIGH' ELSE reported_throughput END,
        health_event = $6, health_event_at = $7
      WHERE account_id = $1::uuid AND phone_number_id = ANY($2::text[])
        AND (health_event_at IS NULL OR health_event_at <= $7)`,
    values: [
      stored.accountId,
      stored.numbers.map((number) => number.phoneNumberId),
      reportedQuality(stored.value),
      reportedLimit(stored.value),
      stored.event?.toUpperCase() === "THROUGHPUT_UPGRADE",
      stored.event,
      stored.at,
    ],
  });
}

/** The portfolio's limit and cap on numbers for the WABA, unless a later report was recorded already. */
async function recordCapability(sql: Sql, stored: StoredEvent): Promise<void> {
  await sql.query({
    name: "waba-capability-reported",
    text: `INSERT INTO waba_health (account_id, waba_id, messaging_limit, max_phone_numbers, capability_updated_at)
      VALUES ($1::uuid, $2, $3, $4, $5)
      ON CONFLICT (account_id, waba_id) DO UPDATE SET
        messaging_limit = COALESCE(EXCLUDED.messaging_limit, waba_health.messaging_limit),
        max_phone_numbers = COALESCE(EXCLUDED.max_phone_numbers, waba_health.max_phone_numbers),
        capability_updated_at = EXCLUDED.capability_updated_at, updated_at = now()
      WHERE waba_health.capability_updated_at IS NULL OR waba_health.capability_updated_at <= EXCLUDED.capability_updated_at`,
    values: [
      stored.accountId,
      stored.wabaId,
      reportedLimit(stored.value),
      reportedMaxPhoneNumbers(stored.value),
      stored.at,
    ],
  });
}
