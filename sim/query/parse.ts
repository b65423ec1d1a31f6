/**
 * Turns request JSON into typed query objects the way the server's Jackson mapper does on REST:
 * unknown properties are ignored, wrong enum values / unknown polymorphic type ids are a
 * "JSON parse error" (500, code 2). Missing required objects stay null so that validation can answer
 * with the server's own 400 messages.
 */
import { jsonParseError } from '../errors';
import {
  ENTITY_TYPE_NAMES,
  type AlarmSearchStatus,
  type AlarmSeverity,
  type EntityId,
  type EntityKey,
  type EntityKeyType,
  type EntityType,
} from '../types';

const PKG = 'org.thingsboard.server.common.data';

type Json = unknown;
type Obj = Record<string, Json>;

export function isObj(v: Json): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: Json, cls: string): Obj | null {
  if (v === null || v === undefined) return null;
  if (!isObj(v)) {
    throw jsonParseError(`Cannot construct instance of \`${cls}\` from ${describe(v)}`);
  }
  return v;
}

function describe(v: Json): string {
  if (Array.isArray(v)) return 'Array value (token `JsonToken.START_ARRAY`)';
  if (typeof v === 'string') return `String value ('${v}')`;
  if (typeof v === 'number') return `Number value (${v})`;
  if (typeof v === 'boolean') return `Boolean value (${v})`;
  return 'value';
}

export function enumOf<T extends string>(v: Json, allowed: readonly T[], cls: string): T | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  if (typeof v === 'string' && v === '') return null; // Jackson: empty String as null enum
  throw jsonParseError(
    `Cannot deserialize value of type \`${cls}\` from ${typeof v === 'string' ? `String "${v}"` : describe(v)}: not ` +
      `one of the values accepted for Enum class: [${allowed.join(', ')}]`,
  );
}

export function str(v: Json): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw jsonParseError(`Cannot deserialize value of type \`java.lang.String\` from ${describe(v)}`);
}

export function num(v: Json, dflt: number, cls = 'int'): number {
  if (v === null || v === undefined) return dflt;
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Math.trunc(Number(v));
  throw jsonParseError(`Cannot deserialize value of type \`${cls}\` from ${describe(v)}`);
}

/** Java's String.trim(): every char up to U+0020 goes (JavaScript's trim also strips other spaces). */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return s.slice(a, b);
}

/** jackson-core NumberInput.looksLikeValidNumber (PATTERN_FLOAT, PATTERN_FLOAT_TRAILING_DOT). */
const JACKSON_FLOAT = /^[+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?$/;
const JACKSON_FLOAT_TRAILING_DOT = /^[+-]?[0-9]+\.$/;

/**
 * A JSON value read into a java.lang.Double as jackson-databind 2.19 does
 * (NumberDeserializers.DoubleDeserializer#_parseDouble, default coercion config): numbers as they are; for a
 * string, exactly "NaN"/"Infinity"/"INF"/"-Infinity"/"-INF" are those values, empty or blank text is null, then
 * the Java-trimmed text "null" is null and text that looks like a number is Double.parseDouble'd; anything else
 * (booleans, "abc", "0x10", "20d") fails the request.
 */
export function dbl(v: Json): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v === 'NaN') return NaN;
    if (v === 'Infinity' || v === 'INF') return Infinity;
    if (v === '-Infinity' || v === '-INF') return -Infinity;
    const t = javaTrim(v);
    if (t === '' || t === 'null') return null;
    if (JACKSON_FLOAT.test(t) || JACKSON_FLOAT_TRAILING_DOT.test(t)) return Number(t);
    throw jsonParseError(
      `Cannot deserialize value of type \`java.lang.Double\` from String "${v}": not a valid \`Double\` value`,
    );
  }
  throw jsonParseError(`Cannot deserialize value of type \`java.lang.Double\` from ${describe(v)}`);
}

export function bool(v: Json, dflt = false): boolean {
  if (v === null || v === undefined) return dflt;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (typeof v === 'number') return v !== 0;
  throw jsonParseError(`Cannot deserialize value of type \`boolean\` from ${describe(v)}`);
}

function boolOrNull(v: Json): boolean | null {
  return v === null || v === undefined ? null : bool(v);
}

