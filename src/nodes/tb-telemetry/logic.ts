/**
 * tb-telemetry's pure logic: the operations and their options (validated before anything is sent, each error naming
 * the field and what is allowed: a range, an aggregation and its interval, a time zone, a limit), the values of a
 * save stamped once when the message arrives, and the flat forms of the answers. No I/O, no Node-RED.
 */
import { TbError, TbInputError } from '../../errors';
import { durationSetting, durationText } from '../../protocol/duration';
import {
  checkValues,
  INTERVAL_TYPES,
  MAX_INTERVALS,
  ORDERS,
  prepareTimeseries,
  type DeleteRequest,
  type HistoryRequest,
  type Order,
  type TelemetryRequest,
  type TimeseriesAnswer,
} from '../../protocol/telemetry';
import { AGGREGATIONS } from '../../protocol/types';
import { describe, got, isObject } from '../../protocol/validate';
import {
  blankSetting,
  boolOption,
  durationOption,
  enumOption,
  intOption,
  keysOption,
  OptionReader,
  requiredKeys,
  SOME_KEY,
  timeOption,
  type Bag,
} from '../../settings/options';
import { TB_TELEMETRY, TELEMETRY_OPERATIONS, type TelemetryOperation } from './settings';

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** What a setting reads when neither the node nor the message sets it: the node's default. */
const DEFAULTS = TB_TELEMETRY.settings;
/** The points of a history read without a limit, at most, when neither the node nor the message says. */
export const DEFAULT_MAX_ITEMS = DEFAULTS.maxItems.default as number;

/** The range options, read together from one place: the message when it sets any of them, else the node. */
const RANGE_NAMES = ['from', 'to', 'last'] as const;

interface Range {
  startTs: number;
  endTs: number;
}

/** `from` / `to` (to defaults to now) or `last` (ms before now); `to` after `from`. */
function prepareRange(r: OptionReader, now: number, names: readonly string[] = RANGE_NAMES): Range | undefined {
  const g = r.group(names);
  const last = durationOption(g.last, undefined);
  const from = timeOption(g.from);
  const to = timeOption(g.to);
  if (last !== undefined) {
    if (g.from)
      fail(
        g.from.field,
        `${g.from.field} and ${g.last!.field} are both set: give either from/to, or last (ms before now)`,
      );
    const endTs = to ?? now;
    return { startTs: endTs - last, endTs };
  }
  if (from === undefined) {
    if (g.to)
      fail(
        g.to.field.replace(/to$/, 'from'),
        `${g.to.field.replace(/to$/, 'from')} is missing: a range needs from (and to, by default now), or last`,
      );
    return undefined;
  }
  const endTs = to ?? now;
  if (endTs <= from) {
    const toField = g.to ? g.to.field : 'to (now)';
    fail(
      g.from!.field,
      `${g.from!.field} (${new Date(from).toISOString()}) must be before ${toField} (${new Date(endTs).toISOString()})`,
    );
  }
  return { startTs: from, endTs };
}

/** Zones already asked about: building a DateTimeFormat costs about 0.5 ms (the editor checks on every keystroke). */
const zones = new Map<string, boolean>();

function isTimeZone(tz: string): boolean {
  let ok = zones.get(tz);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      ok = true;
    } catch {
      ok = false;
    }
    if (zones.size > 200) zones.clear();
    zones.set(tz, ok);
  }
  return ok;
}

