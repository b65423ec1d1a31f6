/**
 * The schema table of the editor's query builder: which fields each entity filter type has and how each is edited,
 * which builder parts each query mode shows, the key-filter tables, name suggestions, neutral new queries, and the
 * JSON schema of the JSON view, generated from the same tables so that the forms and the JSON view never disagree.
 *
 * The tables follow what the runtime validator (validate.ts) reads; test/query/schema.test.ts holds the two
 * together. Pure: no DOM, no Node-RED, no I/O.
 */

import {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  ALIAS_ENTITY_TYPES,
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
  QUERYABLE_ENTITY_TYPES,
  RELATION_DIRECTIONS,
  SORT_DIRECTIONS,
  STRING_OPERATIONS,
  type DynamicValueSourceType,
  type EntityFilterType,
  type EntityKeyType,
  type EntityKeyValueType,
  type FilterPredicateType,
} from './types';
import { DEFAULT_PAGE_SIZE, SORT_PROPERTY_PATTERN, UUID_PATTERN } from './validate';

export type QueryMode = 'entityData' | 'entityCount' | 'alarmData' | 'alarmCount';
export const QUERY_MODES: readonly QueryMode[] = ['entityData', 'entityCount', 'alarmData', 'alarmCount'];

export type FieldKind =
  | 'entityType' // select, values QUERYABLE_ENTITY_TYPES
  | 'entityTypes' // multi-select of entity types (relation filter entityTypes)
  | 'entityIds' // list of UUIDs of the entity type named by `typeFrom` (sibling field) -> entity picker chips
  | 'entity' // AliasEntityId {entityType, id} or {entityType: 'CURRENT_USER'|...} -> entity type select + entity picker
  | 'customer' // optional CustomerId {entityType:'CUSTOMER', id} (entity picker fixed to CUSTOMER)
  | 'profiles' // string[] of profile/type names, picker over entityType `profileType`
  | 'text' // string
  | 'int' // integer >= 0 (>= `min` when given)
  | 'bool' // checkbox
  | 'enum' // select of `options`
  | 'relationFilters' // rows of {relationType, entityTypes, negate}
  // Kinds of the alarm filter and page fields (not used by entity filters):
  | 'enumList' // multi-select of `options` (statusList, severityList)
  | 'strings' // free list of strings (typeList: alarm types)
  | 'duration' // milliseconds (timeWindow)
  | 'timestamp' // epoch milliseconds (startTs, endTs)
  | 'user' // optional UserId {entityType:'USER', id} (entity picker fixed to USER)
  | 'sortOrder'; // {key: {type, key}, direction}: key type select (`keyTypes`), key name, ASC/DESC

export interface FieldSpec {
  /** JSON name inside its object (the entity filter, the pageLink, or the query for alarm counts). */
  name: string;
  kind: FieldKind;
  /** The runtime validator requires it (when it is shown: see `when`). */
  required?: boolean;
  /** For 'enum' and 'enumList'. */
  options?: readonly string[];
  /** For 'entityIds': the sibling field holding the entity type. */
  typeFrom?: string;
  /** For 'profiles': whose profile or type names to offer. */
  profileType?: 'DEVICE' | 'ASSET' | 'ENTITY_VIEW' | 'EDGE';
  /** For 'sortOrder': the key types a sort key may have. */
  keyTypes?: readonly EntityKeyType[];
  /** For 'int': the smallest allowed value (default 0). */
  min?: number;
  /**
   * Shown only when a sibling field has this value. A sibling that is absent (or null) counts as its own
   * `default`. See {@link visibleFields}.
   */
  when?: { field: string; equals: unknown };
  /** What a new filter of this type starts with for this field, if anything. */
  default?: unknown;
  /** Short English label. */
  label: string;
  /** One plain-language sentence. */
  help?: string;
}

