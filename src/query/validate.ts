/**
 * Validation and normalisation of queries into wire-ready copies.
 *
 * Each `prepare*` function checks its input and returns a **new** object holding only fields the server knows,
 * at every level (query, entityFilter, pageLink, sortOrder, keyFilter, predicate, value, EntityKey). That matters on
 * the WebSocket, where an unknown field outside `query`/`entityFilter` makes the server reject the whole message
 * (protocol §6.9). The input is never modified.
 *
 * Every failure throws `TbInputError(fieldPath, message)`; the message names the full path and what is allowed,
 * e.g. `query.pageLink.pageSize must be a positive integer (got 0)`.
 *
 * `options.live` says where the query goes: `false` (the default) a REST endpoint, `true` a WebSocket subscription.
 * The two differ only in what the server does with a CURRENT_DEVICE dynamic value (see below).
 *
 * Defaults and forgiving rules:
 * - a JSON string is parsed first;
 * - data queries without `pageLink` get `{page: 0, pageSize: 100}`; a pageLink without `page`/`pageSize` gets
 *   those same defaults;
 * - `sortOrder.direction` defaults to `"ASC"` (the server would sort DESC for entities and NPE for alarms);
 * - `keyFilters`, `entityFields`, `latestValues` (and `alarmFields` for alarm queries) are always arrays;
 * - a bare scalar predicate value (`value: 20`) becomes `{defaultValue: 20}`;
 * - a NUMERIC value given as text is read as Jackson reads it into a Double (`"20"`, `" 20 "`, `"2e1"`, `"+5"`,
 *   `".5"`, `"5."`) and sent as the number; `""`, blank and `"null"` are no value; other text is refused;
 * - a value may be given by `userValue` alone (the server uses it first); `dynamicValue.resolvedValue` is kept;
 * - a COMPLEX predicate may be empty (`predicates: []`): the server turns it into no condition at all;
 * - a missing `keyFilter.valueType` is taken from the predicate type (STRING / NUMERIC / BOOLEAN; the first simple
 *   predicate of a COMPLEX one; left out when there is none);
 * - the deprecated singular `deviceType` / `assetType` / `edgeType` / `entityViewType` of the type filters becomes
 *   the plural list; the `*SearchQuery` filters have no such field, so there it is dropped (the server ignores it);
 *   a `null` item in a type list is kept (the server runs it as `type in (null)`: no match);
 * - `assigneeId` (and apiUsageState's `customerId`) may be a bare UUID string;
 * - `null` in an optional field counts as absent.
 * Refused although the server parses them, because the server would fail on them or silently ignore them:
 * - a sort key (ENTITY_FIELD or ALARM_FIELD) other than letters, digits, `_` and `-`: 400 "Invalid entity data page
 *   link sort property" (`Validator#validateEntityDataPageLink`), on REST and WebSocket alike;
 * - over REST, a CURRENT_DEVICE dynamic value without a `resolvedValue`. REST find fails on it with a 500 "Not
 *   supported operation for source type" (`DefaultEntityQueryService#resolveDynamicValue`), even when a userValue
 *   is set; REST counts and alarm queries never resolve dynamic values, so there it is accepted only with a
 *   userValue, which they use instead. A live subscription accepts it as the server does: the WebSocket skips
 *   CURRENT_DEVICE (`TbAbstractEntityQuerySubCtx#resolve`) and uses userValue or defaultValue.
 * Enum values are compared exactly (as the server does); when only the case differs the message suggests the value.
 */

import { TbInputError } from '../errors';
import {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  ALIAS_ENTITY_TYPES,
  ATTRIBUTE_SCOPES,
  BOOLEAN_OPERATIONS,
  COMPLEX_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_FILTER_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  ENTITY_TYPES,
  FILTER_PREDICATE_TYPES,
  KEY_FILTERS_OPERATIONS,
  NON_ALARM_KEY_TYPES,
  NUMERIC_OPERATIONS,
  RELATION_DIRECTIONS,
  SORT_DIRECTIONS,
  STRING_OPERATIONS,
  type AlarmCountQuery,
  type AlarmDataPageLink,
  type AlarmDataQuery,
  type AlarmFilterFields,
  type AlarmSeverity,
  type AliasEntityId,
  type AttributeScope,
  type DynamicValue,
  type EntityCountQuery,
  type EntityDataPageLink,
  type EntityDataQuery,
  type EntityDataSortOrder,
  type EntityFilter,
  type EntityId,
  type EntityKey,
  type EntityKeyValueType,
  type EntityType,
  type FilterPredicateValue,
  type KeyFilter,
  type KeyFilterPredicate,
  type RelationEntityTypeFilter,
  type RelationsQueryFilter,
  type UserId,
} from './types';

type Obj = Record<string, unknown>;

/** Where the query goes. */
export interface PrepareOptions {
  /** `true`: a WebSocket subscription (tb-subscribe); `false` or absent: a REST endpoint. */
  live?: boolean;
}

