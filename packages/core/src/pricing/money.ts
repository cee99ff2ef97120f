/**
 * Money in the cost ledger: integer units of R$ 0,0001 (Meta prints its rates with four decimals), so totals are
 * sums of integers, never of floats. Shown to integrators as decimal strings with four decimals ("12.3400").
 */
export const BRL_UNITS_PER_REAL = 10_000;

const BRL_TEXT = /^(\d{1,6})(?:\.(\d{1,4}))?$/;

/** "0.335" → 3350 units; null when the text is not a non-negative amount with at most four decimals. */
export function brlUnits(text: string): number | null {
  const match = BRL_TEXT.exec(text.trim());
  if (!match) return null;
  const [, reais = "0", fraction = ""] = match;
  return Number(reais) * BRL_UNITS_PER_REAL + Number(fraction.padEnd(4, "0"));
}

/** 3350 units → "0.3350". */
export function formatBrlUnits(units: number): string {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`not an amount of units: ${units}`);
  const reais = Math.floor(units / BRL_UNITS_PER_REAL);
  return `${reais}.${String(units % BRL_UNITS_PER_REAL).padStart(4, "0")}`;
}
