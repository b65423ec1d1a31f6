import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENTITY_FILTER_TYPES } from '../../src/protocol/types';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../src/protocol/validate';

/*
 * A corpus of real ThingsBoard queries (test/fixtures/tb-queries.json, see test/fixtures/README.md): every entry must
 * be accepted by the matching prepare function, and the wire-ready copy must keep every field the server reads.
 *
 * Comparison rule. Both the input and the prepared copy are reduced to `serverView(mode, query)`, what the server
 * reads from the JSON, and the two views must be deep-equal (JSON values: Java's 45.0 and 45 are the same number).
 * `serverView` is written from ThingsBoard's Java classes (commit dfe65d5a), independently of validate.ts:
 *  1. Only the fields of the Java class are kept (EntityCountQuery, AlarmCountQuery, EntityDataQuery, AlarmDataQuery,
 *     the 14 EntityFilter classes, EntityDataPageLink / AlarmDataPageLink, EntityDataSortOrder, EntityKey, KeyFilter,
 *     the four predicates, FilterPredicateValue, DynamicValue, RelationEntityTypeFilter, EntityId). Any other field
 *     is dropped and recorded; the recorded names must be exactly IGNORED_BY_SERVER below, each with the reason the
 *     server does not read it, and the prepared copy must not carry any.
 *  2. null counts as absent: Jackson leaves an absent reference field null, so the server cannot tell them apart.
 *  3. An absent primitive field takes its Java default: page, pageSize, maxLevel, startTs, endTs, timeWindow = 0;
 *     dynamic, searchPropagatedAlarms, multiRoot, fetchLastLevelOnly, negate, rootStateEntity, ignoreCase,
 *     inherit = false.
 *  4. keyFilters, entityFields and latestValues: absent = [] (dao/.../sql/query/EntityKeyMapping.java L412-L420);
 *     relationsQuery.filters: absent = [] (dao/.../sql/query/DefaultEntityQueryRepository.java L814-L815).
 *     alarmFields is not defaulted: the server fails without it.
 *  5. keyFilter.valueType absent = the type of its (simple) predicate: the SQL path never reads valueType and EDQS
 *     falls back to the predicate type (common/edqs/.../util/RepositoryUtils.java L227-L235).
 *  6. assetType / deviceType / edgeType / entityViewType filters: the server reads getXxxTypes(), which returns the
 *     deprecated singular field as a one-element list when the plural list is empty
 *     (common/data/.../query/DeviceTypeFilter.java L44-L45 and the three alike).
 *  7. relationsQuery with multiRoot false: multiRootEntitiesType and multiRootEntityIds are not read
 *     (DefaultEntityQueryRepository.java L803-L809).
 *  8. Count modes read only the count fields: a data query given to a count has its pageLink, entityFields and
 *     latestValues ignored (EntityCountQuery is @JsonIgnoreProperties(ignoreUnknown = true), L28).
 *
 * Known gaps (GAPS below): real queries the server accepts but our validator refuses or changes. Each is asserted
 * as it behaves today, so the test fails (and the entry must move back to the accepted set) once it is fixed.
 */

type Mode = 'entityData' | 'entityCount' | 'alarmData' | 'alarmCount';
type Obj = Record<string, unknown>;

interface CorpusEntry {
  id: string;
  source: string;
  commit: string;
  mode: Mode;
  live: boolean;
  query: Obj;
  note?: string;
}

const CORPUS: CorpusEntry[] = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'tb-queries.json'), 'utf8'),
);

const PREPARE: Record<Mode, (q: unknown, field?: string, options?: { live?: boolean }) => unknown> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

// ---------------------------------------------------------------------------------------------------------------
// What the server reads (see the comparison rule above)
// ---------------------------------------------------------------------------------------------------------------

