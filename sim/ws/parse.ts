/**
 * Strict parsing of WebSocket messages, as the server's `JacksonUtil.OBJECT_MAPPER` does: an unknown
 * property anywhere outside the query object and its `entityFilter` fails the whole message. The query objects
 * themselves are then handed to the REST parsers of `../query/parse` (same semantics), whose JSON errors become
 * parse failures here.
 */
import { ApiError } from '../errors';
import {
  parseAlarmCountQuery,
  parseAlarmDataQuery,
  parseEntityCountQuery,
  parseEntityDataQuery,
  parseEntityId,
  type AlarmCountQuery,
  type AlarmDataQuery,
  type EntityCountQuery,
  type EntityDataQuery,
} from '../query/parse';
import { ALARM_SEVERITIES, type AlarmSeverity, type EntityId, type EntityKey, type EntityKeyType } from '../types';

const WS = 'org.thingsboard.server.service.ws';
const CMD2 = `${WS}.telemetry.cmd.v2`;
const Q = 'org.thingsboard.server.common.data.query';
const NOTIF = `${WS}.notification.cmd`;

/** A message that Jackson would refuse; `message` imitates Jackson's text. */
export class WsParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WsParseError';
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'Array value (token `JsonToken.START_ARRAY`)';
  if (typeof v === 'string') return `String value ('${v}')`;
  if (typeof v === 'number') return `Number value (${v})`;
  if (typeof v === 'boolean') return `Boolean value (${String(v)})`;
  if (isObj(v)) return 'Object value (token `JsonToken.START_OBJECT`)';
  return 'value';
}

/** Fails on properties not in `known` (Jackson's UnrecognizedPropertyException text). */
function strict(o: Obj, known: readonly string[], cls: string): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) {
      throw new WsParseError(
        `Unrecognized field "${k}" (class ${cls}), not marked as ignorable (${known.length} known ` +
          `properties: ${known.map((x) => `"${x}"`).join(', ')}])`,
      );
    }
  }
}

function objOrNull(v: unknown, cls: string): Obj | null {
  if (v === null || v === undefined) return null;
  if (!isObj(v)) throw new WsParseError(`Cannot construct instance of \`${cls}\` from ${describe(v)}`);
  return v;
}

function arrOrNull(v: unknown, cls: string): unknown[] | null {
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v))
    throw new WsParseError(`Cannot deserialize value of type \`java.util.List<${cls}>\` from ${describe(v)}`);
  return v;
}

/** Jackson int/long with its default coercions (numeric strings, floats truncated, null = 0). */
function int(v: unknown, dflt = 0, cls = 'int'): number {
  if (v === null || v === undefined) return dflt;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  throw new WsParseError(`Cannot deserialize value of type \`${cls}\` from ${describe(v)}`);
}

function longOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : int(v, 0, 'java.lang.Long');
}

function strOrNull(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new WsParseError(`Cannot deserialize value of type \`java.lang.String\` from ${describe(v)}`);
}

function boolOr(v: unknown, dflt: boolean): boolean {
  if (v === null || v === undefined) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new WsParseError(`Cannot deserialize value of type \`boolean\` from ${describe(v)}`);
}

