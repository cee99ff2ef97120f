import type { Sql } from "@gw/db";
import { pauseCampaignsOfNumbers } from "../campaigns/health-pauses.ts";
import { applyIdentityChanges, learnContacts } from "../contacts/contacts.ts";
import type { PendingDelivery } from "../deliveries/attempt/outbox.ts";
import { adoptCampaignSends } from "../events/adopt.ts";
import { applyInbound } from "../events/inbound.ts";
import { applyStatusesTraced, lockWamids } from "../events/statuses.ts";
import { applyHandovers } from "../conversations/thread.ts";
import { conversationUpdatedDeliveries } from "../conversations/updated.ts";
import { applyAccountEvents } from "../health/index.ts";
import { applyUserPreferences, type PreferenceChange } from "../suppressions/suppressions.ts";
import { storeTemplateNotices } from "../templates/notices.ts";
import type { InboundItem, Plan, PlanItems, PlanLists, PreferenceItem, StepName } from "./plan.ts";

/**
 * The order in which a webhook's items are applied, written once (the keys of STEPS, in order) and run in three modes by
 * ingest.ts: together (one payload in one transaction, `applyTogether`), item by item (each item in its own
 * transaction, `itemsAlone`: the fallback when an item fails), and several status payloads in one transaction
 * (group commit, `applyTogether` over their merged plan).
 *
 * Users come first: the inbound messages and the preferences are keyed by the contacts they name. Campaign sends a
 * dead worker never recorded, proved by their statuses, are recorded before the statuses apply to them. Template
 * notices and preferences create no outbox rows; the other steps return the deliveries they create.
 */
/** What the steps of one transaction share. */
interface Run {
  receivedAt: Date;
  /** The keys of the inbound messages' senders (the first sightings), learnt by the first step; none alone. */
  senderKeys: readonly (string | null)[];
}

/** A delivery a step created, with the position among the step's items of the item it came from. */
export interface StepDelivery {
  delivery: PendingDelivery;
  item: number;
}

/** The counts of IngestResult that a step adds to. */
export type StepCounts = Record<"notices" | "preferences", number>;

interface Applied {
  deliveries: StepDelivery[];
  /** What the step adds to its count (`counts`). */
  count?: number;
}

interface Step<Item> {
  /** Taken at the start of the transaction, before any step applies (alone: with the item). */
  lock?(sql: Sql, items: readonly Item[]): Promise<void>;
  /** Apply the items inside the caller's transaction. */
  apply(sql: Sql, items: readonly Item[], run: Run): Promise<Applied>;
  /** Where an item that failed on its own is quarantined (`index`: its position in the plan). */
  path(item: Item, index: number): string;
  counts?: keyof StepCounts;
  /** Item by item: an item another step applies (a sender is learnt with its message, in its transaction). */
  skipAlone?(index: number, plan: Plan): boolean;
  /**
   * Its part in a group commit (several status payloads in one transaction): `carries`, the items a group commit is
   * for; `rides`, items that may come along; absent, a payload with any of its items is applied on its own.
   */
  groupCommit?: "carries" | "rides";
}

const NOTHING: Applied = { deliveries: [] };

const traced = (deliveries: readonly PendingDelivery[], item: number): StepDelivery[] =>
  deliveries.map((delivery) => ({ delivery, item }));