/** What the key filter checks need to know about the query they are in. */
interface FilterContext {
  live: boolean;
  /** An entity data query (REST find resolves dynamic values; counts and alarm queries do not). */
  find: boolean;
}

/** Page size used when a data query has no pageLink (or no pageSize). */
export const DEFAULT_PAGE_SIZE = 100;
/** How deep COMPLEX predicates may nest (guards against cyclic objects). */
const MAX_PREDICATE_DEPTH = 32;

/** What the validator accepts as a UUID (any case), as a pattern string for the JSON schema of the editor. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_RE = new RegExp(UUID_PATTERN);
/**
 * What the server accepts as an ENTITY_FIELD or ALARM_FIELD sort key: Unicode letters, ASCII digits, `_` and `-`
 * (`Validator.PROPERTY_PATTERN`, matched whole). As a pattern string for the JSON schema of the editor.
 */
export const SORT_PROPERTY_PATTERN = '^[\\p{L}0-9_-]+$';
const SORT_PROPERTY_RE = new RegExp(SORT_PROPERTY_PATTERN, 'u');
const objToString = Object.prototype.toString;

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

interface EnumSpec<T extends string> {
  readonly set: ReadonlySet<string>;
  /** Lower-cased value -> the exact value, for "did you mean". */
  readonly lower: ReadonlyMap<string, T>;
  /** "A, B, C" for messages. */
  readonly text: string;
}

function enumSpec<T extends string>(values: readonly T[], text?: string): EnumSpec<T> {
  const lower = new Map<string, T>();
  for (const v of values) lower.set(v.toLowerCase(), v);
  return { set: new Set<string>(values), lower, text: text ?? values.join(', ') };
}

const FILTER_TYPE = enumSpec(ENTITY_FILTER_TYPES);
const KEY_TYPE = enumSpec(ENTITY_KEY_TYPES);
const NON_ALARM_KEY_TYPE = enumSpec(NON_ALARM_KEY_TYPES);
const VALUE_TYPE = enumSpec(ENTITY_KEY_VALUE_TYPES);
const PREDICATE_TYPE = enumSpec(FILTER_PREDICATE_TYPES);
const STRING_OP = enumSpec(STRING_OPERATIONS);
const NUMERIC_OP = enumSpec(NUMERIC_OPERATIONS);
const BOOLEAN_OP = enumSpec(BOOLEAN_OPERATIONS);
const COMPLEX_OP = enumSpec(COMPLEX_OPERATIONS);
const KEY_FILTERS_OP = enumSpec(KEY_FILTERS_OPERATIONS);
const SOURCE_TYPE = enumSpec(DYNAMIC_VALUE_SOURCE_TYPES);
const DIRECTION = enumSpec(SORT_DIRECTIONS);
const RELATION_DIRECTION = enumSpec(RELATION_DIRECTIONS);
const STATUS = enumSpec(ALARM_SEARCH_STATUSES);
const SEVERITY = enumSpec(ALARM_SEVERITIES);
const SCOPE = enumSpec(ATTRIBUTE_SCOPES);
const ENTITY_TYPE = enumSpec(
  ENTITY_TYPES,
  'an entity type such as DEVICE, ASSET, ENTITY_VIEW, CUSTOMER, USER, DASHBOARD, TENANT, EDGE',
);
const ALIAS_TYPE = enumSpec(ALIAS_ENTITY_TYPES);
const ENTITY_OR_ALIAS_TYPE_TEXT = `${ENTITY_TYPE.text}, or an alias ${ALIAS_TYPE.text}`;

function fail(path: string, message: string): never {
  throw new TbInputError(path, message);
}

/** Short description of a wrong value for "(got …)". */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'object':
      return Array.isArray(v) ? (v.length === 0 ? '[]' : 'an array') : 'an object';
    default:
      return `a ${typeof v}`;
  }
}

/**
 * A value as JSON text for an error message ("got …"). Never throws: a value JSON cannot hold (a cyclic object, a
 * BigInt) is described instead, and a text longer than `max` characters is cut.
 */
