/**
 * Days of the cost ledger: calendar days in São Paulo (Brazilian businesses read their day there; Brazil has kept
 * UTC−3 all year since 2019, but the zone's name keeps any future change right), as "YYYY-MM-DD" strings. A
 * message counts on the day the gateway sent it.
 */
export const LEDGER_TIME_ZONE = "America/Sao_Paulo" as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

const SAO_PAULO_DAY = new Intl.DateTimeFormat("en-CA", {
  timeZone: LEDGER_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
});

/** The São Paulo calendar day of an instant. */
export function saoPauloDay(instant: Date): string {
  return SAO_PAULO_DAY.format(instant);
}

/** Whether `value` is a real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The day `days` after (or before, when negative) `day`. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `since` to `until`, both counted (1 for the same day; 0 or less when `until` comes first). */
export function daysInRange(since: string, until: string): number {
  return Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The São Paulo day of a send (`m` is messages), as SQL: the ledger's one definition of "day". */
export const SEND_DAY_SQL = `((m.created_at AT TIME ZONE '${LEDGER_TIME_ZONE}')::date)`;

/** Where the São Paulo day in the SQL expression `day` starts, as a timestamptz (for the created_at index). */
export function dayStartSql(day: string): string {
  return `((${day}::date)::timestamp AT TIME ZONE '${LEDGER_TIME_ZONE}')`;
}
