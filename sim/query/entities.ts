/**
 * Entity Data Query semantics (`DAO/sql/query/DefaultEntityQueryRepository.java`) over the Dataset. Matching rows for a
 * (caller, filter, key filters, sort, textSearch) combination are cached and reused until the dataset changes, so
 * paging through 100,000 entities costs a slice per request.
 */
import type { Dataset, SimEntity } from '../dataset';
import { ApiError, badRequest, forbidden, general } from '../errors';
import {
  NULL_UUID,
  QUERYABLE_ENTITY_TYPES,
  type Caller,
  type EntityData,
  type EntityId,
  type EntityKey,
  type EntityType,
  type KvEntry,
  type LatestMap,
  type PageData,
} from '../types';
import { pgFloat8, sortNum, sortStr, sqlValueString } from '../values';
import { fieldEntry, fieldValue, type FieldMode } from './fields';
import {
  isUuid,
  type AliasEntityId,
  type EntityCountQuery,
  type EntityDataQuery,
  type EntityFilter,
  type KeyFilter,
  type PageLink,
  type SortOrder,
} from './parse';
import { compileIlike, compilePredicate, resolveDynamic, type DynamicResolution, type Test } from './predicates';

export interface Row {
  e: SimEntity;
  /** multiRoot relations queries: the root the entity was reached from */
  parentId?: string;
}

export interface MatchResult {
  rows: Row[];
  mode: FieldMode;
}

export interface MatchSpec {
  filter: EntityFilter;
  keyFilters: KeyFilter[];
  op: 'AND' | 'OR';
  sort: SortOrder | null;
  textSearch: string | null;
  /** requested entityFields + latestValues (textSearch columns) */
  searchKeys: EntityKey[];
}

export interface EngineOptions {
  /**
   * 'server' (default): keys used only in keyFilters appear in `latest` only when the server's two-step
   * optimisation does not apply (textSearch set, entityList/singleEntity/relationsQuery filter, nothing
   * requested, or every requested key is also a filter key), as BaseEntityService does on 4.x.
   * 'always': they always appear (what EntityKeyMapping alone does).
   */
  filterKeysInLatest?: 'server' | 'always';
  /** cached match results kept (LRU) */
  cacheSize?: number;
}

const RELATION_QUERY_ENTITY_TYPES: ReadonlySet<string> = new Set([
  'TENANT',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'ASSET',
  'DEVICE',
  'ENTITY_VIEW',
]);
const SORT_PROPERTY = /^[\p{L}0-9_-]+$/u;
const COLLATOR = new Intl.Collator('en-US');
const MAX_RELATION_STEPS = 2_000_000;
/** A ts no real value has: serialised pages are split on its JSON text and the query time spliced in. */
const TS_SENTINEL = -987654321.5;
const TS_SENTINEL_TEXT = `"ts":${TS_SENTINEL},`;
/** serialised pages kept (LRU) */
const PAGE_CACHE_LIMIT = 256;

/** EntityCountQuery validation (BaseEntityService#validateEntityCountQuery). */
export function validateCountQuery(q: EntityCountQuery): void {
  const f = q.entityFilter;
  if (!f) throw badRequest('Query entity filter must be specified.');
  if (f.type === 'relationsQuery') {
    if (f.multiRoot && f.multiRootEntitiesType === null) {
      throw badRequest("Multi-root relation query filter should contain 'multiRootEntitiesType'");
    }
    if (f.multiRoot && (!f.multiRootEntityIds || f.multiRootEntityIds.length === 0)) {
      throw badRequest(
        "Multi-root relation query filter should contain 'multiRootEntityIds' array that contains string " +
          'representation of UUIDs',
      );
    }
    if (!f.multiRoot && f.rootEntity === null)
      throw badRequest('Relation query filter root entity should not be blank');
  } else if ((f.type === 'entityType' || f.type === 'entityName') && f.entityType === null) {
    throw badRequest('Entity type is required');
  }
}

