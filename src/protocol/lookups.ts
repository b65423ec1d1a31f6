/**
 * The queries behind the editor's look-ups, built here so that wire JSON stays in the protocol core:
 * entities by name (a "contains" search), names of known ids, and the entities whose keys a key picker lists.
 * Pure: no I/O, no Node-RED. Each result goes through the same prepare function as a node's query, so the
 * editor's look-ups send exactly what a node would.
 */
import { TbInputError } from '../errors';
import {
  QUERYABLE_ENTITY_TYPES,
  type EntityData,
  type EntityDataQuery,
  type EntityFilter,
  type EntityId,
} from './types';
import { prepareEntityDataQuery } from './validate';

/** Entity types whose profiles (device and asset profiles) or types (entity views, edges) the editor can list. */
export const PROFILE_ENTITY_TYPES = ['DEVICE', 'ASSET', 'ENTITY_VIEW', 'EDGE'] as const;
export type ProfileEntityType = (typeof PROFILE_ENTITY_TYPES)[number];

/** Entity types an entity picker can search: those the entity query can read (`QUERYABLE_ENTITY_TYPES`). */
export const LOOKUP_ENTITY_TYPES = QUERYABLE_ENTITY_TYPES;
export type LookupEntityType = (typeof LOOKUP_ENTITY_TYPES)[number];

/** At most this many entities per search (a page of 50). */
export const ENTITY_SEARCH_LIMIT = 50;
/** At most this many ids per name resolution. */
export const MAX_RESOLVE_IDS = 100;

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const NAME = { type: 'ENTITY_FIELD', key: 'name' } as const;

/** Checks that `v` is one of `allowed`; the message names `field` and the allowed values. */
export function oneOfParam<T extends string>(v: unknown, allowed: readonly T[], field: string): T {
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
  const got = v === undefined || v === '' ? 'nothing' : JSON.stringify(v);
  throw new TbInputError(field, `${field} must be one of ${allowed.join(', ')} (got ${got})`);
}

/**
 * A text for `pageLink.textSearch` that matches itself literally: the server puts it in
 * `ILIKE '%' || text || '%'` without escaping, so `%`, `_` and `\` are escaped here.
 */
export function literalTextSearch(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Entities of one type whose name contains `search` (case-insensitive), sorted by name, at most `limit`:
 * `pageLink.textSearch` over the one requested field, `name`.
 */
export function entitySearchQuery(
  entityType: LookupEntityType,
  search: string,
  limit = ENTITY_SEARCH_LIMIT,
): EntityDataQuery {
  const pageLink: Record<string, unknown> = { page: 0, pageSize: limit, sortOrder: { key: NAME, direction: 'ASC' } };
  if (search !== '') pageLink.textSearch = literalTextSearch(search);
  return prepareEntityDataQuery(
    { entityFilter: { type: 'entityType', entityType }, entityFields: [NAME], latestValues: [], pageLink },
    'lookup',
  );
}

/**
 * Parses `ids` (an array or comma-separated UUIDs; blanks and duplicates dropped) for a name resolution.
 * Throws a TbInputError naming `field` for a bad UUID or too many ids.
 */
export function parseIds(v: unknown, field = 'ids'): string[] {
  const parts = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : null;
  if (parts === null) throw new TbInputError(field, `${field} must be a comma-separated list of entity ids (UUIDs)`);
  const out: string[] = [];
  for (const p of parts) {
    const id = typeof p === 'string' ? p.trim() : p;
    if (id === '') continue;
    if (typeof id !== 'string' || !UUID_RE.test(id)) {
      throw new TbInputError(
        field,
        `${field} must be a comma-separated list of entity ids (UUIDs); ${JSON.stringify(id)} is not one`,
      );
    }
    const lower = id.toLowerCase();
    if (!out.includes(lower)) out.push(lower);
  }
  if (out.length > MAX_RESOLVE_IDS)
    throw new TbInputError(field, `${field} may hold at most ${MAX_RESOLVE_IDS} ids (got ${out.length})`);
  return out;
}

/** The names of known entities of one type (an `entityList` filter), sorted by name. `ids` must not be empty. */
export function entityNamesQuery(entityType: LookupEntityType, ids: string[]): EntityDataQuery {
  return prepareEntityDataQuery(
    {
      entityFilter: { type: 'entityList', entityType, entityList: ids },
      entityFields: [NAME],
      latestValues: [],
      pageLink: { page: 0, pageSize: Math.max(1, ids.length), sortOrder: { key: NAME, direction: 'ASC' } },
    },
    'lookup',
  );
}

/** `{id, name}` of each row of a look-up answer (the name is `latest.ENTITY_FIELD.name.value`). */
export function entityNames(rows: EntityData[]): Array<{ id: EntityId; name: string }> {
  return rows.map((r) => ({
    id: { entityType: r.entityId.entityType, id: r.entityId.id },
    name: r.latest?.ENTITY_FIELD?.name?.value ?? '',
  }));
}

/**
 * The entities whose keys a key picker lists: those of the given profiles (device/asset profile names, entity
 * view/edge types) through the matching type filter, or every entity of the type when no profile is given.
 * The page is the default one (100 entities; the v1 key endpoint caps it there anyway).
 */
export function profileKeysQuery(entityType: LookupEntityType, profiles: string[]): EntityDataQuery {
  let entityFilter: EntityFilter;
  if (profiles.length === 0) entityFilter = { type: 'entityType', entityType };
  else if (entityType === 'DEVICE') entityFilter = { type: 'deviceType', deviceTypes: profiles };
  else if (entityType === 'ASSET') entityFilter = { type: 'assetType', assetTypes: profiles };
  else if (entityType === 'ENTITY_VIEW') entityFilter = { type: 'entityViewType', entityViewTypes: profiles };
  else if (entityType === 'EDGE') entityFilter = { type: 'edgeType', edgeTypes: profiles };
  else
    throw new TbInputError(
      'profiles',
      `profiles can only be given with entityType ${PROFILE_ENTITY_TYPES.join(', ')} (got entityType ${entityType})`,
    );
  return prepareEntityDataQuery({ entityFilter }, 'lookup');
}

/**
 * The entities whose own keys a key picker lists when a node acts on fixed entities (tb-telemetry, tb-attributes):
 * an `entityList` filter of those ids. `ids` must not be empty.
 */
export function entityKeysQuery(entityType: LookupEntityType, ids: string[]): EntityDataQuery {
  return prepareEntityDataQuery({ entityFilter: { type: 'entityList', entityType, entityList: ids } }, 'lookup');
}

/** A comma-separated list of names (blanks and duplicates dropped, order kept). */
export function nameListParam(v: unknown, field: string): string[] {
  if (v === undefined || v === null || v === '') return [];
  if (typeof v !== 'string')
    throw new TbInputError(field, `${field} must be a comma-separated list of names, given once`);
  const out: string[] = [];
  for (const part of v.split(',')) {
    const name = part.trim();
    if (name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}
