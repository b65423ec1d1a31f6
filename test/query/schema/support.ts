/** Helpers the schema test files share: the runtime validator per mode, sample values of the tables, and ajv. */
import Ajv, { type ValidateFunction } from 'ajv';
import { TbInputError } from '../../../src/errors';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../../src/protocol/validate';
import {
  visibleFields,
  jsonSchema,
  type FieldSpec,
  type FilterTypeSpec,
  type QueryMode,
} from '../../../src/query-model/schema';
import { U1, U2 } from '../helpers';

export const PREPARE: Record<QueryMode, (q: unknown, field?: string, options?: { live?: boolean }) => unknown> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

/** The wire copy of an entity filter, through a count query. */
export function prepared(entityFilter: unknown): Record<string, unknown> {
  return prepareEntityCountQuery({ entityFilter }).entityFilter as unknown as Record<string, unknown>;
}

/** A valid sample value for a field of the tables. */
export function sample(f: FieldSpec): unknown {
  switch (f.kind) {
    case 'entityType':
      return 'ASSET';
    case 'entityTypes':
      return ['DEVICE', 'ASSET'];
    case 'entityIds':
      return [U1, U2];
    case 'entity':
      return { entityType: 'ASSET', id: U1 };
    case 'customer':
      return { entityType: 'CUSTOMER', id: U2 };
    case 'user':
      return { entityType: 'USER', id: U2 };
    case 'profiles':
    case 'strings':
      return ['thermostat', 'meter'];
    case 'text':
      return 'Bui';
    case 'int':
    case 'duration':
    case 'timestamp':
      return 2;
    case 'bool':
      return true;
    case 'enum':
      return f.options![f.options!.length - 1];
    case 'enumList':
      return [f.options![1]];
    case 'relationFilters':
      return [{ relationType: 'Contains', entityTypes: ['DEVICE'], negate: true }, { relationType: 'Manages' }];
    case 'sortOrder':
      return { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'DESC' };
    default:
      throw new Error(`no sample for ${f.kind}`);
  }
}

export const HELD_SAMPLES: Record<string, unknown> = {
  rootStateEntity: true,
  defaultStateEntity: { entityType: 'ASSET', id: U2 },
};

/** Names of the fields other fields depend on (`when`). */
export function switches(spec: FilterTypeSpec): Set<string> {
  return new Set(spec.fields.filter((f) => f.when).map((f) => f.when!.field));
}

/** Every shown field filled in (a `when` sibling as given in `base`, else its default), plus the held fields. */
export function fullFilter(spec: FilterTypeSpec, base: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { type: spec.type, ...base };
  for (const f of spec.fields) if (switches(spec).has(f.name) && !(f.name in out)) out[f.name] = f.default;
  for (const f of visibleFields(spec, out)) if (!(f.name in out)) out[f.name] = sample(f);
  for (const h of spec.held ?? []) out[h] = HELD_SAMPLES[h];
  return out;
}

/** The variants of a filter type: one per value of the fields that others depend on. */
export function variants(spec: FilterTypeSpec): Record<string, unknown>[] {
  const conditions = spec.fields.filter((f) => f.when).map((f) => f.when!);
  if (conditions.length === 0) return [{}];
  const seen = new Map<string, Record<string, unknown>>();
  for (const c of conditions) seen.set(JSON.stringify(c), { [c.field]: c.equals });
  return [...seen.values()];
}

/** The JSON schema of each mode compiled once by ajv (strict), and the two verdicts to compare. */
export const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
const validators = new Map<string, ValidateFunction>();
export const validator = (mode: QueryMode, live?: boolean): ValidateFunction => {
  const k = `${mode}/${live}`;
  if (!validators.has(k))
    validators.set(k, ajv.compile(live === undefined ? jsonSchema(mode) : jsonSchema(mode, { live })));
  return validators.get(k)!;
};
export const schemaOk = (mode: QueryMode, q: unknown, live?: boolean): boolean => validator(mode, live)(q) as boolean;
export const runtimeOk = (mode: QueryMode, q: unknown, live?: boolean): boolean => {
  try {
    PREPARE[mode](q, 'query', live === undefined ? undefined : { live });
    return true;
  } catch (e) {
    if (!(e instanceof TbInputError)) throw e;
    return false;
  }
};
