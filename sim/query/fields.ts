/**
 * ENTITY_FIELD keys per entity type (`DAO/sql/query/EntityKeyMapping.java`): allowed columns, aliases, computed fields.
 */
import type { Dataset, SimEntity } from '../dataset';
import type { EntityType, KvEntry } from '../types';

/** The filter's entity type, or 'RELATIONS' for relationsQuery results (union column set, raw keys). */
export type FieldMode = EntityType | 'RELATIONS';

const LABELED = ['createdTime', 'entityType', 'name', 'type', 'label', 'additionalInfo'];
const TYPED = ['createdTime', 'entityType', 'name', 'type', 'additionalInfo'];
const CONTACT = [
  'createdTime',
  'entityType',
  'email',
  'title',
  'country',
  'state',
  'city',
  'address',
  'address2',
  'zip',
  'phone',
  'additionalInfo',
];
const COMMON = ['createdTime', 'entityType', 'name', 'additionalInfo'];

const ALLOWED: Partial<Record<EntityType, Set<string>>> = {
  DEVICE: new Set(LABELED),
  ASSET: new Set(LABELED),
  EDGE: new Set(LABELED),
  ENTITY_VIEW: new Set(TYPED),
  TENANT: new Set([...CONTACT, 'region']),
  CUSTOMER: new Set(CONTACT),
  USER: new Set(['createdTime', 'firstName', 'lastName', 'email', 'phone', 'additionalInfo']),
  DASHBOARD: new Set(['createdTime', 'entityType', 'title']),
  DEVICE_PROFILE: new Set(['createdTime', 'name', 'type']),
  ASSET_PROFILE: new Set(['createdTime', 'name']),
  API_USAGE_STATE: new Set(['createdTime', 'entityType', 'name']),
};
const COMMON_SET = new Set(COMMON);
const RELATIONS_SET = new Set([
  'createdTime',
  'entityType',
  'name',
  'type',
  'label',
  'firstName',
  'lastName',
  'email',
  'region',
  'title',
  'country',
  'state',
  'city',
  'address',
  'address2',
  'zip',
  'phone',
  'additionalInfo',
]);

const TITLE_ALIASES: Record<string, string> = { name: 'title', label: 'title', displayName: 'title' };
const NAME_ALIASES: Record<string, string> = { title: 'name' };
const ALIASES: Partial<Record<EntityType, Record<string, string>>> = {
  TENANT: TITLE_ALIASES,
  CUSTOMER: TITLE_ALIASES,
  DASHBOARD: TITLE_ALIASES,
  DEVICE: NAME_ALIASES,
  ASSET: NAME_ALIASES,
  EDGE: NAME_ALIASES,
  ENTITY_VIEW: { title: 'name', displayName: 'name' },
  USER: { title: 'email', label: 'email', name: 'email' },
};

const OWNED: ReadonlySet<EntityType> = new Set<EntityType>([
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'USER',
  'DASHBOARD',
  'EDGE',
]);
const TITLED: ReadonlySet<EntityType> = new Set<EntityType>(['TENANT', 'CUSTOMER', 'DASHBOARD']);

/** The raw column value of an entity; null when the column is null. */
function column(e: SimEntity, col: string): string | null {
  switch (col) {
    case 'createdTime':
      return String(e.createdTime);
    case 'name':
      return e.entityType === 'USER' ? (e.fields.email ?? e.name) : e.name;
    case 'title':
      return TITLED.has(e.entityType) ? e.name : null;
    case 'type':
      return e.type;
    case 'label':
      return e.label;
    case 'additionalInfo':
      return e.additionalInfo;
    case 'email':
      return e.fields.email ?? (e.entityType === 'USER' ? e.name : null);
    default:
      return e.fields[col] ?? null;
  }
}

/**
 * The value of an ENTITY_FIELD key: a string, null (null column: "" in output, never matches a filter),
 * or undefined (not a column of this type: "" in output, and a key filter on it is ignored).
 */
export function fieldValue(
  ds: Dataset,
  e: SimEntity,
  key: string,
  mode: FieldMode,
  parentId?: string,
): string | null | undefined {
  if (key === 'entityType') return mode === 'RELATIONS' ? e.entityType : mode;
  if (mode === 'RELATIONS') {
    if (key === 'parentId') return parentId ?? undefined;
    if (RELATIONS_SET.has(key)) return column(e, key);
    return computed(ds, e, key);
  }
  const alias = ALIASES[mode]?.[key] ?? key;
  const allowed = ALLOWED[mode] ?? COMMON_SET;
  if (allowed.has(alias)) return column(e, alias);
  return computed(ds, e, key);
}

function computed(ds: Dataset, e: SimEntity, key: string): string | null | undefined {
  switch (key) {
    case 'ownerName':
      return OWNED.has(e.entityType) ? ds.owner(e).name : undefined;
    case 'ownerType':
      return OWNED.has(e.entityType) ? ds.owner(e).type : undefined;
    case 'displayName':
      if (e.entityType === 'DEVICE' || e.entityType === 'ASSET' || e.entityType === 'EDGE') {
        return e.label && e.label.trim() !== '' ? e.label : e.name;
      }
      if (e.entityType === 'USER') {
        const full = `${e.fields.firstName ?? ''} ${e.fields.lastName ?? ''}`.trim();
        return full !== '' ? full : (e.fields.email ?? e.name);
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The entity field as a kv-like entry for key filters: createdTime is numeric (LONG), other columns strings.
 * `'none'` = not a column (the filter is ignored).
 */
export function fieldEntry(
  ds: Dataset,
  e: SimEntity,
  key: string,
  mode: FieldMode,
  parentId?: string,
): KvEntry | undefined | 'none' {
  const v = fieldValue(ds, e, key, mode, parentId);
  if (v === undefined) return 'none';
  if (v === null) return undefined;
  const isCreated = key === 'createdTime' || (mode !== 'RELATIONS' && ALIASES[mode]?.[key] === 'createdTime');
  if (isCreated) return { ts: 0, type: 'LONG', value: e.createdTime };
  return { ts: 0, type: 'STRING', value: v };
}
