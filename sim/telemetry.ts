/**
 * The telemetry and attribute routes (`/api/plugins/telemetry/…`): saves, reads, deletes and key listings with the
 * server's semantics (`C/TelemetryController.java`, `JC` = JsonConverter, `DAO/…`). Every write goes through the
 * dataset, whose change events feed the live WebSocket subscriptions, as
 * `TEL/DefaultTelemetrySubscriptionService.java` does.
 */
import { validateAccess, type AccessContext, type Operation } from './access';
import { javaUuid, noXss } from './alarm-actions';
import type { Dataset, SimEntity } from './dataset';
import { badRequest, general, PlainError } from './errors';
import {
  gsonToString,
  JDouble,
  jacksonText,
  JRaw,
  JsonSyntaxError,
  parseGson,
  parseValues,
  writeJava,
  type GNode,
  type JOut,
} from './json';
import { boolParam, keysParam, numberParam, typeMismatch } from './params';
import {
  ATTRIBUTE_SCOPES,
  ENTITY_TYPE_NAMES,
  type AttributeScope,
  type Caller,
  type EntityId,
  type KvEntry,
} from './types';
import { javaValueString } from './values';

/** What a route answers (the HTTP front turns it into a response). */
export interface RouteAnswer {
  status: number;
  /** a JSON text body */
  json?: string;
}

export interface TelemetryContext extends AccessContext {
  data: Dataset;
  now(): number;
  versionAtLeast(v: string): boolean;
}

export interface SaveRecord {
  entityId: EntityId;
  points: number;
  /** the `{ttl}` path segment (seconds; 0 on the plain route) */
  ttl: number;
  /** simulator clock */
  at: number;
}

const MAX_INTERVALS = 700; // YML:302 DATABASE_TS_MAX_INTERVALS
const DAY = 86_400_000;
const LOG_SIZE = 1000;

const AGGREGATIONS = ['MIN', 'MAX', 'AVG', 'SUM', 'COUNT', 'NONE'] as const;
type Aggregation = (typeof AGGREGATIONS)[number];
const INTERVAL_TYPES = ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'] as const;
type IntervalType = (typeof INTERVAL_TYPES)[number];

const ok = (): RouteAnswer => ({ status: 200 });
const bad = (text: string): PlainError => new PlainError(400, text);

/** Counters per entity plus totals. */
class Counter {
  total = 0;
  private readonly by = new Map<string, number>();
  add(id: string, n: number): void {
    this.total += n;
    this.by.set(id, (this.by.get(id) ?? 0) + n);
  }
  get(id?: string): number {
    return id === undefined ? this.total : (this.by.get(id) ?? 0);
  }
  reset(): void {
    this.total = 0;
    this.by.clear();
  }
}

function refId(ref?: string | EntityId): string | undefined {
  return ref === undefined ? undefined : typeof ref === 'string' ? ref : ref.id;
}

// ---------------------------------------------------------------------------------------------------------------
// Gson accessors used by JsonConverter#parseWithTs (`JC:602-622`), with their exception messages

/** `JsonElement#getAsLong`. */
function gsonLong(n: GNode): number {
  switch (n.t) {
    case 'num': {
      // LazilyParsedNumber#longValue: Long.parseLong, else new BigDecimal(s).longValue()
      const v = Number(n.raw);
      return Math.trunc(v);
    }
    case 'str':
    case 'bool': {
      const s = n.t === 'str' ? n.v : String(n.v);
      if (!/^[+-]?\d+$/.test(s)) throw new Error(`For input string: "${s}"`);
      return Number(s);
    }
    case 'arr':
      if (n.a.length === 1) return gsonLong(n.a[0]);
      throw new Error(`Array must have size 1, but has size ${n.a.length}`);
    case 'obj':
      throw new Error('JsonObject');
    case 'null':
      throw new Error('JsonNull');
  }
}