/** Fields the server does not read, as recorded by serverView ("<object>.<field>"), and why. */
const IGNORED_BY_SERVER: Readonly<Record<string, string>> = {
  'query.keyFiltersOperationOrDefault':
    'read-only getter of EntityCountQuery that Jackson writes (HEAD); EntityCountQuery ignores unknown properties',
  'entityFilter[apiUsageState].resolveMultiple':
    'UI alias property; EntityFilter ignores unknown properties (EntityFilter.java L50)',
  'entityFilter[deviceType].resolveMultiple': 'UI alias property; EntityFilter ignores unknown properties',
  'entityFilter[entityType].resolveMultiple': 'UI alias property; EntityFilter ignores unknown properties',
  'entityFilter[relationsQuery].resolveMultiple': 'UI alias property; EntityFilter ignores unknown properties',
  'entityFilter[relationsQuery].stateEntityParamName': 'UI alias property; EntityFilter ignores unknown properties',
  'entityFilter[deviceSearchQuery].edgeTypes':
    'the swagger "Edge Search Query" example uses type deviceSearchQuery; DeviceSearchQueryFilter has no edgeTypes',
  'keyFilter.value':
    'UI KeyFilter property (entity.service.ts L575 sends value: null); REST ignores unknown properties (Spring Boot ' +
    'default)',
  'query.pageLink': 'a data query sent to a count: EntityCountQuery ignores unknown properties',
  'query.entityFields': 'a data query sent to a count: EntityCountQuery ignores unknown properties',
  'query.latestValues': 'a data query sent to a count: EntityCountQuery ignores unknown properties',
};

const ALARM_FILTER_FIELDS = [
  'startTs',
  'endTs',
  'timeWindow',
  'typeList',
  'statusList',
  'severityList',
  'searchPropagatedAlarms',
  'assigneeId',
];
const ALARM_PRIMITIVES: Obj = { startTs: 0, endTs: 0, timeWindow: 0, searchPropagatedAlarms: false };
const SEARCH_FIELDS = [
  'rootEntity',
  'relationType',
  'direction',
  'maxLevel',
  'fetchLastLevelOnly',
  'rootStateEntity',
  'defaultStateEntity',
];
const SEARCH_PRIMITIVES: Obj = { maxLevel: 0, fetchLastLevelOnly: false, rootStateEntity: false };
const TYPE_FILTERS: Readonly<Record<string, [plural: string, singular: string, nameFilter: string]>> = {
  assetType: ['assetTypes', 'assetType', 'assetNameFilter'],
  deviceType: ['deviceTypes', 'deviceType', 'deviceNameFilter'],
  edgeType: ['edgeTypes', 'edgeType', 'edgeNameFilter'],
  entityViewType: ['entityViewTypes', 'entityViewType', 'entityViewNameFilter'],
};
const FILTER_FIELDS: Readonly<Record<string, string[]>> = {
  singleEntity: ['singleEntity'],
  entityList: ['entityType', 'entityList'],
  entityName: ['entityType', 'entityNameFilter'],
  entityType: ['entityType'],
  apiUsageState: ['customerId'],
  relationsQuery: [
    'rootEntity',
    'multiRoot',
    'multiRootEntitiesType',
    'multiRootEntityIds',
    'direction',
    'filters',
    'maxLevel',
    'fetchLastLevelOnly',
    'negate',
    'rootStateEntity',
    'defaultStateEntity',
  ],
  assetSearchQuery: [...SEARCH_FIELDS, 'assetTypes'],
  deviceSearchQuery: [...SEARCH_FIELDS, 'deviceTypes'],
  entityViewSearchQuery: [...SEARCH_FIELDS, 'entityViewTypes'],
  edgeSearchQuery: [...SEARCH_FIELDS, 'edgeTypes'],
  ...Object.fromEntries(Object.entries(TYPE_FILTERS).map(([t, fields]) => [t, fields])),
};

class View {
  readonly ignored = new Set<string>();

  /** The known, non-null fields of `o` (plus the given primitive defaults); unknown fields are recorded. */
  known(o: unknown, name: string, fields: readonly string[], defaults: Obj = {}): Obj {
    assert.ok(typeof o === 'object' && o !== null && !Array.isArray(o), `${name} must be an object`);
    const out: Obj = { ...defaults };
    for (const [k, v] of Object.entries(o as Obj)) {
      if (!fields.includes(k)) this.ignored.add(`${name}.${k}`);
      else if (v !== null && v !== undefined) out[k] = v;
    }
    return out;
  }

  list<T>(v: unknown, map: (item: unknown) => T): T[] {
    return v == null ? [] : (v as unknown[]).map(map);
  }