function enumOrNull<T extends string>(v: unknown, allowed: readonly T[], cls: string): T | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  throw new WsParseError(
    `Cannot deserialize value of type \`${cls}\` from ${typeof v === 'string' ? `String "${v}"` : describe(v)}: not ` +
      `one of the values accepted for Enum class: [${allowed.join(', ')}]`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The strict checks of nested objects (before the REST parsers run)

const KEY_TYPES: readonly EntityKeyType[] = [
  'ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'SERVER_ATTRIBUTE',
  'TIME_SERIES',
  'ENTITY_FIELD',
  'ALARM_FIELD',
];

function checkEntityKey(v: unknown): void {
  const o = objOrNull(v, `${Q}.EntityKey`);
  if (o) strict(o, ['type', 'key'], `${Q}.EntityKey`);
}

function checkKeyList(v: unknown): void {
  const a = arrOrNull(v, `${Q}.EntityKey`);
  if (a) for (const k of a) checkEntityKey(k);
}

function checkPredicateValue(v: unknown): void {
  const o = objOrNull(v, `${Q}.FilterPredicateValue`);
  if (!o) return;
  strict(o, ['defaultValue', 'userValue', 'dynamicValue'], `${Q}.FilterPredicateValue`);
  const d = objOrNull(o.dynamicValue, `${Q}.DynamicValue`);
  if (d) strict(d, ['sourceType', 'sourceAttribute', 'inherit', 'resolvedValue'], `${Q}.DynamicValue`);
}

function checkPredicate(v: unknown): void {
  const o = objOrNull(v, `${Q}.KeyFilterPredicate`);
  if (!o) return;
  switch (o.type) {
    case 'STRING':
      strict(o, ['type', 'operation', 'value', 'ignoreCase'], `${Q}.StringFilterPredicate`);
      checkPredicateValue(o.value);
      break;
    case 'NUMERIC':
      strict(o, ['type', 'operation', 'value'], `${Q}.NumericFilterPredicate`);
      checkPredicateValue(o.value);
      break;
    case 'BOOLEAN':
      strict(o, ['type', 'operation', 'value'], `${Q}.BooleanFilterPredicate`);
      checkPredicateValue(o.value);
      break;
    case 'COMPLEX': {
      strict(o, ['type', 'operation', 'predicates'], `${Q}.ComplexFilterPredicate`);
      const a = arrOrNull(o.predicates, `${Q}.KeyFilterPredicate`);
      if (a) for (const p of a) checkPredicate(p);
      break;
    }
    default:
      // unknown or missing type id: the REST parser reports it
      break;
  }
}

function checkKeyFilters(v: unknown): void {
  const a = arrOrNull(v, `${Q}.KeyFilter`);
  if (!a) return;
  for (const x of a) {
    const o = objOrNull(x, `${Q}.KeyFilter`);
    if (!o) continue;
    strict(o, ['key', 'valueType', 'predicate'], `${Q}.KeyFilter`);
    checkEntityKey(o.key);
    checkPredicate(o.predicate);
  }
}

const PAGE_LINK_FIELDS = ['pageSize', 'page', 'textSearch', 'sortOrder', 'dynamic'];
const ALARM_PAGE_LINK_FIELDS = [
  ...PAGE_LINK_FIELDS,
  'startTs',
  'endTs',
  'timeWindow',
  'typeList',
  'statusList',
  'severityList',
  'searchPropagatedAlarms',
  'assigneeId',
];

function checkPageLink(v: unknown, alarm: boolean): void {
  const cls = alarm ? `${Q}.AlarmDataPageLink` : `${Q}.EntityDataPageLink`;
  const o = objOrNull(v, cls);
  if (!o) return;
  strict(o, alarm ? ALARM_PAGE_LINK_FIELDS : PAGE_LINK_FIELDS, cls);
  const so = objOrNull(o.sortOrder, `${Q}.EntityDataSortOrder`);
  if (so) {
    strict(so, ['key', 'direction'], `${Q}.EntityDataSortOrder`);
    checkEntityKey(so.key);
  }
}

/** The query object and entityFilter ignore unknown properties; everything nested in them does not. */
function checkQuery(o: Obj, kind: 'data' | 'alarm' | 'count' | 'alarmCount'): void {
  checkKeyFilters(o.keyFilters);
  if (kind === 'data' || kind === 'alarm') {
    checkPageLink(o.pageLink, kind === 'alarm');
    checkKeyList(o.entityFields);
    checkKeyList(o.latestValues);
    if (kind === 'alarm') checkKeyList(o.alarmFields);
  }
}

function viaRest<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ApiError) throw new WsParseError(e.message.replace(/^JSON parse error: /, ''));
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

export type Aggregation = 'MIN' | 'MAX' | 'AVG' | 'SUM' | 'COUNT' | 'NONE';
const AGGREGATIONS: readonly Aggregation[] = ['MIN', 'MAX', 'AVG', 'SUM', 'COUNT', 'NONE'];
export type IntervalType = 'MILLISECONDS' | 'WEEK' | 'WEEK_ISO' | 'MONTH' | 'QUARTER';
const INTERVAL_TYPES: readonly IntervalType[] = ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'];

