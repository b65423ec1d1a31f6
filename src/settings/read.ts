/**
 * Reading a node's saved settings: a checkbox (saved as "true" by older flows) and a positive whole number.
 */

/** A checkbox setting ("true" in older flows). */
export function flag(v: unknown): boolean {
  return v === true || v === 'true';
}

/** A positive whole-number setting, or the fallback. */
export function intSetting(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : parseInt(String(v ?? ''), 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