/** `JsonConverter#convertToTelemetry` (`JC:584-622`): `[key, entry]` in order. */
function convertToTelemetry(root: GNode, now: number): [string, KvEntry][] {
  const out: [string, KvEntry][] = [];
  const object = (jo: Map<string, GNode>): void => {
    const tsNode = jo.get('ts');
    const valuesNode = jo.get('values');
    if (tsNode !== undefined && valuesNode !== undefined) {
      const ts = gsonLong(tsNode);
      if (valuesNode.t !== 'obj') throw new Error(`Not a JSON Object: ${gsonToString(valuesNode)}`);
      out.push(...parseValues(valuesNode.m, ts));
    } else {
      out.push(...parseValues(jo, now));
    }
  };
  if (root.t === 'obj') {
    object(root.m);
  } else if (root.t === 'arr') {
    for (const el of root.a) {
      if (el.t !== 'obj') throw new JsonSyntaxError(`Can't parse value: ${gsonToString(el)}`);
      object(el.m);
    }
  } else {
    throw new JsonSyntaxError(`Can't parse value: ${gsonToString(root)}`);
  }
  return out;
}

/** `KvUtils#validate` (`DAO/util/KvUtils.java:59-74`). */
function validateKey(key: string): void {
  if (key.trim() === '') throw bad("Key can't be null or empty");
  if (key.length > 255) throw bad('Validation error: key length must be equal or less than 255');
  if (!noXss(key)) throw bad('Validation error: key is malformed');
}

/** A stored value as `useStrictDataTypes` / attribute reads give it (`getKvValue`): native, JSON as an object. */
function nativeValue(e: KvEntry): JOut {
  switch (e.type) {
    case 'DOUBLE':
      return new JDouble(e.value);
    case 'JSON':
      try {
        return new JRaw(jacksonText(parseGson(e.value)));
      } catch {
        return e.value;
      }
    default:
      return e.value;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// calendar intervals (`DAO/util/TimeUtils.java#calculateIntervalEnd`)

interface LocalParts {
  y: number;
  m: number;
  d: number;
  weekday: number; // 0 = Sunday
}

function zoneOrUtc(tz: string | null): string {
  if (!tz) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC'; // AggregationParams#getZoneId: an unknown zone falls back to the server's zone (UTC here)
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function offsetAt(ts: number, tz: string): number {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ts))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second);
  return local - Math.floor(ts / 1000) * 1000;
}

function localParts(ts: number, tz: string): LocalParts {
  const d = new Date(ts + offsetAt(ts, tz));
  return { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate(), weekday: d.getUTCDay() };
}

/** Local midnight of a (normalised) date in the zone, as epoch ms. */
function localMidnight(y: number, m: number, d: number, tz: string): number {
  const guess = Date.UTC(y, m, d);
  let ts = guess - offsetAt(guess, tz);
  ts = guess - offsetAt(ts, tz);
  return ts;
}

