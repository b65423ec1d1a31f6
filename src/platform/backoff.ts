/**
 * Capped exponential backoff with jitter, shared by the REST retry policy, the WebSocket reconnects and the
 * analytics report queue.
 */

export interface BackoffOptions {
  /** First delay in ms. */
  initialMs: number;
  /** Upper bound in ms (before jitter). */
  maxMs: number;
  /** Relative jitter, e.g. 0.2 for ±20 %. */
  jitter: number;
}

/** Delay before retry number `attempt` (1-based): initial * 2^(attempt-1), capped, ± jitter. */
export function backoffDelay(attempt: number, o: BackoffOptions, random: () => number = Math.random): number {
  const exp = Math.min(o.maxMs, o.initialMs * Math.pow(2, Math.max(0, attempt - 1)));
  const spread = exp * o.jitter;
  return Math.max(0, Math.round(exp - spread + random() * 2 * spread));
}

const DELTA_SECONDS = /^\d+(\.\d+)?$/;

/**
 * Reads a Retry-After header: delta seconds ("3") or an HTTP date. Returns ms, or undefined when absent or
 * unreadable. Negative values become 0.
 */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'number') return Number.isFinite(value) ? Math.max(0, value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (DELTA_SECONDS.test(v)) return Math.round(parseFloat(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
