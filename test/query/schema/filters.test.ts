import assert from 'node:assert/strict';
import { ENTITY_FILTER_TYPES } from '../../../src/protocol/types';
import {
  ENTITY_FILTER_SCHEMA,
  filterEntityType,
  newEntityFilter,
  visibleFields,
} from '../../../src/query-model/schema/filters';
import { U1, throwsInput } from '../helpers';
import { fullFilter, prepared, sample, switches, variants } from './support';

describe('query/schema/filters: entity filter table', () => {
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
        if (f.help)
          assert.ok(/^[A-Z0-9'"%]/.test(f.help) && f.help.endsWith('.'), `${t}.${f.name}: help is a sentence`);
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
          throwsInput(
            () => prepared({ ...fullFilter(spec), [field.name]: 'SIDEWAYS' }),
            `query.entityFilter.${field.name}`,
          );
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
    assert.deepEqual(names({ multiRoot: true }).slice(0, 3), [
      'multiRoot',
      'multiRootEntitiesType',
      'multiRootEntityIds',
    ]);
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
    assert.deepEqual(newEntityFilter('deviceSearchQuery'), {
      type: 'deviceSearchQuery',
      direction: 'FROM',
      maxLevel: 1,
      fetchLastLevelOnly: false,
    });
    const a = newEntityFilter('relationsQuery');
    (a.filters as unknown[]).push(1);
    assert.deepEqual(newEntityFilter('relationsQuery').filters, []);
  });

  it('leaves the dashboard-only fields out of the forms, and says so', () => {
    for (const t of [
      'relationsQuery',
      'assetSearchQuery',
      'deviceSearchQuery',
      'entityViewSearchQuery',
      'edgeSearchQuery',
    ] as const) {
      assert.deepEqual(ENTITY_FILTER_SCHEMA[t].held, ['rootStateEntity', 'defaultStateEntity']);
      assert.ok(
        !ENTITY_FILTER_SCHEMA[t].fields.some((f) => f.name === 'rootStateEntity' || f.name === 'defaultStateEntity'),
      );
    }
  });

  it('filterEntityType: the entity type a filter returns, when known', () => {
    assert.equal(filterEntityType({ type: 'deviceType', deviceTypes: ['x'] }), 'DEVICE');
    assert.equal(filterEntityType({ type: 'edgeSearchQuery' }), 'EDGE');
    assert.equal(filterEntityType({ type: 'entityName', entityType: 'CUSTOMER' }), 'CUSTOMER');
    assert.equal(filterEntityType({ type: 'entityList', entityType: 'USER', entityList: [U1] }), 'USER');
    assert.equal(filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: U1 } }), 'ASSET');
    assert.equal(filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_TENANT' } }), 'TENANT');
    assert.equal(
      filterEntityType({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER_OWNER' } }),
      undefined,
    );
    assert.equal(filterEntityType({ type: 'apiUsageState' }), 'API_USAGE_STATE');
    assert.equal(
      filterEntityType({
        type: 'relationsQuery',
        filters: [{ entityTypes: ['DEVICE'] }, { relationType: 'x', entityTypes: ['DEVICE'] }],
      }),
      'DEVICE',
    );
    assert.equal(
      filterEntityType({ type: 'relationsQuery', filters: [{ entityTypes: ['DEVICE', 'ASSET'] }] }),
      undefined,
    );
    assert.equal(filterEntityType({ type: 'relationsQuery', filters: [] }), undefined);
    assert.equal(
      filterEntityType({ type: 'relationsQuery', negate: true, filters: [{ entityTypes: ['DEVICE'] }] }),
      undefined,
    );
    assert.equal(filterEntityType(null), undefined);
    assert.equal(filterEntityType({ type: 'nope' }), undefined);
  });
});
