/**
 * Time series of an entity on the wire (`/api/plugins/telemetry/{entityType}/{entityId}/timeseries…` and
 * `…/values/timeseries`): the requests (save, latest, history, delete) and their query strings, the checks of a
 * save's values (also the attributes'), the answers, and the paging of a history read (the server stops at `limit`
 * points per key, newest first by default, so a long range is read page after page). No I/O, no Node-RED.
 */
import { TbError, TbInputError } from '../errors';
import type { Aggregation } from './types';
import { describe, got, isObject, timeValue } from './validate';

export const INTERVAL_TYPES = ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'] as const;

export type IntervalType = (typeof INTERVAL_TYPES)[number];

export const ORDERS = ['ASC', 'DESC'] as const;

export type Order = (typeof ORDERS)[number];

/** The server refuses a query of more intervals than this (`DATABASE_TS_MAX_INTERVALS`). */
export const MAX_INTERVALS = 700;

/** Keys are at most 255 characters (`KvUtils`). */
export const MAX_KEY_LENGTH = 255;

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
        `${field} has a key of ${k.length} characters ("${k.slice(0, 20)}…"); ThingsBoard takes at ` +
          `most ${MAX_KEY_LENGTH}`,
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
  const ms = timeValue(v, field);
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
      `${field} has a ts but no values: send {ts, values: {key: value, …}} (without "values" ThingsBoard would store ` +
        'a key named "ts")',
    );
  }
  const extra = Object.keys(v).filter((k) => k !== 'ts' && k !== 'values');
  if (extra.length) {
    fail(
      field,
      `${field} has values and also ${extra.map((k) => `"${k}"`).join(', ')}: ThingsBoard ignores keys beside ts and ` +
        'values; put them in values',
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
