/** Small statistics and formatting helpers shared by the orchestrator and the agent. */

/** Value at quantile q (0..1) of an ascending-sorted array (nearest rank). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const rank = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[rank];
}

/** p50/p99/max of a sample (the array is copied and sorted). */
export function summarize(values: ArrayLike<number>): { p50: number; p99: number; max: number; n: number } {
  const a = Float64Array.from(values as ArrayLike<number>).sort();
  return {
    p50: quantileSorted(a, 0.5),
    p99: quantileSorted(a, 0.99),
    max: a.length ? a[a.length - 1] : NaN,
    n: a.length,
  };
}

export function median(values: number[]): number {
  const a = values.filter((v) => Number.isFinite(v)).sort((x, y) => x - y);
  if (a.length === 0) return NaN;
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

/** Number with thousands separators and a fixed count of decimals. */
export function fmt(v: number | undefined, decimals = 0): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** Milliseconds, with more decimals for small values. */
export function fmtMs(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  if (v < 10) return fmt(v, 2);
  if (v < 100) return fmt(v, 1);
  return fmt(v, 0);
}

export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN;
}

export function fmtRatio(v: number): string {
  return Number.isFinite(v) ? `${v.toFixed(2)}×` : '—';
}

/** Rotates a list by `k` (used to alternate the contenders' order from round to round). */
export function rotate<T>(list: T[], k: number): T[] {
  if (list.length === 0) return list;
  const s = ((k % list.length) + list.length) % list.length;
  return [...list.slice(s), ...list.slice(0, s)];
}
