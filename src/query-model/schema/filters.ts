/**
 * The entity filter table: for each of the 14 filter types, the fields of its form in order, how each is edited,
 * which are required and what a new filter starts with; and the entity type a filter returns, for suggestions.
 * The fields are exactly those the runtime validator (validate/entity-filter.ts) reads.
 */

import { ALIAS_ENTITY_TYPES, RELATION_DIRECTIONS, type EntityFilterType } from '../../protocol/types';
import { clone, isObj, type FieldSpec, type FilterTypeSpec } from './spec';

const NAME_HELP =
  'Names that start with this text, in any case; % stands for any text, _ for one character. Empty: any name.';
const DIRECTION_HELP =
  'FROM follows relations going out of the root (e.g. to what it contains); TO follows relations coming into it.';
const MAX_LEVEL_HELP = '1 = direct relations only; 0 = as deep as the server allows (50 levels).';
const LAST_LEVEL_HELP = 'Keep only the entities at the last level, or that have no further matching relation.';
const DASHBOARD_ONLY = ['rootStateEntity', 'defaultStateEntity'] as const;

function entityTypeField(name: string, label: string, extra: Partial<FieldSpec> = {}): FieldSpec {
  return { name, kind: 'entityType', required: true, default: 'DEVICE', label, ...extra };
}

function nameFilterField(name: string): FieldSpec {
  return { name, kind: 'text', label: 'Name starts with', help: NAME_HELP };
}

/** The deviceType / assetType / edgeType / entityViewType filters. */
function typeFilter(
  type: EntityFilterType,
  label: string,
  plural: string,
  profileType: FieldSpec['profileType'] & string,
  listLabel: string,
  what: string,
): FilterTypeSpec {
  return {
    type,
    label,
    fields: [
      {
        name: plural,
        kind: 'profiles',
        profileType,
        required: true,
        label: listLabel,
        help:
          `${what} of any of these ${profileType === 'DEVICE' || profileType === 'ASSET' ? 'profiles' : 'types'} ` +
          '(exact names).',
      },
      nameFilterField(`${plural.slice(0, -5)}NameFilter`),
    ],
    deprecated: [plural.slice(0, -1)],
  };
}

/** The four *SearchQuery filters. */
function searchQuery(
  type: EntityFilterType,
  label: string,
  plural: string,
  profileType: FieldSpec['profileType'] & string,
  listLabel: string,
): FilterTypeSpec {
  return {
    type,
    label,
    fields: [
      {
        name: 'rootEntity',
        kind: 'entity',
        required: true,
        label: 'Root entity',
        help: 'The entity the relations start from.',
      },
      {
        name: 'direction',
        kind: 'enum',
        options: RELATION_DIRECTIONS,
        required: true,
        default: 'FROM',
        label: 'Direction',
        help: DIRECTION_HELP,
      },
      {
        name: 'relationType',
        kind: 'text',
        label: 'Relation type',
        help: 'The type of the relation that reaches each entity (the last one), e.g. Contains; empty = any.',
      },
      { name: 'maxLevel', kind: 'int', default: 1, label: 'Max levels', help: MAX_LEVEL_HELP },
      { name: 'fetchLastLevelOnly', kind: 'bool', default: false, label: 'Last level only', help: LAST_LEVEL_HELP },
      { name: plural, kind: 'profiles', profileType, label: listLabel, help: 'Empty = any.' },
    ],
    ignored: [plural.slice(0, -1)],
    held: DASHBOARD_ONLY,
  };
}

