/**
 * Options of the device-action nodes (tb-telemetry, tb-attributes, tb-rpc): every option can be set on the node or
 * by a message property of the same name, and **the node wins** (Node-RED core's rule): a setting fixed in the
 * dialog is used, and a message property of the same name is ignored for it (the reader lists it in `ignored`, for
 * the node's one-time warning); a setting left empty reads the message. This module reads an option from both
 * places and checks it, naming where it was read (the node's `keys`, or `msg.keys`) and what is allowed.
 * Pure: no I/O, no Node-RED.
 *
 * The node's values come from the editor (strings, '' = not set); a message's value counts as set unless it is
 * `undefined` or `null`. Numbers may be given as numeric strings; booleans as true/false or "true"/"false";
 * durations as a number with a unit (`500ms`, `30s`, `15m`, `24h`, `7d`, `2w`) or ms alone (see duration.ts); times
 * as ms since the epoch, ISO text or a Date.
 */
import { TbInputError } from '../errors';
import { durationRule, durationText, parseDuration, type DurationUnit } from '../protocol/duration';
import { RESULT_FORMATS } from '../protocol/format';
import { describe, got, timeValue } from '../protocol/validate';
import { choice, whole } from './declare';

/** A value and where it was read (for messages): `{value: msg.payload.originator, field: "msg.payload.originator"}`. */
export interface Sourced {
  value: unknown;
  field: string;
}

