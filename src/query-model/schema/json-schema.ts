/**
 * JSON schema (draft-07) of a whole query of each mode, for the JSON view's code editor: the definitions
 * (entity ids, entity filters, keys, predicates and their values, sort orders) and the properties of the mode.
 */

import {
  ALIAS_ENTITY_TYPES,
  COMPLEX_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_FILTER_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  ENTITY_TYPES,
  FILTER_PREDICATE_TYPES,
  KEY_FILTERS_OPERATIONS,
  NON_ALARM_KEY_TYPES,
  SORT_DIRECTIONS,
} from '../../protocol/types';
import { SORT_PROPERTY_PATTERN } from '../../protocol/validate';
import { ENTITY_FILTER_SCHEMA } from './filters';
import { REF, UUID, fieldSchema, filterSchema, nullable, type Schema } from './json-fields';
import { KEY_FILTER_HELP, PREDICATE_OPERATIONS, PREDICATE_VALUE_KINDS, type SimplePredicateType } from './keys';
import { ALARM_FILTER_FIELDS, MODE_SCHEMA } from './modes';
import type { QueryMode } from './spec';

type ValueKind = 'string' | 'number' | 'boolean';

/**
 * A NUMERIC value's text as the server's Jackson reads it into a Double (validate/key-filters.ts#jacksonDouble):
 * Java-trimmed, sign, digits, dot, exponent. (Text too large for a double, such as "1e999", fits the pattern but the
 * runtime refuses it.)
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
    anyOf: [
      { type: ['number', 'null'] },
      { type: 'string', pattern: NUMBER_TEXT },
      { type: 'string', pattern: NULL_TEXT },
    ],
  };
}

/**
 * What the runtime does with a CURRENT_DEVICE dynamic value without a resolvedValue (validate/): refused in a REST
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
      ? {
          properties: {
            dynamicValue: {
              type: 'object',
              properties: { sourceType: { enum: ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER'] } },
            },
          },
        }
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
          dynamicValue: {
            anyOf: [
              { type: 'object', allOf: [REF('dynamicValue')], properties: { resolvedValue: valueOrNoneSchema(kind) } },
              { type: 'null' },
            ],
          },
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
 * A sort key of an ENTITY_FIELD or ALARM_FIELD type must match the server's property pattern (validate/
 * page-link.ts SORT_PROPERTY_PATTERN); other key types may use any name.
 */
function sortKeyRule(): Schema {
  return {
    if: {
      required: ['key'],
      properties: {
        key: { type: 'object', required: ['type'], properties: { type: { enum: ['ENTITY_FIELD', 'ALARM_FIELD'] } } },
      },
    },
    then: {
      properties: {
        key: {
          type: 'object',
          properties: {
            key: {
              type: 'string',
              pattern: SORT_PROPERTY_PATTERN,
              description: 'Letters, digits, "_" and "-" only (the server refuses others).',
            },
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
          description:
            'Normally filled in by the server. One given here is used as is over REST; a live subscription uses it ' +
            'until the attribute is read.',
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
            predicates: {
              type: 'array',
              items: REF('predicate'),
              description: 'Empty = no condition (matches every entity).',
            },
          },
        },
      ],
    },
    keyFilter: {
      type: 'object',
      required: ['key', 'predicate'],
      properties: {
        key: REF('nonAlarmKey'),
        valueType: nullable({
          type: 'string',
          enum: [...ENTITY_KEY_VALUE_TYPES],
          description: 'Defaults to the predicate type.',
        }),
        predicate: REF('predicate'),
      },
    },
    sortOrder: {
      type: 'object',
      required: ['key'],
      properties: {
        key: REF('nonAlarmKey'),
        direction: nullable({ type: 'string', enum: [...SORT_DIRECTIONS], default: 'ASC' }),
      },
      ...sortKeyRule(),
    },
    alarmSortOrder: {
      type: 'object',
      required: ['key'],
      properties: {
        key: REF('key'),
        direction: nullable({ type: 'string', enum: [...SORT_DIRECTIONS], default: 'ASC' }),
      },
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
 * The JSON Schema (draft-07) of a query of this mode, generated from the tables, for the JSON view's code
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
    keyFiltersOperation: nullable({
      type: 'string',
      enum: [...KEY_FILTERS_OPERATIONS],
      description: KEY_FILTER_HELP.keyFiltersOperation,
    }),
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