export const ENTITY_FILTER_SCHEMA: Readonly<Record<EntityFilterType, FilterTypeSpec>> = {
  singleEntity: {
    type: 'singleEntity',
    label: 'One entity',
    fields: [
      {
        name: 'singleEntity',
        kind: 'entity',
        required: true,
        label: 'Entity',
        help: "One entity, or the current user, tenant, customer or user's owner.",
      },
    ],
  },
  entityList: {
    type: 'entityList',
    label: 'List of entities',
    fields: [
      entityTypeField('entityType', 'Entity type'),
      {
        name: 'entityList',
        kind: 'entityIds',
        typeFrom: 'entityType',
        required: true,
        label: 'Entities',
        help: 'At least one.',
      },
    ],
  },
  entityName: {
    type: 'entityName',
    label: 'Entities by name',
    fields: [
      entityTypeField('entityType', 'Entity type'),
      { ...nameFilterField('entityNameFilter'), required: true, emptyOk: true, default: '' },
    ],
  },
  entityType: {
    type: 'entityType',
    label: 'All entities of a type',
    fields: [entityTypeField('entityType', 'Entity type')],
  },
  assetType: typeFilter('assetType', 'Assets by profile', 'assetTypes', 'ASSET', 'Asset profiles', 'Assets'),
  deviceType: typeFilter('deviceType', 'Devices by profile', 'deviceTypes', 'DEVICE', 'Device profiles', 'Devices'),
  edgeType: typeFilter('edgeType', 'Edges by type', 'edgeTypes', 'EDGE', 'Edge types', 'Edges'),
  entityViewType: typeFilter(
    'entityViewType',
    'Entity views by type',
    'entityViewTypes',
    'ENTITY_VIEW',
    'Entity view types',
    'Entity views',
  ),
  apiUsageState: {
    type: 'apiUsageState',
    label: 'API usage state',
    fields: [
      {
        name: 'customerId',
        kind: 'customer',
        label: 'Customer',
        help: "Empty = the tenant's own; a customer user may only name its own customer.",
      },
    ],
  },
  relationsQuery: {
    type: 'relationsQuery',
    label: 'Related entities',
    fields: [
      { name: 'multiRoot', kind: 'bool', default: false, label: 'Several root entities' },
      {
        name: 'rootEntity',
        kind: 'entity',
        required: true,
        when: { field: 'multiRoot', equals: false },
        label: 'Root entity',
        help: 'The entity the relations start from.',
      },
      {
        name: 'multiRootEntitiesType',
        kind: 'entityType',
        required: true,
        when: { field: 'multiRoot', equals: true },
        default: 'ASSET',
        label: 'Root entity type',
      },
      {
        name: 'multiRootEntityIds',
        kind: 'entityIds',
        typeFrom: 'multiRootEntitiesType',
        required: true,
        when: { field: 'multiRoot', equals: true },
        label: 'Root entities',
        help: 'At least one; the parentId entity field then tells which root each result came from.',
      },
      {
        name: 'direction',
        kind: 'enum',
        options: RELATION_DIRECTIONS,
        required: true,
        default: 'FROM',
        label: 'Direction',
        help: DIRECTION_HELP,
      },
      { name: 'maxLevel', kind: 'int', default: 1, label: 'Max levels', help: MAX_LEVEL_HELP },
      { name: 'fetchLastLevelOnly', kind: 'bool', default: false, label: 'Last level only', help: LAST_LEVEL_HELP },
      {
        name: 'filters',
        kind: 'relationFilters',
        default: [],
        label: 'Relation filters',
        help:
          'Any one must match the relation that reaches each entity (the last one; any relation may be crossed on ' +
          'the way); none = any relation to a tenant, customer, user, dashboard, asset, device or entity view.',
      },
      {
        name: 'negate',
        kind: 'bool',
        default: false,
        label: 'Exclude matches',
        help: 'Return the related entities that do not match the relation filters.',
      },
    ],
    held: DASHBOARD_ONLY,
  },
  assetSearchQuery: searchQuery('assetSearchQuery', 'Related assets', 'assetTypes', 'ASSET', 'Asset profiles'),
  deviceSearchQuery: searchQuery('deviceSearchQuery', 'Related devices', 'deviceTypes', 'DEVICE', 'Device profiles'),
  entityViewSearchQuery: searchQuery(
    'entityViewSearchQuery',
    'Related entity views',
    'entityViewTypes',
    'ENTITY_VIEW',
    'Entity view types',
  ),
  edgeSearchQuery: searchQuery('edgeSearchQuery', 'Related edges', 'edgeTypes', 'EDGE', 'Edge types'),
};

/** The fields of `spec` shown for this filter object (a `when` sibling that is absent counts as its default). */
export function visibleFields(spec: FilterTypeSpec, filter: unknown): FieldSpec[] {
  const o = isObj(filter) ? filter : {};
  return spec.fields.filter((f) => {
    if (!f.when) return true;
    const sibling = spec.fields.find((s) => s.name === f.when!.field);
    const v = o[f.when.field] == null ? sibling?.default : o[f.when.field];
    return v === f.when.equals;
  });
}

/** A new entity filter of this type: `{type}` plus the defaults of the fields shown at first. */
export function newEntityFilter(type: EntityFilterType): Record<string, unknown> {
  const spec = ENTITY_FILTER_SCHEMA[type];
  const out: Record<string, unknown> = { type };
  for (const f of visibleFields(spec, out)) if (f.default !== undefined) out[f.name] = clone(f.default);
  return out;
}

/** The entity type each filter type returns, when it is fixed. */
export const FILTER_RESULT_TYPES: Readonly<Partial<Record<EntityFilterType, string>>> = {
  assetType: 'ASSET',
  deviceType: 'DEVICE',
  edgeType: 'EDGE',
  entityViewType: 'ENTITY_VIEW',
  apiUsageState: 'API_USAGE_STATE',
  assetSearchQuery: 'ASSET',
  deviceSearchQuery: 'DEVICE',
  entityViewSearchQuery: 'ENTITY_VIEW',
  edgeSearchQuery: 'EDGE',
};

const ALIAS_RESULT_TYPES: Readonly<Record<string, string>> = {
  CURRENT_USER: 'USER',
  CURRENT_TENANT: 'TENANT',
  CURRENT_CUSTOMER: 'CUSTOMER',
};

/**
 * The entity type an entity filter returns, when one type is known (for key and field suggestions): fixed by the
 * filter type, its `entityType`, the single entity, or the relation filters when they name exactly one type.
 */
export function filterEntityType(filter: unknown): string | undefined {
  if (!isObj(filter) || typeof filter.type !== 'string') return undefined;
  const fixed = FILTER_RESULT_TYPES[filter.type as EntityFilterType];
  if (fixed) return fixed;
  switch (filter.type) {
    case 'entityType':
    case 'entityName':
    case 'entityList':
      return typeof filter.entityType === 'string' ? filter.entityType : undefined;
    case 'singleEntity': {
      const e = filter.singleEntity;
      const t = isObj(e) && typeof e.entityType === 'string' ? e.entityType : undefined;
      if (t === undefined) return undefined;
      return (ALIAS_ENTITY_TYPES as readonly string[]).includes(t) ? ALIAS_RESULT_TYPES[t] : t;
    }
    case 'relationsQuery': {
      if (!Array.isArray(filter.filters) || filter.negate === true) return undefined;
      const types = new Set<string>();
      for (const f of filter.filters) {
        if (!isObj(f) || !Array.isArray(f.entityTypes) || f.entityTypes.length === 0) return undefined;
        for (const t of f.entityTypes) if (typeof t === 'string') types.add(t);
      }
      return types.size === 1 ? [...types][0] : undefined;
    }
    default:
      return undefined;
  }
}
