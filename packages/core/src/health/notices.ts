import type { AccountUpdateData } from "@gw/contracts";
import type { Db } from "@gw/db";
import { ACCOUNT_EVENT_FIELDS, type AccountEventField } from "@gw/meta";
import type { Actor } from "../audit/audit.ts";
import { noticeKind } from "../notices/unread.ts";

/**
 * The account's health events as the panel shows them ("Avisos da conta"): every stored event, newest first, with
 * what the gateway did about it and whether this user read it (read per user, like template notices: one kind of
 * ../notices/unread.ts).
 */

export { ACCOUNT_EVENT_FIELDS };
export type { AccountEventField };

export interface AccountEventView {
  id: number;
  waba_id: string;
  field: string;
  /** Meta's `value.event`, unknown values included; null when the field carries none. */
  event: string | null;
  /** The number a phone_number_quality_update named, with its display number; null otherwise. */
  phone_number_id: string | null;
  display_number: string | null;
  /** Meta's value as sent. */
  value: Record<string, unknown>;
  /** What the gateway did (null while it was being applied). */
  effects: AccountUpdateData["effects"] | null;
  /** Meta's time, else when the gateway received it. */
  occurred_at: string;
  received_at: string;
  read: boolean;
  read_at: string | null;
}

/** An event as read from the database: the view's fields, with the times as dates and the id as bigint text. */
type EventRow = Omit<AccountEventView, "id" | "occurred_at" | "received_at" | "read" | "read_at"> & {
  id: string;
  occurred_at: Date | null;
  received_at: Date;
  read_at: Date | null;
};

const accountEvents = noticeKind<EventRow, AccountEventView>({
  name: "account-event",
  table: "account_events",
  alias: "e",
  reads: "account_event_reads",
  readKey: "event_id",
  columns: `e.waba_id, e.field, e.event, e.phone_number_id, n.display_number, e.value, e.effects,
        e.occurred_at, e.received_at`,
  joins: "LEFT JOIN business_numbers n ON n.phone_number_id = e.phone_number_id AND n.account_id = e.account_id",
  filterColumn: "field",
  notFound: "O aviso da conta não foi encontrado nesta conta.",
  view: (row) => ({
    id: Number(row.id),
    waba_id: row.waba_id,
    field: row.field,
    event: row.event,
    phone_number_id: row.phone_number_id,
    display_number: row.display_number,
    value: row.value,
    effects: row.effects,
    occurred_at: (row.occurred_at ?? row.received_at).toISOString(),
    received_at: row.received_at.toISOString(),
    read: row.read_at !== null,
    read_at: row.read_at?.toISOString() ?? null,
  }),
});

/**
 * The account's health events, newest first, with whether `userId` read each. `cursor` is the `next_cursor` of the
 * page before; `unreadOnly` keeps the ones this user has not read; `field` keeps one of Meta's fields. A user of
 * another account sees nothing.
 */
export async function listAccountEvents(
  deps: { db: Db },
  input: {
    accountId: string;
    userId: string;
    unreadOnly?: boolean | undefined;
    field?: AccountEventField | undefined;
    cursor?: string | null | undefined;
    limit: number;
  },
): Promise<{ events: AccountEventView[]; next_cursor: string | null }> {
  const { field, ...rest } = input;
  const page = await accountEvents.list(deps, { ...rest, filter: field });
  return { events: page.items, next_cursor: page.next_cursor };
}

/** How many of the account's health events `userId` has not read (the panel's badge). */
export const countUnreadAccountEvents = accountEvents.countUnread;

/** Marks one event read for `userId`; an event or user of another account is `not_found`, like a missing id. */
export function markAccountEventRead(
  deps: { db: Db },
  input: { accountId: string; userId: string; eventId: number | string; actor: Actor },
): Promise<{ id: number; read_at: string }> {
  const { eventId, ...rest } = input;
  return accountEvents.markRead(deps, { ...rest, id: eventId });
}

/** Marks every health event of the account read for `userId`; returns how many were unread. */
export const markAllAccountEventsRead = accountEvents.markAllRead;
