import type { Db } from "@gw/db";
import type { Logger } from "@gw/logger";
import {
  readMetaWebhook,
  type InboundMessage,
  type MetaHandover,
  type MetaStatus,
  type MetaUserRef,
  type QuarantinedItem,
} from "@gw/meta";
import type { AccountDirectory } from "../accounts/directory.ts";
import { senderLearnt } from "../contacts/contact-request.ts";
import type { ContactSighting, IdentityChangeInput } from "../contacts/contacts.ts";
import type { LearntSightings } from "../contacts/key-cache.ts";
import type { AccountEventInput } from "../health/index.ts";
import type { PreferenceChange } from "../suppressions/suppressions.ts";
import { accountsByWaba, type TemplateNoticeInput } from "../templates/notices.ts";
import { STEP_ORDER } from "./steps.ts";

export interface InboundItem {
  accountId: string;
  phoneNumberId: string;
  inbound: InboundMessage;
}

/** A marketing preference change before its contact is learnt. */
export interface PreferenceItem extends Omit<PreferenceChange, "contactKey"> {
  user: MetaUserRef;
}

/** A `messaging_handovers` notification matched to its account, before its customer's contact is learnt. */
export interface HandoverItem {
  accountId: string;
  handover: MetaHandover;
}

/** A webhook's items by the step that applies them (steps.ts), each list in the payload's order. */
export interface PlanItems {
  /** Every user named in the payload; the first `inbound.length` are the inbound messages' senders, in order. */
  sightings: ContactSighting;
  identityChanges: IdentityChangeInput;
  statuses: MetaStatus;
  inbound: InboundItem;
  notices: TemplateNoticeInput;
  preferences: PreferenceItem;
  handovers: HandoverItem;
  accountEvents: AccountEventInput;
}

export type StepName = keyof PlanItems;

/** The item lists of a plan, one per step. */
export type PlanLists = { [K in StepName]: PlanItems[K][] };

/** One payload, read and matched to its accounts: its items, and what was set aside. */
export type Plan = PlanLists & { quarantined: QuarantinedItem[] };

/** A plan without items: an empty list per step (steps.ts), and nothing set aside. */
export function emptyPlan(): Plan {
  const lists = Object.fromEntries(STEP_ORDER.map((name) => [name, []])) as unknown as PlanLists;
  return { ...lists, quarantined: [] };
}

interface PlanDeps {
  db: Db;
  logger: Logger;
  directory: AccountDirectory;
  /** Users this process learnt lately (a status's pair, a contact card): not learnt again for a while. */
  learnt?: LearntSightings | undefined;
}

/**
 * Validate the payload item by item and find the account of each inbound message's, marketing preference's, user's
 * and identity change's business number, and of each template notice's and health event's WABA (`entry[].id`,
 * matched against business_numbers.waba_id).
 */
export async function planItems(deps: PlanDeps, body: unknown, receivedAt: Date): Promise<Plan> {
  const read = readMetaWebhook(body);
  const plan: Plan = { ...emptyPlan(), statuses: read.statuses, quarantined: read.quarantined };
  const accountOf = async (phoneNumberId: string, what: string): Promise<string | null> => {
    const number = await deps.directory.numberById(phoneNumberId);
    if (number) return number.accountId;
    deps.logger.warn(`${what} for an unknown business number`, { phoneNumberId });
    plan.quarantined.push({
      path: `metadata.phone_number_id=${phoneNumberId}`,
      reason: "número comercial desconhecido",
    });
    return null;
  };
  for (const group of read.inbound) {
    const accountId = await accountOf(group.phoneNumberId, "inbound message");
    if (accountId === null) continue;
    for (const inbound of group.messages) plan.inbound.push({ accountId, phoneNumberId: group.phoneNumberId, inbound });
  }
  // The senders, in the inbound messages' order (their keys come back in that order), then every other user named.
  plan.sightings.push(
    ...plan.inbound.map((item) => ({ accountId: item.accountId, user: senderLearnt(item.inbound), keyed: true })),
  );
  const seen = new Set(plan.sightings.map(sightingId));
  for (const { phoneNumberId, user } of read.contacts) {
    const number = await deps.directory.numberById(phoneNumberId);
    if (!number) continue;
    // A user named by a status (or beside a message) keys no row in this transaction: learnt without a lock, and
    // not again while this process remembers learning it (Meta repeats a recipient's pair on each of its statuses).
    const sighting = { accountId: number.accountId, user, keyed: false };
    const id = sightingId(sighting);
    if (!seen.has(id) && !deps.learnt?.known(id)) plan.sightings.push(sighting);
    seen.add(id);
  }
  for (const change of read.identityChanges) {
    const accountId = await accountOf(change.phoneNumberId, "identity change");
    if (accountId !== null) plan.identityChanges.push({ accountId, change });
  }
  const accounts = await accountsByWaba(deps.db.sql, [
    ...read.templateNotices.map((notice) => notice.wabaId),
    ...read.accountEvents.map((event) => event.wabaId),
  ]);
  // Template notices and health events name their WABA; one no account has is set aside.
  const ownersOf = (wabaId: string, what: string, field: string): readonly string[] => {
    const owners = accounts.get(wabaId);
    if (owners) return owners;
    deps.logger.warn(`${what} for an unknown WABA`, { wabaId, field });
    plan.quarantined.push({ path: `entry.id=${wabaId}`, reason: "conta WhatsApp Business desconhecida" });
    return [];
  };
  for (const notice of read.templateNotices)
    for (const accountId of ownersOf(notice.wabaId, "template notice", notice.field))
      plan.notices.push({ accountId, notice });
  for (const event of read.accountEvents)
    for (const accountId of ownersOf(event.wabaId, "account event", event.field))
      plan.accountEvents.push({ accountId, event });
  for (const handover of read.handovers) {
    const accountId = await accountOf(handover.phoneNumberId, "conversation handover");
    if (accountId !== null) plan.handovers.push({ accountId, handover });
  }
  for (const preference of read.userPreferences) {
    const { category, value } = preference.value;
    // Meta reports only marketing_messages stop/resume today; anything else is read and left alone.
    if (category !== "marketing_messages" || (value !== "stop" && value !== "resume")) {
      deps.logger.info("user preference not acted on", { category, value });
      continue;
    }
    const accountId = await accountOf(preference.phoneNumberId, "user preference");
    if (accountId === null) continue;
    const user: MetaUserRef = {
      phone: preference.value.wa_id ?? null,
      bsuid: preference.value.user_id ?? null,
      parentBsuid: preference.value.parent_user_id ?? null,
      username: null,
      name: null,
    };
    plan.preferences.push({ accountId, user, value, at: preference.time ?? receivedAt });
  }
  return plan;
}

export function sightingId(sighting: ContactSighting): string {
  const { user } = sighting;
  return [sighting.accountId, user.phone, user.bsuid, user.parentBsuid, user.username, user.name].join("|");
}