/** tsCmd / historyCmd (GetTsCmd): the window is [startTs, endTs). */
export interface TsFetchCmd {
  keys: string[];
  startTs: number;
  endTs: number;
  /** tsCmd only */
  timeWindow: number;
  interval: number;
  intervalType: IntervalType | null;
  timeZoneId: string | null;
  limit: number;
  agg: Aggregation | null;
  fetchLatestPreviousPoint: boolean;
}

export interface AggKey {
  id: number;
  key: string;
  agg: Aggregation | null;
  previousStartTs: number | null;
  previousEndTs: number | null;
  previousValueOnly: boolean | null;
}

export interface AggCmd {
  keys: AggKey[];
  startTs: number;
  endTs: number;
}

export interface EntityDataCmd {
  type: 'ENTITY_DATA';
  cmdId: number;
  query: EntityDataQuery | null;
  /** the raw query had no `latestValues` array (a latestCmd then NPEs on the server) */
  latestValuesNull: boolean;
  latestCmd: { keys: EntityKey[] } | null;
  tsCmd: TsFetchCmd | null;
  historyCmd: TsFetchCmd | null;
  aggHistoryCmd: AggCmd | null;
  aggTsCmd: AggCmd | null;
}
export interface EntityCountCmd {
  type: 'ENTITY_COUNT';
  cmdId: number;
  query: EntityCountQuery | null;
}
export interface AlarmDataCmd {
  type: 'ALARM_DATA';
  cmdId: number;
  query: AlarmDataQuery | null;
}
export interface AlarmCountCmd {
  type: 'ALARM_COUNT';
  cmdId: number;
  query: AlarmCountQuery | null;
}
export interface AlarmStatusCmd {
  type: 'ALARM_STATUS';
  cmdId: number;
  originatorId: EntityId | null;
  typeList: string[] | null;
  severityList: AlarmSeverity[] | null;
}
export type UnsubscribeType =
  | 'ENTITY_DATA_UNSUBSCRIBE'
  | 'ENTITY_COUNT_UNSUBSCRIBE'
  | 'ALARM_DATA_UNSUBSCRIBE'
  | 'ALARM_COUNT_UNSUBSCRIBE'
  | 'ALARM_STATUS_UNSUBSCRIBE'
  | 'NOTIFICATIONS_UNSUBSCRIBE';
export interface UnsubscribeCmd {
  type: UnsubscribeType;
  cmdId: number;
}
/** NOTIFICATIONS (`ws/notification/cmd/NotificationsSubCmd.java`): the latest `limit` unread WEB notifications. */
export interface NotificationsCmd {
  type: 'NOTIFICATIONS';
  cmdId: number;
  limit: number;
  /** NotificationType names (3.9+); null = every type */
  types: string[] | null;
}
/** NOTIFICATIONS_COUNT (`NotificationsCountSubCmd.java`): the unread WEB total. */
export interface NotificationsCountCmd {
  type: 'NOTIFICATIONS_COUNT';
  cmdId: number;
}
/** MARK_NOTIFICATIONS_AS_READ (`MarkNotificationsAsReadCmd.java`): no direct reply. */
export interface MarkReadCmd {
  type: 'MARK_NOTIFICATIONS_AS_READ';
  cmdId: number;
  notifications: string[];
}
/** MARK_ALL_NOTIFICATIONS_AS_READ (`MarkAllNotificationsAsReadCmd.java`): no direct reply. */
export interface MarkAllReadCmd {
  type: 'MARK_ALL_NOTIFICATIONS_AS_READ';
  cmdId: number;
}
/** Valid server command types the simulator does not implement (legacy v1). */
export interface UnsupportedCmd {
  type: 'UNSUPPORTED';
  wsType: string;
  cmdId: number;
}

export type WsCmd =
  | EntityDataCmd
  | EntityCountCmd
  | AlarmDataCmd
  | AlarmCountCmd
  | AlarmStatusCmd
  | NotificationsCmd
  | NotificationsCountCmd
  | MarkReadCmd
  | MarkAllReadCmd
  | UnsubscribeCmd
  | UnsupportedCmd;

