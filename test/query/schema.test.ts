import assert from 'node:assert/strict';
import Ajv, { type ValidateFunction } from 'ajv';
import {
  ALARM_FIELD_NAMES,
  ALARM_FILTER_FIELDS,
  ENTITY_FIELD_NAMES,
  ENTITY_FILTER_SCHEMA,
  KEY_TYPES_FOR,
  MODE_SCHEMA,
  OPERATION_LABELS,
  PREDICATE_OPERATIONS,
  QUERY_MODES,
  VALUE_TYPE_PREDICATES,
  builderCoverage,
  defaultQuery,
  dynamicSourceTypes,
  entityFieldNames,
  filterEntityType,
  jsonSchema,
  newEntityFilter,
  newKeyFilter,
  newPredicate,
  visibleFields,
  type FieldSpec,
  type FilterTypeSpec,
  type QueryMode,
} from '../../src/query/schema';
import { heldPaths } from '../../src/query/paths';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  UUID_PATTERN,
} from '../../src/query/validate';
import {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_FILTER_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  FILTER_PREDICATE_TYPES,
  QUERYABLE_ENTITY_TYPES,
} from '../../src/query/types';
import { TbInputError } from '../../src/errors';
import { U1, U2, throwsInput } from './helpers';

const PREPARE: Record<QueryMode, (q: unknown, field?: string, options?: { live?: boolean }) => unknown> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

/** The wire copy of an entity filter, through a count query. */
function prepared(entityFilter: unknown): Record<string, unknown> {
  return prepareEntityCountQuery({ entityFilter }).entityFilter as unknown as Record<string, unknown>;
}