  query(mode: Mode, q: Obj): Obj {
    const alarm = mode === 'alarmData' || mode === 'alarmCount';
    const count = mode === 'entityCount' || mode === 'alarmCount';
    const fields = ['entityFilter', 'keyFilters', 'keyFiltersOperation'];
    if (mode === 'alarmCount') fields.push(...ALARM_FILTER_FIELDS);
    if (!count) fields.push('pageLink', 'entityFields', 'latestValues');
    if (mode === 'alarmData') fields.push('alarmFields');
    const out = this.known(q, 'query', fields, mode === 'alarmCount' ? ALARM_PRIMITIVES : {});
    if (out.entityFilter !== undefined) out.entityFilter = this.entityFilter(out.entityFilter);
    out.keyFilters = this.list(out.keyFilters, (kf) => this.keyFilter(kf));
    if (out.assigneeId !== undefined) out.assigneeId = this.entityId(out.assigneeId, 'assigneeId');
    if (!count) {
      out.pageLink = this.pageLink(out.pageLink, alarm);
      out.entityFields = this.list(out.entityFields, (k) => this.key(k));
      out.latestValues = this.list(out.latestValues, (k) => this.key(k));
    }
    if (out.alarmFields !== undefined) out.alarmFields = (out.alarmFields as unknown[]).map((k) => this.key(k));
    return out;
  }

  entityFilter(f: unknown): Obj {
    const type = (f as Obj).type as string;
    const fields = FILTER_FIELDS[type];
    assert.ok(fields, `unknown entity filter type ${type}`);
    const out = this.known(
      f,
      `entityFilter[${type}]`,
      ['type', ...fields],
      type === 'relationsQuery'
        ? { multiRoot: false, maxLevel: 0, fetchLastLevelOnly: false, negate: false, rootStateEntity: false }
        : type.endsWith('SearchQuery')
          ? SEARCH_PRIMITIVES
          : {},
    );
    const typeFilter = TYPE_FILTERS[type];
    if (typeFilter) {
      const [plural, singular] = typeFilter;
      const list = out[plural] as unknown[] | undefined;
      if (!list || list.length === 0) out[plural] = [out[singular] ?? null];
      delete out[singular];
    }
    for (const k of ['singleEntity', 'rootEntity', 'defaultStateEntity', 'customerId']) {
      if (out[k] !== undefined) out[k] = this.entityId(out[k], k);
    }
    if (type === 'relationsQuery') {
      out.filters = this.list(out.filters, (rf) =>
        this.known(rf, 'relationFilter', ['relationType', 'entityTypes', 'negate'], { negate: false }),
      );
      if (out.multiRoot !== true) {
        delete out.multiRootEntitiesType;
        delete out.multiRootEntityIds;
      }
    }
    return out;
  }

  entityId(v: unknown, name: string): Obj {
    return this.known(v, name, ['entityType', 'id']);
  }

  key(k: unknown): Obj {
    return this.known(k, 'key', ['type', 'key']);
  }

  pageLink(p: unknown, alarm: boolean): Obj {
    const fields = ['pageSize', 'page', 'textSearch', 'sortOrder', 'dynamic', ...(alarm ? ALARM_FILTER_FIELDS : [])];
    const out = this.known(p, 'pageLink', fields, {
      page: 0,
      pageSize: 0,
      dynamic: false,
      ...(alarm ? ALARM_PRIMITIVES : {}),
    });
    if (out.sortOrder !== undefined) {
      const s = this.known(out.sortOrder, 'sortOrder', ['key', 'direction']);
      if (s.key !== undefined) s.key = this.key(s.key);
      out.sortOrder = s;
    }
    if (out.assigneeId !== undefined) out.assigneeId = this.entityId(out.assigneeId, 'assigneeId');
    return out;
  }

  keyFilter(kf: unknown): Obj {
    const out = this.known(kf, 'keyFilter', ['key', 'valueType', 'predicate']);
    out.key = this.key(out.key);
    out.predicate = this.predicate(out.predicate);
    const type = (out.predicate as Obj).type;
    if (out.valueType === undefined && type !== 'COMPLEX') out.valueType = type;
    return out;
  }

  predicate(p: unknown): Obj {
    const type = (p as Obj).type;
    if (type === 'COMPLEX') {
      const out = this.known(p, 'predicate[COMPLEX]', ['type', 'operation', 'predicates']);
      out.predicates = this.list(out.predicates, (x) => this.predicate(x));
      return out;
    }
    const out =
      type === 'STRING'
        ? this.known(p, 'predicate[STRING]', ['type', 'operation', 'value', 'ignoreCase'], { ignoreCase: false })
        : this.known(p, `predicate[${String(type)}]`, ['type', 'operation', 'value']);
    const value = this.known(out.value, 'value', ['defaultValue', 'userValue', 'dynamicValue']);
    if (value.dynamicValue !== undefined) {
      value.dynamicValue = this.known(
        value.dynamicValue,
        'dynamicValue',
        ['resolvedValue', 'sourceType', 'sourceAttribute', 'inherit'],
        { inherit: false },
      );
    }
    out.value = value;
    return out;
  }
}

