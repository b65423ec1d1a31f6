/**
 * The key and key filter tables: the key types each key list offers, the operations and labels of each predicate
 * type, the dynamic value sources, and new predicates and key filters.
 */

import {
  BOOLEAN_OPERATIONS,
  COMPLEX_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_KEY_TYPES,
  NON_ALARM_KEY_TYPES,
  NUMERIC_OPERATIONS,
  STRING_OPERATIONS,
  type DynamicValueSourceType,
  type EntityKeyType,
  type EntityKeyValueType,
  type FilterPredicateType,
} from '../../protocol/types';
import type { QueryMode } from './spec';

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

/** Plain-language notes on key filters, for the form's help. */
export const KEY_FILTER_HELP: Readonly<Record<string, string>> = {
  typed:
    'A string condition only matches values stored as text, a numeric one only numbers, a boolean one only booleans.',
  missing: 'An entity without the key never matches, not even "not equal" or "does not contain".',
  emptyString: 'An empty text value switches the condition off (it matches everything).',
  inList: 'For "is one of": separate values with commas; quote them all alike to keep commas or spaces inside.',
  caseSensitive: 'Text conditions are case-sensitive unless "ignore case" is on.',
  keyFiltersOperation: 'OR between key filters needs ThingsBoard 4.4 or later; older servers always use AND.',
};

/**
 * The dynamic value sources the builder offers: a server attribute of the caller's tenant, customer or user.
 * CURRENT_DEVICE is never offered: no query path resolves it. REST find fails on it with an internal error
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
export function newPredicate(
  type: FilterPredicateType,
  childType: SimplePredicateType = 'NUMERIC',
): Record<string, unknown> {
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
export function newKeyFilter(
  valueType: EntityKeyValueType = 'NUMERIC',
  keyType: EntityKeyType = 'TIME_SERIES',
): Record<string, unknown> {
  return { key: { type: keyType, key: '' }, valueType, predicate: newPredicate(VALUE_TYPE_PREDICATES[valueType]) };
}
