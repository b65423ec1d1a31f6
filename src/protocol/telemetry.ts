/**
 * Time series of an entity (protocol §13.1.1, 1.4-1.6), the pure part of tb-telemetry: the operations and their
 * options (validated before anything is sent, each error naming the field and what is allowed), the values of a
 * save stamped once when the message arrives, the query-string of each request, the paging of a history read
 * (the server stops at `limit` points per key, newest first by default: §13.6 traps 2 and 3), and the flat forms
 * of the answers. No I/O, no Node-RED.
 */
import { TbError, TbInputError } from '../errors';
import {
  boolOption,
  durationOption,
  enumOption,
  intOption,
  keysOption,
  OptionReader,
  requiredKeys,
  timeOption,
  unsetMsg,
  type Bag,
} from '../settings/options';
import { describe, got, isObject } from './validate';

export const TELEMETRY_OPERATIONS = ['save', 'latest', 'history', 'delete'] as const;
export type TelemetryOperation = (typeof TELEMETRY_OPERATIONS)[number];

export const AGGREGATIONS = ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export const INTERVAL_TYPES = ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'] as const;
export type IntervalType = (typeof INTERVAL_TYPES)[number];

export const ORDERS = ['ASC', 'DESC'] as const;
export type Order = (typeof ORDERS)[number];

/** The server refuses a query of more intervals than this (`DATABASE_TS_MAX_INTERVALS`, protocol §13.1.6). */
export const MAX_INTERVALS = 700;
/** Keys are at most 255 characters (`KvUtils`). */
export const MAX_KEY_LENGTH = 255;
/** Default cap on the points of a history read without a limit. */
export const DEFAULT_MAX_ITEMS = 100000;

/** A time-series point as the server answers it with `useStrictDataTypes=true`. */
export interface TsPoint {
  ts: number;
  value: unknown;
}

/** The answer of latest and history: `{key: [{ts, value}]}`. */
export type TimeseriesAnswer = Record<string, TsPoint[]>;

/** What a save writes: points with their ts, as the server's `[{ts, values}]` form. */
export interface TsRecord {
  ts: number;
  values: Record<string, unknown>;
}

export interface SaveRequest {
  operation: 'save';
  records: TsRecord[];
  /** Seconds (the TTL route); undefined = the tenant profile's default. */
  ttl?: number;
}

export interface LatestRequest {
  operation: 'latest';
  /** Empty = every key. */
  keys: string[];
}

export interface HistoryRequest {
  operation: 'history';
  keys: string[];
  startTs: number;
  endTs: number;
  agg: Aggregation;
  interval?: number;
  intervalType?: IntervalType;
  timeZone?: string;
  /** Points per key in one request; undefined = every point in the range, page after page. */
  limit?: number;
  order: Order;
  /** Cap on the points of a read without a limit. */
  maxItems: number;
}

export interface DeleteRequest {
  operation: 'delete';
  keys: string[];
  /** Every point up to now (`deleteAllDataForKeys`); otherwise [startTs, endTs). */
  all: boolean;
  startTs?: number;
  endTs?: number;
  deleteLatest: boolean;
  rewriteLatest: boolean;
}

export type TelemetryRequest = SaveRequest | LatestRequest | HistoryRequest | DeleteRequest;

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

// ---------------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------------

/**
 * Checks the key-value pairs of a save (time series or attributes): a non-empty object, keys not blank and at
 * most 255 characters, no `null` (the server refuses it: 400 for telemetry, 500 for attributes), no `undefined`
 * (JSON would drop it silently), no NaN or Infinity (JSON turns them into null). Returns the object as given.
 */
export function checkValues(v: unknown, field: string, what: string): Record<string, unknown> {
  if (!isObject(v)) fail(field, `${field} must be ${what} ${got(v)}`);
  const keys = Object.keys(v);
  if (keys.length === 0) fail(field, `${field} is an empty object: there is nothing to save (send ${what})`);
  for (const k of keys) {
    if (k.trim() === '') fail(field, `${field} has a blank key ${JSON.stringify(k)}: every key needs a name`);
    if (k.length > MAX_KEY_LENGTH)
      fail(
        field,
        `${field} has a key of ${k.length} characters ("${k.slice(0, 20)}…"); ThingsBoard takes at most ${MAX_KEY_LENGTH}`,
      );
    const value = v[k];
    const at = `${field}.${k}`;
    if (value === null) fail(at, `${at} is null: ThingsBoard cannot store null. Leave the key out, or delete it`);
    if (value === undefined) fail(at, `${at} is undefined: give it a value or leave the key out`);
    if (typeof value === 'number' && !Number.isFinite(value))
      fail(at, `${at} is ${value}: only finite numbers can be stored`);
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      fail(at, `${at} must be a number, a string, true/false, or an object or array (stored as JSON) ${got(value)}`);
    }
  }
  return v;
}