function serverView(mode: Mode, query: Obj): { view: Obj; ignored: string[] } {
  const v = new View();
  const view = v.query(mode, query);
  return { view: JSON.parse(JSON.stringify(view)), ignored: [...v.ignored].sort() };
}

// ---------------------------------------------------------------------------------------------------------------
// Known gaps: accepted by the server, refused or changed by validate.ts
// ---------------------------------------------------------------------------------------------------------------

interface Gap {
  /** What our validator does today. */
  what: string;
  /** The server lines that show the server accepts the query. */
  server: string;
  /** Asserts today's behaviour; fails once the gap is fixed. */
  check(entry: CorpusEntry): void;
}

/**
 * None today. The last two, `alarmsvc-data-assignee-empty-devicetype` and `alarmsvc-data-propagated-start-end`
 * (AlarmServiceTest L389/L461: an empty Java DeviceTypeFilter, which Jackson writes as `deviceTypes: [null]`), were
 * refused ("query.entityFilter.deviceTypes[0] must be a string (got null)") although the server runs them
 * (common/data/.../query/DeviceTypeFilter.java L44-L45 returns the list as is; BaseEntityService.java L336-L355 has
 * no check on it; DefaultEntityQueryRepository.java L984, L1001-L1002 makes it `e.type in (null)`: no match). They
 * are accepted now, the null kept, and checked with the rest (and by the test after "accepted").
 */
const GAPS: Readonly<Record<string, Gap>> = {};

// ---------------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------------

const accepted = CORPUS.filter((e) => !(e.id in GAPS));

