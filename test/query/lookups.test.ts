import assert from 'node:assert/strict';
import {
  entityNames,
  entityNamesQuery,
  entitySearchQuery,
  literalTextSearch,
  MAX_RESOLVE_IDS,
  nameListParam,
  oneOfParam,
  parseIds,
  profileKeysQuery,
} from '../../src/protocol/lookups';
import type { EntityData } from '../../src/protocol/types';
import { throwsInput, U1, U2, U3 } from './helpers';

const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const BY_NAME = { key: NAME, direction: 'ASC' };

describe('query: editor look-ups', () => {
  it('entity search: name only, sorted by name, 50 at most, a literal "contains" through textSearch', () => {
    assert.deepEqual(entitySearchQuery('DEVICE', 'Thermo'), {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [],
      entityFields: [NAME],
      latestValues: [],
      pageLink: { page: 0, pageSize: 50, textSearch: 'Thermo', sortOrder: BY_NAME },
    });
    assert.ok(!('textSearch' in entitySearchQuery('ASSET', '').pageLink), 'no search, no textSearch');
    assert.equal(entitySearchQuery('ASSET', '50%_off\\', 10).pageLink.textSearch, '50\\%\\_off\\\\');
    assert.equal(literalTextSearch('a%b_c'), 'a\\%b\\_c');
  });

  it('names of ids: an entityList filter, a page as large as the list', () => {
    assert.deepEqual(entityNamesQuery('ASSET', [U1, U2]), {
      entityFilter: { type: 'entityList', entityType: 'ASSET', entityList: [U1, U2] },
      keyFilters: [],
      entityFields: [NAME],
      latestValues: [],
      pageLink: { page: 0, pageSize: 2, sortOrder: BY_NAME },
    });
  });

  it('parses ids: comma-separated or an array, trimmed, lower-cased, duplicates dropped', () => {
    assert.deepEqual(parseIds(` ${U1},,${U3}, ${U1.toUpperCase()} `), [U1, U3.toLowerCase()]);
    assert.deepEqual(parseIds([U2]), [U2]);
    assert.deepEqual(parseIds(''), []);
    throwsInput(() => parseIds(`${U1},nope`), 'ids', '"nope" is not one');
    throwsInput(() => parseIds({ a: 1 }), 'ids', 'comma-separated list');
    const many = Array.from(
      { length: MAX_RESOLVE_IDS + 1 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    throwsInput(() => parseIds(many.join(',')), 'ids', `at most ${MAX_RESOLVE_IDS} ids (got ${MAX_RESOLVE_IDS + 1})`);
  });

  it('rows to {id, name}', () => {
    const rows = [
      {
        entityId: { entityType: 'DEVICE', id: U1 },
        latest: { ENTITY_FIELD: { name: { ts: 1, value: 'A' } } },
        timeseries: {},
      },
      { entityId: { entityType: 'DEVICE', id: U2 }, latest: null, timeseries: null },
    ] as EntityData[];
    assert.deepEqual(entityNames(rows), [
      { id: { entityType: 'DEVICE', id: U1 }, name: 'A' },
      { id: { entityType: 'DEVICE', id: U2 }, name: '' },
    ]);
  });

  it('keys of profiles: the type filter of each entity type, or the whole type; the default page', () => {
    const filter = (t: Parameters<typeof profileKeysQuery>[0], p: string[]) => profileKeysQuery(t, p).entityFilter;
    assert.deepEqual(filter('DEVICE', ['thermostat', 'meter']), {
      type: 'deviceType',
      deviceTypes: ['thermostat', 'meter'],
    });
    assert.deepEqual(filter('ASSET', ['site']), { type: 'assetType', assetTypes: ['site'] });
    assert.deepEqual(filter('ENTITY_VIEW', ['roomView']), { type: 'entityViewType', entityViewTypes: ['roomView'] });
    assert.deepEqual(filter('EDGE', ['gateway']), { type: 'edgeType', edgeTypes: ['gateway'] });
    assert.deepEqual(filter('CUSTOMER', []), { type: 'entityType', entityType: 'CUSTOMER' });
    assert.deepEqual(profileKeysQuery('DEVICE', []).pageLink, { page: 0, pageSize: 100 });
    throwsInput(
      () => profileKeysQuery('USER', ['x']),
      'profiles',
      'only be given with entityType DEVICE, ASSET, ENTITY_VIEW, EDGE',
    );
  });

  it('parameters: one of the allowed values; a list of names', () => {
    assert.equal(oneOfParam('B', ['A', 'B'], 'kind'), 'B');
    throwsInput(() => oneOfParam('c', ['A', 'B'], 'kind'), 'kind', 'kind must be one of A, B (got "c")');
    throwsInput(() => oneOfParam(undefined, ['A'], 'kind'), 'kind', '(got nothing)');
    throwsInput(() => oneOfParam(['A'], ['A'], 'kind'), 'kind', '(got ["A"])');
    assert.deepEqual(nameListParam(' a, b,,a ', 'profiles'), ['a', 'b']);
    assert.deepEqual(nameListParam(undefined, 'profiles'), []);
    throwsInput(() => nameListParam(['a'], 'profiles'), 'profiles', 'given once');
  });
});