const STEPS: { [K in StepName]: Step<PlanItems[K]> } = {
  sightings: {
    async apply(sql, sightings, run) {
      run.senderKeys = await learnContacts(sql, sightings);
      return NOTHING;
    },
    path: (sighting) => `contacts ${sighting.user.bsuid ?? sighting.user.phone ?? ""}`,
    skipAlone: (index, plan) => index < plan.inbound.length,
    groupCommit: "rides",
  },
  identityChanges: {
    async apply(sql, changes) {
      await applyIdentityChanges(sql, changes);
      return NOTHING;
    },
    path: (item) => `${item.change.source} ${item.change.current.bsuid ?? item.change.current.phone ?? ""}`,
  },
  statuses: {
    lock: (sql, statuses) =>
      lockWamids(
        sql,
        statuses.map((status) => status.id),
      ),
    async apply(sql, statuses, run) {
      const deliveries: StepDelivery[] = [];
      // A campaign send proved by its status: counted for the first status that names the message.
      for (const delivery of await adoptCampaignSends(sql, statuses)) {
        const wamid = (delivery.data as { message_id?: unknown }).message_id;
        deliveries.push({ delivery, item: statuses.findIndex((status) => status.id === wamid) });
      }
      for (const { delivery, update } of await applyStatusesTraced(sql, statuses, {
        parkUnknown: true,
        receivedAt: run.receivedAt,
      }))
        deliveries.push({ delivery, item: update });
      return { deliveries };
    },
    path: (status, index) => `statuses[${index}] ${status.id}`,
    groupCommit: "carries",
  },
  inbound: {
    async apply(sql, items, run) {
      const deliveries: StepDelivery[] = [];
      for (const [index, item] of items.entries())
        deliveries.push(
          ...traced(await applyInboundItem(sql, item, run.senderKeys[index] ?? null, run.receivedAt), index),
        );
      return { deliveries };
    },
    path: (item) => `messages ${item.inbound.message.id}`,
  },
  notices: {
    apply: async (sql, notices, run) => ({
      deliveries: [],
      count: await storeTemplateNotices(sql, notices, run.receivedAt),
    }),
    path: (item) => `${item.notice.field} ${item.notice.value.message_template_name}`,
    counts: "notices",
  },
  preferences: {
    apply: async (sql, items) => ({
      deliveries: [],
      count: await applyUserPreferences(sql, await preferenceChanges(sql, items)),
    }),
    path: (item) => `user_preferences ${item.value}`,
    counts: "preferences",
  },
  handovers: {
    async apply(sql, items, run) {
      const deliveries: StepDelivery[] = [];
      const keys = await learnContacts(
        sql,
        items.map((item) => ({ accountId: item.accountId, user: item.handover.user })),
      );
      for (const [index, item] of items.entries()) {
        const contactKey = keys[index];
        if (!contactKey) continue;
        const input = { ...item, contactKey, receivedAt: run.receivedAt };
        deliveries.push(...traced(await applyHandovers(sql, [input]), index));
      }
      return { deliveries };
    },
    path: (item) =>
      `messaging_handovers ${item.handover.type} ${item.handover.user.bsuid ?? item.handover.user.phone ?? ""}`,
  },
  accountEvents: {
    async apply(sql, events, run) {
      const deliveries: StepDelivery[] = [];
      // The campaigns are paused through campaigns' own pause (health sits below campaigns and is handed it).
      const options = { receivedAt: run.receivedAt, pauseCampaigns: pauseCampaignsOfNumbers };
      for (const [index, event] of events.entries())
        deliveries.push(...traced(await applyAccountEvents(sql, [event], options), index));
      return { deliveries };
    },
    path: (item) => `${item.event.field} ${item.event.wabaId}`,
  },
};

/** The steps in the order they apply: STEPS' keys, as written. */
export const STEP_ORDER = Object.keys(STEPS) as readonly StepName[];

/**
 * Whether a payload joins a group commit: it has items of the step that carries one, none of a step that cannot
 * come along, and nothing set aside. Status webhooks (statuses and the users they name) are the bulk of Meta's
 * traffic, three per message sent; anything else keeps its own transaction (ingestPlanned).
 */
export function joinsGroupCommit(plan: Plan): boolean {
  if (plan.quarantined.length > 0) return false;
  const has = (name: StepName) => plan[name].length > 0;
  return (
    STEP_ORDER.some((name) => STEPS[name].groupCommit === "carries" && has(name)) &&
    STEP_ORDER.every((name) => STEPS[name].groupCommit !== undefined || !has(name))
  );
}

/** A delivery of a plan applied together, with the step and the item it came from. */
export interface PlannedDelivery extends StepDelivery {
  step: StepName;
}

/**
 * Every step over all its items, inside the caller's transaction: the locks first, then each step in order (a step
 * without items is not run).
 */
