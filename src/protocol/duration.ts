/**
 * Durations as people write them, the same in every node: a number with a unit, `500ms`, `30s`, `15m` (or `15min`),
 * `2h`, `7d`, `2w`; a number alone is ms (a message property documented in seconds, such as `msg.ttl`, says so
 * with `bare`). One parser (`parseDuration`) and one formatter (`durationParts`, and the two texts made from it: the
 * one a setting saves, `durationSetting`, and the one a status or a message says, `durationText`). Pure: no I/O, no
 * Node-RED, no DOM; the dialogs use it too.
 */

export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd' | 'w';

const UNIT_MS: Readonly<Record<DurationUnit, number>> = {
  ms: 1,
  s: 1000,
  m: 60000,
  h: 3600000,
  d: 86400000,
  w: 604800000,
};

/** The names a unit may be written with (any case). */
const UNIT_NAMES: Readonly<Record<string, DurationUnit>> = {
  ms: 'ms',
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
  w: 'w',
  week: 'w',
  weeks: 'w',
};

const DURATION_RE = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i;

const BARE_NAME: Readonly<Record<DurationUnit, string>> = {
  ms: 'ms',
  s: 'seconds',
  m: 'minutes',
  h: 'hours',
  d: 'days',
  w: 'weeks',
};

/** What a duration may be, for error messages: "… must be a duration such as 30s, 15m, 2h …". */
export function durationRule(bare: DurationUnit = 'ms'): string {
  return `a duration such as 30s, 15m, 2h or 7d (a number alone is ${BARE_NAME[bare]})`;
}
export const DURATION_TEXT = durationRule();

/**
 * The ms of a duration: a number (of `bare` units, ms unless said) or a text, a number with a unit or alone (then
 * of `bare` units), such as `30s`, `1.5h`, `250ms`, `15 min`. Undefined for anything else: a negative number, an
 * unknown unit, a fraction of a ms.
 */
export function parseDuration(v: unknown, bare: DurationUnit = 'ms'): number | undefined {
  let ms: number | undefined;
  if (typeof v === 'number') ms = v >= 0 ? v * UNIT_MS[bare] : undefined;
  else if (typeof v === 'string') {
    const m = DURATION_RE.exec(v);
    const unit = m ? (m[2] === '' ? bare : UNIT_NAMES[m[2].toLowerCase()]) : undefined;
    if (m && unit) ms = Math.round(Number(m[1]) * UNIT_MS[unit]);
  }
  return ms !== undefined && Number.isSafeInteger(ms) ? ms : undefined;
}

/** The units a duration is said in, largest first (a week is said in days). */
const SAID: ReadonlyArray<readonly ['d' | 'h' | 'min' | 's', number]> = [
  ['d', UNIT_MS.d],
  ['h', UNIT_MS.h],
  ['min', UNIT_MS.m],
  ['s', UNIT_MS.s],
];

/** A duration in the largest unit that divides it: 30 s, 30 min, 2 h, 1 d (ms when none does, and for 0). */
export function durationParts(ms: number): { n: number; unit: 'd' | 'h' | 'min' | 's' | 'ms' } {
  if (ms > 0) for (const [unit, size] of SAID) if (ms % size === 0) return { n: ms / size, unit };
  return { n: ms, unit: 'ms' };
}

/** A duration as a status or a message says it: "30 s", "10 min", "2 h", "1 d", "1500 ms". */
export function durationText(ms: number): string {
  const { n, unit } = durationParts(ms);
  return `${n} ${unit}`;
}

/**
 * A span of time measured on a clock, as a message says it: rounded, in at most two units, "10 s" for 10,001 ms,
 * "10 min", "1 h 29 min", "2 d 3 h"; under a second in ms. (durationText says a set duration exactly.)
 */
export function spanText(ms: number): string {
  const two = (total: number, per: number, big: string, small: string) => {
    const rest = total % per;
    return `${(total - rest) / per} ${big}${rest ? ` ${rest} ${small}` : ''}`;
  };
  if (Math.round(ms) < UNIT_MS.s) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / UNIT_MS.s);
  if (s < 60) return `${s} s`;
  if (s < 3600) return two(s, 60, 'min', 's');
  const min = Math.round(ms / UNIT_MS.m);
  if (min < 1440) return two(min, 60, 'h', 'min');
  return two(Math.round(ms / UNIT_MS.h), 24, 'd', 'h');
}

/** A duration as a setting saves it, for the dialog to show: "30s", "10m", "2h", "1d", "1500ms"; 0 is "0". */
export function durationSetting(ms: number): string {
  if (ms === 0) return '0';
  const { n, unit } = durationParts(ms);
  return `${n}${unit === 'min' ? 'm' : unit}`;
}

/**
 * A saved setting that held a number of `unit` (older versions saved some durations so) as the duration text the
 * setting saves now: 30 (seconds) becomes "30s", 10000 (ms) "10s", "15000" "15s". Anything else (empty, already a
 * duration with a unit, not a duration at all) is left as it is, for the node to read or report.
 */
export function numberToDuration(v: unknown, unit: DurationUnit): unknown {
  const isNumber = typeof v === 'number' || (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v));
  if (!isNumber) return v;
  const ms = parseDuration(typeof v === 'number' ? v : v.trim(), unit);
  return ms === undefined ? v : durationSetting(ms);
}

/**
 * A span older versions saved as a number beside a unit name (1 and "hours", 7 and "days") as the duration text saved
 * now ("1h", "7d"; no unit: hours). What is not a span is left for the node to report: a number that is not one, or
 * not above 0, as it is; a unit that is not one in the text ("1 fortnights").
 */
export function spanToDuration(n: unknown, unit: unknown): unknown {
  const u = unit === undefined || unit === null || unit === '' ? 'hours' : String(unit);
  const v = typeof n === 'number' ? n : typeof n === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(n) ? Number(n) : NaN;
  if (!(v > 0)) return n;
  const ms = parseDuration(`${v} ${u}`);
  return ms === undefined ? `${v} ${u}` : durationSetting(ms);
}
