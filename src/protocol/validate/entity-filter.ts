/**
 * The entity filter of a query, all 14 types: which entities the query is about. Type lists fall back to the
 * deprecated singular names as the server's getters do; the `*SearchQuery` filters have no singular.
 */

import type { EntityFilter, RelationEntityTypeFilter, RelationsQueryFilter } from '../types';
import { aliasEntityId, entityType, entityTypeArray, typedId } from './ids';
import {
  FILTER_TYPE,
  RELATION_DIRECTION,
  arr,
  bool,
  fail,
  got,
  nonNegInt,
  obj,
  oneOf,
  optBool,
  optStr,
  str,
  uuidArray,
  type Obj,
} from './primitives';

/**
 * An array of type names. A `null` item is kept: Jackson writes an empty Java type filter that way and the server
 * runs it (`type in (null)` matches nothing).
 */
function typeNames(v: unknown, path: string): (string | null)[] {
  const a = arr(v, path, 'an array of strings');
  const out: (string | null)[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] === null ? null : str(a[i], `${path}[${i}]`);
  return out;
}

/**
 * The plural `<x>Types` list of a type filter, falling back to the deprecated singular `<x>Type` when the list is
 * empty or absent, as the server's getter does (`DeviceTypeFilter#getDeviceTypes`).
 */
function typeList(o: Obj, plural: string, singular: string, path: string): (string | null)[] {
  if (o[plural] != null) {
    const list = typeNames(o[plural], `${path}.${plural}`);
    if (list.length > 0) return list;
  }
  const single = o[singular];
  if (single != null && single !== '') return [str(single, `${path}.${singular}`)];
  return fail(
    `${path}.${plural}`,
    `${path}.${plural} must be a non-empty array of type names, e.g. ["thermostat"] ${got(o[plural])}`,
  );
}

function relationFilters(v: unknown, path: string): RelationEntityTypeFilter[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of {relationType, entityTypes, negate}');
  const out: RelationEntityTypeFilter[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const p = `${path}[${i}]`;
    const f = obj(a[i], p, 'an object {relationType, entityTypes, negate}');
    const r: RelationEntityTypeFilter = {};
    if (f.relationType != null) r.relationType = str(f.relationType, `${p}.relationType`);
    if (f.entityTypes != null) r.entityTypes = entityTypeArray(f.entityTypes, `${p}.entityTypes`);
    if (f.negate != null) r.negate = bool(f.negate, `${p}.negate`);
    out[i] = r;
  }
  return out;
}

/** Fields shared by relationsQuery and the *SearchQuery filters. */
function relationCommon(o: Obj, path: string, out: Obj): void {
  out.direction = oneOf(o.direction, RELATION_DIRECTION, `${path}.direction`);
  if (o.maxLevel != null) out.maxLevel = nonNegInt(o.maxLevel, `${path}.maxLevel`);
  optBool(o, 'fetchLastLevelOnly', path, out);
  optBool(o, 'rootStateEntity', path, out);
  if (o.defaultStateEntity != null)
    out.defaultStateEntity = aliasEntityId(o.defaultStateEntity, `${path}.defaultStateEntity`);
}

const SEARCH_QUERY_TYPES: Readonly<Record<string, string>> = {
  assetSearchQuery: 'assetTypes',
  deviceSearchQuery: 'deviceTypes',
  entityViewSearchQuery: 'entityViewTypes',
  edgeSearchQuery: 'edgeTypes',
};

export function entityFilter(v: unknown, path: string): EntityFilter {
  const o = obj(v, path, 'an entity filter object with a "type"');
  const type = oneOf(o.type, FILTER_TYPE, `${path}.type`);
  switch (type) {
    case 'singleEntity':
      return { type, singleEntity: aliasEntityId(o.singleEntity, `${path}.singleEntity`) };
    case 'entityList':
      return {
        type,
        entityType: entityType(o.entityType, `${path}.entityType`),
        entityList: uuidArray(o.entityList, `${path}.entityList`),
      };
    case 'entityName':
      return {
        type,
        entityType: entityType(o.entityType, `${path}.entityType`),
        entityNameFilter: str(o.entityNameFilter, `${path}.entityNameFilter`),
      };
    case 'entityType':
      return { type, entityType: entityType(o.entityType, `${path}.entityType`) };
    case 'assetType': {
      const out: Obj = { type, assetTypes: typeList(o, 'assetTypes', 'assetType', path) };
      optStr(o, 'assetNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'deviceType': {
      const out: Obj = { type, deviceTypes: typeList(o, 'deviceTypes', 'deviceType', path) };
      optStr(o, 'deviceNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'edgeType': {
      const out: Obj = { type, edgeTypes: typeList(o, 'edgeTypes', 'edgeType', path) };
      optStr(o, 'edgeNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'entityViewType': {
      const out: Obj = { type, entityViewTypes: typeList(o, 'entityViewTypes', 'entityViewType', path) };
      optStr(o, 'entityViewNameFilter', path, out);
      return out as unknown as EntityFilter;
    }
    case 'apiUsageState':
      return o.customerId == null
        ? { type }
        : { type, customerId: typedId(o.customerId, `${path}.customerId`, 'CUSTOMER') };
    case 'relationsQuery': {
      const out: Obj = { type };
      const multiRoot = o.multiRoot == null ? false : bool(o.multiRoot, `${path}.multiRoot`);
      if (o.multiRoot != null) out.multiRoot = multiRoot;
      if (multiRoot) {
        out.multiRootEntitiesType = entityType(o.multiRootEntitiesType, `${path}.multiRootEntitiesType`);
        out.multiRootEntityIds = uuidArray(o.multiRootEntityIds, `${path}.multiRootEntityIds`);
        if (o.rootEntity != null) out.rootEntity = aliasEntityId(o.rootEntity, `${path}.rootEntity`);
      } else if (o.rootEntity == null) {
        fail(
          `${path}.rootEntity`,
          `${path}.rootEntity must be an entity id {"entityType": "DEVICE", "id": "<uuid>"} (missing; or set ` +
            'multiRoot: true with multiRootEntitiesType and multiRootEntityIds)',
        );
      } else {
        out.rootEntity = aliasEntityId(o.rootEntity, `${path}.rootEntity`);
      }
      relationCommon(o, path, out);
      out.filters = relationFilters(o.filters, `${path}.filters`);
      optBool(o, 'negate', path, out);
      return out as unknown as RelationsQueryFilter;
    }
    default: {
      // assetSearchQuery, deviceSearchQuery, entityViewSearchQuery, edgeSearchQuery
      const out: Obj = { type, rootEntity: aliasEntityId(o.rootEntity, `${path}.rootEntity`) };
      optStr(o, 'relationType', path, out);
      relationCommon(o, path, out);
      // Only the plural list: these filters have no singular field (DeviceSearchQueryFilter.java), so a
      // "deviceType" here is an unknown property the server ignores, and so do we.
      const plural = SEARCH_QUERY_TYPES[type];
      if (o[plural] != null) out[plural] = typeNames(o[plural], `${path}.${plural}`);
      return out as unknown as EntityFilter;
    }
  }
}