export interface AuthCmd {
  cmdId: number;
  token: string | null;
  apiKey: string | null;
}

export interface Envelope {
  authCmd: AuthCmd | null;
  cmds: WsCmd[];
  /** the raw command objects, in order (for the command log) */
  raw: Obj[];
}

const UNSUBSCRIBE_TYPES: readonly UnsubscribeType[] = [
  'ENTITY_DATA_UNSUBSCRIBE',
  'ENTITY_COUNT_UNSUBSCRIBE',
  'ALARM_DATA_UNSUBSCRIBE',
  'ALARM_COUNT_UNSUBSCRIBE',
  'ALARM_STATUS_UNSUBSCRIBE',
  'NOTIFICATIONS_UNSUBSCRIBE',
];
const UNSUPPORTED_TYPES = ['ATTRIBUTES', 'TIMESERIES', 'TIMESERIES_HISTORY'];
const KNOWN_TYPES = [
  'ENTITY_DATA',
  'ENTITY_COUNT',
  'ALARM_DATA',
  'ALARM_COUNT',
  'ALARM_STATUS',
  'NOTIFICATIONS',
  'NOTIFICATIONS_COUNT',
  'MARK_NOTIFICATIONS_AS_READ',
  'MARK_ALL_NOTIFICATIONS_AS_READ',
  ...UNSUBSCRIBE_TYPES,
  ...UNSUPPORTED_TYPES,
];

function parseTsFetch(v: unknown, history: boolean): TsFetchCmd | null {
  const cls = history ? `${CMD2}.EntityHistoryCmd` : `${CMD2}.TimeSeriesCmd`;
  const o = objOrNull(v, cls);
  if (!o) return null;
  strict(
    o,
    [
      'keys',
      'startTs',
      history ? 'endTs' : 'timeWindow',
      'interval',
      'intervalType',
      'timeZoneId',
      'limit',
      'agg',
      'fetchLatestPreviousPoint',
    ],
    cls,
  );
  const keys = (arrOrNull(o.keys, 'java.lang.String') ?? []).map((k) => strOrNull(k) ?? '');
  const startTs = int(o.startTs, 0, 'long');
  const timeWindow = history ? 0 : int(o.timeWindow, 0, 'long');
  return {
    keys,
    startTs,
    endTs: history ? int(o.endTs, 0, 'long') : startTs + timeWindow,
    timeWindow,
    interval: int(o.interval, 0, 'long'),
    intervalType: enumOrNull(o.intervalType, INTERVAL_TYPES, 'org.thingsboard.server.common.data.kv.IntervalType'),
    timeZoneId: strOrNull(o.timeZoneId),
    limit: int(o.limit, 0),
    agg: enumOrNull(o.agg, AGGREGATIONS, 'org.thingsboard.server.common.data.kv.Aggregation'),
    fetchLatestPreviousPoint: boolOr(o.fetchLatestPreviousPoint, false),
  };
}

function parseAggCmd(v: unknown, history: boolean): AggCmd | null {
  const cls = history ? `${CMD2}.AggHistoryCmd` : `${CMD2}.AggTimeSeriesCmd`;
  const o = objOrNull(v, cls);
  if (!o) return null;
  strict(o, ['keys', 'startTs', history ? 'endTs' : 'timeWindow'], cls);
  const keys = (arrOrNull(o.keys, `${CMD2}.AggKey`) ?? []).map((x): AggKey => {
    const k = objOrNull(x, `${CMD2}.AggKey`) ?? {};
    strict(k, ['id', 'key', 'agg', 'previousStartTs', 'previousEndTs', 'previousValueOnly'], `${CMD2}.AggKey`);
    return {
      id: int(k.id),
      key: strOrNull(k.key) ?? '',
      agg: enumOrNull(k.agg, AGGREGATIONS, 'org.thingsboard.server.common.data.kv.Aggregation'),
      previousStartTs: longOrNull(k.previousStartTs),
      previousEndTs: longOrNull(k.previousEndTs),
      previousValueOnly:
        k.previousValueOnly === null || k.previousValueOnly === undefined ? null : boolOr(k.previousValueOnly, false),
    };
  });
  const startTs = int(o.startTs, 0, 'long');
  return { keys, startTs, endTs: history ? int(o.endTs, 0, 'long') : startTs + int(o.timeWindow, 0, 'long') };
}

