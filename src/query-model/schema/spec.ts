/**
 * The vocabulary of the schema tables: the query modes, the kinds of field a form can show, one field, one entity
 * filter type. The tables themselves are in filters.ts (entity filters), keys.ts (keys and key filters) and modes.ts
 * (page, alarm filter fields, which parts each mode shows).
 */

import type { EntityFilterType, EntityKeyType } from '../../protocol/types';

export type QueryMode = 'entityData' | 'entityCount' | 'alarmData' | 'alarmCount';
export const QUERY_MODES: readonly QueryMode[] = ['entityData', 'entityCount', 'alarmData', 'alarmCount'];

export type FieldKind =
  | 'entityType' // select, values QUERYABLE_ENTITY_TYPES
  | 'entityTypes' // multi-select of entity types (relation filter entityTypes)
  | 'entityIds' // list of UUIDs of the entity type named by `typeFrom` (sibling field) -> entity picker chips
  | 'entity' // AliasEntityId {entityType, id} or {entityType: 'CURRENT_USER'|...} -> entity type select + entity picker
  | 'customer' // optional CustomerId {entityType:'CUSTOMER', id} (entity picker fixed to CUSTOMER)
  | 'profiles' // string[] of profile/type names, picker over entityType `profileType`
  | 'text' // string
  | 'int' // integer >= 0 (>= `min` when given)
  | 'bool' // checkbox
  | 'enum' // select of `options`
  | 'relationFilters' // rows of {relationType, entityTypes, negate}
  // Kinds of the alarm filter and page fields (not used by entity filters):
  | 'enumList' // multi-select of `options` (statusList, severityList)
  | 'strings' // free list of strings (typeList: alarm types)
  | 'duration' // milliseconds (timeWindow)
  | 'timestamp' // epoch milliseconds (startTs, endTs)
  | 'user' // optional UserId {entityType:'USER', id} (entity picker fixed to USER)
  | 'sortOrder'; // {key: {type, key}, direction}: key type select (`keyTypes`), key name, ASC/DESC

export interface FieldSpec {
  /** JSON name inside its object (the entity filter, the pageLink, or the query for alarm counts). */
  name: string;
  kind: FieldKind;
  /** The runtime validator requires it (when it is shown: see `when`). */
  required?: boolean;
  /**
   * Required in the query, but left empty it is a choice the form offers (a name filter: empty matches every name),
   * so the form does not mark it as one to fill in.
   */
  emptyOk?: boolean;
  /** For 'enum' and 'enumList'. */
  options?: readonly string[];
  /** For 'entityIds': the sibling field holding the entity type. */
  typeFrom?: string;
  /** For 'profiles': whose profile or type names to offer. */
  profileType?: 'DEVICE' | 'ASSET' | 'ENTITY_VIEW' | 'EDGE';
  /** For 'sortOrder': the key types a sort key may have. */
  keyTypes?: readonly EntityKeyType[];
  /** For 'int': the smallest allowed value (default 0). */
  min?: number;
  /**
   * Shown only when a sibling field has this value. A sibling that is absent (or null) counts as its own
   * `default`. See `visibleFields` (filters.ts).
   */
  when?: { field: string; equals: unknown };
  /** What a new filter of this type starts with for this field, if anything. */
  default?: unknown;
  /** Short English label. */
  label: string;
  /** One plain-language sentence. */
  help?: string;
}

export interface FilterTypeSpec {
  type: EntityFilterType;
  /** Short English label for the filter type select. */
  label: string;
  /** The fields of the form, in order. */
  fields: readonly FieldSpec[];
  /** Deprecated singular names the runtime still accepts (e.g. `deviceType`, read when `deviceTypes` is empty). */
  deprecated?: readonly string[];
  /**
   * Names the server ignores for this type although a similar type reads them: the `*SearchQuery` filters have no
   * deprecated singular (`deviceType` there means nothing). The runtime accepts and drops them.
   */
  ignored?: readonly string[];
  /** Fields the runtime accepts that only matter to ThingsBoard dashboards: left out of the form on purpose. */
  held?: readonly string[];
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
