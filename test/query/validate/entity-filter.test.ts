import assert from 'node:assert/strict';
import { ALIAS_ENTITY_TYPES, ENTITY_FILTER_TYPES, type EntityFilter } from '../../../src/protocol/types';
import { prepareEntityCountQuery, prepareEntityDataQuery } from '../../../src/protocol/validate';
import { U1, U2, U3, throwsInput } from '../helpers';

/** The wire copy of a filter, through a count query. */
function filter(entityFilter: unknown): EntityFilter {
  return prepareEntityCountQuery({ entityFilter }).entityFilter;
}

const F = 'query.entityFilter';
const ENTITY_TYPE_TEXT = 'an entity type such as DEVICE, ASSET';

describe('query/validate/entity-filter: entity filters', () => {
  describe('filter type', () => {
    it('requires an entityFilter object', () => {
      throwsInput(() => prepareEntityCountQuery({}), F, 'must be an entity filter object', '(missing)');
      throwsInput(() => prepareEntityCountQuery({ entityFilter: 'DEVICE' }), F, '(got "DEVICE")');
      throwsInput(() => prepareEntityCountQuery({ entityFilter: [] }), F, '(got [])');
    });

    it('rejects unknown types and lists all 14', () => {
      const err = throwsInput(() => filter({ type: 'stateEntity' }), `${F}.type`, '(got "stateEntity")');
      for (const t of ENTITY_FILTER_TYPES) assert.ok(err.message.includes(t), t);
      assert.equal(ENTITY_FILTER_TYPES.length, 14);
      throwsInput(() => filter({ type: 'apiKey' }), `${F}.type`, 'must be one of singleEntity, entityList');
      throwsInput(() => filter({}), `${F}.type`, '(missing)');
    });

    it('compares the type exactly but suggests the right case', () => {
      throwsInput(
        () => filter({ type: 'EntityType', entityType: 'DEVICE' }),
        `${F}.type`,
        'did you mean "entityType"?',
      );
      throwsInput(() => filter({ type: 'devicetype', deviceTypes: ['x'] }), `${F}.type`, 'did you mean "deviceType"?');
    });
  });

  describe('singleEntity', () => {
    it('keeps an entity id and drops unknown fields', () => {
      assert.deepEqual(
        filter({
          type: 'singleEntity',
          singleEntity: { entityType: 'DEVICE', id: U1, name: 'x' },
          resolveMultiple: false,
        }),
        {
          type: 'singleEntity',
          singleEntity: { entityType: 'DEVICE', id: U1 },
        },
      );
    });

    it('accepts upper-case UUIDs', () => {
      assert.deepEqual(filter({ type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: U3 } }), {
        type: 'singleEntity',
        singleEntity: { entityType: 'ASSET', id: U3 },
      });
    });

    it('accepts every alias entity id, with or without id', () => {
      for (const alias of ALIAS_ENTITY_TYPES) {
        assert.deepEqual(filter({ type: 'singleEntity', singleEntity: { entityType: alias } }), {
          type: 'singleEntity',
          singleEntity: { entityType: alias },
        });
      }
      assert.deepEqual(filter({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: U2 } }), {
        type: 'singleEntity',
        singleEntity: { entityType: 'CURRENT_CUSTOMER', id: U2 },
      });
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: 'nope' } }),
        `${F}.singleEntity.id`,
        'must be a UUID',
      );
    });

    it('names the missing or wrong parts', () => {
      throwsInput(() => filter({ type: 'singleEntity' }), `${F}.singleEntity`, 'must be an entity id', '(missing)');
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { id: U1 } }),
        `${F}.singleEntity.entityType`,
        ENTITY_TYPE_TEXT,
        'CURRENT_USER, CURRENT_TENANT, CURRENT_CUSTOMER, CURRENT_USER_OWNER',
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'DEVICE' } }),
        `${F}.singleEntity.id`,
        'must be a UUID',
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: `${U1}x` } }),
        `${F}.singleEntity.id`,
        'must be a UUID',
      );
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'WIDGET', id: U1 } }),
        `${F}.singleEntity.entityType`,
        '(got "WIDGET")',
      );
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'device', id: U1 } }),
        `${F}.singleEntity.entityType`,
        'did you mean "DEVICE"?',
      );
      throwsInput(
        () => filter({ type: 'singleEntity', singleEntity: { entityType: 'current_tenant' } }),
        `${F}.singleEntity.entityType`,
        'did you mean "CURRENT_TENANT"?',
      );
    });
  });

  describe('entityList', () => {
    it('keeps entityType and the UUID list', () => {
      assert.deepEqual(filter({ type: 'entityList', entityType: 'DEVICE', entityList: [U1, U2], x: 1 }), {
        type: 'entityList',
        entityType: 'DEVICE',
        entityList: [U1, U2],
      });
    });

    it('checks entityType and each UUID', () => {
      throwsInput(
        () => filter({ type: 'entityList', entityList: [U1] }),
        `${F}.entityType`,
        ENTITY_TYPE_TEXT,
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'entityList', entityType: 'DEVICE' }),
        `${F}.entityList`,
        'non-empty array of UUID strings',
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'entityList', entityType: 'DEVICE', entityList: [] }),
        `${F}.entityList`,
        '(got [])',
      );
      throwsInput(
        () => filter({ type: 'entityList', entityType: 'DEVICE', entityList: U1 }),
        `${F}.entityList`,
        'array',
      );
      throwsInput(
        () => filter({ type: 'entityList', entityType: 'DEVICE', entityList: [U1, 'abc'] }),
        `${F}.entityList[1]`,
        'must be a UUID',
        '(got "abc")',
      );
      throwsInput(
        () => filter({ type: 'entityList', entityType: 'DEVICE', entityList: [U1, 7] }),
        `${F}.entityList[1]`,
        '(got 7)',
      );
    });
  });

  describe('entityName', () => {
    it('keeps entityType and entityNameFilter', () => {
      assert.deepEqual(filter({ type: 'entityName', entityType: 'ASSET', entityNameFilter: 'Build', extra: true }), {
        type: 'entityName',
        entityType: 'ASSET',
        entityNameFilter: 'Build',
      });
    });

    it('requires both', () => {
      throwsInput(
        () => filter({ type: 'entityName', entityNameFilter: 'x' }),
        `${F}.entityType`,
        ENTITY_TYPE_TEXT,
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'entityName', entityType: 'DEVICE' }),
        `${F}.entityNameFilter`,
        'must be a string',
        '(missing)',
      );
      throwsInput(
        () => filter({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: 5 }),
        `${F}.entityNameFilter`,
        '(got 5)',
      );
      throwsInput(
        () => filter({ type: 'entityName', entityType: 42, entityNameFilter: 'x' }),
        `${F}.entityType`,
        '(got 42)',
      );
    });
  });

  describe('entityType', () => {
    it('keeps entityType', () => {
      assert.deepEqual(filter({ type: 'entityType', entityType: 'CUSTOMER', entityNameFilter: 'ignored' }), {
        type: 'entityType',
        entityType: 'CUSTOMER',
      });
    });

    it('requires an entity type', () => {
      throwsInput(() => filter({ type: 'entityType' }), `${F}.entityType`, ENTITY_TYPE_TEXT, '(missing)');
      throwsInput(
        () => filter({ type: 'entityType', entityType: 'Device' }),
        `${F}.entityType`,
        'did you mean "DEVICE"?',
      );
    });
  });

  const typeFilters = [
    ['assetType', 'assetTypes', 'assetType', 'assetNameFilter'],
    ['deviceType', 'deviceTypes', 'deviceType', 'deviceNameFilter'],
    ['edgeType', 'edgeTypes', 'edgeType', 'edgeNameFilter'],
    ['entityViewType', 'entityViewTypes', 'entityViewType', 'entityViewNameFilter'],
  ] as const;
  for (const [type, plural, singular, nameFilter] of typeFilters) {
    describe(type, () => {
      it(`keeps ${plural} and ${nameFilter}`, () => {
        assert.deepEqual(filter({ type, [plural]: ['a', 'b'], [nameFilter]: 'Th', junk: 1 }), {
          type,
          [plural]: ['a', 'b'],
          [nameFilter]: 'Th',
        });
        assert.deepEqual(filter({ type, [plural]: ['a'] }), { type, [plural]: ['a'] });
      });

      it(`normalises the deprecated singular ${singular} to ${plural}`, () => {
        assert.deepEqual(filter({ type, [singular]: 'thermostat' }), { type, [plural]: ['thermostat'] });
        assert.deepEqual(filter({ type, [plural]: [], [singular]: 'thermostat' }), { type, [plural]: ['thermostat'] });
        // the plural list wins when it is not empty
        assert.deepEqual(filter({ type, [plural]: ['a'], [singular]: 'b' }), { type, [plural]: ['a'] });
      });

      it(`keeps a null item of ${plural} (Jackson's empty Java filter: the server matches no entity)`, () => {
        assert.deepEqual(filter({ type, [plural]: [null] }), { type, [plural]: [null] });
        assert.deepEqual(filter({ type, [plural]: ['a', null] }), { type, [plural]: ['a', null] });
      });

      it(`requires a non-empty ${plural}`, () => {
        throwsInput(() => filter({ type }), `${F}.${plural}`, 'non-empty array', '(missing)');
        throwsInput(() => filter({ type, [plural]: [] }), `${F}.${plural}`, '(got [])');
        throwsInput(
          () => filter({ type, [plural]: 'a' }),
          `${F}.${plural}`,
          'must be an array of strings',
          '(got "a")',
        );
        throwsInput(() => filter({ type, [plural]: ['a', 3] }), `${F}.${plural}[1]`, 'must be a string', '(got 3)');
        throwsInput(() => filter({ type, [singular]: 3 }), `${F}.${singular}`, 'must be a string');
        throwsInput(
          () => filter({ type, [plural]: ['a'], [nameFilter]: {} }),
          `${F}.${nameFilter}`,
          'must be a string',
          '(got an object)',
        );
      });
    });
  }

  describe('apiUsageState', () => {
    it('has an optional customerId', () => {
      assert.deepEqual(filter({ type: 'apiUsageState', other: 1 }), { type: 'apiUsageState' });
      assert.deepEqual(filter({ type: 'apiUsageState', customerId: { entityType: 'CUSTOMER', id: U1, x: 1 } }), {
        type: 'apiUsageState',
        customerId: { entityType: 'CUSTOMER', id: U1 },
      });
      assert.deepEqual(filter({ type: 'apiUsageState', customerId: U1 }), {
        type: 'apiUsageState',
        customerId: { entityType: 'CUSTOMER', id: U1 },
      });
    });

    it('checks customerId', () => {
      throwsInput(
        () => filter({ type: 'apiUsageState', customerId: { entityType: 'USER', id: U1 } }),
        `${F}.customerId.entityType`,
        'must be CUSTOMER',
        '(got "USER")',
      );
      throwsInput(
        () => filter({ type: 'apiUsageState', customerId: { entityType: 'CUSTOMER' } }),
        `${F}.customerId.id`,
        'must be a UUID',
      );
      throwsInput(() => filter({ type: 'apiUsageState', customerId: 'bad' }), `${F}.customerId`, 'must be a UUID');
    });
  });

  describe('relationsQuery', () => {
    const base = {
      type: 'relationsQuery',
      rootEntity: { entityType: 'ASSET', id: U1 },
      direction: 'FROM',
      filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'], negate: false, extra: 'x' }],
      maxLevel: 2,
      fetchLastLevelOnly: true,
    };

    it('keeps every known field and drops the others', () => {
      assert.deepEqual(
        filter({
          ...base,
          negate: false,
          rootStateEntity: false,
          defaultStateEntity: { entityType: 'CURRENT_USER' },
          multiRoot: false,
          resolveMultiple: true,
        }),
        {
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: U1 },
          multiRoot: false,
          direction: 'FROM',
          maxLevel: 2,
          fetchLastLevelOnly: true,
          rootStateEntity: false,
          defaultStateEntity: { entityType: 'CURRENT_USER' },
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'], negate: false }],
          negate: false,
        },
      );
    });

    it('defaults filters to [] and accepts filter elements with optional fields', () => {
      assert.deepEqual(
        filter({ type: 'relationsQuery', rootEntity: { entityType: 'CURRENT_TENANT' }, direction: 'TO' }),
        {
          type: 'relationsQuery',
          rootEntity: { entityType: 'CURRENT_TENANT' },
          direction: 'TO',
          filters: [],
        },
      );
      assert.deepEqual(
        filter({ ...base, filters: [{}, { relationType: 'Manages' }, { entityTypes: [] }] }).type,
        'relationsQuery',
      );
      assert.deepEqual(
        (filter({ ...base, filters: [{}, { relationType: 'Manages' }] }) as { filters: unknown }).filters,
        [{}, { relationType: 'Manages' }],
      );
    });

    it('accepts maxLevel 0', () => {
      assert.equal((filter({ ...base, maxLevel: 0 }) as { maxLevel: number }).maxLevel, 0);
    });

    it('needs rootEntity unless multiRoot', () => {
      const { rootEntity: _r, ...noRoot } = base;
      throwsInput(() => filter(noRoot), `${F}.rootEntity`, 'must be an entity id', 'multiRoot');
      throwsInput(
        () => filter({ ...base, rootEntity: { entityType: 'ASSET' } }),
        `${F}.rootEntity.id`,
        'must be a UUID',
      );
    });

    it('multiRoot needs multiRootEntitiesType and a non-empty multiRootEntityIds', () => {
      const { rootEntity: _r, ...noRoot } = base;
      assert.deepEqual(
        filter({ ...noRoot, multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: [U1, U2] }),
        {
          type: 'relationsQuery',
          multiRoot: true,
          multiRootEntitiesType: 'ASSET',
          multiRootEntityIds: [U1, U2],
          direction: 'FROM',
          maxLevel: 2,
          fetchLastLevelOnly: true,
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'], negate: false }],
        },
      );
      throwsInput(
        () => filter({ ...noRoot, multiRoot: true, multiRootEntityIds: [U1] }),
        `${F}.multiRootEntitiesType`,
        ENTITY_TYPE_TEXT,
        '(missing)',
      );
      throwsInput(
        () => filter({ ...noRoot, multiRoot: true, multiRootEntitiesType: 'ASSET' }),
        `${F}.multiRootEntityIds`,
        'non-empty array of UUID strings',
        '(missing)',
      );
      throwsInput(
        () => filter({ ...noRoot, multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: [] }),
        `${F}.multiRootEntityIds`,
        '(got [])',
      );
      throwsInput(
        () => filter({ ...noRoot, multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: ['x'] }),
        `${F}.multiRootEntityIds[0]`,
        'UUID',
      );
      throwsInput(
        () => filter({ ...base, multiRoot: 'yes' }),
        `${F}.multiRoot`,
        'must be true or false',
        '(got "yes")',
      );
    });

    it('checks direction, filters and maxLevel', () => {
      throwsInput(
        () => filter({ ...base, direction: undefined }),
        `${F}.direction`,
        'must be one of FROM, TO',
        '(missing)',
      );
      throwsInput(() => filter({ ...base, direction: 'from' }), `${F}.direction`, 'did you mean "FROM"?');
      throwsInput(() => filter({ ...base, direction: 'BOTH' }), `${F}.direction`, 'FROM, TO', '(got "BOTH")');
      throwsInput(() => filter({ ...base, filters: {} }), `${F}.filters`, 'must be an array');
      throwsInput(() => filter({ ...base, filters: ['Contains'] }), `${F}.filters[0]`, 'must be an object');
      throwsInput(
        () => filter({ ...base, filters: [{ relationType: 1 }] }),
        `${F}.filters[0].relationType`,
        'must be a string',
      );
      throwsInput(
        () => filter({ ...base, filters: [{ entityTypes: 'DEVICE' }] }),
        `${F}.filters[0].entityTypes`,
        'array of entity types',
      );
      throwsInput(
        () => filter({ ...base, filters: [{}, { entityTypes: ['DEVICE', 'device'] }] }),
        `${F}.filters[1].entityTypes[1]`,
        'did you mean "DEVICE"?',
      );
      throwsInput(() => filter({ ...base, filters: [{ negate: 'no' }] }), `${F}.filters[0].negate`, 'true or false');
      throwsInput(() => filter({ ...base, maxLevel: -1 }), `${F}.maxLevel`, 'must be an integer >= 0', '(got -1)');
      throwsInput(() => filter({ ...base, maxLevel: 1.5 }), `${F}.maxLevel`, '(got 1.5)');
      throwsInput(() => filter({ ...base, maxLevel: '2' }), `${F}.maxLevel`, '(got "2")');
      throwsInput(() => filter({ ...base, fetchLastLevelOnly: 1 }), `${F}.fetchLastLevelOnly`, 'true or false');
      throwsInput(() => filter({ ...base, negate: 'false' }), `${F}.negate`, 'true or false');
      throwsInput(
        () => filter({ ...base, defaultStateEntity: { entityType: 'DEVICE' } }),
        `${F}.defaultStateEntity.id`,
        'UUID',
      );
    });
  });

  const searchQueries = [
    ['assetSearchQuery', 'assetTypes'],
    ['deviceSearchQuery', 'deviceTypes'],
    ['entityViewSearchQuery', 'entityViewTypes'],
    ['edgeSearchQuery', 'edgeTypes'],
  ] as const;
  for (const [type, plural] of searchQueries) {
    describe(type, () => {
      const base = { type, rootEntity: { entityType: 'ASSET', id: U1 }, direction: 'FROM', relationType: 'Contains' };

      it('keeps the common fields and the type list, drops others', () => {
        assert.deepEqual(
          filter({
            ...base,
            [plural]: ['t1'],
            maxLevel: 1,
            fetchLastLevelOnly: false,
            rootStateEntity: true,
            defaultStateEntity: { entityType: 'DEVICE', id: U2 },
            filters: [],
          }),
          {
            type,
            rootEntity: { entityType: 'ASSET', id: U1 },
            relationType: 'Contains',
            direction: 'FROM',
            maxLevel: 1,
            fetchLastLevelOnly: false,
            rootStateEntity: true,
            defaultStateEntity: { entityType: 'DEVICE', id: U2 },
            [plural]: ['t1'],
          },
        );
      });

      it('has an optional relationType and type list', () => {
        assert.deepEqual(filter({ type, rootEntity: { entityType: 'CURRENT_USER_OWNER' }, direction: 'TO' }), {
          type,
          rootEntity: { entityType: 'CURRENT_USER_OWNER' },
          direction: 'TO',
        });
        assert.deepEqual(filter({ ...base, [plural]: [] }), { ...base, [plural]: [] });
      });

      it(`has no singular ${plural.slice(0, -1)}: the server ignores it, so it is dropped, not turned into ${plural}`, () => {
        const singular = plural.slice(0, -1);
        assert.deepEqual(filter({ ...base, [singular]: 't1' }), base);
        assert.deepEqual(filter({ ...base, [plural]: [], [singular]: 't1' }), { ...base, [plural]: [] });
        assert.deepEqual(filter({ ...base, [plural]: ['t2'], [singular]: 't1' }), { ...base, [plural]: ['t2'] });
        assert.deepEqual(filter({ ...base, [plural]: [null] }), { ...base, [plural]: [null] });
      });

      it('names the wrong fields', () => {
        throwsInput(
          () => filter({ ...base, rootEntity: undefined }),
          `${F}.rootEntity`,
          'must be an entity id',
          '(missing)',
        );
        throwsInput(() => filter({ ...base, direction: undefined }), `${F}.direction`, 'FROM, TO', '(missing)');
        throwsInput(
          () => filter({ ...base, relationType: ['Contains'] }),
          `${F}.relationType`,
          'must be a string',
          '(got an array)',
        );
        throwsInput(() => filter({ ...base, [plural]: [1] }), `${F}.${plural}[0]`, 'must be a string');
        throwsInput(() => filter({ ...base, maxLevel: -2 }), `${F}.maxLevel`, 'integer >= 0');
      });
    });
  }

  it('uses the given field name in paths', () => {
    throwsInput(
      () => prepareEntityDataQuery({ entityFilter: { type: 'entityType' } }, 'msg.query'),
      'msg.query.entityFilter.entityType',
      '(missing)',
    );
  });
});