function parseEntityKeyStrict(v: unknown): EntityKey {
  const o = objOrNull(v, `${Q}.EntityKey`) ?? {};
  strict(o, ['type', 'key'], `${Q}.EntityKey`);
  const type = enumOrNull(o.type, KEY_TYPES, `${Q}.EntityKeyType`);
  return { type: type ?? 'TIME_SERIES', key: strOrNull(o.key) ?? '' };
}

function parseCmd(v: unknown): WsCmd {
  const o = objOrNull(v, `${WS}.WsCmd`);
  if (!o) throw new WsParseError(`Cannot construct instance of \`${WS}.WsCmd\` from null value`);
  const t = o.type;
  if (t === undefined || t === null) {
    throw new WsParseError(
      `Could not resolve subtype of [simple type, class ${WS}.WsCmd]: missing type id property 'type'`,
    );
  }
  if (typeof t !== 'string' || !KNOWN_TYPES.includes(t)) {
    throw new WsParseError(
      `Could not resolve type id '${String(t)}' as a subtype of \`${WS}.WsCmd\`: known type ids = ` +
        `[${KNOWN_TYPES.join(', ')}]`,
    );
  }
  const cmdId = int(o.cmdId);
  switch (t) {
    case 'ENTITY_DATA': {
      strict(
        o,
        ['type', 'cmdId', 'query', 'historyCmd', 'latestCmd', 'tsCmd', 'aggHistoryCmd', 'aggTsCmd'],
        `${CMD2}.EntityDataCmd`,
      );
      const q = objOrNull(o.query, `${Q}.EntityDataQuery`);
      if (q) checkQuery(q, 'data');
      const lc = objOrNull(o.latestCmd, `${CMD2}.LatestValueCmd`);
      if (lc) strict(lc, ['keys'], `${CMD2}.LatestValueCmd`);
      return {
        type: 'ENTITY_DATA',
        cmdId,
        query: q ? viaRest(() => parseEntityDataQuery(q)) : null,
        latestValuesNull: q ? q.latestValues === null || q.latestValues === undefined : false,
        latestCmd: lc ? { keys: (arrOrNull(lc.keys, `${Q}.EntityKey`) ?? []).map(parseEntityKeyStrict) } : null,
        tsCmd: parseTsFetch(o.tsCmd, false),
        historyCmd: parseTsFetch(o.historyCmd, true),
        aggHistoryCmd: parseAggCmd(o.aggHistoryCmd, true),
        aggTsCmd: parseAggCmd(o.aggTsCmd, false),
      };
    }
    case 'ENTITY_COUNT': {
      strict(o, ['type', 'cmdId', 'query'], `${CMD2}.EntityCountCmd`);
      const q = objOrNull(o.query, `${Q}.EntityCountQuery`);
      if (q) checkQuery(q, 'count');
      return { type: 'ENTITY_COUNT', cmdId, query: q ? viaRest(() => parseEntityCountQuery(q)) : null };
    }
    case 'ALARM_DATA': {
      strict(o, ['type', 'cmdId', 'query'], `${CMD2}.AlarmDataCmd`);
      const q = objOrNull(o.query, `${Q}.AlarmDataQuery`);
      if (q) checkQuery(q, 'alarm');
      return { type: 'ALARM_DATA', cmdId, query: q ? viaRest(() => parseAlarmDataQuery(q)) : null };
    }
    case 'ALARM_COUNT': {
      strict(o, ['type', 'cmdId', 'query'], `${CMD2}.AlarmCountCmd`);
      const q = objOrNull(o.query, `${Q}.AlarmCountQuery`);
      if (q) checkQuery(q, 'alarmCount');
      return { type: 'ALARM_COUNT', cmdId, query: q ? viaRest(() => parseAlarmCountQuery(q)) : null };
    }
    case 'ALARM_STATUS': {
      strict(o, ['type', 'cmdId', 'originatorId', 'typeList', 'severityList'], `${CMD2}.AlarmStatusCmd`);
      const types = arrOrNull(o.typeList, 'java.lang.String');
      const sev = arrOrNull(o.severityList, 'org.thingsboard.server.common.data.alarm.AlarmSeverity');
      return {
        type: 'ALARM_STATUS',
        cmdId,
        originatorId: viaRest(() => parseEntityId(o.originatorId)),
        typeList: types ? types.map((x) => strOrNull(x) ?? '') : null,
        severityList: sev
          ? sev
              .map((x) => enumOrNull(x, ALARM_SEVERITIES, 'org.thingsboard.server.common.data.alarm.AlarmSeverity'))
              .filter((x): x is AlarmSeverity => x !== null)
          : null,
      };
    }
    case 'NOTIFICATIONS': {
      strict(o, ['type', 'cmdId', 'limit', 'types'], `${NOTIF}.NotificationsSubCmd`);
      const types = arrOrNull(o.types, 'org.thingsboard.server.common.data.notification.NotificationType');
      return {
        type: 'NOTIFICATIONS',
        cmdId,
        limit: int(o.limit),
        types: types ? types.map((x) => strOrNull(x) ?? '') : null,
      };
    }
    case 'NOTIFICATIONS_COUNT':
      strict(o, ['type', 'cmdId'], `${NOTIF}.NotificationsCountSubCmd`);
      return { type: 'NOTIFICATIONS_COUNT', cmdId };
    case 'MARK_NOTIFICATIONS_AS_READ': {
      strict(o, ['type', 'cmdId', 'notifications'], `${NOTIF}.MarkNotificationsAsReadCmd`);
      const ids = arrOrNull(o.notifications, 'java.util.UUID') ?? [];
      return { type: 'MARK_NOTIFICATIONS_AS_READ', cmdId, notifications: ids.map((x) => strOrNull(x) ?? '') };
    }
    case 'MARK_ALL_NOTIFICATIONS_AS_READ':
      strict(o, ['type', 'cmdId'], `${NOTIF}.MarkAllNotificationsAsReadCmd`);
      return { type: 'MARK_ALL_NOTIFICATIONS_AS_READ', cmdId };
    default:
      if ((UNSUBSCRIBE_TYPES as readonly string[]).includes(t)) {
        strict(o, ['type', 'cmdId'], `${CMD2}.UnsubscribeCmd`);
        return { type: t as UnsubscribeType, cmdId };
      }
      return { type: 'UNSUPPORTED', wsType: t, cmdId };
  }
}

