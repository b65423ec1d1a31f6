/**
 * JSON schema (draft-07) of the table's fields and of each entity filter type, for the JSON view: the same tables
 * as the forms, so that the two never disagree. json-schema.ts puts them together into the schema of a query.
 */

import { ENTITY_TYPES } from '../../protocol/types';
import { UUID_PATTERN } from '../../protocol/validate';
import { KEY_TYPES_FOR } from './keys';
import { clone, type FieldSpec, type FilterTypeSpec } from './spec';

export type Schema = Record<string, unknown>;

export const REF = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
export const UUID: Schema = { type: 'string', pattern: UUID_PATTERN };

/** Also accepts null (the validator treats null in an optional field as absent). */
export function nullable(s: Schema): Schema {
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

export function fieldSchema(f: FieldSpec): Schema {
  const s = withMeta(describeField(f), kindSchema(f, f.when !== undefined));
  return f.required && !f.when ? s : nullable(s);
}

/** The JSON schema of one entity filter type (a branch of the entityFilter oneOf). */
export function filterSchema(spec: FilterTypeSpec): Schema {
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
      ? {
          anyOf: [
            { not: { required: [when.field] } },
            { properties: { [when.field]: { anyOf: [{ const: when.equals }, { type: 'null' }] } } },
          ],
        }
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
