// Percentiles (nearest rank) and the fixed-width lines the benches print.

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let total = 0;
  for (const v of sorted) total += v;
  return {
    count: sorted.length,
    mean: sorted.length ? total / sorted.length : Number.NaN,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] ?? Number.NaN) : Number.NaN,
  };
}

const ms = (n: number): string => `${n.toFixed(1).padStart(8)} ms`;

export function latencyLine(label: string, s: LatencySummary): string {
  return `${label.padEnd(34)} p50 ${ms(s.p50)}   p95 ${ms(s.p95)}   p99 ${ms(s.p99)}   max ${ms(s.max)}`;
}

export function line(label: string, text: string): string {
  return `${label.padEnd(34)} ${text}`;
}

export function rate(count: number, seconds: number): number {
  return seconds > 0 ? count / seconds : Number.NaN;
}

/** Rounded for people: 3 significant digits below 100, whole numbers above. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return "n/a";
  if (Math.abs(n) >= 100) return n.toFixed(0);
  return n.toPrecision(3);
}

export function ratio(target: number, baseline: number): string {
  if (!Number.isFinite(target) || !Number.isFinite(baseline) || baseline === 0) return "n/a";
  const r = target / baseline;
  return `${r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(3) : r.toPrecision(3)}×`;
}

export function mb(kb: number | null): string {
  return kb === null ? "n/a" : `${(kb / 1024).toFixed(0)} MB`;
}

/** `total / units` (e.g. CPU ms per delivery), null when either is missing or there are no units. */
export function perUnit(total: number | null | undefined, units: number): number | null {
  return total === null || total === undefined || units <= 0 ? null : total / units;
}