describe('query corpus: real ThingsBoard queries (test/fixtures/tb-queries.json)', () => {
  it('has well-formed entries with unique ids, a source line and the commit read', () => {
    assert.ok(CORPUS.length >= 80, `only ${CORPUS.length} entries`);
    const ids = new Set<string>();
    for (const e of CORPUS) {
      assert.match(e.id, /^[a-z0-9][a-z0-9-]*$/, e.id);
      assert.ok(!ids.has(e.id), `duplicate id ${e.id}`);
      ids.add(e.id);
      assert.match(e.source, /^[\w./-]+\.(java|ts|json)#L\d+$/, `${e.id}: source`);
      assert.match(e.commit, /^[0-9a-f]{40}$/, `${e.id}: commit`);
      assert.ok(e.mode in PREPARE, `${e.id}: mode ${e.mode}`);
      assert.equal(typeof e.live, 'boolean', `${e.id}: live`);
      assert.ok(typeof e.query === 'object' && e.query !== null && !Array.isArray(e.query), `${e.id}: query`);
    }
    for (const id of Object.keys(GAPS)) assert.ok(ids.has(id), `gap ${id} is not in the corpus`);
  });

  it('covers every entity filter type, predicate type, sort key type and alarm filter field', () => {
    const filterTypes = new Set<string>();
    const predicateTypes = new Set<string>();
    const sortKeyTypes = new Set<string>();
    const alarmFields = new Set<string>();
    let nestedComplex = false;
    let dynamicValue = false;
    let userValue = false;
    let textSearch = false;
    let keyFiltersOr = false;
    const walk = (p: Obj, inComplex: boolean): void => {
      predicateTypes.add(p.type as string);
      if (p.type === 'COMPLEX') {
        if (inComplex) nestedComplex = true;
        for (const c of p.predicates as Obj[]) walk(c, true);
      } else {
        const value = p.value as Obj;
        if (value.dynamicValue != null) dynamicValue = true;
        if (value.userValue != null) userValue = true;
      }
    };
    for (const e of accepted) {
      const q = e.query;
      if (q.entityFilter) filterTypes.add((q.entityFilter as Obj).type as string);
      for (const kf of (q.keyFilters as Obj[] | null) ?? []) walk(kf.predicate as Obj, false);
      if (q.keyFiltersOperation === 'OR') keyFiltersOr = true;
      const pageLink = q.pageLink as Obj | undefined;
      if (pageLink?.sortOrder) sortKeyTypes.add(((pageLink.sortOrder as Obj).key as Obj).type as string);
      if (typeof pageLink?.textSearch === 'string') textSearch = true;
      const alarmFilter = e.mode === 'alarmData' ? pageLink : e.mode === 'alarmCount' ? q : undefined;
      for (const f of ALARM_FILTER_FIELDS) {
        const v = alarmFilter?.[f];
        if (v != null && v !== 0 && v !== false && !(Array.isArray(v) && v.length === 0)) alarmFields.add(f);
      }
    }
    assert.deepEqual([...filterTypes].sort(), [...ENTITY_FILTER_TYPES].sort());
    assert.deepEqual([...predicateTypes].sort(), ['BOOLEAN', 'COMPLEX', 'NUMERIC', 'STRING']);
    assert.deepEqual([...sortKeyTypes].sort(), ['ALARM_FIELD', 'ATTRIBUTE', 'ENTITY_FIELD', 'TIME_SERIES']);
    assert.deepEqual([...alarmFields].sort(), [...ALARM_FILTER_FIELDS].sort());
    assert.ok(nestedComplex, 'a COMPLEX predicate inside a COMPLEX one');
    assert.ok(dynamicValue && userValue && textSearch && keyFiltersOr);
    assert.deepEqual([...new Set(CORPUS.map((e) => e.mode))].sort(), [
      'alarmCount',
      'alarmData',
      'entityCount',
      'entityData',
    ]);
    assert.deepEqual([...new Set(CORPUS.map((e) => e.live))].sort(), [false, true]);
  });

  it('has no known gap left: every entry is accepted', () => {
    assert.deepEqual(Object.keys(GAPS), []);
    assert.equal(accepted.length, CORPUS.length);
  });

  describe('accepted, every field the server reads kept', () => {
    for (const e of accepted) {
      it(`${e.id} (${e.mode}${e.live ? ', live' : ''})`, () => {
        const input = JSON.parse(JSON.stringify(e.query));
        // validated for where the query was sent: a WebSocket subscription or a REST endpoint
        const prepared = PREPARE[e.mode](input, 'query', { live: e.live }) as Obj;
        assert.deepEqual(input, e.query, 'the input must not be modified');
        const before = serverView(e.mode, e.query);
        const after = serverView(e.mode, prepared);
        assert.deepEqual(after.ignored, [], 'the prepared copy carries only fields the server knows');
        assert.deepEqual(after.view, before.view);
        for (const name of before.ignored)
          assert.ok(name in IGNORED_BY_SERVER, `${name} is dropped: is it really ignored by the server?`);
      });
    }
  });

  it('keeps the null of an empty Java DeviceTypeFilter (deviceTypes: [null], which the server runs and matches nothing)', () => {
    for (const id of ['alarmsvc-data-assignee-empty-devicetype', 'alarmsvc-data-propagated-start-end']) {
      const entry = CORPUS.find((e) => e.id === id) as CorpusEntry;
      assert.ok(!(id in GAPS));
      const prepared = PREPARE[entry.mode](entry.query) as { entityFilter: unknown };
      assert.deepEqual(prepared.entityFilter, { type: 'deviceType', deviceTypes: [null] }, id);
    }
  });

  it('a singular type added to a *SearchQuery filter changes nothing the server reads (it has no such field)', () => {
    const search = accepted.filter((e) =>
      String((e.query.entityFilter as Obj | undefined)?.type).endsWith('SearchQuery'),
    );
    assert.ok(search.length >= 4);
    for (const e of search) {
      const filter = e.query.entityFilter as Obj;
      const plural = FILTER_FIELDS[filter.type as string].find((f) => f.endsWith('Types')) as string;
      const singular = plural.slice(0, -1);
      const query = { ...e.query, entityFilter: { ...filter, [singular]: 'legacy' } };
      const before = serverView(e.mode, query);
      assert.ok(before.ignored.includes(`entityFilter[${filter.type as string}].${singular}`), e.id);
      const after = serverView(e.mode, PREPARE[e.mode](query) as Obj);
      assert.deepEqual(after.ignored, [], e.id);
      assert.deepEqual(after.view, before.view, e.id);
    }
  });

  it('drops exactly the fields listed as ignored by the server', () => {
    const dropped = new Set<string>();
    for (const e of accepted) for (const name of serverView(e.mode, e.query).ignored) dropped.add(name);
    assert.deepEqual([...dropped].sort(), Object.keys(IGNORED_BY_SERVER).sort());
  });

  describe('known gaps: the server accepts these, our validator does not (yet)', () => {
    for (const [id, gap] of Object.entries(GAPS)) {
      it(`${id}: ${gap.what.split(':')[0]}`, () => {
        const entry = CORPUS.find((e) => e.id === id) as CorpusEntry;
        assert.ok(gap.server.length > 0);
        gap.check(entry);
      });
    }
  });
});
