/**
 * Key discovery: POST /api/entitiesQuery/find/keys (v1) and /api/v2/entitiesQuery/find/keys
 * (`DefaultEntityQueryService#getKeysByQuery`).
 */
import type { Dataset, SimEntity } from '../dataset';
import { badRequest } from '../errors';
import { ATTRIBUTE_SCOPES, type AttributeScope, type Caller, type KvEntry } from '../types';
import { typedJson, type JsonValue } from '../values';
import { validateCountQuery, validatePageLink, type EntityQueryEngine } from './entities';
import type { EntityDataQuery, EntityFilter } from './parse';
import { resolveDynamic, type DynamicResolution } from './predicates';

export interface AvailableEntityKeys {
  entityTypes: string[];
  timeseries: string[];
  attribute: string[];
}

export interface KeyInfo {
  key: string;
  sample?: { ts: number; value: JsonValue };
}
export interface AvailableEntityKeysV2 {
  entityTypes: string[];
  timeseries?: KeyInfo[];
  attributes?: Partial<Record<AttributeScope, KeyInfo[]>>;
}

/** The controller caps the page size of key discovery at 100. */
const MAX_PAGE = 100;

/**
 * The entities whose keys are listed. v1 runs the REST find (DefaultEntityQueryService#getKeysByQuery calls
 * findEntityDataByQuery, which resolves dynamic values); v2 goes straight to the entity service (no resolution).
 */
function pageEntities(
  ds: Dataset,
  engine: EntityQueryEngine,
  caller: Caller,
  q: EntityDataQuery,
  dyn: DynamicResolution,
): SimEntity[] {
  const keyFilters = q.keyFilters.map((kf) => ({ ...kf, predicate: resolveDynamic(kf.predicate, ds, caller, dyn) }));
  validateCountQuery(q);
  validatePageLink(q.pageLink);
  const pl = q.pageLink;
  const pageSize = Math.min(pl.pageSize, MAX_PAGE);
  const textSearch = pl.textSearch && pl.textSearch !== '' ? pl.textSearch : null;
  const { rows } = engine.match(caller, {
    filter: q.entityFilter as EntityFilter,
    keyFilters,
    op: q.keyFiltersOperation,
    sort: pl.sortOrder,
    textSearch,
    searchKeys: [...q.entityFields, ...q.latestValues],
  });
  const start = pageSize * pl.page;
  return rows.slice(start, start + pageSize).map((r) => r.e);
}

function distinctTypes(entities: SimEntity[]): string[] {
  return [...new Set(entities.map((e) => e.entityType))];
}

export function findKeysV1(
  ds: Dataset,
  engine: EntityQueryEngine,
  caller: Caller,
  q: EntityDataQuery,
  params: { timeseries: boolean; attributes: boolean; scope: AttributeScope | null },
): AvailableEntityKeys {
  const entities = pageEntities(ds, engine, caller, q, 'rest');
  if (entities.length === 0 || (!params.timeseries && !params.attributes)) {
    return { entityTypes: [], timeseries: [], attribute: [] };
  }
  const ts = new Set<string>();
  const attrs = new Set<string>();
  for (const e of entities) {
    if (params.timeseries) for (const k of ds.timeseriesKeys(e)) ts.add(k);
    if (params.attributes) {
      for (const scope of params.scope ? [params.scope] : ATTRIBUTE_SCOPES) {
        for (const [k] of ds.attributeEntries(e, scope)) attrs.add(k);
      }
    }
  }
  return { entityTypes: distinctTypes(entities), timeseries: [...ts].sort(), attribute: [...attrs].sort() };
}

function collect(map: Map<string, KvEntry>, key: string, entry: KvEntry): void {
  const cur = map.get(key);
  if (!cur || entry.ts > cur.ts) map.set(key, entry);
}

function infos(map: Map<string, KvEntry>, samples: boolean): KeyInfo[] {
  return [...map.keys()].sort().map((key) => {
    const e = map.get(key) as KvEntry;
    return samples ? { key, sample: { ts: e.ts, value: typedJson(e) } } : { key };
  });
}

export function findKeysV2(
  ds: Dataset,
  engine: EntityQueryEngine,
  caller: Caller,
  q: EntityDataQuery,
  params: {
    includeTimeseries: boolean;
    includeAttributes: boolean;
    scopes: AttributeScope[] | null;
    includeSamples: boolean;
  },
): AvailableEntityKeysV2 {
  if (!params.includeTimeseries && !params.includeAttributes) {
    throw badRequest("At least one of 'includeTimeseries' or 'includeAttributes' must be true");
  }
  const entities = pageEntities(ds, engine, caller, q, 'none');
  const out: AvailableEntityKeysV2 = { entityTypes: distinctTypes(entities) };
  if (params.includeTimeseries) {
    const ts = new Map<string, KvEntry>();
    for (const e of entities) {
      for (const k of ds.timeseriesKeys(e)) {
        const entry = ds.getLatest(e, k);
        if (entry) collect(ts, k, entry);
      }
    }
    out.timeseries = infos(ts, params.includeSamples);
  }
  if (params.includeAttributes) {
    const hasDevice = entities.some((e) => e.entityType === 'DEVICE');
    let scopes: AttributeScope[] =
      params.scopes && params.scopes.length > 0 ? params.scopes : hasDevice ? [...ATTRIBUTE_SCOPES] : ['SERVER_SCOPE'];
    if (!hasDevice) scopes = scopes.filter((s) => s === 'SERVER_SCOPE');
    if (scopes.length > 0 || entities.length === 0) {
      const attributes: Partial<Record<AttributeScope, KeyInfo[]>> = {};
      for (const scope of [...new Set(scopes)].sort()) {
        const m = new Map<string, KvEntry>();
        for (const e of entities) for (const [k, entry] of ds.attributeEntries(e, scope)) collect(m, k, entry);
        if (m.size > 0) attributes[scope] = infos(m, params.includeSamples);
      }
      out.attributes = attributes;
    }
  }
  return out;
}
