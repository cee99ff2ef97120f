const DATE_TIME = new Intl.DateTimeFormat("pt-BR", {
  timeZone: "America/Sao_Paulo",
  dateStyle: "short",
  timeStyle: "medium",
});
const NUMBER = new Intl.NumberFormat("pt-BR");

/** A date as Brazilian staff read it (São Paulo time); empty for null. */
export function formatDateTime(value: Date | string | null | undefined): string {
  if (value === null || value === undefined) return "";
  const date = typeof value === "string" ? new Date(value) : value;
  return Number.isNaN(date.getTime()) ? "" : DATE_TIME.format(date);
}

export function formatNumber(value: number): string {
  return NUMBER.format(value);
}

export function formatPercent(ratio: number | null): string {
  return ratio === null ? "—" : `${(ratio * 100).toLocaleString("pt-BR", { maximumFractionDigits: 1 })} %`;
}

const BRL = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });
const BRL_RATE = new Intl.NumberFormat("pt-BR", {
  style: "currency",
  currency: "BRL",
  minimumFractionDigits: 4,
  maximumFractionDigits: 4,
});

/**
 * An amount the services give as a decimal string ("12.3450"), in reais as people read it: "R$ 12,35". Rounded to
 * centavos half up on the digits themselves (12.345 as a float is 12.3449…, which Intl would round down).
 */
export function formatBrl(amount: string): string {
  const [reais = "0", fraction = ""] = amount.split(".");
  const cents = Math.floor((Number(reais) * 10_000 + Number(fraction.padEnd(4, "0").slice(0, 4)) + 50) / 100);
  return BRL.format(cents / 100);
}

/** A per-message rate with its four decimals: "R$ 0,3350". */
export function formatBrlRate(amount: string): string {
  return BRL_RATE.format(Number(amount));
}

/** A São Paulo day ("2026-11-28") as "28/11/2026". */
export function formatDay(day: string): string {
  const [year, month, date] = day.split("-");
  return `${date ?? ""}/${month ?? ""}/${year ?? ""}`;
}