function prepareHistory(r: OptionReader, now: number): HistoryRequest {
  const keys = requiredKeys(
    r.get('keys'),
    'keys',
    'history reads the keys it is given (without keys, servers before 4.3 answer with the latest values instead)',
  );
  const range = prepareRange(r, now);
  if (!range)
    fail(
      'from',
      'from is missing: history needs a range, from (and to, by default now), or last (ms before now, e.g. 24h)',
    );
  const agg = enumOption(r.get('agg'), AGGREGATIONS, DEFAULTS.agg.default);
  const order = enumOption(r.get('order'), ORDERS, DEFAULTS.order.default);
  const limitS = r.get('limit');
  const limit = intOption(limitS, undefined, 1);
  const maxItems = intOption(r.get('maxItems'), DEFAULT_MAX_ITEMS, 1) as number;
  const req: HistoryRequest = {
    operation: 'history',
    keys,
    startTs: range.startTs,
    endTs: range.endTs,
    agg,
    order,
    maxItems,
  };
  if (limit !== undefined) req.limit = limit;
  if (agg === 'NONE') return req;

  const intervalTypeS = r.get('intervalType');
  const intervalType = intervalTypeS ? enumOption(intervalTypeS, INTERVAL_TYPES, 'MILLISECONDS') : undefined;
  const intervalS = r.get('interval');
  const interval = durationOption(intervalS, undefined);
  const span = range.endTs - range.startTs;
  if (intervalType && intervalType !== 'MILLISECONDS') {
    req.intervalType = intervalType;
    const tzS = r.get('timeZone');
    if (tzS) {
      if (typeof tzS.value !== 'string' || !isTimeZone(tzS.value.trim())) {
        fail(
          tzS.field,
          `${tzS.field} must be an IANA time zone such as "Europe/Berlin" or "UTC" ${got(tzS.value)} (ThingsBoard ` +
            'would silently use its own zone)',
        );
      }
      req.timeZone = tzS.value.trim();
    }
    return req;
  }
  if (interval === undefined) {
    fail(
      'interval',
      `interval is missing: agg ${agg} needs an interval (a duration, e.g. 1h) or an intervalType (WEEK, WEEK_ISO, MONTH, ` +
        'QUARTER); without one ThingsBoard silently returns raw points',
    );
  }
  const intervals = Math.floor(span / Math.max(interval, 1000));
  if (intervals > MAX_INTERVALS) {
    const field = intervalS ? intervalS.field : 'interval';
    const least = Math.ceil(span / MAX_INTERVALS);
    // Said as one types it: in whole seconds from a second up.
    const typed = durationSetting(least > 1000 ? Math.ceil(least / 1000) * 1000 : least);
    fail(
      field,
      `${field} must be at least ${typed} for this range, or the range shorter: ${durationText(interval)} cuts ` +
        `${durationText(span)} into ${intervals} intervals, and ThingsBoard allows at most ${MAX_INTERVALS}`,
    );
  }
  req.interval = interval;
  if (intervalType === 'MILLISECONDS') req.intervalType = intervalType;
  return req;
}

function prepareDelete(r: OptionReader, now: number): DeleteRequest {
  const keys = requiredKeys(r.get('keys'), 'keys', 'delete removes the keys it is given');
  const g = r.group(['all', 'from', 'to', 'last']);
  const all = boolOption(g.all, DEFAULTS.all.default);
  const deleteLatest = boolOption(r.get('deleteLatest'), DEFAULTS.deleteLatest.default);
  const rewriteLatest = boolOption(r.get('rewriteLatest'), DEFAULTS.rewriteLatest.default);
  const range = prepareRange(r, now, ['all', 'from', 'to', 'last']);
  if (all) {
    if (range)
      fail(g.all!.field, `${g.all!.field} is true and a range is set too: give either all: true, or from/to (or last)`);
    return { operation: 'delete', keys, all: true, deleteLatest, rewriteLatest };
  }
  if (!range)
    fail(
      'from',
      'from is missing: delete needs a range, from and to (to is by default now, and is not included), last, or all: ' +
        'true',
    );
  return {
    operation: 'delete',
    keys,
    all: false,
    startTs: range.startTs,
    endTs: range.endTs,
    deleteLatest,
    rewriteLatest,
  };
}

/**
 * The request of one message: the options of its operation, from the node's settings first and the message next.
 * `now` stamps the values of a save and ends a range without `to`. With `fromRows` the values of a save are the
 * dialog's rows for this message (`{key: value}`, one point at `now`), not msg.payload.
 */
/**
 * The time to live of saved values, in whole seconds as ThingsBoard takes it: a duration such as `30d` (a number
 * alone is ms, as in every duration setting; in msg.ttl it is seconds, as documented); undefined = the tenant's.
 */
function prepareTtl(s: ReturnType<OptionReader['get']>): number | undefined {
  const ms = durationOption(s, undefined, 0, s?.field === 'msg.ttl' ? 's' : 'ms');
  if (ms === undefined || !s) return undefined;
  if (ms % 1000 !== 0)
    fail(s.field, `${s.field} must be whole seconds, such as 30d, 12h or 90s (got ${describe(s.value)})`);
  return ms / 1000;
}

