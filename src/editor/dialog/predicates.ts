/**
 * The small checks the dialogs' validators share. No DOM: unit-tested in Node.
 */
import { UUID_PATTERN } from '../../protocol/validate';

export function blank(v: unknown): boolean {
  return v === undefined || v === null || String(v).trim() === '';
}

export function isPlainObject(o: unknown): o is Record<string, unknown> {
  return o !== null && typeof o === 'object' && !Array.isArray(o);
}

/** A checkbox's value as a flow may hold it (saved as a boolean, or as a string by older tools). */
export function isBool(v: unknown): boolean {
  return v === true || v === false || v === 'true' || v === 'false';
}

export function isOn(v: unknown): boolean {
  return v === true || v === 'true';
}

/** "a, b" -> ['a', 'b'] */
export function items(v: unknown): string[] {
  return String(v)
    .split(',')
    .map((s) => s.trim());
}

/** "a, b" -> true; "a,,b" or ",a" -> false; '' -> true (nothing listed). */
export function isKeyList(v: unknown): boolean {
  return blank(v) || items(v).every((s) => s !== '');
}

export function positiveNumber(v: unknown): boolean {
  const n = Number(v);
  return !blank(v) && isFinite(n) && n > 0;
}

export function wholeAtLeast(v: unknown, min: number): boolean {
  const n = Number(v);
  return !blank(v) && Number.isInteger(n) && n >= min;
}

const UUID_RE = new RegExp(UUID_PATTERN);

/** An id as the runtime accepts one (its own pattern). */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID_RE.test(v);
}