const SAVE_SHAPES = '{key: value, …}, {ts, values: {key: value, …}}, or an array of these';

function stampOf(v: unknown, field: string): number {
  const ms = timeOption({ value: v, field });
  return ms as number;
}

/** One `{key: value}` or `{ts, values}` object of a save as a record; `now` stamps it when it has no ts. */
function record(v: unknown, field: string, now: number): TsRecord {
  if (!isObject(v)) fail(field, `${field} must be ${SAVE_SHAPES} ${got(v)}`);
  const hasTs = Object.prototype.hasOwnProperty.call(v, 'ts');
  const hasValues = Object.prototype.hasOwnProperty.call(v, 'values');
  if (!hasTs && !hasValues) return { ts: now, values: checkValues(v, field, 'an object of key-value pairs') };
  if (hasTs && !hasValues) {
    fail(
      field,
      `${field} has a ts but no values: send {ts, values: {key: value, …}} (without "values" ThingsBoard would store a key named "ts")`,
    );
  }
  const extra = Object.keys(v).filter((k) => k !== 'ts' && k !== 'values');
  if (extra.length) {
    fail(
      field,
      `${field} has values and also ${extra.map((k) => `"${k}"`).join(', ')}: ThingsBoard ignores keys beside ts and values; put them in values`,
    );
  }
  const ts = hasTs && v.ts !== undefined && v.ts !== null ? stampOf(v.ts, `${field}.ts`) : now;
  return { ts, values: checkValues(v.values, `${field}.values`, 'an object of key-value pairs') };
}

/**
 * The points of a save from `msg.payload`, as `[{ts, values}]`. Values without a ts get `now` (the time the message
 * arrived), once: a retried save (a 429, or a connection lost after the server may have stored it) then writes
 * the same point again instead of a second one.
 */
export function prepareTimeseries(payload: unknown, field: string, now: number): TsRecord[] {
  if (Array.isArray(payload)) {
    if (payload.length === 0) fail(field, `${field} is an empty array: there is nothing to save (send ${SAVE_SHAPES})`);
    return payload.map((p, i) => record(p, `${field}[${i}]`, now));
  }
  if (payload === undefined || payload === null)
    fail(field, `${field} must be ${SAVE_SHAPES} ${got(payload === null ? undefined : payload)}`);
  return [record(payload, field, now)];
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
        `msg.operation must be one of ${operations.join(', ')} (missing; the node takes the operation from the message)`,
      );
    return enumOption({ value: msg.operation, field: 'msg.operation' }, operations, fallback);
  }
  return enumOption({ value: configured, field: 'operation' }, operations, fallback);
}

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
  const agg = enumOption(r.get('agg'), AGGREGATIONS, 'NONE');
  const order = enumOption(r.get('order'), ORDERS, 'ASC');
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
          `${tzS.field} must be an IANA time zone such as "Europe/Berlin" or "UTC" ${got(tzS.value)} (ThingsBoard would silently use its own zone)`,
        );
      }
      req.timeZone = tzS.value.trim();
    }
    return req;
  }
  if (interval === undefined) {
    fail(
      'interval',
      `interval is missing: agg ${agg} needs an interval (ms, e.g. 1h) or an intervalType (WEEK, WEEK_ISO, MONTH, QUARTER); without one ThingsBoard silently returns raw points`,
    );
  }
  const intervals = Math.floor(span / Math.max(interval, 1000));
  if (intervals > MAX_INTERVALS) {
    const field = intervalS ? intervalS.field : 'interval';
    const least = Math.ceil(span / MAX_INTERVALS);
    fail(
      field,
      `${field} of ${interval} ms splits the ${span} ms range into ${intervals} intervals; ThingsBoard allows at most ${MAX_INTERVALS} (use an interval of at least ${least} ms, or a shorter range)`,
    );
  }
  req.interval = interval;
  if (intervalType === 'MILLISECONDS') req.intervalType = intervalType;
  return req;
}

