/**
 * Names for suggestions and labels: English names of the entity types, and the ENTITY_FIELD and ALARM_FIELD names
 * the server knows.
 */

import { filterEntityType } from './filters';
import { isObj } from './spec';

/** Lower-case singular and plural English names of the entity types, for labels and summaries. */
export const ENTITY_TYPE_NAMES: Readonly<Record<string, readonly [string, string]>> = {
  DEVICE: ['device', 'devices'],
  ASSET: ['asset', 'assets'],
  ENTITY_VIEW: ['entity view', 'entity views'],
  CUSTOMER: ['customer', 'customers'],
  USER: ['user', 'users'],
  DASHBOARD: ['dashboard', 'dashboards'],
  TENANT: ['tenant', 'tenants'],
  EDGE: ['edge', 'edges'],
  API_USAGE_STATE: ['API usage state', 'API usage states'],
  RULE_CHAIN: ['rule chain', 'rule chains'],
  DEVICE_PROFILE: ['device profile', 'device profiles'],
  ASSET_PROFILE: ['asset profile', 'asset profiles'],
  TENANT_PROFILE: ['tenant profile', 'tenant profiles'],
  QUEUE_STATS: ['queue stats entry', 'queue stats entries'],
  ALARM: ['alarm', 'alarms'],
};

/** Singular (`n` = 1) or plural English name of an entity type; unknown types read as "entity of type X". */
export function entityTypeName(type: string, n = 2): string {
  const names = ENTITY_TYPE_NAMES[type];
  if (names) return n === 1 ? names[0] : names[1];
  return `${n === 1 ? 'entity' : 'entities'} of type ${type}`;
}

const DEVICE_ASSET_FIELDS = [
  'name',
  'type',
  'label',
  'createdTime',
  'displayName',
  'ownerName',
  'ownerType',
  'additionalInfo',
  'entityType',
];
const CONTACT_FIELDS = [
  'title',
  'email',
  'phone',
  'country',
  'state',
  'city',
  'address',
  'address2',
  'zip',
  'createdTime',
  'additionalInfo',
  'entityType',
];

/**
 * ENTITY_FIELD names per entity type (the columns, then the computed fields), for suggestions. Aliases
 * (`title` for a device's name…) are left out. `default` is for the other types, `relationsQuery` for the union a
 * relations query allows (plus `parentId` with several roots).
 */
export const ENTITY_FIELD_NAMES: Readonly<Record<string, readonly string[]>> = {
  DEVICE: DEVICE_ASSET_FIELDS,
  ASSET: DEVICE_ASSET_FIELDS,
  ENTITY_VIEW: ['name', 'type', 'createdTime', 'ownerName', 'ownerType', 'additionalInfo', 'entityType'],
  TENANT: [...CONTACT_FIELDS.slice(0, 9), 'region', ...CONTACT_FIELDS.slice(9)],
  CUSTOMER: CONTACT_FIELDS,
  USER: [
    'email',
    'firstName',
    'lastName',
    'phone',
    'createdTime',
    'displayName',
    'ownerName',
    'ownerType',
    'additionalInfo',
    'entityType',
  ],
  DASHBOARD: ['title', 'createdTime', 'ownerName', 'ownerType', 'entityType'],
  DEVICE_PROFILE: ['name', 'type', 'createdTime'],
  ASSET_PROFILE: ['name', 'createdTime'],
  default: ['name', 'createdTime', 'additionalInfo', 'entityType'],
  relationsQuery: [
    'name',
    'type',
    'label',
    'createdTime',
    'entityType',
    'firstName',
    'lastName',
    'email',
    'title',
    'region',
    'country',
    'state',
    'city',
    'address',
    'address2',
    'zip',
    'phone',
    'additionalInfo',
  ],
};

/** ENTITY_FIELD names to suggest for the entities an entity filter returns. */
export function entityFieldNames(filter: unknown): readonly string[] {
  if (isObj(filter) && filter.type === 'relationsQuery') {
    const t = filterEntityType(filter);
    if (t === undefined || !ENTITY_FIELD_NAMES[t]) {
      const union = ENTITY_FIELD_NAMES.relationsQuery;
      return filter.multiRoot === true ? [...union, 'parentId'] : union;
    }
  }
  const t = filterEntityType(filter);
  return (t !== undefined && ENTITY_FIELD_NAMES[t]) || ENTITY_FIELD_NAMES.default;
}

/**
 * ALARM_FIELD names (the columns alarm text search and sorting know, with their aliases, plus the computed
 * `status` and `assignee`), most useful first.
 */
export const ALARM_FIELD_NAMES: readonly string[] = [
  'createdTime',
  'type',
  'severity',
  'status',
  'originator',
  'originatorLabel',
  'originatorDisplayName',
  'assignee',
  'startTs',
  'endTs',
  'ackTs',
  'clearTs',
  'assignTime',
  'acknowledged',
  'cleared',
  'details',
  'originatorId',
  'originatorType',
  'assigneeId',
  'assigneeFirstName',
  'assigneeLastName',
  'assigneeEmail',
  'startTime',
  'endTime',
  'ackTime',
  'clearTime',
];