export type Bag = Record<string, unknown>;

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** Is a node setting unset? (the editor saves '' for an empty field) */
export function unsetNode(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** Is a message property unset? */
export function unsetMsg(v: unknown): boolean {
  return v === undefined || v === null;
}

/** Reads options from the node's settings first; a setting left empty reads the message property of the same name. */
export class OptionReader {
  /** Message properties that were set but not used because the node fixes that option (in the order met). */
  readonly ignored: string[] = [];

  constructor(
    readonly node: Bag,
    readonly msg: Bag,
  ) {}

  private ignore(name: string): void {
    if (!unsetMsg(this.msg[name]) && !this.ignored.includes(name)) this.ignored.push(name);
  }

  /** The option's value and where it was read, or undefined when neither sets it. */
  get(name: string): Sourced | undefined {
    const n = this.node[name];
    if (!unsetNode(n)) {
      this.ignore(name);
      return { value: n, field: name };
    }
    const m = this.msg[name];
    if (!unsetMsg(m)) return { value: m, field: `msg.${name}` };
    return undefined;
  }

  /**
   * Does the node set any of these options? An unticked box (false) sets nothing here: it leaves the group (e.g.
   * delete's `all` beside a range) to the other options.
   */
  private nodeSetsAny(names: readonly string[]): boolean {
    return names.some((n) => {
      const v = this.node[n];
      return !unsetNode(v) && v !== false && v !== 'false';
    });
  }

  /** The options of a group from one place only: the node's when it sets any of them, else the message's. */
  group(names: readonly string[]): Record<string, Sourced | undefined> {
    const fromNode = this.nodeSetsAny(names);
    const out: Record<string, Sourced | undefined> = {};
    for (const name of names) {
      if (fromNode) this.ignore(name);
      const v = fromNode ? this.node[name] : this.msg[name];
      out[name] = (fromNode ? unsetNode(v) : unsetMsg(v))
        ? undefined
        : { value: v, field: fromNode ? name : `msg.${name}` };
    }
    return out;
  }
}

/** One of a list of strings (exact; a case-only difference gets a "did you mean"). */
export function enumOption<T extends string>(s: Sourced | undefined, allowed: readonly T[], fallback: T): T {
  if (!s) return fallback;
  const v = s.value;
  if (typeof v === 'string') {
    const t = v.trim();
    if ((allowed as readonly string[]).includes(t)) return t as T;
    const hint = allowed.find((a) => a.toLowerCase() === t.toLowerCase());
    if (hint)
      fail(s.field, `${s.field} must be one of ${allowed.join(', ')} (got ${describe(v)}; did you mean "${hint}"?)`);
  }
  return fail(s.field, `${s.field} must be one of ${allowed.join(', ')} ${got(v)}`);
}

/** true / false (or the strings "true" / "false"). */
export function boolOption(s: Sourced | undefined, fallback: boolean): boolean {
  if (!s) return fallback;
  const v = s.value;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return fail(s.field, `${s.field} must be true or false ${got(v)}`);
}

function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

/** A whole number within [min, max]; `what` names the unit ("ms", "seconds"). */
export function intOption(
  s: Sourced | undefined,
  fallback: number | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  what = '',
): number | undefined {
  if (!s) return fallback;
  const n = numberOf(s.value);
  const unit = what ? ` (${what})` : '';
  if (n === undefined || !Number.isSafeInteger(n))
    fail(s.field, `${s.field} must be a whole number${unit} ${got(s.value)}`);
  if (n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
    fail(s.field, `${s.field} must be ${range}${unit} (got ${n})`);
  }
  return n;
}

/**
 * A duration in ms (at least `min`, 1 ms unless said): a number of `bare` units (ms unless said), or a text such as
 * 30s, 15m, 2h (see parseDuration).
 */
export function durationOption(
  s: Sourced | undefined,
  fallback: number | undefined,
  min = 1,
  bare: DurationUnit = 'ms',
): number | undefined {
  if (!s) return fallback;
  const ms = parseDuration(s.value, bare);
  if (ms === undefined) fail(s.field, `${s.field} must be ${durationRule(bare)} ${got(s.value)}`);
  if (ms < min) fail(s.field, `${s.field} must be at least ${durationText(min)} (got ${describe(s.value)})`);
  return ms;
}

/** A time: ms since 1970, ISO text or a Date (see {@link timeValue}). */
export function timeOption(s: Sourced | undefined): number | undefined {
  return s ? timeValue(s.value, s.field) : undefined;
}

/**
 * A list of keys: an array of strings or a comma-separated text, trimmed, empty entries dropped, duplicates
 * dropped. ThingsBoard reads `keys` as a comma-separated list and does not trim it, so a key with a comma cannot be
 * asked for and is refused.
 */
export function keysOption(s: Sourced | undefined): string[] {
  if (!s) return [];
  const v = s.value;
  let list: string[];
  if (typeof v === 'string') list = v.split(',');
  else if (Array.isArray(v)) {
    list = v.map((k, i) => {
      if (typeof k !== 'string') fail(`${s.field}[${i}]`, `${s.field}[${i}] must be a key name (a string) ${got(k)}`);
      if (k.includes(','))
        fail(
          `${s.field}[${i}]`,
          `${s.field}[${i}] ("${k}") contains a comma: ThingsBoard reads keys as a comma-separated list`,
        );
      return k;
    });
  } else {
    return fail(
      s.field,
      `${s.field} must be a list of keys: an array of strings, or a comma-separated text such as "temperature, ` +
        `humidity" ${got(v)}`,
    );
  }
  const out: string[] = [];
  for (const k of list) {
    const t = k.trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Keys that must be given (`what` says why, e.g. "history needs the keys to read"). */
export function requiredKeys(s: Sourced | undefined, name: string, why: string): string[] {
  const keys = keysOption(s);
  if (keys.length === 0) {
    const field = s ? s.field : name;
    fail(field, `${field} must name at least one key: ${why} ${s ? got(s.value) : '(missing)'}`);
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------------------------

/** The operation: the node's, or `msg.operation` when the node says "msg". */
export function prepareOperation<T extends string>(node: unknown, msg: Bag, operations: readonly T[], fallback: T): T {
  const configured = node === undefined || node === null || node === '' ? fallback : node;
  if (configured === 'msg') {
    if (unsetMsg(msg.operation))
      fail(
        'msg.operation',
        `msg.operation must be one of ${operations.join(', ')} (missing; the node takes the operation from the ` +
          'message)',
      );
    return enumOption({ value: msg.operation, field: 'msg.operation' }, operations, fallback);
  }
  return enumOption({ value: configured, field: 'operation' }, operations, fallback);
}

/** A key name standing in for keys a message will bring, in a dialog's check of its settings (never shown). */
export const SOME_KEY = 'key';

/** Is a setting left empty (undefined, null, or blank text)? */
export function blankSetting(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

// ---------------------------------------------------------------------------------------------------------------
// Settings the device actions share (besides the entity's: targetSettings)
// ---------------------------------------------------------------------------------------------------------------

/** In parallel: how many entities of a list a device action acts on at once. */
export function concurrencySetting() {
  return whole(4, { min: 1 });
}

/** The output of a read: flat (key: value, rows by time) or raw (as ThingsBoard sends it). */
export function formatSetting() {
  return choice(RESULT_FORMATS, 'flat');
}
