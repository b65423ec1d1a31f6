/** Spring's conversion of request parameters and path variables, as the controllers see them. */
import { badRequest, general } from './errors';

/**
 * Spring's boolean conversion for request parameters (the keys endpoints answer 500 for a bad value, see server.ts).
 */
export function springBool(v: string, name: string): boolean {
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === 'on' || s === 'yes' || s === '1') return true;
  if (s === 'false' || s === 'off' || s === 'no' || s === '0' || s === '') return false;
  void name;
  throw general(
    `Failed to convert value of type 'java.lang.String' to required type 'boolean'; Invalid boolean value [${v}]`,
  );
}

/** The 400/31 of a `MethodArgumentTypeMismatchException` (`C/BaseController.java:470-471`). */
export function typeMismatch(name: string, javaType: string, detail: string): Error {
  return badRequest(
    `Method parameter '${name}': Failed to convert value of type 'java.lang.String' to required type ` +
      `'${javaType}'; ${detail}`,
  );
}

/** A `boolean` @RequestParam with a default: a bad value is a type mismatch (400/31). */
export function boolParam(q: URLSearchParams, name: string, dflt: boolean): boolean {
  const v = q.get(name);
  if (v === null) return dflt;
  const s = v.trim().toLowerCase();
  if (s === '') return dflt;
  if (s === 'true' || s === 'on' || s === 'yes' || s === '1') return true;
  if (s === 'false' || s === 'off' || s === 'no' || s === '0') return false;
  throw typeMismatch(name, 'boolean', `Invalid boolean value [${v}]`);
}

const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

/**
 * Spring's String → Long/Integer (`NumberUtils.parseNumber`: trimmed, then `Long.decode`: `0x`/`#` hex, a leading
 * `0` octal). Empty → null. A bad value → 400/31 type mismatch with `For input string: "…"`.
 */
export function numberParam(q: URLSearchParams, name: string, kind: 'Long' | 'Integer'): number | null {
  const raw = q.get(name);
  if (raw === null) return null;
  const v = raw.trim();
  if (v === '') return null;
  const fail = (): never => {
    throw typeMismatch(name, `java.lang.${kind}`, `For input string: "${v}"`);
  };
  let s = v;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  let radix = 10;
  if (s.startsWith('0x') || s.startsWith('0X')) {
    radix = 16;
    s = s.slice(2);
  } else if (s.startsWith('#')) {
    radix = 16;
    s = s.slice(1);
  } else if (s.startsWith('0') && s.length > 1) {
    radix = 8;
    s = s.slice(1);
  }
  if (s === '' || s[0] === '-' || s[0] === '+') fail();
  const digits = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!digits.test(s)) fail();
  let n = 0n;
  for (const ch of s) n = n * BigInt(radix) + BigInt(parseInt(ch, radix));
  if (neg) n = -n;
  const [min, max] = kind === 'Long' ? [LONG_MIN, LONG_MAX] : [-2147483648n, 2147483647n];
  if (n < min || n > max) fail();
  return Number(n);
}

/**
 * `TelemetryController#getKeys`: repeated `key` parameters (from 4.3) win; otherwise `keys` split on commas like
 * Java's `String#split` (no trimming, trailing empty parts dropped). Several `keys` parameters are joined with
 * commas (Spring's String binding).
 */
export function keysParam(q: URLSearchParams, repeatedKeys: boolean): string[] {
  const key = q.getAll('key');
  if (repeatedKeys && key.length > 0) return key;
  const keys = q.getAll('keys');
  if (keys.length === 0) return [];
  return javaSplit(keys.join(','));
}

/** Java `String#split(",")`. */
export function javaSplit(s: string): string[] {
  if (s === '') return [];
  const parts = s.split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
