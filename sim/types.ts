/**
 * Shared types of the ThingsBoard simulator. This is an independent model of the wire protocol as ThingsBoard CE's
 * source has it (the files, and the path prefixes the comments use, are under "Sources" in sim/README.md); it
 * deliberately imports nothing from src/.
 */

/** Every EntityType name the server's Jackson enum accepts (anything else is a JSON parse error). */
export const ENTITY_TYPE_NAMES = [
  'TENANT',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'ASSET',
  'DEVICE',
  'ALARM',
  'RULE_CHAIN',
  'RULE_NODE',
  'ENTITY_VIEW',
  'WIDGETS_BUNDLE',
  'WIDGET_TYPE',
  'TENANT_PROFILE',
  'DEVICE_PROFILE',
  'ASSET_PROFILE',
  'API_USAGE_STATE',
  'TB_RESOURCE',
  'OTA_PACKAGE',
  'EDGE',
  'RPC',
  'QUEUE',
  'NOTIFICATION_TARGET',
  'NOTIFICATION_TEMPLATE',
  'NOTIFICATION_REQUEST',
  'NOTIFICATION',
  'NOTIFICATION_RULE',
  'QUEUE_STATS',
  'OAUTH2_CLIENT',
  'DOMAIN',
  'MOBILE_APP',
  'MOBILE_APP_BUNDLE',
  'CALCULATED_FIELD',
  'JOB',
  'ADMIN_SETTINGS',
  'AI_MODEL',
  'API_KEY',
] as const;
export type EntityType = (typeof ENTITY_TYPE_NAMES)[number];

/** Entity types with a table in the server's entity query (`entityTableMap`). */
export const QUERYABLE_ENTITY_TYPES: ReadonlySet<EntityType> = new Set<EntityType>([
  'ASSET',
  'DEVICE',
  'ENTITY_VIEW',
  'DASHBOARD',
  'CUSTOMER',
  'USER',
  'TENANT',
  'API_USAGE_STATE',
  'EDGE',
  'RULE_CHAIN',
  'DEVICE_PROFILE',
  'ASSET_PROFILE',
  'TENANT_PROFILE',
  'QUEUE_STATS',
]);

/** The id of the system tenant / "no customer" (ThingsBoard's NULL_UUID). */
export const NULL_UUID = '13814000-1dd2-11b2-8080-808080808080';

export interface EntityId {
  entityType: string;
  id: string;
}

/** An entity reference accepted by the mutation API: a bare UUID (looked up in every type) or an EntityId. */
export type EntityRef = string | EntityId;

export type AttributeScope = 'SERVER_SCOPE' | 'SHARED_SCOPE' | 'CLIENT_SCOPE';
export const ATTRIBUTE_SCOPES: readonly AttributeScope[] = ['CLIENT_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE'];

/** A stored key-value entry, typed like the server's kv columns (bool_v, str_v, long_v, dbl_v, json_v). */
export type KvEntry =
  | { ts: number; type: 'STRING'; value: string }
  | { ts: number; type: 'LONG'; value: number }
  | { ts: number; type: 'DOUBLE'; value: number }
  | { ts: number; type: 'BOOLEAN'; value: boolean }
  | { ts: number; type: 'JSON'; value: string /* compact JSON text */ };
export type KvType = KvEntry['type'];

export type Authority = 'SYS_ADMIN' | 'TENANT_ADMIN' | 'CUSTOMER_USER';

/** Who is calling: derived from the JWT or API key. */
export interface Caller {
  authority: Authority;
  userId: string;
  tenantId: string;
  /** null for tenant admins and the sysadmin */
  customerId: string | null;
}

export type EntityKeyType =
  | 'ATTRIBUTE'
  | 'CLIENT_ATTRIBUTE'
  | 'SHARED_ATTRIBUTE'
  | 'SERVER_ATTRIBUTE'
  | 'TIME_SERIES'
  | 'ENTITY_FIELD'
  | 'ALARM_FIELD';

export interface EntityKey {
  type: EntityKeyType;
  key: string;
}

export interface TsValue {
  ts: number;
  value: string;
  count?: number;
}

export type LatestMap = Partial<Record<EntityKeyType, Record<string, TsValue>>>;

export interface EntityData {
  entityId: EntityId;
  latest: LatestMap;
  timeseries: Record<string, TsValue[]>;
  aggLatest: Record<string, unknown>;
}

export interface PageData<T> {
  data: T[];
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}

export type AlarmSeverity = 'CRITICAL' | 'MAJOR' | 'MINOR' | 'WARNING' | 'INDETERMINATE';
export const ALARM_SEVERITIES: readonly AlarmSeverity[] = ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'];
export type AlarmStatus = 'ACTIVE_UNACK' | 'ACTIVE_ACK' | 'CLEARED_UNACK' | 'CLEARED_ACK';
export const ALARM_STATUSES: readonly AlarmStatus[] = ['ACTIVE_UNACK', 'ACTIVE_ACK', 'CLEARED_UNACK', 'CLEARED_ACK'];
export type AlarmSearchStatus = 'ANY' | 'ACTIVE' | 'CLEARED' | 'ACK' | 'UNACK';

export interface AlarmAssignee {
  id: EntityId;
  firstName: string | null;
  lastName: string | null;
  email: string;
}

/** The AlarmInfo JSON of the server (AlarmData adds `entityId` and `latest`). Field order is the server's. */
export interface AlarmInfo {
  id: EntityId;
  createdTime: number;
  tenantId: EntityId;
  customerId: EntityId | null;
  type: string;
  originator: EntityId;
  severity: AlarmSeverity;
  acknowledged: boolean;
  cleared: boolean;
  assigneeId: EntityId | null;
  startTs: number;
  endTs: number;
  ackTs: number;
  clearTs: number;
  assignTs: number;
  details: unknown;
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
  name: string;
  status: AlarmStatus;
  originatorName: string;
  originatorLabel: string;
  originatorDisplayName: string;
  assignee: AlarmAssignee | null;
}

export interface AlarmData extends AlarmInfo {
  entityId: EntityId;
  latest: LatestMap;
}

/** The standard ThingsBoard error body (`APP/exception/ThingsboardErrorResponse.java`). */
export interface ErrorBody {
  status: number;
  message: string;
  errorCode: number;
  timestamp: number;
}
