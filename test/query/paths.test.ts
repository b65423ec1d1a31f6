import assert from 'node:assert/strict';
import {
  deletePath,
  getPath,
  hasPath,
  heldPaths,
  isCovered,
  pathString,
  setPath,
  toSegments,
} from '../../src/query-model/paths';
import { defaultQuery, QUERY_MODES } from '../../src/query-model/schema';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Deep equality that also compares the key order of every object. */
function sameOrder(a: unknown, b: unknown): void {
  assert.deepEqual(a, b);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
}

describe('query/paths', () => {
  it('toSegments reads dotted, bracket and quoted forms', () => {
    assert.deepEqual(toSegments('keyFilters.0.predicate.operation'), ['keyFilters', 0, 'predicate', 'operation']);
    assert.deepEqual(toSegments('query.keyFilters[0].predicate.predicates[12]'), [
      'query',
      'keyFilters',
      0,
      'predicate',
      'predicates',
      12,
    ]);
    assert.deepEqual(toSegments('a["x.y"][\'z\'].b'), ['a', 'x.y', 'z', 'b']);
    assert.deepEqual(toSegments(['a', '3', 4]), ['a', 3, 4]);
    assert.deepEqual(toSegments(''), []);
    assert.deepEqual(toSegments('a.01'), ['a', '01']);
    assert.equal(pathString(['keyFilters', 0, 'key']), 'keyFilters.0.key');
  });

  it('getPath / hasPath', () => {
    const q = defaultQuery('entityData');
    assert.equal(getPath(q, 'pageLink.sortOrder.key.key'), 'name');
    assert.equal(getPath(q, ['entityFields', 2, 'key']), 'label');
    assert.equal(getPath(q, 'entityFields[1].key'), 'type');
    assert.equal(getPath(q, 'pageLink.nope.x'), undefined);
    assert.equal(getPath(q, 'entityFields.9'), undefined);
    assert.equal(getPath(q, 'entityFilter.type.length'), undefined);
    assert.equal(getPath(q, []), q);
    assert.equal(getPath({ a: null }, 'a'), null);
    assert.equal(hasPath({ a: null }, 'a'), true);
    assert.equal(hasPath({ a: undefined }, 'a'), true);
    assert.equal(hasPath({}, 'a'), false);
    // Only own properties, never the prototype chain.
    assert.equal(getPath({}, 'toString'), undefined);
    assert.equal(getPath({}, '__proto__'), undefined);
    assert.equal(getPath({ a: [] }, 'a.length'), undefined);
  });

  it('setPath keeps the place of existing keys and appends new ones', () => {
    const q = defaultQuery('entityData');
    setPath(q, 'pageLink.page', 2);
    assert.deepEqual(Object.keys(q.pageLink as object), ['page', 'pageSize', 'sortOrder']);
    setPath(q, 'pageLink.textSearch', 'x');
    assert.deepEqual(Object.keys(q.pageLink as object), ['page', 'pageSize', 'sortOrder', 'textSearch']);
    setPath(q, 'entityFilter.entityType', 'ASSET');
    assert.deepEqual(q.entityFilter, { type: 'entityType', entityType: 'ASSET' });
    assert.equal(setPath(q, 'x', 1), q);
  });

  it('setPath creates objects and arrays along the way', () => {
    const o: Record<string, unknown> = {};
    setPath(o, 'keyFilters.0.predicate.operation', 'GREATER');
    assert.deepEqual(o, { keyFilters: [{ predicate: { operation: 'GREATER' } }] });
    setPath(o, 'keyFilters[2].key.key', 't');
    assert.deepEqual(o.keyFilters, [{ predicate: { operation: 'GREATER' } }, null, { key: { key: 't' } }]);
    // A number on an existing object is a key; a primitive in the way is replaced.
    const p: Record<string, unknown> = { aggLatest: {}, entityFilter: 'DEVICE' };
    setPath(p, 'aggLatest.0', 1);
    setPath(p, 'entityFilter.type', 'entityType');
    assert.deepEqual(p, { aggLatest: { 0: 1 }, entityFilter: { type: 'entityType' } });
  });

  it('setPath refuses what would be lost or unsafe', () => {
    assert.throws(() => setPath({ a: [] }, 'a.x', 1), /cannot set the key "x" in the array at a/);
    assert.throws(() => setPath([], 'x', 1), /in an array/);
    assert.throws(() => setPath({}, '__proto__.polluted', 1), /invalid path segment/);
    assert.throws(() => setPath({}, 'a.constructor.prototype', 1), /invalid path segment/);
    assert.throws(() => setPath({}, '', 1), /non-empty path/);
    assert.throws(() => setPath(null as unknown as object, 'a', 1), /needs an object/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('deletePath removes a key or splices an array element, and keeps empty parents', () => {
    const q = defaultQuery('entityData');
    assert.equal(deletePath(q, 'pageLink.sortOrder'), true);
    assert.deepEqual(q.pageLink, { page: 0, pageSize: 100 });
    assert.equal(deletePath(q, 'entityFields.1'), true);
    assert.deepEqual(
      (q.entityFields as { key: string }[]).map((k) => k.key),
      ['name', 'label'],
    );
    const o = { a: { b: 1 } };
    assert.equal(deletePath(o, 'a.b'), true);
    assert.deepEqual(o, { a: {} });
    assert.equal(deletePath(o, 'a.b'), false);
    assert.equal(deletePath(o, 'x.y.z'), false);
    assert.equal(deletePath(o, []), false);
    assert.equal(deletePath(o, 'a.toString'), false);
  });

  it('round trips: set then delete leaves the object as it was, key order included', () => {
    for (const m of QUERY_MODES) {
      const before = defaultQuery(m);
      for (const path of ['pageLink.textSearch', 'entityFilter.deviceNameFilter', 'keyFiltersOperation', 'zzz']) {
        const q = clone(before);
        setPath(q, path, 'x');
        assert.equal(getPath(q, path), 'x');
        deletePath(q, path);
        assert.equal(hasPath(q, path), false);
        // Parents the set created stay (by design): remove the first one that was new.
        const segs = toSegments(path);
        const created = segs.findIndex((_, i) => !hasPath(before, segs.slice(0, i + 1)));
        if (created < segs.length - 1) deletePath(q, segs.slice(0, created + 1));
        sameOrder(q, before);
      }
      // Setting an existing value to itself changes nothing; neither does set old value back.
      const q = clone(before);
      for (const leaf of heldPaths(before, [])) {
        const old = getPath(q, leaf);
        setPath(q, leaf, 'changed');
        setPath(q, leaf, old);
      }
      sameOrder(q, before);
    }
    // An array element appended then deleted.
    const q = defaultQuery('entityData');
    setPath(q, 'keyFilters.0', { key: { type: 'TIME_SERIES', key: 't' } });
    deletePath(q, 'keyFilters.0');
    sameOrder(q, defaultQuery('entityData'));
  });

  describe('heldPaths / isCovered', () => {
    it('matches * to one segment and a trailing ** to any rest (also none)', () => {
      assert.equal(isCovered('entityFilter.type', ['entityFilter.type']), true);
      assert.equal(isCovered('entityFilter.type', ['entityFilter']), false);
      assert.equal(isCovered('keyFilters.3.key.type', ['keyFilters.*.key.**']), true);
      assert.equal(isCovered('keyFilters.3.key', ['keyFilters.*.key.**']), true);
      assert.equal(isCovered('keyFilters.3.value', ['keyFilters.*.key.**']), false);
      assert.equal(isCovered(['pageLink', 'sortOrder', 'key', 'key'], ['pageLink.sortOrder.**']), true);
      assert.equal(isCovered('a.b', ['*']), false);
      assert.equal(isCovered('a.b', ['**']), true);
      assert.equal(isCovered('a.b', []), false);
    });

    it('lists the leaves no pattern covers, empty containers and nulls included', () => {
      const q = {
        entityFilter: { type: 'deviceType', deviceTypes: ['a', 'b'], rootStateEntity: true },
        keyFilters: [],
        pageLink: { page: 0, sortOrder: null, extra: {} },
        note: 'mine',
      };
      assert.deepEqual(heldPaths(q, []), [
        'entityFilter.type',
        'entityFilter.deviceTypes.0',
        'entityFilter.deviceTypes.1',
        'entityFilter.rootStateEntity',
        'keyFilters',
        'pageLink.page',
        'pageLink.sortOrder',
        'pageLink.extra',
        'note',
      ]);
      assert.deepEqual(
        heldPaths(q, ['entityFilter.type', 'entityFilter.deviceTypes.**', 'keyFilters.**', 'pageLink.*']),
        ['entityFilter.rootStateEntity', 'note'],
      );
      assert.deepEqual(heldPaths(q, ['**']), []);
      assert.deepEqual(heldPaths({}, []), []);
      assert.deepEqual(heldPaths(5, []), []);
    });

    it('does not loop on cyclic objects', () => {
      const o: Record<string, unknown> = { a: 1 };
      o.self = o;
      assert.deepEqual(heldPaths(o, []), ['a', 'self']);
    });
  });
});