/** Validator.validateEntityDataPageLink. */
export function validatePageLink(pl: PageLink | null): asserts pl is PageLink {
  if (!pl) throw badRequest('Entity Data Page link must be specified.');
  if (pl.pageSize < 1) {
    throw badRequest(
      `Incorrect entity data page link page size '${pl.pageSize}'. Page size must be greater than zero.`,
    );
  }
  if (pl.page < 0)
    throw badRequest(`Incorrect entity data page link page '${pl.page}'. Page must be positive integer.`);
  const so = pl.sortOrder;
  if (so && (so.key.type === 'ENTITY_FIELD' || so.key.type === 'ALARM_FIELD') && !SORT_PROPERTY.test(so.key.key)) {
    throw badRequest('Invalid entity data page link sort property');
  }
}

export function pageOf<T>(data: T[], total: number, pageSize: number, page: number): PageData<T> {
  return {
    data,
    totalPages: pageSize > 0 ? Math.ceil(total / pageSize) : 1,
    totalElements: total,
    hasNext: total > pageSize * page + data.length,
  };
}

function keyId(k: EntityKey): string {
  return `${k.type}\u0000${k.key}`;
}

/** pg text of a stored value, as used by textSearch concatenation (before EntityDataAdapter's re-print). */
function pgText(e: KvEntry | undefined): string {
  if (!e) return '';
  switch (e.type) {
    case 'BOOLEAN':
      return e.value ? 'true' : 'false';
    case 'DOUBLE':
      return pgFloat8(e.value);
    case 'LONG':
      return String(e.value);
    default:
      return e.value;
  }
}

interface CacheEntry {
  version: number;
  result: MatchResult;
}