function prepareDelete(r: OptionReader, now: number): DeleteRequest {
  const keys = requiredKeys(r.get('keys'), 'keys', 'delete removes the keys it is given');
  const g = r.group(['all', 'from', 'to', 'last']);
  const all = boolOption(g.all, false);
  const deleteLatest = boolOption(r.get('deleteLatest'), true);
  const rewriteLatest = boolOption(r.get('rewriteLatest'), false);
  const range = prepareRange(r, now, ['all', 'from', 'to', 'last']);
  if (all) {
    if (range)
      fail(g.all!.field, `${g.all!.field} is true and a range is set too: give either all: true, or from/to (or last)`);
    return { operation: 'delete', keys, all: true, deleteLatest, rewriteLatest };
  }
  if (!range)
    fail(
      'from',
      'from is missing: delete needs a range, from and to (to is by default now, and is not included), last, or all: true',
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
 * The request of one message: the options of its operation, from the message first and the node's settings next.
 * `now` stamps the values of a save and ends a range without `to`. With `fromRows` the values of a save are the
 * dialog's rows for this message (src/query/value-rows: `{key: value}`, one point at `now`), not msg.payload.
 */
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
      const ttl = intOption(r.get('ttl'), undefined, 0, Number.MAX_SAFE_INTEGER, 'seconds');
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
// Wire
// ---------------------------------------------------------------------------------------------------------------

export type Params = Record<string, string | number | boolean>;

/** The query of a latest read: values in their own types (not the default strings). */
export function latestParams(req: LatestRequest): Params {
  const p: Params = { useStrictDataTypes: true };
  if (req.keys.length) p.keys = req.keys.join(',');
  return p;
}

/** The query of one history request (one page: `keys`, `startTs`, `endTs`, `limit` as given). */
export function historyParams(req: HistoryRequest, page: HistoryPage): Params {
  const p: Params = {
    keys: page.keys.join(','),
    startTs: page.startTs,
    endTs: page.endTs,
    agg: req.agg,
    orderBy: req.order,
    useStrictDataTypes: true,
  };
  if (req.agg === 'NONE') p.limit = page.limit;
  else {
    p.interval = req.interval ?? 0;
    if (req.intervalType) p.intervalType = req.intervalType;
    if (req.timeZone) p.timeZone = req.timeZone;
  }
  return p;
}

export function deleteParams(req: DeleteRequest): Params {
  const p: Params = {
    keys: req.keys.join(','),
    deleteAllDataForKeys: req.all,
    deleteLatest: req.deleteLatest,
    rewriteLatestIfDeleted: req.rewriteLatest,
  };
  if (!req.all) {
    p.startTs = req.startTs as number;
    p.endTs = req.endTs as number;
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------------------
// History paging
// ---------------------------------------------------------------------------------------------------------------

/** One request of a history read. */
export interface HistoryPage {
  keys: string[];
  startTs: number;
  endTs: number;
  limit: number;
}

interface KeyState {
  points: TsPoint[];
  /** ASC: the start of the next page; DESC: its (exclusive) end. */
  cursor: number;
  done: boolean;
}

/**
 * Reads a whole range page after page. The server answers at most `limit` points per key, in the asked order;
 * a key that got a full page may have more, so its next page starts just after its last point (ASC; the range is
 * [startTs, endTs), so last ts + 1) or ends at its oldest point (DESC). Keys at the same place share a request.
 * Stops at `maxItems` points: what is kept then is the part of the range every key has been read through, so the
 * result has no hole (`truncated` says it was cut).
 */
export class HistoryPager {
  private readonly state = new Map<string, KeyState>();
  /** With a limit (or an aggregation) one request is the whole answer. */
  private readonly single: boolean;
  private readonly asc: boolean;
  private total = 0;
  /** True once maxItems was reached with points left to read (or more points than maxItems came). */
  truncated = false;
  /** How many requests were answered. */
  pages = 0;

  constructor(
    private readonly req: HistoryRequest,
    private readonly pageSize: number,
  ) {
    this.single = req.limit !== undefined || req.agg !== 'NONE';
    this.asc = req.order === 'ASC';
    for (const k of req.keys)
      this.state.set(k, { points: [], cursor: this.asc ? req.startTs : req.endTs, done: false });
  }

  /** The requests of the next round (empty: finished). */
  next(): HistoryPage[] {
    if (this.truncated) return [];
    if (this.single) {
      if (this.pages > 0) return [];
      return [
        {
          keys: this.req.keys,
          startTs: this.req.startTs,
          endTs: this.req.endTs,
          limit: this.req.limit ?? this.pageSize,
        },
      ];
    }
    const byCursor = new Map<number, string[]>();
    for (const [k, s] of this.state) {
      if (s.done) continue;
      const list = byCursor.get(s.cursor);
      if (list) list.push(k);
      else byCursor.set(s.cursor, [k]);
    }
    const limit = this.pageSize;
    return Array.from(byCursor, ([cursor, keys]) =>
      this.asc
        ? { keys, startTs: cursor, endTs: this.req.endTs, limit }
        : { keys, startTs: this.req.startTs, endTs: cursor, limit },
    );
  }

  /** Takes the answer of one request of `next()`. */
  add(page: HistoryPage, answer: unknown): void {
    if (!isObject(answer))
      throw new TbError(
        'TB_BAD_RESPONSE',
        `ThingsBoard answered a history read with ${describe(answer)}, not an object of key → points`,
      );
    this.pages++;
    for (const k of page.keys) {
      const s = this.state.get(k);
      if (!s || s.done) continue;
      const list = answer[k];
      let n = 0;
      let edge = s.cursor;
      if (Array.isArray(list)) {
        for (const p of list) {
          if (!isObject(p) || typeof p.ts !== 'number' || p.ts < page.startTs || p.ts >= page.endTs) continue;
          s.points.push({ ts: p.ts, value: p.value });
          n++;
          if (this.asc ? p.ts + 1 > edge : p.ts < edge) edge = this.asc ? p.ts + 1 : p.ts;
        }
      }
      this.total += n;
      if (this.single || n < page.limit) {
        s.done = true;
        continue;
      }
      // Points outside [startTs, endTs) were dropped above, so the cursor always moves: no page is read twice.
      s.cursor = edge;
      if (this.asc ? edge >= this.req.endTs : edge <= this.req.startTs) s.done = true;
    }
    const open = Array.from(this.state.values()).some((s) => !s.done);
    if ((open && this.total >= this.req.maxItems) || this.total > this.req.maxItems) this.cut();
  }

  /** Keeps the part of the range every key was read through, then at most maxItems points. */
  private cut(): void {
    const open = Array.from(this.state.values()).filter((s) => !s.done);
    this.truncated = true;
    if (open.length) {
      // ASC: every key is complete before the smallest cursor; DESC: from the largest one on.
      const horizon = this.asc ? Math.min(...open.map((s) => s.cursor)) : Math.max(...open.map((s) => s.cursor));
      for (const s of this.state.values())
        s.points = s.points.filter((p) => (this.asc ? p.ts < horizon : p.ts >= horizon));
    }
    let all = 0;
    for (const s of this.state.values()) all += s.points.length;
    if (all > this.req.maxItems) {
      // Still too many: the first maxItems points in the asked order (ts, then the order of the keys).
      const tagged: Array<{ s: KeyState; p: TsPoint; k: number }> = [];
      let ki = 0;
      for (const s of this.state.values()) {
        for (const p of s.points) tagged.push({ s, p, k: ki });
        s.points = [];
        ki++;
      }
      tagged.sort((a, b) => (a.p.ts === b.p.ts ? a.k - b.k : this.asc ? a.p.ts - b.p.ts : b.p.ts - a.p.ts));
      for (let i = 0; i < this.req.maxItems; i++) tagged[i].s.points.push(tagged[i].p);
    }
    this.total = 0;
    for (const s of this.state.values()) {
      s.done = true;
      this.total += s.points.length;
    }
  }

  /** The points read, per key, in the asked order (keys without points left out, as the server does). */
  series(): TimeseriesAnswer {
    const out: TimeseriesAnswer = {};
    for (const [k, s] of this.state) {
      if (s.points.length === 0) continue;
      out[k] = s.points.slice().sort(this.asc ? (a, b) => a.ts - b.ts : (a, b) => b.ts - a.ts);
    }
    return out;
  }

  /** How many points were kept. */
  get count(): number {
    return this.total;
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
 * is `null` and has no ts (the server answers it with `value: null` and its own clock as ts: §13.1.5).
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
