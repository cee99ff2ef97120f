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