/** A valid sample value for a field of the tables. */
function sample(f: FieldSpec): unknown {
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

const HELD_SAMPLES: Record<string, unknown> = { rootStateEntity: true, defaultStateEntity: { entityType: 'ASSET', id: U2 } };

/** Names of the fields other fields depend on (`when`). */
function switches(spec: FilterTypeSpec): Set<string> {
  return new Set(spec.fields.filter((f) => f.when).map((f) => f.when!.field));
}

/** Every shown field filled in (a `when` sibling as given in `base`, else its default), plus the held fields. */
function fullFilter(spec: FilterTypeSpec, base: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { type: spec.type, ...base };
  for (const f of spec.fields) if (switches(spec).has(f.name) && !(f.name in out)) out[f.name] = f.default;
  for (const f of visibleFields(spec, out)) if (!(f.name in out)) out[f.name] = sample(f);
  for (const h of spec.held ?? []) out[h] = HELD_SAMPLES[h];
  return out;
}

/** The variants of a filter type: one per value of the fields that others depend on. */
function variants(spec: FilterTypeSpec): Record<string, unknown>[] {
  const conditions = spec.fields.filter((f) => f.when).map((f) => f.when!);
  if (conditions.length === 0) return [{}];
  const seen = new Map<string, Record<string, unknown>>();
  for (const c of conditions) seen.set(JSON.stringify(c), { [c.field]: c.equals });
  return [...seen.values()];
}

describe('query/schema: entity filter table', () => {
  it('has the 14 filter types, each under its own name', () => {
    assert.deepEqual(Object.keys(ENTITY_FILTER_SCHEMA).sort(), [...ENTITY_FILTER_TYPES].sort());
    for (const t of ENTITY_FILTER_TYPES) {
      const spec = ENTITY_FILTER_SCHEMA[t];
      assert.equal(spec.type, t);
      assert.ok(spec.label.length > 0);
      const names = spec.fields.map((f) => f.name);
      assert.equal(new Set(names).size, names.length, `${t}: field names are unique`);
      for (const f of spec.fields) {
        assert.ok(f.label.length > 0, `${t}.${f.name} has a label`);
        if (f.kind === 'enum') assert.ok(f.options && f.options.length > 0, `${t}.${f.name} has options`);
        if (f.kind === 'entityIds') assert.ok(names.includes(f.typeFrom!), `${t}.${f.name}: typeFrom names a sibling`);
        if (f.kind === 'profiles') assert.ok(f.profileType, `${t}.${f.name} has a profileType`);
        if (f.when) assert.ok(names.includes(f.when.field), `${t}.${f.name}: when names a sibling`);
        if (f.help) assert.ok(/^[A-Z0-9'"%]/.test(f.help) && f.help.endsWith('.'), `${t}.${f.name}: help is a sentence`);
      }
    }
  });

  for (const type of ENTITY_FILTER_TYPES) {
    describe(type, () => {
      const spec = ENTITY_FILTER_SCHEMA[type];

      it('a new filter (defaults) plus the required fields passes the runtime validator', () => {
        for (const base of variants(spec)) {
          const f: Record<string, unknown> = { ...newEntityFilter(type), ...base };
          for (const field of visibleFields(spec, f)) {
            if (field.required && f[field.name] === undefined) {
              f[field.name] = sample(field);
            }
          }
          assert.doesNotThrow(() => prepared(f), JSON.stringify(f));
        }
      });

      it('its fields are exactly what the validator reads: a full filter comes back with every field, and only them', () => {
        for (const base of variants(spec)) {
          const input = fullFilter(spec, base);
          const out = prepared(input);
          const shown = visibleFields(spec, input).map((f) => f.name);
          const expected = ['type', ...shown, ...(spec.held ?? [])].sort();
          assert.deepEqual(Object.keys(out).sort(), expected, JSON.stringify(input));
          for (const name of expected) assert.deepEqual(out[name], input[name], `${type}.${name}`);
        }
      });

      it('the validator requires exactly the fields marked required', () => {
        for (const base of variants(spec)) {
          const full = fullFilter(spec, base);
          for (const field of visibleFields(spec, full)) {
            const without = { ...full };
            delete without[field.name];
            if (field.required) {
              throwsInput(() => prepared(without), `query.entityFilter.${field.name}`, '(missing');
            } else if (!switches(spec).has(field.name)) {
              assert.doesNotThrow(() => prepared(without), `${type} without ${field.name}`);
            }
          }
        }
      });

      if (spec.deprecated) {
        it('accepts the deprecated singular names in place of the lists', () => {
          for (const singular of spec.deprecated!) {
            const plural = `${singular}s`;
            const input: Record<string, unknown> = { ...fullFilter(spec), [singular]: 'legacy' };
            delete input[plural];
            assert.deepEqual(prepared(input)[plural], ['legacy']);
          }
        });
      }

      it('enum fields offer exactly the values the validator accepts', () => {
        for (const field of spec.fields.filter((f) => f.kind === 'enum')) {
          for (const o of field.options!) assert.doesNotThrow(() => prepared({ ...fullFilter(spec), [field.name]: o }));
          throwsInput(() => prepared({ ...fullFilter(spec), [field.name]: 'SIDEWAYS' }), `query.entityFilter.${field.name}`);
        }
      });
    });
  }

  it('visibleFields: multiRoot switches the root fields (absent = its default, false)', () => {
    const spec = ENTITY_FILTER_SCHEMA.relationsQuery;
    const names = (f: unknown) => visibleFields(spec, f).map((x) => x.name);
    assert.ok(names({ type: 'relationsQuery' }).includes('rootEntity'));
    assert.ok(!names({ type: 'relationsQuery' }).includes('multiRootEntityIds'));
    assert.ok(names({ multiRoot: null }).includes('rootEntity'));
    assert.deepEqual(names({ multiRoot: true }).slice(0, 3), ['multiRoot', 'multiRootEntitiesType', 'multiRootEntityIds']);
    assert.ok(!names({ multiRoot: true }).includes('rootEntity'));
    assert.deepEqual(names(undefined), names({}));
  });

  it('newEntityFilter: type plus the defaults of the fields shown at first, fresh objects each time', () => {
    assert.deepEqual(newEntityFilter('entityType'), { type: 'entityType', entityType: 'DEVICE' });
    assert.deepEqual(newEntityFilter('entityName'), { type: 'entityName', entityType: 'DEVICE', entityNameFilter: '' });
    assert.deepEqual(newEntityFilter('deviceType'), { type: 'deviceType' });
    assert.deepEqual(newEntityFilter('relationsQuery'), {
      type: 'relationsQuery',
      multiRoot: false,
      direction: 'FROM',
      maxLevel: 1,
      fetchLastLevelOnly: false,
      filters: [],
      negate: false,
    });
    assert.deepEqual(newEntityFilter('deviceSearchQuery'), { type: 'deviceSearchQuery', direction: 'FROM', maxLevel: 1, fetchLastLevelOnly: false });
    const a = newEntityFilter('relationsQuery');
    (a.filters as unknown[]).push(1);
    assert.deepEqual(newEntityFilter('relationsQuery').filters, []);
  });

  it('leaves the dashboard-only fields out of the forms, and says so', () => {
    for (const t of ['relationsQuery', 'assetSearchQuery', 'deviceSearchQuery', 'entityViewSearchQuery', 'edgeSearchQuery'] as const) {
      assert.deepEqual(ENTITY_FILTER_SCHEMA[t].held, ['rootStateEntity', 'defaultStateEntity']);
      assert.ok(!ENTITY_FILTER_SCHEMA[t].fields.some((f) => f.name === 'rootStateEntity' || f.name === 'defaultStateEntity'));
    }
  });

  it('filterEntityType: the entity type a filter returns, when known', () => {
    assert.equal(filterEntityType({ type: 'deviceType', deviceTypes: ['x'] }), 'DEVICE');
    assert.equal(filterEntityType({ type: 'edgeSearchQuery' }), 'EDGE');
    assert.equal(filterEntityType({ type: 'entityName', entityType: 'CUSTOMER' }), 'CUSTOMER');
    assert.equal(filterEntityType({ type: 'entityList', entityType: 'USER', entityList: [U1] }), 'USER');
    assert.equal(filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: U1 } }), 'ASSET');
    assert.equal(filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_TENANT' } }), 'TENANT');
    assert.equal(filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER_OWNER' } }), undefined);
    assert.equal(filterEntityType({ type: 'apiUsageState' }), 'API_USAGE_STATE');
    assert.equal(filterEntityType({ type: 'relationsQuery', filters: [{ entityTypes: ['DEVICE'] }, { relationType: 'x', entityTypes: ['DEVICE'] }] }), 'DEVICE');
    assert.equal(filterEntityType({ type: 'relationsQuery', filters: [{ entityTypes: ['DEVICE', 'ASSET'] }] }), undefined);
    assert.equal(filterEntityType({ type: 'relationsQuery', filters: [] }), undefined);
    assert.equal(filterEntityType({ type: 'relationsQuery', negate: true, filters: [{ entityTypes: ['DEVICE'] }] }), undefined);
    assert.equal(filterEntityType(null), undefined);
    assert.equal(filterEntityType({ type: 'nope' }), undefined);
  });

  it('entity field names per entity type (§3.6)', () => {
    assert.deepEqual(entityFieldNames({ type: 'deviceType' }).slice(0, 3), ['name', 'type', 'label']);
    assert.ok(entityFieldNames({ type: 'entityType', entityType: 'TENANT' }).includes('region'));
    assert.ok(!entityFieldNames({ type: 'entityType', entityType: 'CUSTOMER' }).includes('region'));
    assert.equal(entityFieldNames({ type: 'entityType', entityType: 'USER' })[0], 'email');
    assert.deepEqual(entityFieldNames({ type: 'entityType', entityType: 'RULE_CHAIN' }), ENTITY_FIELD_NAMES.default);
    assert.ok(entityFieldNames({ type: 'relationsQuery', multiRoot: true }).includes('parentId'));
    assert.ok(!entityFieldNames({ type: 'relationsQuery' }).includes('parentId'));
    assert.deepEqual(entityFieldNames({ type: 'relationsQuery', filters: [{ entityTypes: ['ASSET'] }] }), ENTITY_FIELD_NAMES.ASSET);
    assert.deepEqual(entityFieldNames(undefined), ENTITY_FIELD_NAMES.default);
    for (const t of QUERYABLE_ENTITY_TYPES) assert.ok(entityFieldNames({ type: 'entityType', entityType: t }).includes('createdTime'), t);
  });

  it('alarm field names: the text-search columns plus status and assignee', () => {
    for (const n of ['createdTime', 'type', 'severity', 'originator', 'originatorLabel', 'assigneeEmail', 'status', 'assignee', 'ackTime']) {
      assert.ok(ALARM_FIELD_NAMES.includes(n), n);
    }
    assert.equal(new Set(ALARM_FIELD_NAMES).size, ALARM_FIELD_NAMES.length);
  });
});

describe('query/schema: key filter tables', () => {
  it('operations per predicate type are the validator lists, each with a label', () => {
    for (const t of FILTER_PREDICATE_TYPES) {
      for (const op of PREDICATE_OPERATIONS[t]) assert.ok(OPERATION_LABELS[t][op], `${t} ${op}`);
      assert.equal(Object.keys(OPERATION_LABELS[t]).length, PREDICATE_OPERATIONS[t].length);
    }
  });

  it('every new predicate and key filter passes the validator once the key is named', () => {
    for (const vt of ENTITY_KEY_VALUE_TYPES) {
      const kf = newKeyFilter(vt) as { key: { key: string } };
      throwsInput(() => prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters: [kf] }), 'query.keyFilters[0].key.key');
      kf.key.key = 'temperature';
      const out = prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters: [kf] });
      assert.equal(out.keyFilters![0].valueType, vt);
      assert.equal(out.keyFilters![0].predicate.type, VALUE_TYPE_PREDICATES[vt]);
    }
    for (const pt of FILTER_PREDICATE_TYPES) {
      for (const op of PREDICATE_OPERATIONS[pt]) {
        const predicate = { ...newPredicate(pt), operation: op };
        const keyFilters = [{ key: { type: 'ATTRIBUTE', key: 'k' }, predicate }];
        assert.doesNotThrow(() => prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters }), `${pt} ${op}`);
      }
    }
    assert.deepEqual(newPredicate('COMPLEX', 'STRING'), {
      type: 'COMPLEX',
      operation: 'AND',
      predicates: [{ type: 'STRING', operation: 'EQUAL', value: { defaultValue: '', dynamicValue: null }, ignoreCase: false }],
    });
  });

  it('dynamic sources: never CURRENT_DEVICE, which no query path resolves (§5.6)', () => {
    for (const m of QUERY_MODES) {
      assert.deepEqual(dynamicSourceTypes(m, false), ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER']);
      assert.deepEqual(dynamicSourceTypes(m, true), ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER']);
    }
    assert.ok(DYNAMIC_VALUE_SOURCE_TYPES.includes('CURRENT_DEVICE')); // still a known value: the validator names it
  });

  it('key types per list agree with the validator', () => {
    const ef = newEntityFilter('entityType');
    for (const t of KEY_TYPES_FOR.keyFilters) {
      assert.doesNotThrow(() => prepareEntityCountQuery({ entityFilter: ef, keyFilters: [{ key: { type: t, key: 'k' }, predicate: newPredicate('NUMERIC') }] }));
    }
    assert.ok(!KEY_TYPES_FOR.keyFilters.includes('ALARM_FIELD'));
    throwsInput(
      () => prepareEntityCountQuery({ entityFilter: ef, keyFilters: [{ key: { type: 'ALARM_FIELD', key: 'k' }, predicate: newPredicate('NUMERIC') }] }),
      'query.keyFilters[0].key.type',
    );
    const keys = (types: readonly string[]) => types.map((type) => ({ type, key: 'k' }));
    assert.doesNotThrow(() => prepareEntityDataQuery({ entityFilter: ef, entityFields: keys(KEY_TYPES_FOR.entityFields), latestValues: keys(KEY_TYPES_FOR.latestValues) }));
    assert.doesNotThrow(() => prepareAlarmDataQuery({ entityFilter: ef, alarmFields: keys(KEY_TYPES_FOR.alarmFields) }));
    for (const t of KEY_TYPES_FOR.entitySort) {
      assert.doesNotThrow(() => prepareEntityDataQuery({ entityFilter: ef, pageLink: { sortOrder: { key: { type: t, key: 'k' } } } }));
    }
    throwsInput(() => prepareEntityDataQuery({ entityFilter: ef, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'k' } } } }), 'query.pageLink.sortOrder.key.type');
    for (const t of KEY_TYPES_FOR.alarmSort) {
      assert.doesNotThrow(() => prepareAlarmDataQuery({ entityFilter: ef, pageLink: { sortOrder: { key: { type: t, key: 'k' } } } }));
    }
    assert.deepEqual([...KEY_TYPES_FOR.alarmSort], [...ENTITY_KEY_TYPES]);
  });
});