export function prepareTelemetryRequest(
  operation: TelemetryOperation,
  r: OptionReader,
  payload: unknown,
  now: number,
  fromRows = false,
): TelemetryRequest {
  switch (operation) {
    case 'save': {
      // Rows are keys: one named ts or values is a time series of that name, never the {ts, values} form.
      const records = fromRows
        ? [{ ts: now, values: checkValues(payload, 'values', 'rows of key and value') }]
        : prepareTimeseries(payload, 'msg.payload', now);
      const ttl = prepareTtl(r.get('ttl'));
      return ttl ? { operation, records, ttl } : { operation, records };
    }
    case 'latest':
      return { operation, keys: keysOption(r.get('keys')) };
    case 'history':
      return prepareHistory(r, now);
    default:
      return prepareDelete(r, now);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Flat forms
// ---------------------------------------------------------------------------------------------------------------

/** A history row: `{ts, key: value, …}`; a key with no point at that ts is absent. */
export type HistoryRow = { ts: number } & Record<string, unknown>;

/** Rows merged by ts, in the asked order: ready for a chart or a table. */
export function historyRows(series: TimeseriesAnswer, order: Order): HistoryRow[] {
  const rows = new Map<number, HistoryRow>();
  for (const k of Object.keys(series)) {
    if (k === 'ts') continue;
    for (const p of series[k]) {
      let row = rows.get(p.ts);
      if (!row) {
        row = { ts: p.ts };
        rows.set(p.ts, row);
      }
      row[k] = p.value;
    }
  }
  const out = Array.from(rows.values());
  out.sort(order === 'ASC' ? (a, b) => a.ts - b.ts : (a, b) => b.ts - a.ts);
  return out;
}

/**
 * The flat latest values: `values = {key: value}` with native types, `ts = {key: ms}`. A key that has no value
 * is `null` and has no ts (the server answers it with `value: null` and its own clock as ts).
 */
export function flatLatest(answer: unknown): { values: Record<string, unknown>; ts: Record<string, number> } {
  if (!isObject(answer))
    throw new TbError(
      'TB_BAD_RESPONSE',
      `ThingsBoard answered a latest read with ${describe(answer)}, not an object of key → values`,
    );
  const values: Record<string, unknown> = {};
  const ts: Record<string, number> = {};
  for (const k of Object.keys(answer)) {
    const list = answer[k];
    const p = Array.isArray(list) && list.length ? list[0] : undefined;
    const v = isObject(p) && p.value !== undefined ? p.value : null;
    values[k] = v;
    if (v !== null && isObject(p) && typeof p.ts === 'number') ts[k] = p.ts;
  }
  return { values, ts };
}

/**
 * The settings as the runtime reads them, with what a message may bring filled in: keys (history and delete need
 * them) and a short range (history and delete need one), so that the checks after them still run.
 */
function telemetryBag(op: TelemetryOperation, s: Record<string, unknown>): Bag {
  const bag: Bag = { ...s };
  if ((op === 'history' || op === 'delete') && blankSetting(s.keys)) bag.keys = SOME_KEY;
  const ranged = op === 'history' || op === 'delete';
  const noRange =
    blankSetting(s.from) &&
    blankSetting(s.to) &&
    blankSetting(s.last) &&
    !(op === 'delete' && (s.all === true || s.all === 'true'));
  // One second: never more than one interval, whatever the interval.
  if (ranged && noRange) bag.last = '1000';
  return bag;
}

/**
 * The dialog's check of the node's settings (registered by its dialog, run by the device-target part): the runtime's
 * own checks over the settings as the dialog holds them, with stand-ins for what a message may still bring.
 */
export function checkTelemetrySettings(s: Record<string, unknown>, now: number): void {
  const op = blankSetting(s.operation) ? DEFAULTS.operation.default : s.operation;
  const ops: readonly TelemetryOperation[] =
    op === 'msg'
      ? TELEMETRY_OPERATIONS
      : (TELEMETRY_OPERATIONS as readonly unknown[]).includes(op)
        ? [op as TelemetryOperation]
        : [];
  for (const o of ops) prepareTelemetryRequest(o, new OptionReader(telemetryBag(o, s), {}), { value: 1 }, now);
}