export interface FilterTypeSpec {
  type: EntityFilterType;
  /** Short English label for the filter type select. */
  label: string;
  /** The fields of the form, in order. */
  fields: readonly FieldSpec[];
  /** Deprecated singular names the runtime still accepts (e.g. `deviceType`, read when `deviceTypes` is empty). */
  deprecated?: readonly string[];
  /**
   * Names the server ignores for this type although a similar type reads them: the `*SearchQuery` filters have no
   * deprecated singular (`deviceType` there means nothing). The runtime accepts and drops them.
   */
  ignored?: readonly string[];
  /** Fields the runtime accepts that only matter to ThingsBoard dashboards: left out of the form on purpose. */
  held?: readonly string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Entity filters
// ---------------------------------------------------------------------------------------------------------------

const NAME_HELP =
  'Case-insensitive: matches names that start with this text, or use % at the start or end for a pattern (% = any text, _ = any one character); empty = any name.';
const DIRECTION_HELP = 'FROM follows relations going out of the root (e.g. to what it contains); TO follows relations coming into it.';
const MAX_LEVEL_HELP = '1 = direct relations only; 0 = as deep as the server allows (50 levels).';
const LAST_LEVEL_HELP = 'Keep only the entities at the last level, or that have no further matching relation.';
const DASHBOARD_ONLY = ['rootStateEntity', 'defaultStateEntity'] as const;

function entityTypeField(name: string, label: string, extra: Partial<FieldSpec> = {}): FieldSpec {
  return { name, kind: 'entityType', required: true, default: 'DEVICE', label, ...extra };
}

function nameFilterField(name: string): FieldSpec {
  return { name, kind: 'text', label: 'Name starts with', help: NAME_HELP };
}

/** The deviceType / assetType / edgeType / entityViewType filters. */
function typeFilter(
  type: EntityFilterType,
  label: string,
  plural: string,
  profileType: FieldSpec['profileType'] & string,
  listLabel: string,
  what: string,
): FilterTypeSpec {
  return {
    type,
    label,
    fields: [
      {
        name: plural,
        kind: 'profiles',
        profileType,
        required: true,
        label: listLabel,
        help: `${what} of any of these ${profileType === 'DEVICE' || profileType === 'ASSET' ? 'profiles' : 'types'} (exact names).`,
      },
      nameFilterField(`${plural.slice(0, -5)}NameFilter`),
    ],
    deprecated: [plural.slice(0, -1)],
  };
}

/** The four *SearchQuery filters. */
function searchQuery(
  type: EntityFilterType,
  label: string,
  plural: string,
  profileType: FieldSpec['profileType'] & string,
  listLabel: string,
): FilterTypeSpec {
  return {
    type,
    label,
    fields: [
      { name: 'rootEntity', kind: 'entity', required: true, label: 'Root entity', help: 'The entity the relations start from.' },
      { name: 'direction', kind: 'enum', options: RELATION_DIRECTIONS, required: true, default: 'FROM', label: 'Direction', help: DIRECTION_HELP },
      {
        name: 'relationType',
        kind: 'text',
        label: 'Relation type',
        help: 'The type of the relation that reaches each entity (the last one), e.g. Contains; empty = any.',
      },
      { name: 'maxLevel', kind: 'int', default: 1, label: 'Max levels', help: MAX_LEVEL_HELP },
      { name: 'fetchLastLevelOnly', kind: 'bool', default: false, label: 'Last level only', help: LAST_LEVEL_HELP },
      { name: plural, kind: 'profiles', profileType, label: listLabel, help: 'Empty = any.' },
    ],
    ignored: [plural.slice(0, -1)],
    held: DASHBOARD_ONLY,
  };
}

export const ENTITY_FILTER_SCHEMA: Readonly<Record<EntityFilterType, FilterTypeSpec>> = {
  singleEntity: {
    type: 'singleEntity',
    label: 'One entity',
    fields: [
      {
        name: 'singleEntity',
        kind: 'entity',
        required: true,
        label: 'Entity',
        help: "One entity, or the current user, tenant, customer or user's owner.",
      },
    ],
  },
  entityList: {
    type: 'entityList',
    label: 'List of entities',
    fields: [
      entityTypeField('entityType', 'Entity type'),
      { name: 'entityList', kind: 'entityIds', typeFrom: 'entityType', required: true, label: 'Entities', help: 'At least one.' },
    ],
  },
  entityName: {
    type: 'entityName',
    label: 'Entities by name',
    fields: [entityTypeField('entityType', 'Entity type'), { ...nameFilterField('entityNameFilter'), required: true, default: '' }],
  },
  entityType: {
    type: 'entityType',
    label: 'All entities of a type',
    fields: [entityTypeField('entityType', 'Entity type')],
  },
  assetType: typeFilter('assetType', 'Assets by profile', 'assetTypes', 'ASSET', 'Asset profiles', 'Assets'),
  deviceType: typeFilter('deviceType', 'Devices by profile', 'deviceTypes', 'DEVICE', 'Device profiles', 'Devices'),
  edgeType: typeFilter('edgeType', 'Edges by type', 'edgeTypes', 'EDGE', 'Edge types', 'Edges'),
  entityViewType: typeFilter('entityViewType', 'Entity views by type', 'entityViewTypes', 'ENTITY_VIEW', 'Entity view types', 'Entity views'),
  apiUsageState: {
    type: 'apiUsageState',
    label: 'API usage state',
    fields: [
      {
        name: 'customerId',
        kind: 'customer',
        label: 'Customer',
        help: "Empty = the tenant's own; a customer user may only name its own customer.",
      },
    ],
  },
  relationsQuery: {
    type: 'relationsQuery',
    label: 'Related entities',
    fields: [
      { name: 'multiRoot', kind: 'bool', default: false, label: 'Several root entities' },
      {
        name: 'rootEntity',
        kind: 'entity',
        required: true,
        when: { field: 'multiRoot', equals: false },
        label: 'Root entity',
        help: 'The entity the relations start from.',
      },
      {
        name: 'multiRootEntitiesType',
        kind: 'entityType',
        required: true,
        when: { field: 'multiRoot', equals: true },
        default: 'ASSET',
        label: 'Root entity type',
      },
      {
        name: 'multiRootEntityIds',
        kind: 'entityIds',
        typeFrom: 'multiRootEntitiesType',
        required: true,
        when: { field: 'multiRoot', equals: true },
        label: 'Root entities',
        help: 'At least one; the parentId entity field then tells which root each result came from.',
      },
      { name: 'direction', kind: 'enum', options: RELATION_DIRECTIONS, required: true, default: 'FROM', label: 'Direction', help: DIRECTION_HELP },
      { name: 'maxLevel', kind: 'int', default: 1, label: 'Max levels', help: MAX_LEVEL_HELP },
      { name: 'fetchLastLevelOnly', kind: 'bool', default: false, label: 'Last level only', help: LAST_LEVEL_HELP },
      {
        name: 'filters',
        kind: 'relationFilters',
        default: [],
        label: 'Relation filters',
        help: 'Any one must match the relation that reaches each entity (the last one; any relation may be crossed on the way); none = any relation to a tenant, customer, user, dashboard, asset, device or entity view.',
      },
      { name: 'negate', kind: 'bool', default: false, label: 'Exclude matches', help: 'Return the related entities that do not match the relation filters.' },
    ],
    held: DASHBOARD_ONLY,
  },
  assetSearchQuery: searchQuery('assetSearchQuery', 'Related assets', 'assetTypes', 'ASSET', 'Asset profiles'),
  deviceSearchQuery: searchQuery('deviceSearchQuery', 'Related devices', 'deviceTypes', 'DEVICE', 'Device profiles'),
  entityViewSearchQuery: searchQuery('entityViewSearchQuery', 'Related entity views', 'entityViewTypes', 'ENTITY_VIEW', 'Entity view types'),
  edgeSearchQuery: searchQuery('edgeSearchQuery', 'Related edges', 'edgeTypes', 'EDGE', 'Edge types'),
};

/** The fields of `spec` shown for this filter object (a `when` sibling that is absent counts as its default). */
export function visibleFields(spec: FilterTypeSpec, filter: unknown): FieldSpec[] {
  const o = isObj(filter) ? filter : {};
  return spec.fields.filter((f) => {
    if (!f.when) return true;
    const sibling = spec.fields.find((s) => s.name === f.when!.field);
    const v = o[f.when.field] == null ? sibling?.default : o[f.when.field];
    return v === f.when.equals;
  });
}

/** A new entity filter of this type: `{type}` plus the defaults of the fields shown at first. */
export function newEntityFilter(type: EntityFilterType): Record<string, unknown> {
  const spec = ENTITY_FILTER_SCHEMA[type];
  const out: Record<string, unknown> = { type };
  for (const f of visibleFields(spec, out)) if (f.default !== undefined) out[f.name] = clone(f.default);
  return out;
}

/** The entity type each filter type returns, when it is fixed. */
export const FILTER_RESULT_TYPES: Readonly<Partial<Record<EntityFilterType, string>>> = {
  assetType: 'ASSET',
  deviceType: 'DEVICE',
  edgeType: 'EDGE',
  entityViewType: 'ENTITY_VIEW',
  apiUsageState: 'API_USAGE_STATE',
  assetSearchQuery: 'ASSET',
  deviceSearchQuery: 'DEVICE',
  entityViewSearchQuery: 'ENTITY_VIEW',
  edgeSearchQuery: 'EDGE',
};

const ALIAS_RESULT_TYPES: Readonly<Record<string, string>> = {
  CURRENT_USER: 'USER',
  CURRENT_TENANT: 'TENANT',
  CURRENT_CUSTOMER: 'CUSTOMER',
};

/**
 * The entity type an entity filter returns, when one type is known (for key and field suggestions): fixed by the
 * filter type, its `entityType`, the single entity, or the relation filters when they name exactly one type.
 */
export function filterEntityType(filter: unknown): string | undefined {
  if (!isObj(filter) || typeof filter.type !== 'string') return undefined;
  const fixed = FILTER_RESULT_TYPES[filter.type as EntityFilterType];
  if (fixed) return fixed;
  switch (filter.type) {
    case 'entityType':
    case 'entityName':
    case 'entityList':
      return typeof filter.entityType === 'string' ? filter.entityType : undefined;
    case 'singleEntity': {
      const e = filter.singleEntity;
      const t = isObj(e) && typeof e.entityType === 'string' ? e.entityType : undefined;
      if (t === undefined) return undefined;
      return (ALIAS_ENTITY_TYPES as readonly string[]).includes(t) ? ALIAS_RESULT_TYPES[t] : t;
    }
    case 'relationsQuery': {
      if (!Array.isArray(filter.filters) || filter.negate === true) return undefined;
      const types = new Set<string>();
      for (const f of filter.filters) {
        if (!isObj(f) || !Array.isArray(f.entityTypes) || f.entityTypes.length === 0) return undefined;
        for (const t of f.entityTypes) if (typeof t === 'string') types.add(t);
      }
      return types.size === 1 ? [...types][0] : undefined;
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Entity types and names for suggestions
// ---------------------------------------------------------------------------------------------------------------

/** Lower-case singular and plural English names of the entity types, for labels and summaries. */
export const ENTITY_TYPE_NAMES: Readonly<Record<string, readonly [string, string]>> = {
  DEVICE: ['device', 'devices'],
  ASSET: ['asset', 'assets'],
  ENTITY_VIEW: ['entity view', 'entity views'],
  CUSTOMER: ['customer', 'customers'],
  USER: ['user', 'users'],
  DASHBOARD: ['dashboard', 'dashboards'],
  TENANT: ['tenant', 'tenants'],
  EDGE: ['edge', 'edges'],
  API_USAGE_STATE: ['API usage state', 'API usage states'],
  RULE_CHAIN: ['rule chain', 'rule chains'],
  DEVICE_PROFILE: ['device profile', 'device profiles'],
  ASSET_PROFILE: ['asset profile', 'asset profiles'],
  TENANT_PROFILE: ['tenant profile', 'tenant profiles'],
  QUEUE_STATS: ['queue stats entry', 'queue stats entries'],
  ALARM: ['alarm', 'alarms'],
};

/** Singular (`n` = 1) or plural English name of an entity type; unknown types read as "entity of type X". */
export function entityTypeName(type: string, n = 2): string {
  const names = ENTITY_TYPE_NAMES[type];
  if (names) return n === 1 ? names[0] : names[1];
  return `${n === 1 ? 'entity' : 'entities'} of type ${type}`;
}

const DEVICE_ASSET_FIELDS = ['name', 'type', 'label', 'createdTime', 'displayName', 'ownerName', 'ownerType', 'additionalInfo', 'entityType'];
const CONTACT_FIELDS = ['title', 'email', 'phone', 'country', 'state', 'city', 'address', 'address2', 'zip', 'createdTime', 'additionalInfo', 'entityType'];

/**
 * ENTITY_FIELD names per entity type (§3.6: the columns, then the computed fields), for suggestions. Aliases
 * (`title` for a device's name…) are left out. `default` is for the other types, `relationsQuery` for the union a
 * relations query allows (plus `parentId` with several roots).
 */
export const ENTITY_FIELD_NAMES: Readonly<Record<string, readonly string[]>> = {
  DEVICE: DEVICE_ASSET_FIELDS,
  ASSET: DEVICE_ASSET_FIELDS,
  ENTITY_VIEW: ['name', 'type', 'createdTime', 'ownerName', 'ownerType', 'additionalInfo', 'entityType'],
  TENANT: [...CONTACT_FIELDS.slice(0, 9), 'region', ...CONTACT_FIELDS.slice(9)],
  CUSTOMER: CONTACT_FIELDS,
  USER: ['email', 'firstName', 'lastName', 'phone', 'createdTime', 'displayName', 'ownerName', 'ownerType', 'additionalInfo', 'entityType'],
  DASHBOARD: ['title', 'createdTime', 'ownerName', 'ownerType', 'entityType'],
  DEVICE_PROFILE: ['name', 'type', 'createdTime'],
  ASSET_PROFILE: ['name', 'createdTime'],
  default: ['name', 'createdTime', 'additionalInfo', 'entityType'],
  relationsQuery: [
    'name',
    'type',
    'label',
    'createdTime',
    'entityType',
    'firstName',
    'lastName',
    'email',
    'title',
    'region',
    'country',
    'state',
    'city',
    'address',
    'address2',
    'zip',
    'phone',
    'additionalInfo',
  ],
};

/** ENTITY_FIELD names to suggest for the entities an entity filter returns. */
export function entityFieldNames(filter: unknown): readonly string[] {
  if (isObj(filter) && filter.type === 'relationsQuery') {
    const t = filterEntityType(filter);
    if (t === undefined || !ENTITY_FIELD_NAMES[t]) {
      const union = ENTITY_FIELD_NAMES.relationsQuery;
      return filter.multiRoot === true ? [...union, 'parentId'] : union;
    }
  }
  const t = filterEntityType(filter);
  return (t !== undefined && ENTITY_FIELD_NAMES[t]) || ENTITY_FIELD_NAMES.default;
}

/**
 * ALARM_FIELD names (§5.3: the columns alarm text search and sorting know, with their aliases, plus the computed
 * `status` and `assignee`), most useful first.
 */
export const ALARM_FIELD_NAMES: readonly string[] = [
  'createdTime',
  'type',
  'severity',
  'status',
  'originator',
  'originatorLabel',
  'originatorDisplayName',
  'assignee',
  'startTs',
  'endTs',
  'ackTs',
  'clearTs',
  'assignTime',
  'acknowledged',
  'cleared',
  'details',
  'originatorId',
  'originatorType',
  'assigneeId',
  'assigneeFirstName',
  'assigneeLastName',
  'assigneeEmail',
  'startTime',
  'endTime',
  'ackTime',
  'clearTime',
];

// ---------------------------------------------------------------------------------------------------------------
// Keys and key filters
// ---------------------------------------------------------------------------------------------------------------

/** The key types each key list of the builder offers. The validator is looser: see the comments. */
export const KEY_TYPES_FOR: Readonly<{
  /** Key filters: every type but ALARM_FIELD (the validator's rule). */
  keyFilters: readonly EntityKeyType[];
  /** entityFields: ENTITY_FIELD only (the validator accepts any non-alarm type). */
  entityFields: readonly EntityKeyType[];
  /** latestValues: attributes and time series. */
  latestValues: readonly EntityKeyType[];
  /** alarmFields: ALARM_FIELD only (the validator accepts any type). */
  alarmFields: readonly EntityKeyType[];
  /** Sort key of an entity query: every type but ALARM_FIELD. */
  entitySort: readonly EntityKeyType[];
  /** Sort key of an alarm query: every type; ALARM_FIELD sorts the alarms, others follow the entity order. */
  alarmSort: readonly EntityKeyType[];
}> = {
  keyFilters: NON_ALARM_KEY_TYPES,
  entityFields: ['ENTITY_FIELD'],
  latestValues: ['TIME_SERIES', 'ATTRIBUTE', 'SERVER_ATTRIBUTE', 'SHARED_ATTRIBUTE', 'CLIENT_ATTRIBUTE'],
  alarmFields: ['ALARM_FIELD'],
  entitySort: NON_ALARM_KEY_TYPES,
  alarmSort: ENTITY_KEY_TYPES,
};

/** Short labels of the key types. */
export const KEY_TYPE_LABELS: Readonly<Record<EntityKeyType, string>> = {
  ATTRIBUTE: 'Attribute (any scope)',
  CLIENT_ATTRIBUTE: 'Client attribute',
  SHARED_ATTRIBUTE: 'Shared attribute',
  SERVER_ATTRIBUTE: 'Server attribute',
  TIME_SERIES: 'Time series',
  ENTITY_FIELD: 'Entity field',
  ALARM_FIELD: 'Alarm field',
};

export type SimplePredicateType = Exclude<FilterPredicateType, 'COMPLEX'>;

/** The operations of each predicate type. */
export const PREDICATE_OPERATIONS: Readonly<Record<FilterPredicateType, readonly string[]>> = {
  STRING: STRING_OPERATIONS,
  NUMERIC: NUMERIC_OPERATIONS,
  BOOLEAN: BOOLEAN_OPERATIONS,
  COMPLEX: COMPLEX_OPERATIONS,
};

/** Short labels of the operations, per predicate type (for the select). */
export const OPERATION_LABELS: Readonly<Record<FilterPredicateType, Readonly<Record<string, string>>>> = {
  STRING: {
    EQUAL: 'equals',
    NOT_EQUAL: 'not equal',
    STARTS_WITH: 'starts with',
    ENDS_WITH: 'ends with',
    CONTAINS: 'contains',
    NOT_CONTAINS: 'does not contain',
    IN: 'is one of',
    NOT_IN: 'is none of',
  },
  NUMERIC: {
    EQUAL: '=',
    NOT_EQUAL: '!=',
    GREATER: '>',
    LESS: '<',
    GREATER_OR_EQUAL: '>=',
    LESS_OR_EQUAL: '<=',
  },
  BOOLEAN: { EQUAL: 'is', NOT_EQUAL: 'is not' },
  COMPLEX: { AND: 'all of (AND)', OR: 'any of (OR)' },
};

/** The JavaScript type of a simple predicate's value. */
export const PREDICATE_VALUE_KINDS: Readonly<Record<SimplePredicateType, 'string' | 'number' | 'boolean'>> = {
  STRING: 'string',
  NUMERIC: 'number',
  BOOLEAN: 'boolean',
};

/** The predicate type that goes with a key filter's valueType (DATE_TIME: NUMERIC, in epoch ms). */
export const VALUE_TYPE_PREDICATES: Readonly<Record<EntityKeyValueType, SimplePredicateType>> = {
  STRING: 'STRING',
  NUMERIC: 'NUMERIC',
  BOOLEAN: 'BOOLEAN',
  DATE_TIME: 'NUMERIC',
};

/** Plain-language notes on key filters, for the form's help (§5.5). */
export const KEY_FILTER_HELP: Readonly<Record<string, string>> = {
  typed: 'A string condition only matches values stored as text, a numeric one only numbers, a boolean one only booleans.',
  missing: 'An entity without the key never matches, not even "not equal" or "does not contain".',
  emptyString: 'An empty text value switches the condition off (it matches everything).',
  inList: 'For "is one of": separate values with commas; quote them all alike to keep commas or spaces inside.',
  caseSensitive: 'Text conditions are case-sensitive unless "ignore case" is on.',
  keyFiltersOperation: 'OR between key filters needs ThingsBoard 4.4 or later; older servers always use AND.',
};

/**
 * The dynamic value sources the builder offers: a server attribute of the caller's tenant, customer or user.
 * CURRENT_DEVICE is never offered: no query path resolves it (§5.6). REST find fails on it with an internal error
 * (`DefaultEntityQueryService#resolveDynamicValue`), REST counts and alarm queries resolve no dynamic value at all,
 * and a live subscription skips it (`TbAbstractEntityQuerySubCtx#resolve`), so the value would silently be the
 * default. (ThingsBoard offers it only in device profile alarm rules, where the rule engine resolves it.)
 */
export function dynamicSourceTypes(mode: QueryMode, live: boolean): DynamicValueSourceType[] {
  void mode; // the same for every mode and both paths
  void live;
  return DYNAMIC_VALUE_SOURCE_TYPES.filter((t) => t !== 'CURRENT_DEVICE');
}

/** A new predicate of this type; a COMPLEX one holds one predicate of `childType` (default NUMERIC). */
export function newPredicate(type: FilterPredicateType, childType: SimplePredicateType = 'NUMERIC'): Record<string, unknown> {
  switch (type) {
    case 'STRING':
      return { type, operation: 'EQUAL', value: { defaultValue: '', dynamicValue: null }, ignoreCase: false };
    case 'NUMERIC':
      return { type, operation: 'EQUAL', value: { defaultValue: 0, dynamicValue: null } };
    case 'BOOLEAN':
      return { type, operation: 'EQUAL', value: { defaultValue: true, dynamicValue: null } };
    default:
      return { type: 'COMPLEX', operation: 'AND', predicates: [newPredicate(childType)] };
  }
}

/** A new key filter with an empty key name (to be filled in) and a simple predicate for the value type. */
export function newKeyFilter(valueType: EntityKeyValueType = 'NUMERIC', keyType: EntityKeyType = 'TIME_SERIES'): Record<string, unknown> {
  return { key: { type: keyType, key: '' }, valueType, predicate: newPredicate(VALUE_TYPE_PREDICATES[valueType]) };
}

// ---------------------------------------------------------------------------------------------------------------
// Page and alarm filter fields, query modes
// ---------------------------------------------------------------------------------------------------------------

/** The alarm filter fields: in pageLink for alarm data queries, at the top level for alarm counts. */
export const ALARM_FILTER_FIELDS: readonly FieldSpec[] = [
  {
    name: 'statusList',
    kind: 'enumList',
    options: ALARM_SEARCH_STATUSES,
    label: 'Status',
    help: 'ACTIVE/CLEARED and ACK/UNACK are two conditions that must both hold (ACTIVE + UNACK = active and unacknowledged); empty or ANY = any status.',
  },
  { name: 'severityList', kind: 'enumList', options: ALARM_SEVERITIES, label: 'Severities', help: 'Empty = any severity.' },
  { name: 'typeList', kind: 'strings', label: 'Alarm types', help: 'Exact alarm type names; empty = any type.' },
  {
    name: 'timeWindow',
    kind: 'duration',
    label: 'Created in the last',
    help: 'In milliseconds; 0 = no window. A live subscription only sees new alarms with a window.',
  },
  {
    name: 'startTs',
    kind: 'timestamp',
    label: 'Created from',
    help: 'With a time window, the window starts here instead of ending now (counts ignore this and end the window now).',
  },
  { name: 'endTs', kind: 'timestamp', label: 'Created until', help: 'Ignored when a time window is set.' },
  {
    name: 'searchPropagatedAlarms',
    kind: 'bool',
    label: 'Include propagated alarms',
    help: 'Also alarms propagated to the entities from elsewhere; an alarm can then appear once per entity.',
  },
  { name: 'assigneeId', kind: 'user', label: 'Assigned to', help: 'Only alarms assigned to this user.' },
];

function pageFields(alarm: boolean): FieldSpec[] {
  const fields: FieldSpec[] = [
    { name: 'pageSize', kind: 'int', min: 1, default: DEFAULT_PAGE_SIZE, label: 'Page size' },
    { name: 'page', kind: 'int', default: 0, label: 'Page', help: '0 = the first page.' },
    {
      name: 'sortOrder',
      kind: 'sortOrder',
      keyTypes: alarm ? KEY_TYPES_FOR.alarmSort : KEY_TYPES_FOR.entitySort,
      label: 'Sort by',
      help: alarm
        ? 'An alarm field sorts the alarms (severity alphabetically); any other key sorts the entities, and the alarms follow their order.'
        : 'Entity fields sort as text; attribute and time-series values sort as numbers, then text.',
    },
    {
      name: 'textSearch',
      kind: 'text',
      label: 'Text search',
      help: alarm
        ? 'Case-insensitive "contains" in any of the alarm fields listed.'
        : 'Case-insensitive "contains" over the chosen entity fields and latest values run together; ignored when none are chosen.',
    },
  ];
  if (!alarm) {
    fields.push({
      name: 'dynamic',
      kind: 'bool',
      label: 'Dynamic',
      help: 'Live subscriptions: re-check which entities match (the server polls about every 60 s).',
    });
  }
  return fields;
}

export type BuilderPart = 'entityFilter' | 'keyFilters' | 'fields' | 'page' | 'alarm';
export type FieldList = 'entityFields' | 'latestValues' | 'alarmFields';

export interface ModeSpec {
  mode: QueryMode;
  /** Short English label. */
  label: string;
  /** The builder parts to show, in order. */
  parts: readonly BuilderPart[];
  /** True for alarm counts: without an entity filter every alarm of the tenant (or customer) counts. */
  entityFilterOptional: boolean;
  /** The key lists of the 'fields' part, in order (empty when there is no such part). */
  fieldLists: readonly FieldList[];
  /** Where the alarm filter fields live: 'pageLink', '' (the query's top level), or null (no alarm part). */
  alarmFilterAt: 'pageLink' | '' | null;
  /** The alarm filter fields (empty when there is no alarm part). */
  alarmFilterFields: readonly FieldSpec[];
  /** The fields of pageLink (empty when there is no page part). */
  pageFields: readonly FieldSpec[];
  /** Key types a sort key may have (empty when there is no page part). */
  sortKeyTypes: readonly EntityKeyType[];
}

export const MODE_SCHEMA: Readonly<Record<QueryMode, ModeSpec>> = {
  entityData: {
    mode: 'entityData',
    label: 'Entity data',
    parts: ['entityFilter', 'keyFilters', 'fields', 'page'],
    entityFilterOptional: false,
    fieldLists: ['entityFields', 'latestValues'],
    alarmFilterAt: null,
    alarmFilterFields: [],
    pageFields: pageFields(false),
    sortKeyTypes: KEY_TYPES_FOR.entitySort,
  },
  entityCount: {
    mode: 'entityCount',
    label: 'Entity count',
    parts: ['entityFilter', 'keyFilters'],
    entityFilterOptional: false,
    fieldLists: [],
    alarmFilterAt: null,
    alarmFilterFields: [],
    pageFields: [],
    sortKeyTypes: [],
  },
  alarmData: {
    mode: 'alarmData',
    label: 'Alarm data',
    parts: ['alarm', 'entityFilter', 'keyFilters', 'fields', 'page'],
    entityFilterOptional: false,
    fieldLists: ['alarmFields', 'entityFields', 'latestValues'],
    alarmFilterAt: 'pageLink',
    alarmFilterFields: ALARM_FILTER_FIELDS,
    pageFields: pageFields(true),
    sortKeyTypes: KEY_TYPES_FOR.alarmSort,
  },
  alarmCount: {
    mode: 'alarmCount',
    label: 'Alarm count',
    parts: ['alarm', 'entityFilter', 'keyFilters'],
    entityFilterOptional: true,
    fieldLists: [],
    alarmFilterAt: '',
    alarmFilterFields: ALARM_FILTER_FIELDS,
    pageFields: [],
    sortKeyTypes: [],
  },
};

const DEVICES = { type: 'entityType', entityType: 'DEVICE' };
const field = (key: string) => ({ type: 'ENTITY_FIELD', key });
const alarmField = (key: string) => ({ type: 'ALARM_FIELD', key });

/**
 * A new, neutral query for the mode, with no hidden default that changes the answer:
 * - entityData: all devices with their name, type and label, sorted by name ascending, 100 per page;
 * - entityCount: all devices;
 * - alarmData: active alarms of any severity and type, any time, on all devices, newest first, 100 per page
 *   (alarmFields = the ThingsBoard alarm table's columns, which only choose the text search columns);
 * - alarmCount: active alarms of any severity and type, any time, with no entity filter, i.e. every alarm of the
 *   tenant (or of the customer, for a customer user).
 * Each is already in the form the matching prepare* returns (same keys, same order).
 */
export function defaultQuery(mode: QueryMode): Record<string, unknown> {
  switch (mode) {
    case 'entityData':
      return {
        entityFilter: { ...DEVICES },
        keyFilters: [],
        entityFields: [field('name'), field('type'), field('label')],
        latestValues: [],
        pageLink: { page: 0, pageSize: DEFAULT_PAGE_SIZE, sortOrder: { key: field('name'), direction: 'ASC' } },
      };
    case 'entityCount':
      return { entityFilter: { ...DEVICES }, keyFilters: [] };
    case 'alarmData':
      return {
        entityFilter: { ...DEVICES },
        keyFilters: [],
        entityFields: [],
        latestValues: [],
        alarmFields: ['createdTime', 'originator', 'type', 'severity', 'status'].map(alarmField),
        pageLink: {
          page: 0,
          pageSize: DEFAULT_PAGE_SIZE,
          sortOrder: { key: alarmField('createdTime'), direction: 'DESC' },
          statusList: ['ACTIVE'],
        },
      };
    case 'alarmCount':
      return { keyFilters: [], statusList: ['ACTIVE'] };
    default:
      throw new Error(`unknown query mode ${JSON.stringify(mode)}`);
  }
}

/** The mode of the node types' queries. */
export function isQueryMode(v: unknown): v is QueryMode {
  return typeof v === 'string' && (QUERY_MODES as readonly string[]).includes(v);
}

// ---------------------------------------------------------------------------------------------------------------
// Builder coverage (what the form shows; everything else is "held")
// ---------------------------------------------------------------------------------------------------------------

const CONTAINER_KINDS: ReadonlySet<FieldKind> = new Set<FieldKind>([
  'entityTypes',
  'entityIds',
  'entity',
  'customer',
  'profiles',
  'relationFilters',
  'enumList',
  'strings',
  'user',
  'sortOrder',
]);

function fieldPatterns(prefix: string, f: FieldSpec): string[] {
  const p = prefix ? `${prefix}.${f.name}` : f.name;
  if (f.kind === 'sortOrder') return [p, `${p}.key`, `${p}.key.type`, `${p}.key.key`, `${p}.direction`];
  return CONTAINER_KINDS.has(f.kind) ? [`${p}.**`] : [p];
}

/** The fields a predicate's controls cover: operation and value (fixed or dynamic source), or a group's children. */
function predicateCoverage(p: unknown, path: string, out: string[]): void {
  out.push(`${path}.type`, `${path}.operation`);
  if (!isObj(p)) return;
  if (p.type === 'COMPLEX') {
    out.push(`${path}.predicates`);
    if (Array.isArray(p.predicates)) p.predicates.forEach((c, i) => predicateCoverage(c, `${path}.predicates.${i}`, out));
    return;
  }
  const v = `${path}.value`;
  out.push(`${path}.ignoreCase`, v, `${v}.defaultValue`, `${v}.dynamicValue`, `${v}.dynamicValue.sourceType`, `${v}.dynamicValue.sourceAttribute`);
}

/**
 * The path patterns (for paths.heldPaths) that the builder's controls cover for this query: the parts of the mode,
 * the entity filter fields shown for its current type, and each key filter's predicate tree. Fields outside them
 * are "held": kept, shown as such (e.g. a predicate's userValue, the dashboard-only fields). `live`: a live
 * subscription, whose page also has the "dynamic" control.
 */
export function builderCoverage(mode: QueryMode, query: unknown, options: { live?: boolean } = {}): string[] {
  const spec = MODE_SCHEMA[mode];
  const q = isObj(query) ? query : {};
  const out: string[] = [];
  for (const part of spec.parts) {
    switch (part) {
      case 'entityFilter': {
        out.push('entityFilter.type');
        const ef = q.entityFilter;
        const type = isObj(ef) ? ef.type : undefined;
        if (typeof type === 'string' && type in ENTITY_FILTER_SCHEMA) {
          for (const f of visibleFields(ENTITY_FILTER_SCHEMA[type as EntityFilterType], ef)) out.push(...fieldPatterns('entityFilter', f));
        }
        break;
      }
      case 'keyFilters':
        out.push('keyFilters', 'keyFiltersOperation');
        if (Array.isArray(q.keyFilters)) {
          q.keyFilters.forEach((kf, i) => {
            out.push(`keyFilters.${i}.key.type`, `keyFilters.${i}.key.key`, `keyFilters.${i}.valueType`);
            predicateCoverage(isObj(kf) ? kf.predicate : undefined, `keyFilters.${i}.predicate`, out);
          });
        }
        break;
      case 'fields':
        for (const list of spec.fieldLists) out.push(list, `${list}.*.type`, `${list}.*.key`);
        break;
      case 'page':
        for (const f of spec.pageFields) if (f.name !== 'dynamic' || options.live) out.push(...fieldPatterns('pageLink', f));
        break;
      case 'alarm':
        for (const f of spec.alarmFilterFields) out.push(...fieldPatterns(spec.alarmFilterAt ?? '', f));
        break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON schema (draft-07) of the JSON view
// ---------------------------------------------------------------------------------------------------------------

type Schema = Record<string, unknown>;

const REF = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const UUID: Schema = { type: 'string', pattern: UUID_PATTERN };
const NON_NEG_INT: Schema = { type: 'integer', minimum: 0 };

/** Also accepts null (the validator treats null in an optional field as absent). */
function nullable(s: Schema): Schema {
  if (typeof s.type === 'string' && s.enum === undefined) return { ...s, type: [s.type, 'null'] };
  return { anyOf: [s, { type: 'null' }] };
}

function describeField(f: FieldSpec): Schema {
  const d: Schema = { title: f.label };
  if (f.help) d.description = f.help;
  if (f.default !== undefined) d.default = clone(f.default);
  return d;
}

function typedIdSchema(entityType: string): Schema {
  return {
    anyOf: [
      { ...UUID, description: `A ${entityType} id as a UUID string.` },
      {
        type: 'object',
        required: ['id'],
        properties: { entityType: { const: entityType }, id: UUID },
      },
    ],
  };
}

/** The JSON schema of one field of the tables (without null). */
function kindSchema(f: FieldSpec, conditional: boolean): Schema {
  switch (f.kind) {
    case 'entityType':
      return { type: 'string', enum: [...ENTITY_TYPES] };
    case 'entityTypes':
      return { type: 'array', items: { type: 'string', enum: [...ENTITY_TYPES] } };
    case 'entityIds':
      // A field shown only on a condition is checked on that condition (see the filter's allOf).
      return conditional ? { type: 'array', items: UUID } : { type: 'array', minItems: 1, items: UUID };
    case 'entity':
      return REF('aliasEntityId');
    case 'customer':
      return typedIdSchema('CUSTOMER');
    case 'user':
      return typedIdSchema('USER');
    case 'profiles':
      // A null item is what Jackson writes for an empty Java type filter; the server runs it (matches nothing).
      return { type: 'array', items: { type: ['string', 'null'] } };
    case 'strings':
      return { type: 'array', items: { type: 'string' } };
    case 'text':
      return { type: 'string' };
    case 'int':
    case 'duration':
    case 'timestamp':
      return { type: 'integer', minimum: f.min ?? 0 };
    case 'bool':
      return { type: 'boolean' };
    case 'enum':
      return { type: 'string', enum: [...(f.options ?? [])] };
    case 'enumList':
      return { type: 'array', items: { type: 'string', enum: [...(f.options ?? [])] } };
    case 'relationFilters':
      return { type: 'array', items: REF('relationFilter') };
    case 'sortOrder':
      return REF(f.keyTypes === KEY_TYPES_FOR.alarmSort ? 'alarmSortOrder' : 'sortOrder');
    default:
      return {};
  }
}

/** Title, description and default on a schema; a $ref is wrapped (draft-07 ignores the siblings of $ref). */
function withMeta(meta: Schema, s: Schema): Schema {
  return s.$ref !== undefined ? { ...meta, allOf: [s] } : { ...meta, ...s };
}

function fieldSchema(f: FieldSpec): Schema {
  const s = withMeta(describeField(f), kindSchema(f, f.when !== undefined));
  return f.required && !f.when ? s : nullable(s);
}

/** The JSON schema of one entity filter type (a branch of the entityFilter oneOf). */
function filterSchema(spec: FilterTypeSpec): Schema {
  const properties: Schema = { type: { const: spec.type } };
  const required: string[] = ['type'];
  const allOf: Schema[] = [];
  const byCondition = new Map<string, { when: NonNullable<FieldSpec['when']>; fields: FieldSpec[] }>();
  for (const f of spec.fields) {
    properties[f.name] = fieldSchema(f);
    if (f.when) {
      const key = JSON.stringify(f.when);
      const entry = byCondition.get(key) ?? { when: f.when, fields: [] };
      entry.fields.push(f);
      byCondition.set(key, entry);
    } else if (f.required) {
      const singular = spec.deprecated?.find((d) => `${d}s` === f.name);
      if (singular) {
        // The runtime reads the deprecated singular name when the list is empty or absent.
        properties[f.name] = nullable(withMeta(describeField(f), kindSchema(f, false)));
        allOf.push({
          anyOf: [
            { required: [f.name], properties: { [f.name]: { type: 'array', minItems: 1 } } },
            { required: [singular], properties: { [singular]: { type: 'string', minLength: 1 } } },
          ],
        });
      } else {
        required.push(f.name);
      }
    }
  }
  for (const d of spec.deprecated ?? []) {
    properties[d] = nullable({ type: 'string', description: `Deprecated: use ${d}s.` });
  }
  for (const d of spec.ignored ?? []) {
    properties[d] = { description: `Ignored by the server (this filter has no ${d}): use ${d}s.` };
  }
  for (const h of spec.held ?? []) {
    properties[h] =
      h === 'rootStateEntity'
        ? nullable({ type: 'boolean', description: 'Dashboards only.' })
        : nullable(withMeta({ description: 'Dashboards only.' }, REF('aliasEntityId')));
  }
  for (const { when, fields } of byCondition.values()) {
    const sibling = spec.fields.find((s) => s.name === when.field);
    const onDefault = sibling !== undefined && sibling.default === when.equals;
    const cond: Schema = onDefault
      ? { anyOf: [{ not: { required: [when.field] } }, { properties: { [when.field]: { anyOf: [{ const: when.equals }, { type: 'null' }] } } }] }
      : { required: [when.field], properties: { [when.field]: { const: when.equals } } };
    const then: Schema = { required: fields.filter((f) => f.required).map((f) => f.name) };
    const thenProps: Schema = {};
    for (const f of fields) if (f.kind === 'entityIds') thenProps[f.name] = { type: 'array', minItems: 1 };
    if (Object.keys(thenProps).length > 0) then.properties = thenProps;
    allOf.push({ if: cond, then });
  }
  const out: Schema = { type: 'object', title: spec.label, properties, required };
  if (allOf.length > 0) out.allOf = allOf;
  return out;
}

type ValueKind = 'string' | 'number' | 'boolean';

/**
 * A NUMERIC value's text as the server's Jackson reads it into a Double (validate.ts#jacksonDouble): Java-trimmed,
 * sign, digits, dot, exponent. (Text too large for a double, such as "1e999", fits the pattern but the runtime
 * refuses it.)
 */
const NUMBER_TEXT = '^[\\x00-\\x20]*[+-]?(?:[0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+\\.)[\\x00-\\x20]*$';
/** Text the server's Jackson reads as no value where it expects a Double: empty, blank or "null". */
const NULL_TEXT = '^[\\x00-\\x20]*(?:null)?[\\x00-\\x20]*$';

/** A value of the kind (a number may also be given as its text). */
function valueSchema(kind: ValueKind, extra: Schema = {}): Schema {
  if (kind !== 'number') return { type: kind, ...extra };
  return { ...extra, anyOf: [{ type: 'number' }, { type: 'string', pattern: NUMBER_TEXT }] };
}

/** A value of the kind, or one the server reads as none (null; for numbers also "", blank text and "null"). */
function valueOrNoneSchema(kind: ValueKind, extra: Schema = {}): Schema {
  if (kind !== 'number') return { type: [kind, 'null'], ...extra };
  return {
    ...extra,
    anyOf: [{ type: ['number', 'null'] }, { type: 'string', pattern: NUMBER_TEXT }, { type: 'string', pattern: NULL_TEXT }],
  };
}

/**
 * What the runtime does with a CURRENT_DEVICE dynamic value without a resolvedValue (validate.ts): refused in a REST
 * entity data query (the server fails on it), accepted only with a userValue in the other REST queries (they never
 * resolve it), accepted on a live subscription (the WebSocket skips it, as the server does).
 */
type CurrentDeviceRule = 'refuse' | 'needsUserValue' | 'accept';

function predicateValueSchema(kind: ValueKind, currentDevice: CurrentDeviceRule): Schema {
  const unresolvedCurrentDevice: Schema = {
    required: ['dynamicValue'],
    properties: {
      dynamicValue: {
        type: 'object',
        required: ['sourceType'],
        properties: { sourceType: { const: 'CURRENT_DEVICE' } },
        not: { required: ['resolvedValue'], properties: { resolvedValue: valueSchema(kind) } },
      },
    },
  };
  const then: Schema =
    currentDevice === 'refuse'
      ? { properties: { dynamicValue: { type: 'object', properties: { sourceType: { enum: ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER'] } } } } }
      : { required: ['userValue'], properties: { userValue: valueSchema(kind) } };
  const rule: Schema = currentDevice === 'accept' ? {} : { if: unresolvedCurrentDevice, then };
  return {
    anyOf: [
      valueSchema(kind, { description: 'Shorthand for {"defaultValue": <value>}.' }),
      {
        type: 'object',
        properties: {
          defaultValue: valueOrNoneSchema(kind),
          userValue: valueOrNoneSchema(kind, { description: 'Wins over the others when not null.' }),
          // anyOf, not nullable(): the $ref must not apply to null.
          dynamicValue: { anyOf: [{ type: 'object', allOf: [REF('dynamicValue')], properties: { resolvedValue: valueOrNoneSchema(kind) } }, { type: 'null' }] },
        },
        anyOf: [
          { required: ['defaultValue'], properties: { defaultValue: valueSchema(kind) } },
          { required: ['userValue'], properties: { userValue: valueSchema(kind) } },
          { required: ['dynamicValue'], properties: { dynamicValue: { type: 'object' } } },
        ],
        ...rule,
      },
    ],
  };
}

function keySchema(types: readonly string[]): Schema {
  return {
    type: 'object',
    required: ['type', 'key'],
    properties: { type: { type: 'string', enum: [...types] }, key: { type: 'string', minLength: 1 } },
  };
}

function keyList(ref: string): Schema {
  return nullable({ type: 'array', items: REF(ref) });
}

function alarmFilterProperties(): Schema {
  const out: Schema = {};
  for (const f of ALARM_FILTER_FIELDS) out[f.name] = fieldSchema(f);
  return out;
}

/**
 * A sort key of an ENTITY_FIELD or ALARM_FIELD type must match the server's property pattern (validate.ts
 * SORT_PROPERTY_PATTERN); other key types may use any name.
 */
function sortKeyRule(): Schema {
  return {
    if: {
      required: ['key'],
      properties: { key: { type: 'object', required: ['type'], properties: { type: { enum: ['ENTITY_FIELD', 'ALARM_FIELD'] } } } },
    },
    then: {
      properties: {
        key: {
          type: 'object',
          properties: {
            key: { type: 'string', pattern: SORT_PROPERTY_PATTERN, description: 'Letters, digits, "_" and "-" only (the server refuses others).' },
          },
        },
      },
    },
  };
}

function definitions(currentDevice: CurrentDeviceRule): Schema {
  const simple = (type: SimplePredicateType, extra: Schema = {}): Schema => ({
    type: 'object',
    required: ['type', 'operation', 'value'],
    properties: {
      type: { const: type },
      operation: { type: 'string', enum: [...PREDICATE_OPERATIONS[type]] },
      value: predicateValueSchema(PREDICATE_VALUE_KINDS[type], currentDevice),
      ...extra,
    },
  });
  return {
    aliasEntityId: {
      type: 'object',
      required: ['entityType'],
      properties: {
        entityType: { type: 'string', enum: [...ENTITY_TYPES, ...ALIAS_ENTITY_TYPES] },
        id: nullable(UUID),
      },
      if: { properties: { entityType: { enum: [...ALIAS_ENTITY_TYPES] } } },
      else: { required: ['id'], properties: { id: { type: 'string' } } },
    },
    relationFilter: {
      type: 'object',
      properties: {
        relationType: nullable({ type: 'string' }),
        entityTypes: nullable({ type: 'array', items: { type: 'string', enum: [...ENTITY_TYPES] } }),
        negate: nullable({ type: 'boolean' }),
      },
    },
    entityFilter: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: [...ENTITY_FILTER_TYPES] } },
      oneOf: ENTITY_FILTER_TYPES.map((t) => filterSchema(ENTITY_FILTER_SCHEMA[t])),
    },
    key: keySchema(ENTITY_KEY_TYPES),
    nonAlarmKey: keySchema(NON_ALARM_KEY_TYPES),
    dynamicValue: {
      type: 'object',
      required: ['sourceType', 'sourceAttribute'],
      properties: {
        sourceType: { type: 'string', enum: [...DYNAMIC_VALUE_SOURCE_TYPES] },
        sourceAttribute: { type: 'string', minLength: 1 },
        inherit: nullable({ type: 'boolean' }),
        resolvedValue: {
          description: 'Normally filled in by the server. One given here is used as is over REST; a live subscription uses it until the attribute is read.',
        },
      },
    },
    predicate: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: [...FILTER_PREDICATE_TYPES] } },
      oneOf: [
        simple('STRING', { ignoreCase: nullable({ type: 'boolean' }) }),
        simple('NUMERIC'),
        simple('BOOLEAN'),
        {
          type: 'object',
          required: ['type', 'operation', 'predicates'],
          properties: {
            type: { const: 'COMPLEX' },
            operation: { type: 'string', enum: [...COMPLEX_OPERATIONS] },
            predicates: { type: 'array', items: REF('predicate'), description: 'Empty = no condition (matches every entity).' },
          },
        },
      ],
    },
    keyFilter: {
      type: 'object',
      required: ['key', 'predicate'],
      properties: {
        key: REF('nonAlarmKey'),
        valueType: nullable({ type: 'string', enum: [...ENTITY_KEY_VALUE_TYPES], description: 'Defaults to the predicate type.' }),
        predicate: REF('predicate'),
      },
    },
    sortOrder: {
      type: 'object',
      required: ['key'],
      properties: { key: REF('nonAlarmKey'), direction: nullable({ type: 'string', enum: [...SORT_DIRECTIONS], default: 'ASC' }) },
      ...sortKeyRule(),
    },
    alarmSortOrder: {
      type: 'object',
      required: ['key'],
      properties: { key: REF('key'), direction: nullable({ type: 'string', enum: [...SORT_DIRECTIONS], default: 'ASC' }) },
      ...sortKeyRule(),
    },
  };
}

const MODE_TITLES: Readonly<Record<QueryMode, string>> = {
  entityData: 'ThingsBoard entity data query (POST /api/entitiesQuery/find)',
  entityCount: 'ThingsBoard entity count query (POST /api/entitiesQuery/count)',
  alarmData: 'ThingsBoard alarm data query (POST /api/alarmsQuery/find)',
  alarmCount: 'ThingsBoard alarm count query (POST /api/alarmsQuery/count)',
};

/**
 * The JSON Schema (draft-07) of a query of this mode, generated from the tables above, for the JSON view's code
 * editor. Unknown properties are allowed (the server ignores them in a query), known ones are typed as the runtime
 * validator checks them with the same `live` option (a live subscription, or REST when false or absent): that only
 * changes what a CURRENT_DEVICE dynamic value without a resolvedValue needs.
 */
export function jsonSchema(mode: QueryMode, options: { live?: boolean } = {}): Record<string, unknown> {
  const spec = MODE_SCHEMA[mode];
  if (!spec) throw new Error(`unknown query mode ${JSON.stringify(mode)}`);
  const defs = definitions(options.live === true ? 'accept' : mode === 'entityData' ? 'refuse' : 'needsUserValue');
  const properties: Schema = {
    entityFilter: spec.entityFilterOptional ? nullable(REF('entityFilter')) : REF('entityFilter'),
    keyFilters: keyList('keyFilter'),
    keyFiltersOperation: nullable({ type: 'string', enum: [...KEY_FILTERS_OPERATIONS], description: KEY_FILTER_HELP.keyFiltersOperation }),
  };
  for (const list of spec.fieldLists) properties[list] = keyList(list === 'alarmFields' ? 'key' : 'nonAlarmKey');
  if (spec.pageFields.length > 0) {
    const pageProps: Schema = {};
    for (const f of spec.pageFields) pageProps[f.name] = fieldSchema(f);
    if (spec.alarmFilterAt === 'pageLink') Object.assign(pageProps, alarmFilterProperties());
    properties.pageLink = nullable({ type: 'object', properties: pageProps });
  }
  if (spec.alarmFilterAt === '') {
    Object.assign(properties, alarmFilterProperties());
    properties.pageLink = nullable({
      type: 'object',
      description: 'Alarm filter fields given here are used when the same field is not given at the top level.',
      properties: alarmFilterProperties(),
    });
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: MODE_TITLES[mode],
    type: 'object',
    required: spec.entityFilterOptional ? [] : ['entityFilter'],
    properties,
    definitions: defs,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