/**
 * Parses a whole message (`{"authCmd"?, "cmds"?}`). `apiKeyAuth` decides whether `authCmd.apiKey` is a known
 * property (HEAD / 4.4) or an unknown one (4.3.x: the message fails to parse).
 */
export function parseEnvelope(text: string, apiKeyAuth: boolean): Envelope {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new WsParseError(`Unexpected character: ${(e as Error).message}`);
  }
  const o = objOrNull(json, `${WS}.WsCommandsWrapper`);
  if (!o) return { authCmd: null, cmds: [], raw: [] };
  strict(o, ['authCmd', 'cmds'], `${WS}.WsCommandsWrapper`);
  let authCmd: AuthCmd | null = null;
  const a = objOrNull(o.authCmd, `${WS}.AuthCmd`);
  if (a) {
    strict(a, apiKeyAuth ? ['cmdId', 'token', 'apiKey'] : ['cmdId', 'token'], `${WS}.AuthCmd`);
    authCmd = { cmdId: int(a.cmdId), token: strOrNull(a.token), apiKey: apiKeyAuth ? strOrNull(a.apiKey) : null };
  }
  const list = arrOrNull(o.cmds, `${WS}.WsCmd`) ?? [];
  const cmds = list.map(parseCmd);
  return { authCmd, cmds, raw: list.filter(isObj) };
}