export async function applyTogether(
  sql: Sql,
  plan: Plan,
  receivedAt: Date,
): Promise<{ deliveries: PlannedDelivery[]; counts: StepCounts }> {
  for (const name of STEP_ORDER) await lockStep(sql, name, plan[name]);
  const run: Run = { receivedAt, senderKeys: [] };
  const deliveries: PlannedDelivery[] = [];
  const counts: StepCounts = { notices: 0, preferences: 0 };
  for (const name of STEP_ORDER) {
    const applied = await applyStep(sql, name, plan[name], run);
    deliveries.push(...applied.deliveries.map((delivery) => ({ ...delivery, step: name })));
    const counted = STEPS[name].counts;
    if (counted) counts[counted] += applied.count ?? 0;
  }
  return { deliveries, counts };
}

async function lockStep<K extends StepName>(sql: Sql, name: K, items: readonly PlanItems[K][]): Promise<void> {
  const step: Step<PlanItems[K]> = STEPS[name];
  if (items.length > 0) await step.lock?.(sql, items);
}

async function applyStep<K extends StepName>(
  sql: Sql,
  name: K,
  items: readonly PlanItems[K][],
  run: Run,
): Promise<Applied> {
  const step: Step<PlanItems[K]> = STEPS[name];
  return items.length === 0 ? NOTHING : step.apply(sql, items, run);
}

/** One item to apply on its own, in its own transaction. */
export interface LoneItem {
  /** Where it is quarantined when it fails. */
  path: string;
  counts: keyof StepCounts | undefined;
  apply(sql: Sql): Promise<Applied>;
}

/** The plan's items one by one, in the steps' order, each with its own lock. */
export function itemsAlone(plan: Plan, receivedAt: Date): LoneItem[] {
  return STEP_ORDER.flatMap((name) => loneItems(name, plan, receivedAt));
}

function loneItems<K extends StepName>(name: K, plan: Plan, receivedAt: Date): LoneItem[] {
  const step: Step<PlanItems[K]> = STEPS[name];
  const lists: PlanLists = plan;
  const items: readonly PlanItems[K][] = lists[name];
  return items.flatMap((item, index) =>
    step.skipAlone?.(index, plan)
      ? []
      : [
          {
            path: step.path(item, index),
            counts: step.counts,
            async apply(sql: Sql) {
              await step.lock?.(sql, [item]);
              return step.apply(sql, [item], { receivedAt, senderKeys: [] });
            },
          },
        ],
  );
}

/** The preferences with their contacts' keys (learnt now: a preference may name a user seen nowhere else). */
async function preferenceChanges(sql: Sql, items: readonly PreferenceItem[]): Promise<PreferenceChange[]> {
  const keys = await learnContacts(
    sql,
    items.map((item) => ({ accountId: item.accountId, user: item.user })),
  );
  return items.flatMap((item, index) => {
    const contactKey = keys[index];
    return contactKey ? [{ accountId: item.accountId, contactKey, value: item.value, at: item.at }] : [];
  });
}

/** An inbound message with its sender's key: learnt with the others (together), else now (alone). */
async function applyInboundItem(
  sql: Sql,
  item: InboundItem,
  contactKey: string | null,
  receivedAt: Date,
): Promise<PendingDelivery[]> {
  const key = contactKey ?? (await learnContacts(sql, [{ accountId: item.accountId, user: item.inbound.sender }]))[0];
  if (!key) return [];
  const { deliveries, reopened } = await applyInbound(sql, {
    accountId: item.accountId,
    phoneNumberId: item.phoneNumberId,
    inbound: item.inbound,
    contactKey: key,
    receivedAt,
  });
  if (!reopened) return deliveries;
  // The customer wrote to a conversation the inbox had closed: it is open again (issue 39), and said so.
  const { sender } = item.inbound;
  const reopening = await conversationUpdatedDeliveries(sql, {
    accountId: item.accountId,
    phoneNumberId: item.phoneNumberId,
    contactKey: key,
    recipient: sender.phone ?? sender.bsuid ?? key,
    change: "reopened",
    by: "customer",
    at: receivedAt,
  });
  return [...deliveries, ...reopening];
}