export function jsonText(v: unknown, max = 200): string {
  let s: string | undefined;
  try {
    s = JSON.stringify(v);
  } catch {
    s = undefined;
  }
  if (s === undefined) return describe(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** True when JSON.stringify can write the value (no cyclic reference, no BigInt). */
export function isJsonData(v: unknown): boolean {
  try {
    JSON.stringify(v);
    return true;
  } catch {
    return false;
  }
}

/** "(missing)" or "(got <value>)". */
export function got(v: unknown): string {
  return v === undefined ? '(missing)' : `(got ${describe(v)})`;
}

/** A plain object (not an array, a Date, a Buffer…). */
export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && objToString.call(v) === '[object Object]';
}

function obj(v: unknown, path: string, what = 'an object'): Obj {
  if (isObject(v)) return v;
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

function oneOf<T extends string>(v: unknown, spec: EnumSpec<T>, path: string, what?: string): T {
  if (typeof v === 'string' && spec.set.has(v)) return v as T;
  const allowed = what ?? `one of ${spec.text}`;
  if (typeof v === 'string') {
    const hint = spec.lower.get(v.toLowerCase());
    if (hint !== undefined) fail(path, `${path} must be ${allowed} (got ${describe(v)}; did you mean "${hint}"?)`);
  }
  return fail(path, `${path} must be ${allowed} ${got(v)}`);
}

function str(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  return fail(path, `${path} must be a string ${got(v)}`);
}

function nonEmptyStr(v: unknown, path: string): string {
  if (typeof v === 'string' && v.length > 0) return v;
  return fail(path, `${path} must be a non-empty string ${got(v)}`);
}

function bool(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  return fail(path, `${path} must be true or false ${got(v)}`);
}

function nonNegInt(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  return fail(path, `${path} must be an integer >= 0 ${got(v)}`);
}

function posInt(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  return fail(path, `${path} must be a positive integer ${got(v)}`);
}

function uuid(v: unknown, path: string): string {
  if (typeof v === 'string' && UUID_RE.test(v)) return v;
  return fail(path, `${path} must be a UUID like "784f394c-42b6-435a-983c-b7beff2784f9" ${got(v)}`);
}

function arr(v: unknown, path: string, what: string): unknown[] {
  if (Array.isArray(v)) return v;
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

function stringArray(v: unknown, path: string): string[] {
  const a = arr(v, path, 'an array of strings');
  const out: string[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = str(a[i], `${path}[${i}]`);
  return out;
}

function uuidArray(v: unknown, path: string): string[] {
  const a = arr(v, path, 'a non-empty array of UUID strings');
  if (a.length === 0) fail(path, `${path} must be a non-empty array of UUID strings (got [])`);
  const out: string[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = uuid(a[i], `${path}[${i}]`);
  return out;
}

function enumArray<T extends string>(v: unknown, spec: EnumSpec<T>, path: string): T[] {
  const a = arr(v, path, `an array of ${spec.text}`);
  const out: T[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = oneOf(a[i], spec, `${path}[${i}]`);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------------------------

function entityType(v: unknown, path: string): EntityType {
  return oneOf(v, ENTITY_TYPE, path, ENTITY_TYPE.text);
}

function entityTypeArray(v: unknown, path: string): EntityType[] {
  const a = arr(v, path, 'an array of entity types');
  const out: EntityType[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = entityType(a[i], `${path}[${i}]`);
  return out;
}

/** Validates a plain entity id `{entityType, id}` (e.g. an ALARM_STATUS originator) and returns a clean copy. */
export function prepareEntityId(v: unknown, path = 'entityId'): EntityId {
  const o = obj(v, path, 'an entity id {"entityType": "DEVICE", "id": "<uuid>"}');
  return { entityType: entityType(o.entityType, `${path}.entityType`), id: uuid(o.id, `${path}.id`) };
}

/** An entity id, or one of the aliases CURRENT_USER, CURRENT_TENANT, CURRENT_CUSTOMER, CURRENT_USER_OWNER. */
function aliasEntityId(v: unknown, path: string): AliasEntityId {
  const o = obj(v, path, 'an entity id {"entityType": "DEVICE", "id": "<uuid>"} or {"entityType": "CURRENT_USER"}');
  const et = o.entityType;
  if (typeof et === 'string') {
    if (ALIAS_TYPE.set.has(et)) {
      const aliasType = et as (typeof ALIAS_ENTITY_TYPES)[number];
      return o.id == null ? { entityType: aliasType } : { entityType: aliasType, id: uuid(o.id, `${path}.id`) };
    }
    if (ENTITY_TYPE.set.has(et)) return { entityType: et, id: uuid(o.id, `${path}.id`) };
    const lc = et.toLowerCase();
    const hint = ALIAS_TYPE.lower.get(lc) ?? ENTITY_TYPE.lower.get(lc);
    if (hint !== undefined) {
      fail(`${path}.entityType`, `${path}.entityType must be ${ENTITY_OR_ALIAS_TYPE_TEXT} (got ${describe(et)}; did you mean "${hint}"?)`);
    }
  }
  return fail(`${path}.entityType`, `${path}.entityType must be ${ENTITY_OR_ALIAS_TYPE_TEXT} ${got(et)}`);
}

/** `{entityType: <expected>, id}`; a bare UUID string is accepted, and a missing entityType is filled in. */
function typedId<T extends string>(v: unknown, path: string, expected: T): EntityId<T> {
  if (typeof v === 'string') return { entityType: expected, id: uuid(v, path) };
  const o = obj(v, path, `a ${expected} id {"entityType": "${expected}", "id": "<uuid>"} or a UUID string`);
  if (o.entityType != null && o.entityType !== expected) {
    fail(`${path}.entityType`, `${path}.entityType must be ${expected} ${got(o.entityType)}`);
  }
  return { entityType: expected, id: uuid(o.id, `${path}.id`) };
}

// ---------------------------------------------------------------------------------------------------------------
// Entity filter
// ---------------------------------------------------------------------------------------------------------------

/**
 * An array of type names. A `null` item is kept: Jackson writes an empty Java type filter that way and the server
 * runs it (`type in (null)` matches nothing).
 */
function typeNames(v: unknown, path: string): (string | null)[] {
  const a = arr(v, path, 'an array of strings');
  const out: (string | null)[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] === null ? null : str(a[i], `${path}[${i}]`);
  return out;
}

/**
 * The plural `<x>Types` list of a type filter, falling back to the deprecated singular `<x>Type` when the list is
 * empty or absent, as the server's getter does (`DeviceTypeFilter#getDeviceTypes`).
 */
function typeList(o: Obj, plural: string, singular: string, path: string): (string | null)[] {
  if (o[plural] != null) {
    const list = typeNames(o[plural], `${path}.${plural}`);
    if (list.length > 0) return list;
  }
  const single = o[singular];
  if (single != null && single !== '') return [str(single, `${path}.${singular}`)];
  return fail(`${path}.${plural}`, `${path}.${plural} must be a non-empty array of type names, e.g. ["thermostat"] ${got(o[plural])}`);
}

function optStr(o: Obj, name: string, path: string, out: Obj): void {
  const v = o[name];
  if (v != null) out[name] = str(v, `${path}.${name}`);
}

function optBool(o: Obj, name: string, path: string, out: Obj): void {
  const v = o[name];
  if (v != null) out[name] = bool(v, `${path}.${name}`);
}

function relationFilters(v: unknown, path: string): RelationEntityTypeFilter[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of {relationType, entityTypes, negate}');
  const out: RelationEntityTypeFilter[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const p = `${path}[${i}]`;
    const f = obj(a[i], p, 'an object {relationType, entityTypes, negate}');
    const r: RelationEntityTypeFilter = {};
    if (f.relationType != null) r.relationType = str(f.relationType, `${p}.relationType`);
    if (f.entityTypes != null) r.entityTypes = entityTypeArray(f.entityTypes, `${p}.entityTypes`);
    if (f.negate != null) r.negate = bool(f.negate, `${p}.negate`);
    out[i] = r;
  }
  return out;
}

/** Fields shared by relationsQuery and the *SearchQuery filters. */
function relationCommon(o: Obj, path: string, out: Obj): void {
  out.direction = oneOf(o.direction, RELATION_DIRECTION, `${path}.direction`);
  if (o.maxLevel != null) out.maxLevel = nonNegInt(o.maxLevel, `${path}.maxLevel`);
  optBool(o, 'fetchLastLevelOnly', path, out);
  optBool(o, 'rootStateEntity', path, out);
  if (o.defaultStateEntity != null) out.defaultStateEntity = aliasEntityId(o.defaultStateEntity, `${path}.defaultStateEntity`);
}

const SEARCH_QUERY_TYPES: Readonly<Record<string, string>> = {
  assetSearchQuery: 'assetTypes',
  deviceSearchQuery: 'deviceTypes',
  entityViewSearchQuery: 'entityViewTypes',
  edgeSearchQuery: 'edgeTypes',
};

function entityFilter(v: unknown, path: string): EntityFilter {
  const o = obj(v, path, 'an entity filter object with a "type"');
  const type = oneOf(o.type, FILTER_TYPE, `${path}.type`);
  switch (type) {
    case 'singleEntity':
      return { type, singleEntity: aliasEntityId(o.singleEntity, `${path}.singleEntity`) };
    case 'entityList':
      return {
        type,
        entityType: entityType(o.entityType, `${path}.entityType`),
        entityList: uuidArray(o.entityList, `${path}.entityList`),
      };
    case 'entityName':
      return {
        type,
        entityType: entityType(o.entityType, `${path}.entityType`),
        entityNameFilter: str(o.entityNameFilter, `${path}.entityNameFilter`),
      };
    case 'entityType':
      return { type, entityType: entityType(o.entityType, `${path}.entityType`) };
    case 'assetType': {
      const out: Obj = { type, assetTypes: typeList(o, 'assetTypes', 'assetType', path) };
      optStr(o, 'assetNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'deviceType': {
      const out: Obj = { type, deviceTypes: typeList(o, 'deviceTypes', 'deviceType', path) };
      optStr(o, 'deviceNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'edgeType': {
      const out: Obj = { type, edgeTypes: typeList(o, 'edgeTypes', 'edgeType', path) };
      optStr(o, 'edgeNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'entityViewType': {
      const out: Obj = { type, entityViewTypes: typeList(o, 'entityViewTypes', 'entityViewType', path) };
      optStr(o, 'entityViewNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'apiUsageState':
      return o.customerId == null ? { type } : { type, customerId: typedId(o.customerId, `${path}.customerId`, 'CUSTOMER') };
    case 'relationsQuery': {
      const out: Obj = { type };
      const multiRoot = o.multiRoot == null ? false : bool(o.multiRoot, `${path}.multiRoot`);
      if (o.multiRoot != null) out.multiRoot = multiRoot;
      if (multiRoot) {
        out.multiRootEntitiesType = entityType(o.multiRootEntitiesType, `${path}.multiRootEntitiesType`);
        out.multiRootEntityIds = uuidArray(o.multiRootEntityIds, `${path}.multiRootEntityIds`);
        if (o.rootEntity != null) out.rootEntity = aliasEntityId(o.rootEntity, `${path}.rootEntity`);
      } else if (o.rootEntity == null) {
        fail(
          `${path}.rootEntity`,
          `${path}.rootEntity must be an entity id {"entityType": "DEVICE", "id": "<uuid>"} (missing; or set multiRoot: true with multiRootEntitiesType and multiRootEntityIds)`,
        );
      } else {
        out.rootEntity = aliasEntityId(o.rootEntity, `${path}.rootEntity`);
      }
      relationCommon(o, path, out);
      out.filters = relationFilters(o.filters, `${path}.filters`);
      optBool(o, 'negate', path, out);
      return out as unknown as RelationsQueryFilter;
    }
    default: {
      // assetSearchQuery, deviceSearchQuery, entityViewSearchQuery, edgeSearchQuery
      const out: Obj = { type, rootEntity: aliasEntityId(o.rootEntity, `${path}.rootEntity`) };
      optStr(o, 'relationType', path, out);
      relationCommon(o, path, out);
      // Only the plural list: these filters have no singular field (DeviceSearchQueryFilter.java), so a
      // "deviceType" here is an unknown property the server ignores, and so do we.
      const plural = SEARCH_QUERY_TYPES[type];
      if (o[plural] != null) out[plural] = typeNames(o[plural], `${path}.${plural}`);
      return out as unknown as EntityFilter;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Keys and key filters
// ---------------------------------------------------------------------------------------------------------------

function entityKey(v: unknown, path: string, allowAlarmField: boolean): EntityKey {
  const o = obj(v, path, 'a key {"type": "TIME_SERIES", "key": "<name>"}');
  const t = o.type;
  let type: EntityKey['type'];
  if (allowAlarmField) {
    type = oneOf(t, KEY_TYPE, `${path}.type`);
  } else if (t === 'ALARM_FIELD') {
    fail(
      `${path}.type`,
      `${path}.type must be one of ${NON_ALARM_KEY_TYPE.text} (got "ALARM_FIELD", which is only allowed in an alarm query's alarmFields and sort order)`,
    );
  } else {
    type = oneOf(t, NON_ALARM_KEY_TYPE, `${path}.type`);
  }
  return { type, key: nonEmptyStr(o.key, `${path}.key`) };
}

function entityKeys(v: unknown, path: string, allowAlarmField: boolean): EntityKey[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of keys {"type", "key"}');
  const out: EntityKey[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = entityKey(a[i], `${path}[${i}]`, allowAlarmField);
  return out;
}

type ValueKind = 'string' | 'number' | 'boolean';
const KIND_TEXT: Readonly<Record<ValueKind, string>> = {
  string: 'a string',
  number: 'a finite number',
  boolean: 'true or false',
};

/** Java's `String.trim()`: strips every character up to U+0020 at both ends (JavaScript's trim strips others). */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return s.slice(a, b);
}

/** `NumberInput.looksLikeValidNumber` (jackson-core 2.19): an optional sign, digits, a dot, an exponent. */
const JACKSON_FLOAT_RE = /^[+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?$/;
const JACKSON_FLOAT_TRAILING_DOT_RE = /^[+-]?[0-9]+\.$/;

/**
 * What the server's Jackson makes of a JSON string where it expects a Double (a NUMERIC predicate's defaultValue,
 * userValue or resolvedValue): jackson-databind 2.19 `NumberDeserializers.DoubleDeserializer#_parseDouble` with
 * the default coercion settings. Exactly "NaN", "Infinity", "INF", "-Infinity", "-INF" are those values; empty or
 * blank text is null; otherwise the text is trimmed (Java's trim), "null" is null, and text that looks like a number
 * (sign, digits, dot, exponent; leading zeros allowed) is parsed by `Double.parseDouble`. Returns the number, `null`
 * for no value, or `undefined` when the server would refuse the request ("not a valid `Double` value").
 */
export function jacksonDouble(s: string): number | null | undefined {
  if (s === 'NaN') return NaN;
  if (s === 'Infinity' || s === 'INF') return Infinity;
  if (s === '-Infinity' || s === '-INF') return -Infinity;
  const t = javaTrim(s);
  if (t === '' || t === 'null') return null;
  if (JACKSON_FLOAT_RE.test(t) || JACKSON_FLOAT_TRAILING_DOT_RE.test(t)) return Number(t);
  return undefined;
}

/**
 * One predicate value (defaultValue, userValue, resolvedValue, or the bare shorthand) as the server reads it:
 * a number, string or boolean of the predicate's kind, or `null` when the server reads no value (a NUMERIC text
 * "", blank or "null"). Text for a NUMERIC value is sent as the number it stands for: the same value for the server
 * (REST and the WebSocket read it alike), and the wire query holds the type the protocol declares.
 */
function scalar(v: unknown, path: string, kind: ValueKind, what = KIND_TEXT[kind]): string | number | boolean | null {
  if (kind === 'number') {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string') {
      const n = jacksonDouble(v);
      if (n === null) return null;
      if (n !== undefined && Number.isFinite(n)) return n;
      return fail(path, `${path} must be ${what}, or its text such as "20" ${got(v)}`);
    }
  } else if (typeof v === kind) {
    return v as string | boolean;
  }
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

function dynamicValue(v: unknown, path: string, kind: ValueKind): DynamicValue<unknown> {
  const o = obj(v, path, 'an object {sourceType, sourceAttribute, inherit}');
  const out: DynamicValue<unknown> = {
    sourceType: oneOf(o.sourceType, SOURCE_TYPE, `${path}.sourceType`),
    sourceAttribute: nonEmptyStr(o.sourceAttribute, `${path}.sourceAttribute`),
  };
  if (o.inherit != null) out.inherit = bool(o.inherit, `${path}.inherit`);
  if (o.resolvedValue != null) {
    const r = scalar(o.resolvedValue, `${path}.resolvedValue`, kind);
    if (r !== null) out.resolvedValue = r;
  }
  return out;
}

const RESOLVED_SOURCES = 'CURRENT_TENANT, CURRENT_CUSTOMER or CURRENT_USER';

/**
 * Refuses a CURRENT_DEVICE dynamic value that a REST endpoint would fail on or silently ignore (see the module
 * comment). A live subscription takes it as the server does.
 */
function checkCurrentDevice(dyn: DynamicValue<unknown>, user: unknown, path: string, ctx: FilterContext): void {
  if (ctx.live || dyn.sourceType !== 'CURRENT_DEVICE' || dyn.resolvedValue != null) return;
  const p = `${path}.dynamicValue.sourceType`;
  if (ctx.find) {
    fail(
      p,
      `${p} must be ${RESOLVED_SOURCES} in an entity data query sent over REST (got "CURRENT_DEVICE": the server fails on it with "Not supported operation for source type", an internal error, even when userValue is set; or give dynamicValue.resolvedValue, which the server then uses as is)`,
    );
  }
  if (user === null) {
    fail(
      p,
      `${p} must be ${RESOLVED_SOURCES} (got "CURRENT_DEVICE", which a REST count or alarm query never resolves: the server would silently use defaultValue; or give userValue or dynamicValue.resolvedValue)`,
    );
  }
}

/**
 * FilterPredicateValue, or a bare scalar that becomes `{defaultValue}`. The server uses userValue if not null, else
 * dynamicValue.resolvedValue (the resolved attribute), else defaultValue (`FilterPredicateValue#getValue`), so one of
 * them must give a value.
 */
function predicateValue(v: unknown, path: string, kind: ValueKind, ctx: FilterContext): FilterPredicateValue<unknown> {
  if (!isObject(v)) {
    const what = `${KIND_TEXT[kind]} or an object {defaultValue, userValue, dynamicValue}`;
    if (v == null) return fail(path, `${path} must be ${what} ${got(v)}`);
    const x = scalar(v, path, kind, what);
    if (x === null) fail(path, `${path} must be ${what} ${got(v)}, which the server reads as no value`);
    return { defaultValue: x };
  }
  const user = v.userValue == null ? null : scalar(v.userValue, `${path}.userValue`, kind);
  const dyn = v.dynamicValue == null ? undefined : dynamicValue(v.dynamicValue, `${path}.dynamicValue`, kind);
  const def = v.defaultValue == null ? null : scalar(v.defaultValue, `${path}.defaultValue`, kind);
  if (def === null && user === null && dyn === undefined) {
    const p = `${path}.defaultValue`;
    const none = v.defaultValue == null ? got(v.defaultValue) : `${got(v.defaultValue)}, which the server reads as no value`;
    fail(p, `${p} must be ${KIND_TEXT[kind]} ${none}, unless userValue or dynamicValue gives the value`);
  }
  if (dyn !== undefined) checkCurrentDevice(dyn, user, path, ctx);
  const out: FilterPredicateValue<unknown> = { defaultValue: def };
  if (user !== null) out.userValue = user;
  if (dyn !== undefined) out.dynamicValue = dyn;
  return out;
}

function predicate(v: unknown, path: string, depth: number, ctx: FilterContext): KeyFilterPredicate {
  const o = obj(v, path, 'a predicate object with a "type"');
  const type = oneOf(o.type, PREDICATE_TYPE, `${path}.type`);
  switch (type) {
    case 'STRING': {
      const out: Obj = {
        type,
        operation: oneOf(o.operation, STRING_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'string', ctx),
      };
      optBool(o, 'ignoreCase', path, out);
      return out as unknown as KeyFilterPredicate;
    }
    case 'NUMERIC':
      return {
        type,
        operation: oneOf(o.operation, NUMERIC_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'number', ctx) as FilterPredicateValue<number>,
      };
    case 'BOOLEAN':
      return {
        type,
        operation: oneOf(o.operation, BOOLEAN_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'boolean', ctx) as FilterPredicateValue<boolean>,
      };
    default: {
      // An empty list is allowed: the server builds no condition from it (EntityKeyMapping#buildComplexPredicateQuery
      // gives "", which is dropped), so the key filter matches every entity, like an empty STRING value.
      const operation = oneOf(o.operation, COMPLEX_OP, `${path}.operation`);
      const p = `${path}.predicates`;
      const a = arr(o.predicates, p, 'an array of predicates');
      if (depth >= MAX_PREDICATE_DEPTH) fail(p, `${p} nests COMPLEX predicates deeper than ${MAX_PREDICATE_DEPTH} levels`);
      const predicates: KeyFilterPredicate[] = new Array(a.length);
      for (let i = 0; i < a.length; i++) predicates[i] = predicate(a[i], `${p}[${i}]`, depth + 1, ctx);
      return { type: 'COMPLEX', operation, predicates };
    }
  }
}

/**
 * valueType implied by a predicate: its own type, or that of the first simple predicate inside a COMPLEX one
 * (depth first, past empty groups); undefined when there is none. Tolerant of unchecked input, so the editor's
 * builder implies the same type as the runtime.
 */
export function impliedValueType(p: unknown, depth = 0): EntityKeyValueType | undefined {
  if (!isObject(p)) return undefined;
  if (p.type === 'STRING' || p.type === 'NUMERIC' || p.type === 'BOOLEAN') return p.type;
  if (p.type !== 'COMPLEX' || !Array.isArray(p.predicates) || depth >= MAX_PREDICATE_DEPTH) return undefined;
  for (const c of p.predicates as unknown[]) {
    const t = impliedValueType(c, depth + 1);
    if (t !== undefined) return t;
  }
  return undefined;
}

function keyFilters(v: unknown, path: string, ctx: FilterContext): KeyFilter[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of key filters {key, valueType, predicate}');
  const out: KeyFilter[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const p = `${path}[${i}]`;
    const o = obj(a[i], p, 'a key filter {key, valueType, predicate}');
    const key = entityKey(o.key, `${p}.key`, false);
    const pred = predicate(o.predicate, `${p}.predicate`, 0, ctx);
    const valueType = o.valueType == null ? impliedValueType(pred) : oneOf(o.valueType, VALUE_TYPE, `${p}.valueType`);
    out[i] = valueType === undefined ? { key, predicate: pred } : { key, valueType, predicate: pred };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Page links
// ---------------------------------------------------------------------------------------------------------------

function sortOrder(v: unknown, path: string, alarm: boolean): EntityDataSortOrder {
  const o = obj(v, path, 'an object {key, direction}');
  const key = entityKey(o.key, `${path}.key`, alarm);
  if ((key.type === 'ENTITY_FIELD' || key.type === 'ALARM_FIELD') && !SORT_PROPERTY_RE.test(key.key)) {
    const p = `${path}.key.key`;
    fail(
      p,
      `${p} must be made of letters, digits, "_" and "-" only: the server refuses any other ${key.type} sort key with 400 "Invalid entity data page link sort property" ${got(key.key)}`,
    );
  }
  return {
    key,
    direction: o.direction == null ? 'ASC' : oneOf(o.direction, DIRECTION, `${path}.direction`),
  };
}

/** Copies the alarm filter fields of `o` (validated) into `out`. */
function alarmFilterFields(o: Obj, path: string, out: AlarmFilterFields): void {
  if (o.startTs != null) out.startTs = nonNegInt(o.startTs, `${path}.startTs`);
  if (o.endTs != null) out.endTs = nonNegInt(o.endTs, `${path}.endTs`);
  if (o.timeWindow != null) out.timeWindow = nonNegInt(o.timeWindow, `${path}.timeWindow`);
  if (o.typeList != null) out.typeList = stringArray(o.typeList, `${path}.typeList`);
  if (o.statusList != null) out.statusList = enumArray(o.statusList, STATUS, `${path}.statusList`);
  if (o.severityList != null) out.severityList = enumArray(o.severityList, SEVERITY, `${path}.severityList`);
  if (o.searchPropagatedAlarms != null) {
    out.searchPropagatedAlarms = bool(o.searchPropagatedAlarms, `${path}.searchPropagatedAlarms`);
  }
  if (o.assigneeId != null) out.assigneeId = typedId(o.assigneeId, `${path}.assigneeId`, 'USER') as UserId;
}

function pageLink(v: unknown, path: string, alarm: boolean): EntityDataPageLink | AlarmDataPageLink {
  if (v == null) return { page: 0, pageSize: DEFAULT_PAGE_SIZE };
  const o = obj(v, path, 'an object {page, pageSize, textSearch, sortOrder, dynamic}');
  const out: AlarmDataPageLink = {
    page: o.page == null ? 0 : nonNegInt(o.page, `${path}.page`),
    pageSize: o.pageSize == null ? DEFAULT_PAGE_SIZE : posInt(o.pageSize, `${path}.pageSize`),
  };
  if (o.textSearch === null) out.textSearch = null;
  else if (o.textSearch !== undefined) out.textSearch = str(o.textSearch, `${path}.textSearch`);
  if (o.sortOrder != null) out.sortOrder = sortOrder(o.sortOrder, `${path}.sortOrder`, alarm);
  if (o.dynamic != null) out.dynamic = bool(o.dynamic, `${path}.dynamic`);
  if (alarm) alarmFilterFields(o, path, out);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------------------------

/** A plain object, or a JSON string holding one. */
function parseInput(input: unknown, field: string): Obj {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      fail(field, `${field} is not valid JSON: ${(e as Error).message}`);
    }
  }
  return obj(v, field, 'an object (or a JSON string of one)');
}

function countPart(q: Obj, field: string, out: EntityCountQuery | AlarmCountQuery, ctx: FilterContext): void {
  out.keyFilters = keyFilters(q.keyFilters, `${field}.keyFilters`, ctx);
  if (q.keyFiltersOperation != null) {
    out.keyFiltersOperation = oneOf(q.keyFiltersOperation, KEY_FILTERS_OP, `${field}.keyFiltersOperation`);
  }
}

/** Validates an EntityDataQuery (`POST /api/entitiesQuery/find`, WS ENTITY_DATA) and returns a wire-ready copy. */
export function prepareEntityDataQuery(input: unknown, field = 'query', options: PrepareOptions = {}): EntityDataQuery {
  const q = parseInput(input, field);
  const out = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) } as EntityDataQuery;
  countPart(q, field, out, { live: options.live === true, find: true });
  out.entityFields = entityKeys(q.entityFields, `${field}.entityFields`, false);
  out.latestValues = entityKeys(q.latestValues, `${field}.latestValues`, false);
  out.pageLink = pageLink(q.pageLink, `${field}.pageLink`, false);
  return out;
}

/**
 * Validates an EntityCountQuery (`POST /api/entitiesQuery/count`, WS ENTITY_COUNT). An entity data query is
 * accepted too: its pageLink, entityFields and latestValues are dropped (and not validated).
 */
export function prepareEntityCountQuery(input: unknown, field = 'query', options: PrepareOptions = {}): EntityCountQuery {
  const q = parseInput(input, field);
  const out: EntityCountQuery = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) };
  countPart(q, field, out, { live: options.live === true, find: false });
  return out;
}

/**
 * Validates an AlarmDataQuery (`POST /api/alarmsQuery/find`, WS ALARM_DATA). `alarmFields`, `entityFields`,
 * `latestValues` and `keyFilters` are always arrays (the server NPEs without `alarmFields`).
 */
export function prepareAlarmDataQuery(input: unknown, field = 'query', options: PrepareOptions = {}): AlarmDataQuery {
  const q = parseInput(input, field);
  const out = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) } as AlarmDataQuery;
  countPart(q, field, out, { live: options.live === true, find: false });
  out.entityFields = entityKeys(q.entityFields, `${field}.entityFields`, false);
  out.latestValues = entityKeys(q.latestValues, `${field}.latestValues`, false);
  out.alarmFields = entityKeys(q.alarmFields, `${field}.alarmFields`, true);
  out.pageLink = pageLink(q.pageLink, `${field}.pageLink`, true) as AlarmDataPageLink;
  return out;
}

/**
 * Validates an AlarmCountQuery (`POST /api/alarmsQuery/count`, WS ALARM_COUNT); `entityFilter` is optional.
 * An alarm *data* query is accepted too: the filter fields of its pageLink (statusList, severityList, typeList,
 * timeWindow, startTs, endTs, searchPropagatedAlarms, assigneeId) are lifted to the flat count fields; a field
 * given at the top level wins over the same field in pageLink. Everything else is dropped.
 */
export function prepareAlarmCountQuery(input: unknown, field = 'query', options: PrepareOptions = {}): AlarmCountQuery {
  const q = parseInput(input, field);
  const out: AlarmCountQuery = {};
  if (q.entityFilter != null) out.entityFilter = entityFilter(q.entityFilter, `${field}.entityFilter`);
  countPart(q, field, out, { live: options.live === true, find: false });
  if (q.pageLink != null) {
    const p = `${field}.pageLink`;
    alarmFilterFields(obj(q.pageLink, p), p, out);
  }
  alarmFilterFields(q, field, out);
  return out;
}

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
