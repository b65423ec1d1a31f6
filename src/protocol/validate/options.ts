/**
 * The options of key discovery (which key kinds and attribute scopes) and of an alarm status watch (alarm types and
 * severities), each list given as an array or a comma-separated string.
 */

import type { AlarmSeverity, AttributeScope } from '../types';
import { SCOPE, SEVERITY, arr, bool, fail, obj, oneOf, str, type EnumSpec } from './primitives';

/** Options of the key discovery endpoints, validated. */
export interface KeysOptions {
  includeTimeseries: boolean;
  includeAttributes: boolean;
  /** Empty = let the server choose (v2: all three scopes when a device matched; v1: all scopes). */
  scopes: AttributeScope[];
}

/**
 * An array, or a comma-separated string, of names (each one of `spec` when given); blanks are skipped and
 * duplicates removed, order kept. `null` / `undefined` / `""` give `[]`.
 */
function nameList<T extends string>(v: unknown, path: string, spec?: EnumSpec<T>): T[] {
  const out: T[] = [];
  if (v == null) return out;
  if (typeof v === 'string') {
    const parts = v.split(',');
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i].trim();
      if (name === '') continue;
      const item = (spec ? oneOf(name, spec, path) : name) as T;
      if (!out.includes(item)) out.push(item);
    }
    return out;
  }
  const what = spec ? spec.text : 'names';
  const a = arr(v, path, `an array (or a comma-separated string) of ${what}`);
  for (let i = 0; i < a.length; i++) {
    const p = `${path}[${i}]`;
    const item = (spec ? oneOf(a[i], spec, p) : str(a[i], p).trim()) as T;
    if (item !== '' && !out.includes(item)) out.push(item);
  }
  return out;
}

function flag(v: unknown, path: string): boolean {
  if (v == null || v === '') return true;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return bool(v, path);
}

/**
 * Validates the key discovery options: `timeseries` and `attributes` default to true, at least one must be true;
 * `scopes` is an array or a comma-separated string of SERVER_SCOPE, SHARED_SCOPE, CLIENT_SCOPE (duplicates
 * removed, order kept).
 */
export function prepareKeysOptions(
  input: { timeseries?: unknown; attributes?: unknown; scopes?: unknown } | null | undefined,
  field = 'keys',
): KeysOptions {
  const o = input == null ? {} : obj(input, field, 'an object {timeseries, attributes, scopes}');
  const includeTimeseries = flag(o.timeseries, `${field}.timeseries`);
  const includeAttributes = flag(o.attributes, `${field}.attributes`);
  if (!includeTimeseries && !includeAttributes) {
    fail(field, `${field}: at least one of timeseries or attributes must be true (both are false)`);
  }
  const scopes = nameList(o.scopes, `${field}.scopes`, SCOPE);
  return { includeTimeseries, includeAttributes, scopes };
}

/** Validated lists of an ALARM_STATUS subscription. Empty means "any" (send `null` on the wire, not `[]`). */
export interface AlarmStatusOptions {
  typeList: string[];
  severityList: AlarmSeverity[];
}

/**
 * Validates the alarm type and severity lists of an alarm status watch: each an array or a comma-separated string
 * (blanks skipped, duplicates removed); severities must be CRITICAL, MAJOR, MINOR, WARNING or INDETERMINATE.
 * Paths are `typeList` / `severityList`, prefixed with `field.` when `field` is given.
 */
export function prepareAlarmStatusOptions(
  input: { typeList?: unknown; severityList?: unknown } | null | undefined,
  field = '',
): AlarmStatusOptions {
  const prefix = field ? `${field}.` : '';
  const o = input == null ? {} : obj(input, field || 'options', 'an object {typeList, severityList}');
  return {
    typeList: nameList<string>(o.typeList, `${prefix}typeList`),
    severityList: nameList(o.severityList, `${prefix}severityList`, SEVERITY),
  };
}