describe('query/schema: modes and default queries', () => {
  it('each mode lists its parts in order', () => {
    assert.deepEqual(MODE_SCHEMA.entityData.parts, ['entityFilter', 'keyFilters', 'fields', 'page']);
    assert.deepEqual(MODE_SCHEMA.entityCount.parts, ['entityFilter', 'keyFilters']);
    assert.deepEqual(MODE_SCHEMA.alarmData.parts, ['alarm', 'entityFilter', 'keyFilters', 'fields', 'page']);
    assert.deepEqual(MODE_SCHEMA.alarmCount.parts, ['alarm', 'entityFilter', 'keyFilters']);
    assert.equal(MODE_SCHEMA.alarmData.alarmFilterAt, 'pageLink');
    assert.equal(MODE_SCHEMA.alarmCount.alarmFilterAt, '');
    assert.equal(MODE_SCHEMA.entityData.alarmFilterAt, null);
    assert.deepEqual(
      QUERY_MODES.filter((m) => MODE_SCHEMA[m].entityFilterOptional),
      ['alarmCount'],
    );
    assert.deepEqual(MODE_SCHEMA.alarmData.fieldLists, ['alarmFields', 'entityFields', 'latestValues']);
    assert.deepEqual(MODE_SCHEMA.entityData.fieldLists, ['entityFields', 'latestValues']);
    for (const m of QUERY_MODES) {
      const s = MODE_SCHEMA[m];
      assert.equal(s.mode, m);
      assert.equal(s.parts.includes('fields'), s.fieldLists.length > 0, m);
      assert.equal(s.parts.includes('page'), s.pageFields.length > 0, m);
      assert.equal(s.parts.includes('alarm'), s.alarmFilterAt !== null, m);
      assert.equal(s.parts.includes('alarm'), s.alarmFilterFields.length > 0, m);
    }
  });

  it('the alarm filter and page fields are all read by the validator, in the right place', () => {
    const alarmFields: Record<string, unknown> = {};
    for (const f of ALARM_FILTER_FIELDS) alarmFields[f.name] = sample(f);
    const data = prepareAlarmDataQuery({ entityFilter: newEntityFilter('entityType'), pageLink: { ...alarmFields } }) as unknown as { pageLink: Record<string, unknown> };
    for (const f of ALARM_FILTER_FIELDS) assert.deepEqual(data.pageLink[f.name], alarmFields[f.name], `pageLink.${f.name}`);
    const count = prepareAlarmCountQuery({ ...alarmFields }) as unknown as Record<string, unknown>;
    for (const f of ALARM_FILTER_FIELDS) assert.deepEqual(count[f.name], alarmFields[f.name], f.name);
    for (const mode of ['entityData', 'alarmData'] as const) {
      const page: Record<string, unknown> = {};
      for (const f of MODE_SCHEMA[mode].pageFields) page[f.name] = f.kind === 'int' ? 3 : sample(f);
      const out = (PREPARE[mode]({ entityFilter: newEntityFilter('entityType'), pageLink: page }) as { pageLink: Record<string, unknown> }).pageLink;
      for (const f of MODE_SCHEMA[mode].pageFields) assert.deepEqual(out[f.name], page[f.name], `${mode} pageLink.${f.name}`);
    }
    assert.deepEqual(ALARM_FILTER_FIELDS.find((f) => f.name === 'statusList')!.options, ALARM_SEARCH_STATUSES);
    assert.deepEqual(ALARM_FILTER_FIELDS.find((f) => f.name === 'severityList')!.options, ALARM_SEVERITIES);
  });

  it('defaultQuery: neutral queries, already in the validator\'s output form', () => {
    assert.deepEqual(defaultQuery('entityData'), {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [],
      entityFields: [
        { type: 'ENTITY_FIELD', key: 'name' },
        { type: 'ENTITY_FIELD', key: 'type' },
        { type: 'ENTITY_FIELD', key: 'label' },
      ],
      latestValues: [],
      pageLink: { page: 0, pageSize: 100, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
    });
    assert.deepEqual(defaultQuery('entityCount'), { entityFilter: { type: 'entityType', entityType: 'DEVICE' }, keyFilters: [] });
    const alarm = defaultQuery('alarmData') as { pageLink: Record<string, unknown>; alarmFields: unknown[] };
    assert.deepEqual(alarm.pageLink, {
      page: 0,
      pageSize: 100,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      statusList: ['ACTIVE'],
    });
    assert.equal(alarm.alarmFields.length, 5);
    assert.deepEqual(defaultQuery('alarmCount'), { keyFilters: [], statusList: ['ACTIVE'] });
    for (const m of QUERY_MODES) {
      const q = defaultQuery(m);
      assert.deepEqual(PREPARE[m](q), q, m);
      assert.deepEqual(Object.keys(PREPARE[m](q) as object), Object.keys(q), `${m}: same key order`);
      // Fresh objects each time.
      (q as Record<string, unknown>).extra = 1;
      assert.equal((defaultQuery(m) as Record<string, unknown>).extra, undefined);
    }
    assert.throws(() => defaultQuery('nope' as QueryMode), /unknown query mode/);
  });

  it('builderCoverage: a default query holds nothing; fields without a control are held', () => {
    for (const m of QUERY_MODES) assert.deepEqual(heldPaths(defaultQuery(m), builderCoverage(m, defaultQuery(m))), [], m);
    const q = {
      entityFilter: { type: 'relationsQuery', rootEntity: { entityType: 'ASSET', id: U1 }, direction: 'FROM', rootStateEntity: true, resolveMultiple: true },
      keyFilters: [{ key: { type: 'TIME_SERIES', key: 't' }, valueType: 'NUMERIC', predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1, resolvedValue: 3 } }, note: 'x' }],
      pageLink: { pageSize: 10, page: 0, sortOrder: null, dynamic: true, statusList: ['ACTIVE'] },
      entityFields: [],
      latestValues: [{ type: 'TIME_SERIES', key: 't' }],
      extra: { a: [1] },
    };
    assert.deepEqual(heldPaths(q, builderCoverage('entityData', q)), [
      'entityFilter.rootStateEntity',
      'entityFilter.resolveMultiple',
      'keyFilters.0.predicate.value.resolvedValue',
      'keyFilters.0.note',
      'pageLink.dynamic',
      'pageLink.statusList.0',
      'extra.a.0',
    ]);
    // A live subscription has the "dynamic" control.
    assert.ok(!heldPaths(q, builderCoverage('entityData', q, { live: true })).includes('pageLink.dynamic'));
    // Nested groups: every level's operation and values are covered, a userValue is held.
    const nested = {
      ...defaultQuery('entityCount'),
      keyFilters: [{
        key: { type: 'TIME_SERIES', key: 't' }, valueType: 'NUMERIC',
        predicate: { type: 'COMPLEX', operation: 'OR', predicates: [
          { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 0 } },
          { type: 'COMPLEX', operation: 'AND', predicates: [{ type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 5, userValue: 6 } }] },
        ] },
      }],
    };
    assert.deepEqual(heldPaths(nested, builderCoverage('entityCount', nested)), ['keyFilters.0.predicate.predicates.1.predicates.0.value.userValue']);
    // An entity count shows no page or fields; a multiRoot relation query does not show rootEntity.
    const count = { ...q, entityFilter: { ...q.entityFilter, multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: [U1] } };
    const held = heldPaths(count, builderCoverage('entityCount', count));
    assert.ok(held.includes('entityFilter.rootEntity.id') && held.includes('pageLink.pageSize') && held.includes('latestValues.0.key'));
    assert.ok(!held.includes('entityFilter.multiRootEntityIds.0'));
    // Alarm counts hold pageLink filter fields (they only fill blanks) but cover the top-level ones.
    const ac = { statusList: ['ACTIVE'], severityList: [], pageLink: { typeList: ['x'] } };
    assert.deepEqual(heldPaths(ac, builderCoverage('alarmCount', ac)), ['pageLink.typeList.0']);
    const ad = defaultQuery('alarmData') as { pageLink: Record<string, unknown> };
    ad.pageLink.dynamic = true;
    assert.deepEqual(heldPaths(ad, builderCoverage('alarmData', ad)), ['pageLink.dynamic']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// JSON schema
// ---------------------------------------------------------------------------------------------------------------

describe('query/schema: JSON schema', () => {
  const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  const validator = (mode: QueryMode, live?: boolean): ValidateFunction => {
    const k = `${mode}/${live}`;
    if (!validators.has(k)) validators.set(k, ajv.compile(live === undefined ? jsonSchema(mode) : jsonSchema(mode, { live })));
    return validators.get(k)!;
  };
  const schemaOk = (mode: QueryMode, q: unknown, live?: boolean): boolean => validator(mode, live)(q) as boolean;
  const runtimeOk = (mode: QueryMode, q: unknown, live?: boolean): boolean => {
    try {
      PREPARE[mode](q, 'query', live === undefined ? undefined : { live });
      return true;
    } catch (e) {
      if (!(e instanceof TbInputError)) throw e;
      return false;
    }
  };

  it('is a valid draft-07 schema for every mode (ajv strict mode)', () => {
    for (const m of QUERY_MODES) {
      const s = jsonSchema(m);
      assert.equal(s.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.ok(ajv.validateSchema(s), JSON.stringify(ajv.errors));
      validator(m);
    }
  });

  it('uses the validator\'s own UUID pattern and enum lists', () => {
    const text = JSON.stringify(jsonSchema('alarmData'));
    assert.ok(text.includes(JSON.stringify(UUID_PATTERN)));
    for (const t of ENTITY_FILTER_TYPES) assert.ok(text.includes(`{"const":"${t}"}`), t);
  });

  it('accepts the default queries and every full filter of the table', () => {
    for (const m of QUERY_MODES) assert.ok(schemaOk(m, defaultQuery(m)), `${m}: ${JSON.stringify(validator(m).errors)}`);
    for (const t of ENTITY_FILTER_TYPES) {
      for (const base of variants(ENTITY_FILTER_SCHEMA[t])) {
        const entityFilter = fullFilter(ENTITY_FILTER_SCHEMA[t], base);
        for (const m of QUERY_MODES) {
          assert.ok(schemaOk(m, { ...defaultQuery(m), entityFilter }), `${m} ${JSON.stringify(entityFilter)}: ${JSON.stringify(validator(m).errors)}`);
        }
      }
    }
  });

  const DEV = { type: 'entityType', entityType: 'DEVICE' };
  const kf = (predicate: unknown, extra: Record<string, unknown> = {}) => ({ entityFilter: DEV, keyFilters: [{ key: { type: 'TIME_SERIES', key: 't' }, predicate, ...extra }] });
  const num = (value: unknown, operation = 'GREATER') => ({ type: 'NUMERIC', operation, value });

  /** [description, mode, query]: the schema and the runtime validator must agree on each. */
  const CORPUS: [string, QueryMode, unknown][] = [
    ['empty entity query', 'entityData', {}],
    ['empty alarm count', 'alarmCount', {}],
    ['null entity filter on a count of alarms', 'alarmCount', { entityFilter: null }],
    ['filter type unknown', 'entityCount', { entityFilter: { type: 'stateEntity' } }],
    ['filter type with the wrong case', 'entityCount', { entityFilter: { type: 'EntityType', entityType: 'DEVICE' } }],
    ['entity type unknown', 'entityCount', { entityFilter: { type: 'entityType', entityType: 'device' } }],
    ['entity type missing', 'entityCount', { entityFilter: { type: 'entityType' } }],
    ['entityList empty', 'entityCount', { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: [] } }],
    ['entityList bad uuid', 'entityCount', { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: ['x'] } }],
    ['entityList upper-case uuid', 'entityCount', { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: [U1.toUpperCase()] } }],
    ['entityName without the name filter', 'entityCount', { entityFilter: { type: 'entityName', entityType: 'DEVICE' } }],
    ['deviceType list empty', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: [] } }],
    ['deviceType singular', 'entityCount', { entityFilter: { type: 'deviceType', deviceType: 'a' } }],
    ['deviceType empty list and singular', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: [], deviceType: 'a' } }],
    ['deviceType empty singular', 'entityCount', { entityFilter: { type: 'deviceType', deviceType: '' } }],
    ['deviceType null name filter', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: ['a'], deviceNameFilter: null } }],
    ['deviceType numeric name filter', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: ['a'], deviceNameFilter: 1 } }],
    ['assetType list of numbers', 'entityCount', { entityFilter: { type: 'assetType', assetTypes: [1] } }],
    ['singleEntity alias', 'entityCount', { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER' } } }],
    ['singleEntity without id', 'entityCount', { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE' } } }],
    ['singleEntity alias with a bad id', 'entityCount', { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: 'x' } } }],
    ['singleEntity alias with a null id', 'entityCount', { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: null } } }],
    ['apiUsageState with a customer uuid string', 'entityCount', { entityFilter: { type: 'apiUsageState', customerId: U1 } }],
    ['apiUsageState with a user id', 'entityCount', { entityFilter: { type: 'apiUsageState', customerId: { entityType: 'USER', id: U1 } } }],
    ['apiUsageState with a customer id without type', 'entityCount', { entityFilter: { type: 'apiUsageState', customerId: { id: U1 } } }],
    ['relationsQuery without root', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM' } }],
    ['relationsQuery without direction', 'entityCount', { entityFilter: { type: 'relationsQuery', rootEntity: { entityType: 'ASSET', id: U1 } } }],
    ['relationsQuery multiRoot without ids', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: true, multiRootEntitiesType: 'ASSET' } }],
    ['relationsQuery multiRoot with empty ids', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: [] } }],
    ['relationsQuery multiRoot false with empty ids', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: false, rootEntity: { entityType: 'ASSET', id: U1 }, multiRootEntityIds: [] } }],
    ['relationsQuery multiRoot null and a root', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: null, rootEntity: { entityType: 'ASSET', id: U1 } } }],
    ['relationsQuery multiRoot as a string', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: 'true', rootEntity: { entityType: 'ASSET', id: U1 } } }],
    ['relationsQuery negative level', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, maxLevel: -1 } }],
    ['relationsQuery fractional level', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, maxLevel: 1.5 } }],
    ['relationsQuery filter with a bad entity type', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, filters: [{ entityTypes: ['X'] }] } }],
    ['relationsQuery filters null', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, filters: null } }],
    ['search query without root', 'entityCount', { entityFilter: { type: 'deviceSearchQuery', direction: 'FROM' } }],
    ['search query with a bad direction', 'entityCount', { entityFilter: { type: 'deviceSearchQuery', direction: 'UP', rootEntity: { entityType: 'ASSET', id: U1 } } }],
    ['search query with a singular type', 'entityCount', { entityFilter: { type: 'assetSearchQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, assetType: 'x' } }],
    ['bare numeric value', 'entityCount', kf(num(20))],
    ['numeric value as a string', 'entityCount', kf(num('20'))],
    ['numeric value object', 'entityCount', kf(num({ defaultValue: 20, userValue: null, dynamicValue: null }))],
    ['numeric value without default', 'entityCount', kf(num({ userValue: 3 }))],
    ['numeric value null default and no dynamic', 'entityCount', kf(num({ defaultValue: null }))],
    ['dynamic value without default', 'entityCount', kf(num({ dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } }))],
    ['dynamic value with a bad source', 'entityCount', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_THING', sourceAttribute: 'max' } }))],
    ['dynamic value without attribute', 'entityCount', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_USER' } }))],
    ['string op on a numeric predicate', 'entityCount', kf(num(1, 'CONTAINS'))],
    ['string predicate', 'entityCount', kf({ type: 'STRING', operation: 'CONTAINS', value: 'x', ignoreCase: true })],
    ['string predicate with a number', 'entityCount', kf({ type: 'STRING', operation: 'CONTAINS', value: 1 })],
    ['boolean predicate', 'entityCount', kf({ type: 'BOOLEAN', operation: 'NOT_EQUAL', value: { defaultValue: false } })],
    ['boolean predicate with GREATER', 'entityCount', kf({ type: 'BOOLEAN', operation: 'GREATER', value: true })],
    ['complex predicate', 'entityCount', kf({ type: 'COMPLEX', operation: 'OR', predicates: [num(1), { type: 'COMPLEX', operation: 'AND', predicates: [num(2, 'LESS')] }] })],
    ['complex predicate empty', 'entityCount', kf({ type: 'COMPLEX', operation: 'OR', predicates: [] })],
    ['complex predicate empty inside another', 'entityData', kf({ type: 'COMPLEX', operation: 'AND', predicates: [{ type: 'COMPLEX', operation: 'OR', predicates: [] }] })],
    ['numeric text with spaces and an exponent', 'entityCount', kf(num({ defaultValue: ' 2e1 ' }))],
    ['numeric text with a trailing dot', 'entityCount', kf(num({ defaultValue: '5.' }))],
    ['numeric text that is not a number', 'entityCount', kf(num({ defaultValue: 'abc' }))],
    ['numeric hex text', 'entityCount', kf(num('0x10'))],
    ['numeric empty text alone', 'entityCount', kf(num({ defaultValue: '' }))],
    ['numeric "null" text alone', 'entityCount', kf(num({ defaultValue: 'null' }))],
    ['numeric empty text with a dynamic value', 'entityCount', kf(num({ defaultValue: '', dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } }))],
    ['numeric userValue as text', 'entityCount', kf(num({ userValue: '25' }))],
    ['numeric userValue empty text, nothing else', 'entityCount', kf(num({ userValue: '' }))],
    ['string userValue alone, defaultValue null', 'entityCount', kf({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: null, userValue: 'abc' } })],
    ['boolean userValue alone', 'entityCount', kf({ type: 'BOOLEAN', operation: 'EQUAL', value: { userValue: false } })],
    ['string userValue of the wrong type', 'entityCount', kf({ type: 'STRING', operation: 'EQUAL', value: { userValue: 3 } })],
    ['boolean value as text', 'entityCount', kf({ type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: 'true' } })],
    ['resolvedValue with the dynamic value', 'entityData', kf(num({ dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'a', resolvedValue: 30 } }))],
    ['resolvedValue as numeric text', 'entityData', kf(num({ dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'a', resolvedValue: '30' } }))],
    ['resolvedValue of the wrong type', 'entityCount', kf({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: '', dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a', resolvedValue: 3 } } })],
    ['CURRENT_DEVICE in an entity data query', 'entityData', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['CURRENT_DEVICE with a userValue in an entity data query', 'entityData', kf(num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['CURRENT_DEVICE with a resolvedValue in an entity data query', 'entityData', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: 3 } }))],
    ['CURRENT_DEVICE with a null resolvedValue', 'entityData', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: null } }))],
    ['CURRENT_DEVICE in a count', 'entityCount', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['CURRENT_DEVICE with a userValue in a count', 'entityCount', kf(num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['CURRENT_DEVICE with a userValue in an alarm query', 'alarmData', kf(num({ userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['CURRENT_DEVICE in an alarm count', 'alarmCount', kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }))],
    ['deviceType list with a null', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: [null] } }],
    ['search query with a null type', 'entityCount', { entityFilter: { type: 'edgeSearchQuery', direction: 'FROM', rootEntity: { entityType: 'ASSET', id: U1 }, edgeTypes: [null, 'e'] } }],
    ['alarm filter typeList with a null', 'alarmCount', { typeList: [null] }],
    ['complex predicate nested bad', 'entityCount', kf({ type: 'COMPLEX', operation: 'OR', predicates: [{ type: 'COMPLEX', operation: 'AND', predicates: [num(2, 'LIKE')] }] })],
    ['key filter with a bad value type', 'entityCount', kf(num(1), { valueType: 'NUMBER' })],
    ['key filter with DATE_TIME', 'entityCount', kf(num(1), { valueType: 'DATE_TIME' })],
    ['key filter with an alarm key', 'entityCount', { entityFilter: DEV, keyFilters: [{ key: { type: 'ALARM_FIELD', key: 't' }, predicate: num(1) }] }],
    ['key filter with an empty key', 'entityCount', { entityFilter: DEV, keyFilters: [{ key: { type: 'ATTRIBUTE', key: '' }, predicate: num(1) }] }],
    ['key filters as an object', 'entityCount', { entityFilter: DEV, keyFilters: {} }],
    ['key filters OR', 'entityCount', { entityFilter: DEV, keyFiltersOperation: 'OR' }],
    ['key filters XOR', 'entityCount', { entityFilter: DEV, keyFiltersOperation: 'XOR' }],
    ['page size 0', 'entityData', { entityFilter: DEV, pageLink: { pageSize: 0 } }],
    ['page -1', 'entityData', { entityFilter: DEV, pageLink: { page: -1 } }],
    ['pageLink null', 'entityData', { entityFilter: DEV, pageLink: null }],
    ['pageLink array', 'entityData', { entityFilter: DEV, pageLink: [] }],
    ['text search null', 'entityData', { entityFilter: DEV, pageLink: { textSearch: null } }],
    ['sort without direction', 'entityData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' } } } }],
    ['sort by an entity field the server refuses', 'entityData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'created(Time)' } } } }],
    ['sort by a Unicode entity field', 'entityData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'Température_2' } } } }],
    ['sort by a time series with a space', 'entityData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'TIME_SERIES', key: 'temp (C)' } } } }],
    ['sort by an alarm field the server refuses', 'alarmData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'a.b' }, direction: 'ASC' } } }],
    ['sort an alarm query by an entity field the server refuses', 'alarmData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'x y' }, direction: 'ASC' } } }],
    ['sort by an alarm field in an entity query', 'entityData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' } } } }],
    ['sort by an alarm field in an alarm query', 'alarmData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' }, direction: 'DESC' } } }],
    ['sort sideways', 'alarmData', { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' }, direction: 'UP' } } }],
    ['entity fields with an alarm key', 'entityData', { entityFilter: DEV, entityFields: [{ type: 'ALARM_FIELD', key: 'x' }] }],
    ['alarm fields of any key type', 'alarmData', { entityFilter: DEV, alarmFields: [{ type: 'TIME_SERIES', key: 'x' }] }],
    ['statusList with a bad value', 'alarmData', { entityFilter: DEV, pageLink: { statusList: ['OPEN'] } }],
    ['severityList with a bad value', 'alarmCount', { severityList: ['HIGH'] }],
    ['severityList in a count pageLink', 'alarmCount', { pageLink: { severityList: ['HIGH'] } }],
    ['statusList as a string', 'alarmCount', { statusList: 'ACTIVE' }],
    ['time window negative', 'alarmCount', { timeWindow: -1 }],
    ['time window in a data pageLink', 'alarmData', { entityFilter: DEV, pageLink: { timeWindow: 3600000, startTs: 0 } }],
    ['assignee uuid string', 'alarmCount', { assigneeId: U2 }],
    ['assignee of another type', 'alarmCount', { assigneeId: { entityType: 'DEVICE', id: U2 } }],
    ['assignee object', 'alarmData', { entityFilter: DEV, pageLink: { assigneeId: { entityType: 'USER', id: U2 } } }],
    ['unknown top-level properties', 'entityData', { entityFilter: DEV, comment: 'mine' }],
  ];

  for (const [name, mode, query] of CORPUS) {
    it(`agrees with the runtime validator, for REST and live: ${name}`, () => {
      for (const live of [undefined, false, true]) {
        const runtime = runtimeOk(mode, query, live);
        const schema = schemaOk(mode, query, live);
        assert.equal(schema, runtime, `live ${live}: runtime ${runtime ? 'accepts' : 'rejects'}, schema ${schema ? 'accepts' : 'rejects'}: ${JSON.stringify(validator(mode, live).errors)}`);
      }
    });
  }

  it('CURRENT_DEVICE: refused in a REST entity data query, in other REST queries only with a userValue (or a resolvedValue), accepted live', () => {
    const bare = kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }));
    const user = kf(num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }));
    const resolved = kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: 3 } }));
    assert.deepEqual([schemaOk('entityData', bare), schemaOk('entityData', user), schemaOk('entityData', resolved)], [false, false, true]);
    assert.deepEqual([schemaOk('entityCount', bare), schemaOk('entityCount', user), schemaOk('entityCount', resolved)], [false, true, true]);
    for (const mode of ['entityData', 'entityCount'] as const) {
      assert.deepEqual([schemaOk(mode, bare, true), schemaOk(mode, user, true), schemaOk(mode, resolved, true)], [true, true, true], mode);
    }
    // the REST find error points at the source type and says what is allowed
    const v = validator('entityData');
    v(user);
    assert.ok(v.errors!.some((e) => e.instancePath === '/keyFilters/0/predicate/value/dynamicValue/sourceType' && e.keyword === 'enum'), JSON.stringify(v.errors));
  });

  it('flags a sort key the server refuses at the key', () => {
    const v = validator('entityData');
    assert.equal(v({ entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'created(Time)' } } } }), false);
    assert.ok(v.errors!.some((e) => e.instancePath === '/pageLink/sortOrder/key/key' && e.keyword === 'pattern'), JSON.stringify(v.errors));
  });

  it('flags a wrong enum at its place', () => {
    const v = validator('alarmData');
    assert.equal(v({ entityFilter: DEV, pageLink: { severityList: ['CRITICAL', 'HIGH'] } }), false);
    assert.ok(v.errors!.some((e) => e.instancePath === '/pageLink/severityList/1' && e.keyword === 'enum'), JSON.stringify(v.errors));
  });

  it('describes the fields for the editor (titles from the table)', () => {
    const s = jsonSchema('entityData') as { definitions: { entityFilter: { oneOf: { title: string; properties: Record<string, { title?: string }> }[] } } };
    const device = s.definitions.entityFilter.oneOf.find((b) => b.title === ENTITY_FILTER_SCHEMA.deviceType.label)!;
    assert.equal(device.properties.deviceTypes.title ?? (device.properties.deviceTypes as { anyOf: { title: string }[] }).anyOf[0].title, 'Device profiles');
    assert.throws(() => jsonSchema('x' as QueryMode), /unknown query mode/);
  });
});