function calendarEnd(startTs: number, type: IntervalType, tz: string): number {
  const p = localParts(startTs, tz);
  switch (type) {
    case 'WEEK':
      return localMidnight(p.y, p.m, p.d - p.weekday + 7, tz);
    case 'WEEK_ISO':
      return localMidnight(p.y, p.m, p.d - ((p.weekday + 6) % 7) + 7, tz);
    case 'MONTH':
      return localMidnight(p.y, p.m + 1, 1, tz);
    case 'QUARTER':
      return localMidnight(p.y, Math.floor(p.m / 3) * 3 + 3, 1, tz);
    default:
      return startTs;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// aggregation (`DAO/sqlts/AbstractChunkedAggregationTimeseriesDao.java:129-171`,
// `DAO/model/sqlts/ts/TsKvEntity.java:40-94`)

function aggregateBucket(points: readonly KvEntry[], agg: Aggregation, ts: number): KvEntry | null {
  if (points.length === 0) return null;
  if (agg === 'COUNT') {
    const count = (t: KvEntry['type']): number => points.filter((p) => p.type === t).length;
    const n = count('BOOLEAN') || count('STRING') || count('JSON') || count('LONG') + count('DOUBLE');
    return { ts, type: 'LONG', value: n };
  }
  const longs = points.filter((p) => p.type === 'LONG').map((p) => p.value as number);
  const doubles = points.filter((p) => p.type === 'DOUBLE').map((p) => p.value as number);
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  if (longs.length + doubles.length === 0) {
    if (agg !== 'MIN' && agg !== 'MAX') return null;
    // findStringMax / findStringMin over the string values
    const strs = points
      .filter((p) => p.type === 'STRING')
      .map((p) => p.value as string)
      .sort();
    if (strs.length === 0) return null;
    return { ts, type: 'STRING', value: agg === 'MAX' ? strs[strs.length - 1] : strs[0] };
  }
  switch (agg) {
    case 'AVG':
      return { ts, type: 'DOUBLE', value: (sum(longs) + sum(doubles)) / (longs.length + doubles.length) };
    case 'SUM':
      return doubles.length > 0
        ? { ts, type: 'DOUBLE', value: sum(doubles) + sum(longs) }
        : { ts, type: 'LONG', value: sum(longs) };
    case 'MIN':
    case 'MAX': {
      const pick = (a: number[]): number => (agg === 'MAX' ? Math.max(...a) : Math.min(...a));
      if (doubles.length > 0)
        return { ts, type: 'DOUBLE', value: longs.length > 0 ? pick([pick(doubles), pick(longs)]) : pick(doubles) };
      return { ts, type: 'LONG', value: pick(longs) };
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------

export class TelemetryApi {
  private readonly points = new Counter();
  private readonly attrWrites = new Counter();
  private readonly pushes = new Counter();
  private readonly saveLog: SaveRecord[] = [];

  constructor(private readonly ctx: TelemetryContext) {}

  // --- counters (test hooks) -----------------------------------------------------------------------------------

  /** Time-series points stored by REST saves (one entity or all). */
  storedPoints(entity?: string | EntityId): number {
    return this.points.get(refId(entity));
  }
  /** The REST saves (last 1000), oldest first. */
  saves(entity?: string | EntityId): SaveRecord[] {
    const id = refId(entity);
    return this.saveLog
      .filter((s) => id === undefined || s.entityId.id === id)
      .map((s) => ({ ...s, entityId: { ...s.entityId } }));
  }
  /** Attribute keys written by REST saves. */
  attributeWrites(entity?: string | EntityId): number {
    return this.attrWrites.get(refId(entity));
  }
  /** SHARED_SCOPE saves on a DEVICE, which the server pushes to the device. */
  sharedPushes(device?: string | EntityId): number {
    return this.pushes.get(refId(device));
  }
  resetCounters(): void {
    this.points.reset();
    this.attrWrites.reset();
    this.pushes.reset();
    this.saveLog.length = 0;
  }
  stats(entity?: string | EntityId): {
    storedPoints: number;
    saves: number;
    attributeWrites: number;
    sharedPushes: number;
  } {
    return {
      storedPoints: this.storedPoints(entity),
      saves: this.saves(entity).length,
      attributeWrites: this.attributeWrites(entity),
      sharedPushes: this.sharedPushes(entity),
    };
  }

  // --- helpers ---------------------------------------------------------------------------------------------------

  /** `EntityIdFactory.getByTypeAndId` (`CD/id/EntityIdFactory.java:37-39`): 400 JSON 31 for a bad type or UUID. */
  entityId(entityType: string, id: string): EntityId {
    if (!(ENTITY_TYPE_NAMES as readonly string[]).includes(entityType)) {
      throw badRequest(`No enum constant org.thingsboard.server.common.data.EntityType.${entityType}`);
    }
    return { entityType, id: javaUuid(id, this.ctx.versionAtLeast('4.4')) };
  }

  /** An `AttributeScope` path variable: a bad value is a type mismatch (400 JSON 31). */
  scope(v: string): AttributeScope {
    if ((ATTRIBUTE_SCOPES as readonly string[]).includes(v)) return v as AttributeScope;
    throw typeMismatch(
      'scope',
      'org.thingsboard.server.common.data.AttributeScope',
      'Failed to convert from type [java.lang.String] to type [@org.springframework.web.bind.annotation.PathVariable ' +
        `org.thingsboard.server.common.data.AttributeScope] for value [${v}]`,
    );
  }

  private access(caller: Caller, op: Operation, id: EntityId): SimEntity {
    const e = validateAccess(this.ctx, caller, op, id) ?? this.ctx.data.get(id.id);
    if (!e)
      throw new PlainError(404, `${id.entityType === 'TENANT' ? 'Tenant' : 'Entity'} with requested id wasn't found!`);
    return e;
  }

  /** Where time series of an entity are read (an entity view shows all of its entity's data: a simplification). */
  private tsSource(e: SimEntity): SimEntity {
    if (e.entityType === 'ENTITY_VIEW' && e.viewOf) return this.ctx.data.get(e.viewOf.id) ?? e;
    return e;
  }

  private requireBody(body: Buffer): string {
    if (body.length === 0) throw general('Required request body is missing');
    return body.toString('utf8');
  }

  private json(v: JOut): RouteAnswer {
    return { status: 200, json: writeJava(v) };
  }

  // --- saves -----------------------------------------------------------------------------------------------------

  /** `saveTelemetry` (`C/TelemetryController.java:728-770`). */
  saveTelemetry(
    caller: Caller,
    entityType: string,
    entityIdStr: string,
    ttlStr: string | null,
    body: Buffer,
  ): RouteAnswer {
    let ttl = 0;
    if (ttlStr !== null) {
      const v = numberParam(new URLSearchParams([['ttl', ttlStr]]), 'ttl', 'Long');
      if (v === null)
        throw general(
          "Required URI template variable 'ttl' for method parameter type Long is present but converted to null",
        );
      ttl = v;
    }
    const text = this.requireBody(body);
    const id = this.entityId(entityType, entityIdStr);
    let root: GNode;
    try {
      root = parseGson(text);
    } catch {
      throw bad('Unable to parse time series payload: Invalid JSON body!');
    }
    let entries: [string, KvEntry][];
    try {
      entries = convertToTelemetry(root, this.ctx.now());
    } catch (e) {
      throw bad(`Unable to parse time series payload. Invalid JSON body: ${(e as Error).message}`);
    }
    if (entries.length === 0) throw bad('No time series data found in request body!');
    const e = this.access(caller, 'WRITE_TELEMETRY', id);
    for (const [k] of entries) validateKey(k);
    if (id.entityType === 'ENTITY_VIEW') throw bad("Telemetry data can't be stored for entity view. Read only");
    const n = this.ctx.data.setTelemetryEntries(e.id, entries);
    this.points.add(e.id, n);
    this.saveLog.push({ entityId: { entityType: e.entityType, id: e.id }, points: n, ttl, at: this.ctx.now() });
    if (this.saveLog.length > LOG_SIZE) this.saveLog.splice(0, this.saveLog.length - LOG_SIZE);
    return ok();
  }

  /** `saveAttributes` (`C/TelemetryController.java:681-726`). */
  saveAttributes(caller: Caller, entityType: string, entityIdStr: string, scopeStr: string, body: Buffer): RouteAnswer {
    const scope = this.scope(scopeStr);
    const text = this.requireBody(body);
    const id = this.entityId(entityType, entityIdStr);
    if (scope !== 'SERVER_SCOPE' && scope !== 'SHARED_SCOPE') throw bad(`Invalid scope: ${scope}`);
    let root: GNode;
    try {
      root = parseGson(text);
    } catch {
      throw bad('Invalid JSON');
    }
    if (root.t !== 'obj') throw bad('Request is not a JSON object');
    // a null value: JsonSyntaxException from convertToAttributes, not caught by the controller: 500 JSON
    let entries: [string, KvEntry][];
    try {
      entries = parseValues(root.m, this.ctx.now());
    } catch (e) {
      throw general((e as Error).message);
    }
    if (entries.length === 0) throw bad('No attributes data found in request body!');
    if (this.ctx.versionAtLeast('4.2') && entries.some(([k]) => k.trim() === '')) throw bad('Key cannot be blank');
    const e = this.access(caller, 'WRITE_ATTRIBUTES', id);
    for (const [k] of entries) validateKey(k);
    this.ctx.data.setAttributeEntries(e.id, scope, entries);
    this.attrWrites.add(e.id, entries.length);
    // the device push happens only for DEVICE && SHARED_SCOPE (TEL/DefaultTelemetrySubscriptionService.java:297-301)
    if (e.entityType === 'DEVICE' && scope === 'SHARED_SCOPE') this.pushes.add(e.id, 1);
    return ok();
  }

  // --- deletes ---------------------------------------------------------------------------------------------------

  /** `deleteAttributes` (`C/TelemetryController.java:643-676`): every scope, missing keys ignored. */
  deleteAttributes(
    caller: Caller,
    entityType: string,
    entityIdStr: string,
    scopeStr: string,
    q: URLSearchParams,
  ): RouteAnswer {
    const scope = this.scope(scopeStr);
    const keys = keysParam(q, this.ctx.versionAtLeast('4.3'));
    const id = this.entityId(entityType, entityIdStr);
    if (keys.length === 0) throw bad('Empty keys: []');
    const e = this.access(caller, 'WRITE_ATTRIBUTES', id);
    const present = keys.filter((k) => this.ctx.data.getAttribute(e, scope, k) !== undefined);
    if (present.length > 0) this.ctx.data.deleteKey(e.id, scope, present);
    return ok();
  }

  /** `deleteTimeseries` (`C/TelemetryController.java:539-583`). */
  deleteTimeseries(caller: Caller, entityType: string, entityIdStr: string, q: URLSearchParams): RouteAnswer {
    const keys = keysParam(q, this.ctx.versionAtLeast('4.3'));
    const deleteAll = boolParam(q, 'deleteAllDataForKeys', false);
    const startTs = numberParam(q, 'startTs', 'Long');
    const endTs = numberParam(q, 'endTs', 'Long');
    const deleteLatest = this.ctx.versionAtLeast('3.6') ? boolParam(q, 'deleteLatest', true) : true;
    const rewrite = boolParam(q, 'rewriteLatestIfDeleted', false);
    const id = this.entityId(entityType, entityIdStr);
    if (keys.length === 0) throw bad(`Empty keys: []`);
    let from: number;
    let to: number;
    if (deleteAll) {
      from = 0;
      to = this.ctx.now(); // [0, now): points stamped in the future stay
    } else {
      if (startTs === null || endTs === null)
        throw bad("When deleteAllDataForKeys is false, start and end timestamp values shouldn't be empty");
      from = startTs;
      to = endTs;
    }
    const e = this.access(caller, 'WRITE_TELEMETRY', id);
    for (const k of keys) if (k.trim() === '') throw bad("Incorrect DeleteTsKvQuery. Key can't be empty"); // BaseTimeseriesService#validate, via handleError
    this.ctx.data.deleteTelemetryRange(e.id, keys, from, to, deleteLatest, rewrite);
    return ok();
  }

  // --- reads -----------------------------------------------------------------------------------------------------

  /**
   * `getLatestTimeseries` (`C/TelemetryController.java`): `{k: [{ts, value}]}`, a missing requested key `{ts: now,
   * value: null}`.
   */
  latest(caller: Caller, entityType: string, entityIdStr: string, q: URLSearchParams): RouteAnswer {
    const keys = keysParam(q, this.ctx.versionAtLeast('4.3'));
    const strict = boolParam(q, 'useStrictDataTypes', false);
    const id = this.entityId(entityType, entityIdStr);
    const e = this.tsSource(this.access(caller, 'READ_TELEMETRY', id));
    for (const k of keys) if (k.trim() === '') throw bad(`Incorrect key ${k}`);
    const out: Record<string, JOut[]> = {};
    const put = (key: string, ts: number, value: JOut): void => {
      (out[key] ??= []).push({ ts, value });
    };
    const now = this.ctx.now();
    for (const key of keys.length > 0 ? keys : this.ctx.data.timeseriesKeys(e)) {
      const v = this.ctx.data.getLatest(e, key);
      if (!v) put(key, now, null);
      else put(key, v.ts, strict ? nativeValue(v) : javaValueString(v));
    }
    return this.json(out);
  }

  /** `getTimeseries` (`TEL/DefaultTbTelemetryService.java:59-67`, `BaseTimeseriesService#validate`). */
  history(caller: Caller, entityType: string, entityIdStr: string, q: URLSearchParams): RouteAnswer {
    const keys = keysParam(q, this.ctx.versionAtLeast('4.3'));
    const required = (name: string): number => {
      const v = numberParam(q, name, 'Long');
      if (v === null) {
        if (q.get(name) === null)
          throw general(`Required request parameter '${name}' for method parameter type Long is not present`);
        throw general(
          `Required request parameter '${name}' for method parameter type Long is present but converted to null`,
        );
      }
      return v;
    };
    const startTs = required('startTs');
    const endTs = required('endTs');
    const itRaw = q.get('intervalType');
    let intervalType: IntervalType | null = null;
    if (itRaw !== null && itRaw !== '') {
      if (!(INTERVAL_TYPES as readonly string[]).includes(itRaw)) {
        throw typeMismatch(
          'intervalType',
          'org.thingsboard.server.common.data.kv.IntervalType',
          'Failed to convert from type [java.lang.String] to type ' +
            '[@org.springframework.web.bind.annotation.RequestParam ' +
            `org.thingsboard.server.common.data.kv.IntervalType] for value [${itRaw}]`,
        );
      }
      intervalType = itRaw as IntervalType;
    }
    const interval = numberParam(q, 'interval', 'Long') ?? 0;
    const timeZone = q.get('timeZone');
    const limit = numberParam(q, 'limit', 'Integer') ?? 100;
    const aggStr = q.get('agg') ?? 'NONE';
    const orderBy = q.get('orderBy') ?? 'DESC';
    const strict = boolParam(q, 'useStrictDataTypes', false);
    const id = this.entityId(entityType, entityIdStr);
    if (!(AGGREGATIONS as readonly string[]).includes(aggStr)) {
      throw badRequest(`No enum constant org.thingsboard.server.common.data.kv.Aggregation.${aggStr}`);
    }
    const agg = aggStr as Aggregation;
    const e = this.tsSource(this.access(caller, 'READ_TELEMETRY', id));
    // AggregationParams: NONE, or an agg without interval (and no calendar type) = raw data, silently
    let mode: { kind: 'raw' } | { kind: 'ms'; interval: number } | { kind: 'calendar'; type: IntervalType; tz: string };
    if (agg === 'NONE') mode = { kind: 'raw' };
    else if (intervalType === null || intervalType === 'MILLISECONDS')
      mode = interval === 0 ? { kind: 'raw' } : { kind: 'ms', interval };
    else mode = { kind: 'calendar', type: intervalType, tz: zoneOrUtc(timeZone) };
    const out: Record<string, JOut[]> = {};
    for (const key of keys) {
      if (key.trim() === '') throw bad("Incorrect ReadTsKvQuery. Key can't be empty");
      if (mode.kind !== 'raw') {
        const step =
          mode.kind === 'ms'
            ? mode.interval
            : mode.type.startsWith('WEEK')
              ? 7 * DAY
              : mode.type === 'MONTH'
                ? 30 * DAY
                : 90 * DAY;
        if (step < 1) {
          throw bad(
            `Invalid TsKvQuery: 'interval' must be greater than 0, but got ${step}. Please check your query ` +
              "parameters and ensure 'endTs' is greater than 'startTs' or increase 'interval'.",
          );
        }
        const count = Math.trunc((endTs - startTs) / Math.max(step, 1000));
        if (count > MAX_INTERVALS || count < 0) {
          throw bad(
            `Incorrect TsKvQuery. Number of intervals is to high - ${count}. Please increase 'interval' parameter ` +
              'for your query or reduce the time range of the query.',
          );
        }
      }
    }
    for (const key of keys) {
      let series: KvEntry[];
      if (mode.kind === 'raw') {
        if (limit < 1) throw bad('Page size must not be less than one');
        const dir = orderBy.toUpperCase();
        if (dir !== 'ASC' && dir !== 'DESC')
          throw bad(`Invalid value '${orderBy}' for orders given; Has to be either 'desc' or 'asc' (case insensitive)`);
        series = endTs > startTs ? this.ctx.data.historyPage(e.id, key, startTs, endTs - 1, limit, dir === 'DESC') : [];
      } else {
        const points = endTs > startTs ? this.ctx.data.history(e.id, key, startTs, endTs - 1) : [];
        series = [];
        const endPeriod = Math.max(startTs + 1, endTs);
        let i = 0;
        for (let s = startTs; s < endPeriod;) {
          const end = Math.min(mode.kind === 'ms' ? s + mode.interval : calendarEnd(s, mode.type, mode.tz), endPeriod);
          const bucket: KvEntry[] = [];
          while (i < points.length && points[i].ts < end) {
            if (points[i].ts >= s) bucket.push(points[i]);
            i++;
          }
          const v = aggregateBucket(bucket, agg, s + Math.trunc((end - s) / 2));
          if (v) series.push(v);
          if (end <= s) break;
          s = end;
        }
      }
      if (series.length > 0)
        out[key] = series.map((p) => ({ ts: p.ts, value: strict ? nativeValue(p) : javaValueString(p) }));
    }
    return this.json(out);
  }

  /**
   * `getAttributes` / `getAttributesByScope` (`C/TelemetryController.java`): native values; without scope the three
   * scopes merged.
   */
  attributes(
    caller: Caller,
    entityType: string,
    entityIdStr: string,
    scopeStr: string | null,
    q: URLSearchParams,
  ): RouteAnswer {
    const keys = keysParam(q, this.ctx.versionAtLeast('4.3'));
    const scope = scopeStr === null ? null : this.scope(scopeStr);
    const id = this.entityId(entityType, entityIdStr);
    const e = this.access(caller, 'READ_ATTRIBUTES', id);
    const out: JOut[] = [];
    for (const s of scope === null ? ATTRIBUTE_SCOPES : [scope]) {
      const rows: [string, KvEntry][] =
        keys.length > 0
          ? keys.flatMap((k): [string, KvEntry][] => {
              const v = this.ctx.data.getAttribute(e, s, k);
              return v ? [[k, v]] : [];
            })
          : this.ctx.data.attributeEntries(e, s);
      for (const [k, v] of rows) out.push({ lastUpdateTs: v.ts, key: k, value: nativeValue(v) });
    }
    return this.json(out);
  }

  /** `getTimeseriesKeys`, `getAttributeKeys`, `getAttributeKeysByScope`. */
  keys(
    caller: Caller,
    entityType: string,
    entityIdStr: string,
    kind: 'timeseries' | 'attributes',
    scopeStr: string | null,
  ): RouteAnswer {
    const scope = scopeStr === null ? null : this.scope(scopeStr);
    const id = this.entityId(entityType, entityIdStr);
    if (kind === 'timeseries') {
      const e = this.tsSource(this.access(caller, 'READ_TELEMETRY', id));
      return this.json(this.ctx.data.timeseriesKeys(e));
    }
    const e = this.access(caller, 'READ_ATTRIBUTES', id);
    const out: string[] = [];
    for (const s of scope === null ? ATTRIBUTE_SCOPES : [scope])
      for (const [k] of this.ctx.data.attributeEntries(e, s)) out.push(k);
    return this.json(out);
  }
}