export class EntityQueryEngine {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly pages = new Map<string, string[]>();
  private readonly cacheSize: number;
  private readonly filterKeysMode: 'server' | 'always';
  /** statistics for tests/benchmarks */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly ds: Dataset,
    opts: EngineOptions = {},
  ) {
    this.cacheSize = opts.cacheSize ?? 64;
    this.filterKeysMode = opts.filterKeysInLatest ?? 'server';
  }

  // -------------------------------------------------------------------------------------------------------------
  // public API

  /**
   * POST /api/entitiesQuery/find (validation, dynamic values and aliases included). `dyn`: how dynamic values are
   * resolved, 'rest' here, 'ws' for a WebSocket subscription's page.
   */
  find(caller: Caller, q: EntityDataQuery, now: number, dyn: DynamicResolution = 'rest'): PageData<EntityData> {
    const p = this.prepare(caller, q, dyn);
    const data: EntityData[] = new Array<EntityData>(p.slice.length);
    for (let i = 0; i < p.slice.length; i++) {
      const r = p.slice[i];
      data[i] = {
        entityId: { entityType: r.e.entityType, id: r.e.id },
        latest: this.latest(r, p.mode, p.keys, now),
        timeseries: {},
        aggLatest: {},
      };
    }
    return pageOf(data, p.total, p.pageSize, p.page);
  }

  /**
   * Same answer as `find`, already serialised. Whole pages are cached (per query, page and dataset version) as
   * JSON split where the entity-field `"ts":<query time>,` goes, so a repeated page costs one join.
   */
  findJson(caller: Caller, q: EntityDataQuery, now: number): string {
    const p = this.prepare(caller, q, 'rest');
    const pageKey = `${this.ds.version}|${p.matchKey}|${JSON.stringify(p.keys)}|${p.page}|${p.pageSize}`;
    let pieces = this.pages.get(pageKey);
    if (pieces) {
      this.pages.delete(pageKey);
    } else {
      const data: EntityData[] = new Array<EntityData>(p.slice.length);
      for (let i = 0; i < p.slice.length; i++) {
        const r = p.slice[i];
        data[i] = {
          entityId: { entityType: r.e.entityType, id: r.e.id },
          latest: this.latest(r, p.mode, p.keys, TS_SENTINEL),
          timeseries: {},
          aggLatest: {},
        };
      }
      pieces = JSON.stringify(pageOf(data, p.total, p.pageSize, p.page)).split(TS_SENTINEL_TEXT);
      while (this.pages.size >= PAGE_CACHE_LIMIT) {
        const oldest = this.pages.keys().next().value;
        if (oldest === undefined) break;
        this.pages.delete(oldest);
      }
    }
    this.pages.set(pageKey, pieces);
    return pieces.length === 1 ? pieces[0] : pieces.join(`"ts":${now},`);
  }

  private prepare(
    caller: Caller,
    q: EntityDataQuery,
    dyn: DynamicResolution,
  ): {
    slice: Row[];
    mode: FieldMode;
    keys: EntityKey[];
    total: number;
    pageSize: number;
    page: number;
    matchKey: string;
  } {
    const keyFilters = q.keyFilters.map((kf) => ({
      ...kf,
      predicate: resolveDynamic(kf.predicate, this.ds, caller, dyn),
    }));
    validateCountQuery(q);
    validatePageLink(q.pageLink);
    const pl = q.pageLink;
    const filter = q.entityFilter as EntityFilter;
    const textSearch = pl.textSearch && pl.textSearch !== '' ? pl.textSearch : null;
    const searchKeys = [...q.entityFields, ...q.latestValues];
    const spec: MatchSpec = {
      filter,
      keyFilters,
      op: q.keyFiltersOperation,
      sort: pl.sortOrder,
      textSearch,
      searchKeys,
    };
    const matchKey = this.matchKey(caller, spec);
    const { rows, mode } = this.match(caller, spec, matchKey);
    const start = pl.pageSize * pl.page;
    const slice = start < rows.length ? rows.slice(start, start + pl.pageSize) : [];
    const keys = this.outputKeys(filter, keyFilters, q.entityFields, q.latestValues, textSearch);
    return { slice, mode, keys, total: rows.length, pageSize: pl.pageSize, page: pl.page, matchKey };
  }

  /**
   * POST /api/entitiesQuery/count. Over REST dynamic values are not resolved (DefaultEntityQueryService
   * #countEntitiesByQuery goes straight to the entity service); a WebSocket count passes 'ws'.
   */
  count(caller: Caller, q: EntityCountQuery, dyn: DynamicResolution = 'none'): number {
    const keyFilters = q.keyFilters.map((kf) => ({
      ...kf,
      predicate: resolveDynamic(kf.predicate, this.ds, caller, dyn),
    }));
    validateCountQuery(q);
    return this.match(caller, {
      filter: q.entityFilter as EntityFilter,
      keyFilters,
      op: q.keyFiltersOperation,
      sort: null,
      textSearch: null,
      searchKeys: [],
    }).rows.length;
  }

  /**
   * The keys an EntityData `latest` carries: entityFields, latestValues, and (depending on the server's
   * optimisation rule) attribute/telemetry keys used only in key filters.
   */
  outputKeys(
    filter: EntityFilter,
    keyFilters: KeyFilter[],
    entityFields: EntityKey[],
    latestValues: EntityKey[],
    textSearch: string | null,
  ): EntityKey[] {
    const out: EntityKey[] = [];
    const seen = new Set<string>();
    for (const k of [...entityFields, ...latestValues]) {
      const id = keyId(k);
      if (!seen.has(id)) {
        seen.add(id);
        out.push(k);
      }
    }
    const filterKeys = keyFilters.map((kf) => kf.key);
    let includeFilterKeys = true;
    if (this.filterKeysMode === 'server') {
      const filterIds = new Set(filterKeys.map(keyId));
      const optimised =
        !textSearch &&
        filter.type !== 'entityList' &&
        filter.type !== 'singleEntity' &&
        filter.type !== 'relationsQuery' &&
        out.length > 0 &&
        !out.every((k) => filterIds.has(keyId(k)));
      includeFilterKeys = !optimised;
    }
    if (includeFilterKeys) {
      for (const k of filterKeys) {
        const id = keyId(k);
        if (k.type !== 'ENTITY_FIELD' && !seen.has(id)) {
          seen.add(id);
          out.push(k);
        }
      }
    }
    return out;
  }

  /** The `latest` map of one row. */
  latest(r: Row, mode: FieldMode, keys: EntityKey[], now: number): LatestMap {
    const latest: LatestMap = {};
    for (const k of keys) {
      let group = latest[k.type];
      if (!group) {
        group = {};
        latest[k.type] = group;
      }
      if (k.type === 'ENTITY_FIELD') {
        group[k.key] = { ts: now, value: fieldValue(this.ds, r.e, k.key, mode, r.parentId) ?? '' };
      } else {
        const entry = this.kvFor(r.e, k);
        group[k.key] = entry ? { ts: entry.ts, value: sqlValueString(entry) } : { ts: 0, value: '' };
      }
    }
    return latest;
  }

  /** Resolves alias ids (CURRENT_USER, CURRENT_TENANT, CURRENT_CUSTOMER, CURRENT_USER_OWNER). */
  resolveAlias(a: AliasEntityId, caller: Caller): EntityId {
    switch (a.entityType) {
      case 'CURRENT_USER':
        return { entityType: 'USER', id: caller.userId };
      case 'CURRENT_TENANT':
        return { entityType: 'TENANT', id: caller.tenantId };
      case 'CURRENT_CUSTOMER':
        return { entityType: 'CUSTOMER', id: caller.customerId ?? a.id ?? NULL_UUID };
      case 'CURRENT_USER_OWNER':
        return caller.customerId
          ? { entityType: 'CUSTOMER', id: caller.customerId }
          : { entityType: 'TENANT', id: caller.tenantId };
      default:
        return { entityType: a.entityType, id: a.id ?? NULL_UUID };
    }
  }

  /** Matching rows (permission-filtered, key-filtered, text-searched, sorted), cached per dataset version. */
  private matchKey(caller: Caller, spec: MatchSpec): string {
    return JSON.stringify([
      caller.authority,
      caller.tenantId,
      caller.customerId,
      caller.userId,
      spec.filter,
      spec.keyFilters,
      spec.op,
      spec.sort,
      spec.textSearch,
      spec.textSearch ? spec.searchKeys : 0,
    ]);
  }

  match(caller: Caller, spec: MatchSpec, key?: string): MatchResult {
    const cacheKey = key ?? this.matchKey(caller, spec);
    const hit = this.cache.get(cacheKey);
    if (hit && hit.version === this.ds.version) {
      this.stats.hits++;
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, hit);
      return hit.result;
    }
    this.stats.misses++;
    const result = this.compute(caller, spec);
    this.cache.delete(cacheKey);
    this.cache.set(cacheKey, { version: this.ds.version, result });
    while (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    return result;
  }

  clearCache(): void {
    this.cache.clear();
    this.pages.clear();
  }

  // -------------------------------------------------------------------------------------------------------------
  // internals

  private kvFor(e: SimEntity, k: EntityKey): KvEntry | undefined {
    switch (k.type) {
      case 'TIME_SERIES':
        return this.ds.getLatest(e, k.key);
      case 'ATTRIBUTE':
        return this.ds.getAnyAttribute(e, k.key);
      case 'SERVER_ATTRIBUTE':
        return this.ds.getAttribute(e, 'SERVER_SCOPE', k.key);
      case 'SHARED_ATTRIBUTE':
        return this.ds.getAttribute(e, 'SHARED_SCOPE', k.key);
      case 'CLIENT_ATTRIBUTE':
        return this.ds.getAttribute(e, 'CLIENT_SCOPE', k.key);
      default:
        return undefined;
    }
  }

  private compute(caller: Caller, spec: MatchSpec): MatchResult {
    const { rows: candidates, mode } = this.candidates(caller, spec.filter);
    const keyTest = this.compileKeyFilters(spec.keyFilters, spec.op, mode);
    let rows = keyTest ? candidates.filter(keyTest) : candidates;
    if (spec.textSearch) {
      const m = compileIlike(`%${spec.textSearch}%`);
      const keys = spec.searchKeys.filter((k) => !(k.type === 'ENTITY_FIELD' && k.key === 'additionalInfo'));
      if (keys.length > 0) {
        rows = rows.filter((r) => {
          let s = '';
          for (const k of keys) {
            s +=
              k.type === 'ENTITY_FIELD'
                ? (fieldValue(this.ds, r.e, k.key, mode, r.parentId) ?? '')
                : pgText(this.kvFor(r.e, k));
          }
          return m(s);
        });
      }
    }
    if (spec.sort) rows = this.sortRows(rows, spec.sort, mode);
    else if (rows === candidates) rows = rows.slice();
    return { rows, mode };
  }

  private sortRows(rows: Row[], so: SortOrder, mode: FieldMode): Row[] {
    const desc = so.direction !== 'ASC'; // a missing direction sorts descending
    const sign = desc ? -1 : 1;
    if (so.key.type === 'ENTITY_FIELD') {
      const keyed = rows.map((r) => {
        const v = fieldValue(this.ds, r.e, so.key.key, mode, r.parentId);
        return { r, s: v === undefined ? '' : v };
      });
      keyed.sort((a, b) => {
        if (a.s !== b.s) {
          if (a.s === null) return desc ? -1 : 1; // NULLS LAST for ASC, FIRST for DESC
          if (b.s === null) return desc ? 1 : -1;
          const c = COLLATOR.compare(a.s, b.s);
          if (c !== 0) return sign * c;
        }
        return a.r.e.id < b.r.e.id ? -sign : a.r.e.id > b.r.e.id ? sign : 0;
      });
      return keyed.map((k) => k.r);
    }
    if (so.key.type === 'ALARM_FIELD') return rows.slice();
    const keyed = rows.map((r) => {
      const entry = this.kvFor(r.e, so.key);
      return { r, n: sortNum(entry), s: sortStr(entry) };
    });
    keyed.sort((a, b) => {
      if (a.n !== b.n) {
        if (a.n === null) return desc ? -1 : 1;
        if (b.n === null) return desc ? 1 : -1;
        return sign * (a.n - b.n);
      }
      if (a.s !== b.s) {
        const c = COLLATOR.compare(a.s, b.s);
        if (c !== 0) return sign * c;
      }
      return a.r.e.id < b.r.e.id ? -sign : a.r.e.id > b.r.e.id ? sign : 0;
    });
    return keyed.map((k) => k.r);
  }

  /** Builds the per-row key filter test; null when there is no condition at all. */
  private compileKeyFilters(filters: KeyFilter[], op: 'AND' | 'OR', mode: FieldMode): ((r: Row) => boolean) | null {
    if (filters.length === 0) return null;
    const ds = this.ds;
    const evalKey = (r: Row, key: EntityKey, tests: NonNullable<Test>[]): boolean => {
      const all = (v: KvEntry | undefined): boolean => {
        for (const t of tests) if (!t(v)) return false;
        return true;
      };
      switch (key.type) {
        case 'ENTITY_FIELD': {
          const v = fieldEntry(ds, r.e, key.key, mode, r.parentId);
          return v === 'none' ? true : all(v);
        }
        case 'ATTRIBUTE':
          // the newest attribute among those that satisfy the filter, in any scope
          return ds.attributeCandidates(r.e, key.key).some(all);
        case 'ALARM_FIELD':
          return true;
        default:
          return all(this.kvFor(r.e, key));
      }
    };
    if (op === 'OR') {
      const parts = filters
        .map((kf) => ({ key: kf.key, test: compilePredicate(kf.predicate, kf.key.type === 'ENTITY_FIELD') }))
        .filter((p): p is { key: EntityKey; test: NonNullable<Test> } => p.test !== null);
      if (parts.length === 0) return null;
      return (r) => parts.some((p) => evalKey(r, p.key, [p.test]));
    }
    const groups = new Map<string, { key: EntityKey; tests: NonNullable<Test>[] }>();
    for (const kf of filters) {
      const t = compilePredicate(kf.predicate, kf.key.type === 'ENTITY_FIELD');
      const id = keyId(kf.key);
      let g = groups.get(id);
      if (!g) {
        g = { key: kf.key, tests: [] };
        groups.set(id, g);
      }
      if (t) g.tests.push(t);
    }
    const active = [...groups.values()].filter((g) => g.tests.length > 0);
    if (active.length === 0) return null;
    return (r) => {
      for (const g of active) if (!evalKey(r, g.key, g.tests)) return false;
      return true;
    };
  }

  /**
   * Whether the caller may see the entity (the permission part of the query's SQL). Invisible entities are dropped
   * silently.
   */
  visible(caller: Caller, e: SimEntity): boolean {
    if (caller.authority === 'SYS_ADMIN') return e.entityType === 'TENANT' || e.entityType === 'TENANT_PROFILE';
    if (e.tenantId !== caller.tenantId) return false;
    if (caller.authority === 'TENANT_ADMIN') return true;
    switch (e.entityType) {
      case 'CUSTOMER':
        return e.id === caller.customerId;
      case 'DASHBOARD':
        return !!caller.customerId && (e.assignedCustomerIds ?? []).includes(caller.customerId);
      case 'TENANT':
        return false;
      default:
        return e.customerId !== null && e.customerId === caller.customerId;
    }
  }

  private checkQueryable(t: EntityType): void {
    if (!QUERYABLE_ENTITY_TYPES.has(t)) throw general(`Entity type ${t} is not supported by the entity data query`);
  }

  private byType(caller: Caller, t: EntityType, accept?: (e: SimEntity) => boolean): Row[] {
    this.checkQueryable(t);
    const out: Row[] = [];
    for (const e of this.ds.entitiesOfType(t)) {
      if ((!accept || accept(e)) && this.visible(caller, e)) out.push({ e });
    }
    return out;
  }

  private candidates(caller: Caller, f: EntityFilter): MatchResult {
    switch (f.type) {
      case 'singleEntity': {
        if (!f.singleEntity)
          throw general('Cannot invoke "AliasEntityId.getEntityType()" because "singleEntity" is null');
        const id = this.resolveAlias(f.singleEntity, caller);
        const t = id.entityType as EntityType;
        this.checkQueryable(t);
        const e = this.ds.get(id.id);
        return { rows: e && e.entityType === t && this.visible(caller, e) ? [{ e }] : [], mode: t };
      }
      case 'entityList': {
        const t = f.entityType;
        if (t === null) throw badRequest('Entity type is required');
        this.checkQueryable(t);
        const rows: Row[] = [];
        const seen = new Set<string>();
        for (const id of f.entityList) {
          if (!isUuid(id)) throw badRequest(`Invalid UUID string: ${id}`);
          const e = this.ds.get(id.toLowerCase());
          if (e && e.entityType === t && !seen.has(e.id) && this.visible(caller, e)) {
            seen.add(e.id);
            rows.push({ e });
          }
        }
        return { rows, mode: t };
      }
      case 'entityName': {
        const t = f.entityType as EntityType;
        const m = nameMatcher(f.entityNameFilter);
        return { rows: this.byType(caller, t, m ? (e) => m(e.name) : undefined), mode: t };
      }
      case 'entityType':
        return { rows: this.byType(caller, f.entityType as EntityType), mode: f.entityType as EntityType };
      case 'assetType':
      case 'deviceType':
      case 'edgeType':
      case 'entityViewType': {
        const t: EntityType = (
          { assetType: 'ASSET', deviceType: 'DEVICE', edgeType: 'EDGE', entityViewType: 'ENTITY_VIEW' } as const
        )[f.type];
        const types = new Set(f.types.filter((x): x is string => x !== null));
        const m = nameMatcher(f.nameFilter);
        return {
          rows: this.byType(caller, t, (e) => e.type !== null && types.has(e.type) && (!m || m(e.name))),
          mode: t,
        };
      }
      case 'apiUsageState': {
        let customerId: string | null = null;
        if (f.customerId) {
          if (caller.authority === 'CUSTOMER_USER' && f.customerId.id !== caller.customerId) throw forbidden();
          customerId = f.customerId.id === NULL_UUID ? null : f.customerId.id;
        } else if (caller.authority === 'CUSTOMER_USER') {
          customerId = caller.customerId;
        }
        return {
          rows: this.byType(caller, 'API_USAGE_STATE', (e) => e.customerId === customerId),
          mode: 'API_USAGE_STATE',
        };
      }
      case 'relationsQuery':
        return { rows: this.relations(caller, f), mode: 'RELATIONS' };
      case 'assetSearchQuery':
      case 'deviceSearchQuery':
      case 'entityViewSearchQuery':
      case 'edgeSearchQuery': {
        const t: EntityType = (
          {
            assetSearchQuery: 'ASSET',
            deviceSearchQuery: 'DEVICE',
            entityViewSearchQuery: 'ENTITY_VIEW',
            edgeSearchQuery: 'EDGE',
          } as const
        )[f.type];
        if (!f.rootEntity) throw badRequest('Relation query filter root entity should not be blank');
        const root = this.resolveAlias(f.rootEntity, caller);
        const types = new Set(f.types);
        const rel = f.relationType && f.relationType !== '' ? f.relationType : null;
        const rows = this.traverse(
          caller,
          [root.id],
          f.direction,
          f.maxLevel,
          f.fetchLastLevelOnly,
          (relType, target) =>
            (rel === null || relType === rel) &&
            target.entityType === t &&
            (types.size === 0 || (target.type !== null && types.has(target.type))),
          false,
        );
        return { rows, mode: t };
      }
    }
  }

  private relations(caller: Caller, f: Extract<EntityFilter, { type: 'relationsQuery' }>): Row[] {
    let roots: string[];
    if (f.multiRoot) {
      roots = [];
      for (const id of f.multiRootEntityIds ?? []) {
        if (!isUuid(id)) throw badRequest(`Invalid UUID string: ${id}`);
        const e = this.ds.get(id.toLowerCase());
        if (e && e.entityType === f.multiRootEntitiesType) roots.push(e.id);
      }
    } else {
      roots = [this.resolveAlias(f.rootEntity as AliasEntityId, caller).id];
    }
    const filters = f.filters;
    const hop = (relType: string, target: SimEntity): boolean => {
      let m: boolean;
      if (filters.length > 0) {
        m = filters.some(
          (rf) =>
            (rf.relationType === null ||
              rf.relationType === '' ||
              (rf.negate ? relType !== rf.relationType : relType === rf.relationType)) &&
            (rf.entityTypes.length === 0 || rf.entityTypes.includes(target.entityType)),
        );
      } else {
        m = RELATION_QUERY_ENTITY_TYPES.has(target.entityType);
      }
      return f.negate ? !m : m;
    };
    return this.traverse(caller, roots, f.direction, f.maxLevel, f.fetchLastLevelOnly, hop, f.multiRoot);
  }

  /**
   * Walks relations from the roots (any relation type on every hop; the hop test applies to the relation that
   * reaches the returned entity), like the server's recursive CTE with path tracking.
   */
  private traverse(
    caller: Caller,
    roots: string[],
    direction: 'FROM' | 'TO',
    maxLevelIn: number,
    lastLevelOnly: boolean,
    hop: (relType: string, target: SimEntity) => boolean,
    withParent: boolean,
  ): Row[] {
    const maxLevel = maxLevelIn <= 0 || maxLevelIn > 50 ? 50 : maxLevelIn;
    const ds = this.ds;
    const found = new Map<string, Row>();
    let steps = 0;
    const next = (id: string): readonly { type: string; target: string }[] =>
      (direction === 'FROM' ? ds.relationsFrom(id) : ds.relationsTo(id))
        .filter((r) => r.typeGroup === 'COMMON')
        .map((r) => ({
          type: r.type,
          target: direction === 'FROM' ? r.to.id : r.from.id,
        }));
    const hasFurther = (e: SimEntity): boolean =>
      next(e.id).some((n) => {
        const t = ds.get(n.target);
        return t !== undefined && hop(n.type, t);
      });
    for (const root of roots) {
      const path = new Set<string>([root]);
      const visit = (id: string, level: number): void => {
        if (level >= maxLevel) return;
        for (const n of next(id)) {
          if (++steps > MAX_RELATION_STEPS) throw general('Relation query is too large for the simulator');
          if (path.has(n.target)) continue;
          const target = ds.get(n.target);
          if (!target) continue;
          if (!found.has(target.id) && hop(n.type, target)) {
            if (!lastLevelOnly || level + 1 === maxLevel || !hasFurther(target)) {
              found.set(target.id, withParent ? { e: target, parentId: root } : { e: target });
            }
          }
          path.add(n.target);
          visit(n.target, level + 1);
          path.delete(n.target);
        }
      };
      visit(root, 0);
    }
    const rows: Row[] = [];
    for (const r of found.values()) if (this.visible(caller, r.e)) rows.push(r);
    return rows;
  }
}

/** Name filters: ILIKE; as given when it starts or ends with '%', else a case-insensitive prefix. */
function nameMatcher(filter: string | null): ((s: string) => boolean) | null {
  if (filter === null || filter === '') return null;
  const pattern = filter.startsWith('%') || filter.endsWith('%') ? filter : `${filter}%`;
  return compileIlike(pattern);
}

export { ApiError };