function arr(v: Json, cls: string): Json[] | null {
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v)) {
    throw jsonParseError(`Cannot deserialize value of type \`java.util.List<${cls}>\` from ${describe(v)}`);
  }
  return v;
}

export function strList(v: Json): string[] {
  const a = arr(v, 'java.lang.String');
  return a ? a.map((x) => str(x) ?? '') : [];
}

/** A List<String> whose null items stay null (Jackson keeps them; `type in (null)` then matches nothing). */
function strOrNullList(v: Json): (string | null)[] {
  const a = arr(v, 'java.lang.String');
  return a ? a.map((x) => str(x)) : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Ids and keys

export type AliasType = 'CURRENT_USER' | 'CURRENT_TENANT' | 'CURRENT_CUSTOMER' | 'CURRENT_USER_OWNER';
const ALIAS_TYPES: readonly AliasType[] = ['CURRENT_USER', 'CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER_OWNER'];
export interface AliasEntityId {
  entityType: EntityType | AliasType;
  id: string | null;
}

export function parseEntityType(v: Json): EntityType | null {
  return enumOf(v, ENTITY_TYPE_NAMES, `${PKG}.EntityType`);
}

function parseAliasEntityId(v: Json): AliasEntityId | null {
  const o = obj(v, `${PKG}.query.AliasEntityId`);
  if (!o) return null;
  const t = enumOf(o.entityType, [...ENTITY_TYPE_NAMES, ...ALIAS_TYPES], `${PKG}.EntityType`);
  if (t === null) throw jsonParseError('Missing entityType in AliasEntityId');
  const id = str(o.id);
  if (!(ALIAS_TYPES as readonly string[]).includes(t) && (id === null || !isUuid(id))) {
    throw jsonParseError(`Invalid UUID string: ${id ?? 'null'}`);
  }
  return { entityType: t, id };
}

export function parseEntityId(v: Json, what = 'EntityId'): EntityId | null {
  const o = obj(v, `${PKG}.id.${what}`);
  if (!o) return null;
  const id = str(o.id);
  if (id === null || !isUuid(id)) throw jsonParseError(`Invalid UUID string: ${id ?? 'null'}`);
  const t = parseEntityType(o.entityType);
  return { entityType: t ?? what.replace('Id', '').toUpperCase(), id };
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

const KEY_TYPES: readonly EntityKeyType[] = [
  'ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'SERVER_ATTRIBUTE',
  'TIME_SERIES',
  'ENTITY_FIELD',
  'ALARM_FIELD',
];

export function parseEntityKey(v: Json): EntityKey | null {
  const o = obj(v, `${PKG}.query.EntityKey`);
  if (!o) return null;
  const type = enumOf(o.type, KEY_TYPES, `${PKG}.query.EntityKeyType`);
  const key = str(o.key);
  if (type === null || key === null) {
    // the server would NPE later on a null key; reject early with its usual 500
    throw jsonParseError('EntityKey requires "type" and "key"');
  }
  return { type, key };
}

function parseKeyList(v: Json): EntityKey[] | null {
  const a = arr(v, `${PKG}.query.EntityKey`);
  if (!a) return null;
  return a.map((x) => parseEntityKey(x)).filter((k): k is EntityKey => k !== null);
}

// ---------------------------------------------------------------------------------------------------------------
// Entity filters

export type Direction = 'FROM' | 'TO';
export interface RelationFilter {
  relationType: string | null;
  entityTypes: EntityType[];
  negate: boolean;
}

export type EntityFilter =
  | { type: 'singleEntity'; singleEntity: AliasEntityId | null }
  | { type: 'entityList'; entityType: EntityType | null; entityList: string[] }
  | { type: 'entityName'; entityType: EntityType | null; entityNameFilter: string | null }
  | { type: 'entityType'; entityType: EntityType | null }
  | {
      type: 'assetType' | 'deviceType' | 'edgeType' | 'entityViewType';
      types: (string | null)[];
      nameFilter: string | null;
    }
  | { type: 'apiUsageState'; customerId: EntityId | null }
  | {
      type: 'relationsQuery';
      rootEntity: AliasEntityId | null;
      multiRoot: boolean;
      multiRootEntitiesType: EntityType | null;
      multiRootEntityIds: string[] | null;
      direction: Direction;
      filters: RelationFilter[];
      maxLevel: number;
      fetchLastLevelOnly: boolean;
      negate: boolean;
    }
  | {
      type: 'assetSearchQuery' | 'deviceSearchQuery' | 'entityViewSearchQuery' | 'edgeSearchQuery';
      rootEntity: AliasEntityId | null;
      relationType: string | null;
      direction: Direction;
      maxLevel: number;
      fetchLastLevelOnly: boolean;
      types: (string | null)[];
    };

export type EntityFilterTypeName = EntityFilter['type'];
const FILTER_TYPES: readonly EntityFilterTypeName[] = [
  'singleEntity',
  'entityList',
  'entityName',
  'entityType',
  'assetType',
  'deviceType',
  'edgeType',
  'entityViewType',
  'apiUsageState',
  'relationsQuery',
  'assetSearchQuery',
  'deviceSearchQuery',
  'entityViewSearchQuery',
  'edgeSearchQuery',
];

const TYPE_FILTER_FIELDS = {
  assetType: ['assetTypes', 'assetType', 'assetNameFilter'],
  deviceType: ['deviceTypes', 'deviceType', 'deviceNameFilter'],
  edgeType: ['edgeTypes', 'edgeType', 'edgeNameFilter'],
  entityViewType: ['entityViewTypes', 'entityViewType', 'entityViewNameFilter'],
} as const;
const SEARCH_TYPES_FIELD = {
  assetSearchQuery: 'assetTypes',
  deviceSearchQuery: 'deviceTypes',
  entityViewSearchQuery: 'entityViewTypes',
  edgeSearchQuery: 'edgeTypes',
} as const;

function parseDirection(v: Json): Direction {
  return enumOf(v, ['FROM', 'TO'] as const, `${PKG}.relation.EntitySearchDirection`) ?? 'FROM';
}

export function parseEntityFilter(v: Json): EntityFilter | null {
  const o = obj(v, `${PKG}.query.EntityFilter`);
  if (!o) return null;
  const t = o.type;
  if (typeof t !== 'string' || !(FILTER_TYPES as readonly string[]).includes(t)) {
    if (t === undefined || t === null) {
      throw jsonParseError(
        `Could not resolve subtype of [simple type, class ${PKG}.query.EntityFilter]: missing type id property 'type'`,
      );
    }
    throw jsonParseError(
      `Could not resolve type id '${String(t)}' as a subtype of \`${PKG}.query.EntityFilter\`: known type ids = ` +
        `[${FILTER_TYPES.join(', ')}]`,
    );
  }
  const type = t as EntityFilterTypeName;
  switch (type) {
    case 'singleEntity':
      return { type, singleEntity: parseAliasEntityId(o.singleEntity) };
    case 'entityList':
      return { type, entityType: parseEntityType(o.entityType), entityList: strList(o.entityList) };
    case 'entityName':
      return { type, entityType: parseEntityType(o.entityType), entityNameFilter: str(o.entityNameFilter) };
    case 'entityType':
      return { type, entityType: parseEntityType(o.entityType) };
    case 'assetType':
    case 'deviceType':
    case 'edgeType':
    case 'entityViewType': {
      const [plural, singular, nameField] = TYPE_FILTER_FIELDS[type];
      const list = strOrNullList(o[plural]);
      // the getter falls back to the deprecated singular field when the list is empty
      const types: (string | null)[] = list.length > 0 ? list : [str(o[singular])];
      return { type, types, nameFilter: str(o[nameField]) };
    }
    case 'apiUsageState':
      return { type, customerId: parseEntityId(o.customerId, 'CustomerId') };
    case 'relationsQuery': {
      const filters = (arr(o.filters, `${PKG}.relation.RelationEntityTypeFilter`) ?? []).map((f) => {
        const fo = obj(f, `${PKG}.relation.RelationEntityTypeFilter`) ?? {};
        const ets = arr(fo.entityTypes, `${PKG}.EntityType`) ?? [];
        return {
          relationType: str(fo.relationType),
          entityTypes: ets.map((x) => parseEntityType(x)).filter((x): x is EntityType => x !== null),
          negate: bool(fo.negate),
        };
      });
      const ids = arr(o.multiRootEntityIds, 'java.lang.String');
      return {
        type,
        rootEntity: parseAliasEntityId(o.rootEntity),
        multiRoot: bool(o.multiRoot),
        multiRootEntitiesType: parseEntityType(o.multiRootEntitiesType),
        multiRootEntityIds: ids ? ids.map((x) => str(x) ?? '') : null,
        direction: parseDirection(o.direction),
        filters,
        maxLevel: num(o.maxLevel, 0),
        fetchLastLevelOnly: bool(o.fetchLastLevelOnly),
        negate: bool(o.negate),
      };
    }
    case 'assetSearchQuery':
    case 'deviceSearchQuery':
    case 'entityViewSearchQuery':
    case 'edgeSearchQuery':
      return {
        type,
        rootEntity: parseAliasEntityId(o.rootEntity),
        relationType: str(o.relationType),
        direction: parseDirection(o.direction),
        maxLevel: num(o.maxLevel, 0),
        fetchLastLevelOnly: bool(o.fetchLastLevelOnly),
        types: strOrNullList(o[SEARCH_TYPES_FIELD[type]]),
      };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Key filters

export type StringOperation =
  'EQUAL' | 'NOT_EQUAL' | 'STARTS_WITH' | 'ENDS_WITH' | 'CONTAINS' | 'NOT_CONTAINS' | 'IN' | 'NOT_IN';
export type NumericOperation = 'EQUAL' | 'NOT_EQUAL' | 'GREATER' | 'LESS' | 'GREATER_OR_EQUAL' | 'LESS_OR_EQUAL';
export type BooleanOperation = 'EQUAL' | 'NOT_EQUAL';
export type DynamicSourceType = 'CURRENT_TENANT' | 'CURRENT_CUSTOMER' | 'CURRENT_USER' | 'CURRENT_DEVICE';

export interface DynamicValue<T> {
  sourceType: DynamicSourceType | null;
  sourceAttribute: string | null;
  inherit: boolean;
  resolvedValue: T | null;
}
export interface PredicateValue<T> {
  defaultValue: T | null;
  userValue: T | null;
  dynamicValue: DynamicValue<T> | null;
}
export type Predicate =
  | { type: 'STRING'; operation: StringOperation; value: PredicateValue<string>; ignoreCase: boolean }
  | { type: 'NUMERIC'; operation: NumericOperation; value: PredicateValue<number> }
  | { type: 'BOOLEAN'; operation: BooleanOperation; value: PredicateValue<boolean> }
  | { type: 'COMPLEX'; operation: 'AND' | 'OR'; predicates: Predicate[] };

export interface KeyFilter {
  key: EntityKey;
  valueType: string | null;
  predicate: Predicate;
}

const STRING_OPS: readonly StringOperation[] = [
  'EQUAL',
  'NOT_EQUAL',
  'STARTS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'NOT_CONTAINS',
  'IN',
  'NOT_IN',
];
const NUMERIC_OPS: readonly NumericOperation[] = [
  'EQUAL',
  'NOT_EQUAL',
  'GREATER',
  'LESS',
  'GREATER_OR_EQUAL',
  'LESS_OR_EQUAL',
];
const BOOLEAN_OPS: readonly BooleanOperation[] = ['EQUAL', 'NOT_EQUAL'];
const SOURCE_TYPES: readonly DynamicSourceType[] = [
  'CURRENT_TENANT',
  'CURRENT_CUSTOMER',
  'CURRENT_USER',
  'CURRENT_DEVICE',
];
const PREDICATE_TYPES = ['STRING', 'NUMERIC', 'BOOLEAN', 'COMPLEX'] as const;

function parseValue<T>(v: Json, conv: (x: Json) => T | null): PredicateValue<T> {
  const o = obj(v, `${PKG}.query.FilterPredicateValue`);
  if (!o) throw jsonParseError('predicate value must be specified'); // the server NPEs: 500 either way
  let dynamicValue: DynamicValue<T> | null = null;
  const d = obj(o.dynamicValue, `${PKG}.query.DynamicValue`);
  if (d) {
    dynamicValue = {
      sourceType: enumOf(d.sourceType, SOURCE_TYPES, `${PKG}.query.DynamicValueSourceType`),
      sourceAttribute: str(d.sourceAttribute),
      inherit: bool(d.inherit),
      resolvedValue: conv(d.resolvedValue),
    };
  }
  return { defaultValue: conv(o.defaultValue), userValue: conv(o.userValue), dynamicValue };
}

export function parsePredicate(v: Json): Predicate {
  const o = obj(v, `${PKG}.query.KeyFilterPredicate`);
  if (!o) throw jsonParseError('key filter predicate must be specified');
  const t = o.type;
  if (typeof t !== 'string' || !(PREDICATE_TYPES as readonly string[]).includes(t)) {
    throw jsonParseError(
      `Could not resolve type id '${String(t)}' as a subtype of \`${PKG}.query.KeyFilterPredicate\`: known type ids ` +
        '= [BOOLEAN, COMPLEX, NUMERIC, STRING]',
    );
  }
  switch (t as (typeof PREDICATE_TYPES)[number]) {
    case 'STRING':
      return {
        type: 'STRING',
        operation: enumOf(o.operation, STRING_OPS, `${PKG}.query.StringFilterPredicate$StringOperation`) ?? 'EQUAL',
        value: parseValue(o.value, str),
        ignoreCase: bool(o.ignoreCase),
      };
    case 'NUMERIC':
      return {
        type: 'NUMERIC',
        operation: enumOf(o.operation, NUMERIC_OPS, `${PKG}.query.NumericFilterPredicate$NumericOperation`) ?? 'EQUAL',
        value: parseValue(o.value, dbl),
      };
    case 'BOOLEAN':
      return {
        type: 'BOOLEAN',
        operation: enumOf(o.operation, BOOLEAN_OPS, `${PKG}.query.BooleanFilterPredicate$BooleanOperation`) ?? 'EQUAL',
        value: parseValue(o.value, boolOrNull),
      };
    case 'COMPLEX':
      return {
        type: 'COMPLEX',
        operation:
          enumOf(o.operation, ['AND', 'OR'] as const, `${PKG}.query.ComplexFilterPredicate$ComplexOperation`) ?? 'AND',
        predicates: (arr(o.predicates, `${PKG}.query.KeyFilterPredicate`) ?? []).map(parsePredicate),
      };
  }
}

function parseKeyFilters(v: Json): KeyFilter[] {
  const a = arr(v, `${PKG}.query.KeyFilter`);
  if (!a) return [];
  return a.map((x) => {
    const o = obj(x, `${PKG}.query.KeyFilter`) ?? {};
    const key = parseEntityKey(o.key);
    if (!key) throw jsonParseError('key filter key must be specified');
    return {
      key,
      valueType: enumOf(
        o.valueType,
        ['STRING', 'NUMERIC', 'BOOLEAN', 'DATE_TIME'] as const,
        `${PKG}.query.EntityKeyValueType`,
      ),
      predicate: parsePredicate(o.predicate),
    };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Queries

export interface SortOrder {
  key: EntityKey;
  direction: 'ASC' | 'DESC' | null;
}
export interface PageLink {
  pageSize: number;
  page: number;
  textSearch: string | null;
  sortOrder: SortOrder | null;
  dynamic: boolean;
}
export interface AlarmFilterFields {
  startTs: number;
  endTs: number;
  timeWindow: number;
  typeList: string[];
  statusList: AlarmSearchStatus[];
  severityList: AlarmSeverity[];
  searchPropagatedAlarms: boolean;
  assigneeId: EntityId | null;
}
export type AlarmPageLink = PageLink & AlarmFilterFields;

export interface EntityCountQuery {
  entityFilter: EntityFilter | null;
  keyFilters: KeyFilter[];
  keyFiltersOperation: 'AND' | 'OR';
}
export interface EntityDataQuery extends EntityCountQuery {
  pageLink: PageLink | null;
  entityFields: EntityKey[];
  latestValues: EntityKey[];
}
export interface AlarmDataQuery extends EntityCountQuery {
  pageLink: AlarmPageLink | null;
  entityFields: EntityKey[];
  latestValues: EntityKey[];
  alarmFields: EntityKey[] | null;
}
export interface AlarmCountQuery extends EntityCountQuery, AlarmFilterFields {}

function parseSortOrder(v: Json): SortOrder | null {
  const o = obj(v, `${PKG}.query.EntityDataSortOrder`);
  if (!o) return null;
  const key = parseEntityKey(o.key);
  if (!key) return null;
  return {
    key,
    direction: enumOf(o.direction, ['ASC', 'DESC'] as const, `${PKG}.query.EntityDataSortOrder$Direction`),
  };
}

function parsePageLinkObj(o: Obj): PageLink {
  return {
    pageSize: num(o.pageSize, 0),
    page: num(o.page, 0),
    textSearch: str(o.textSearch),
    sortOrder: parseSortOrder(o.sortOrder),
    dynamic: bool(o.dynamic),
  };
}

const SEARCH_STATUSES: readonly AlarmSearchStatus[] = ['ANY', 'ACTIVE', 'CLEARED', 'ACK', 'UNACK'];
const SEVERITIES: readonly AlarmSeverity[] = ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'];

function parseAlarmFilterFields(o: Obj): AlarmFilterFields {
  return {
    startTs: num(o.startTs, 0, 'long'),
    endTs: num(o.endTs, 0, 'long'),
    timeWindow: num(o.timeWindow, 0, 'long'),
    typeList: strList(o.typeList),
    statusList: (arr(o.statusList, `${PKG}.alarm.AlarmSearchStatus`) ?? [])
      .map((x) => enumOf(x, SEARCH_STATUSES, `${PKG}.alarm.AlarmSearchStatus`))
      .filter((x): x is AlarmSearchStatus => x !== null),
    severityList: (arr(o.severityList, `${PKG}.alarm.AlarmSeverity`) ?? [])
      .map((x) => enumOf(x, SEVERITIES, `${PKG}.alarm.AlarmSeverity`))
      .filter((x): x is AlarmSeverity => x !== null),
    searchPropagatedAlarms: bool(o.searchPropagatedAlarms),
    assigneeId: parseEntityId(o.assigneeId, 'UserId'),
  };
}

function root(v: Json, cls: string): Obj {
  const o = obj(v, `${PKG}.query.${cls}`);
  if (!o) throw jsonParseError(`Required request body is missing`);
  return o;
}

function parseCountBase(o: Obj): EntityCountQuery {
  const op = enumOf(
    o.keyFiltersOperation,
    ['AND', 'OR'] as const,
    `${PKG}.query.ComplexFilterPredicate$ComplexOperation`,
  );
  return {
    entityFilter: parseEntityFilter(o.entityFilter),
    keyFilters: parseKeyFilters(o.keyFilters),
    keyFiltersOperation: op ?? 'AND',
  };
}

export function parseEntityCountQuery(v: Json): EntityCountQuery {
  return parseCountBase(root(v, 'EntityCountQuery'));
}

export function parseEntityDataQuery(v: Json): EntityDataQuery {
  const o = root(v, 'EntityDataQuery');
  const pl = obj(o.pageLink, `${PKG}.query.EntityDataPageLink`);
  return {
    ...parseCountBase(o),
    pageLink: pl ? parsePageLinkObj(pl) : null,
    entityFields: parseKeyList(o.entityFields) ?? [],
    latestValues: parseKeyList(o.latestValues) ?? [],
  };
}

export function parseAlarmDataQuery(v: Json): AlarmDataQuery {
  const o = root(v, 'AlarmDataQuery');
  const pl = obj(o.pageLink, `${PKG}.query.AlarmDataPageLink`);
  return {
    ...parseCountBase(o),
    pageLink: pl ? { ...parsePageLinkObj(pl), ...parseAlarmFilterFields(pl) } : null,
    entityFields: parseKeyList(o.entityFields) ?? [],
    latestValues: parseKeyList(o.latestValues) ?? [],
    alarmFields: parseKeyList(o.alarmFields),
  };
}

export function parseAlarmCountQuery(v: Json): AlarmCountQuery {
  const o = root(v, 'AlarmCountQuery');
  return { ...parseCountBase(o), ...parseAlarmFilterFields(o) };
}
