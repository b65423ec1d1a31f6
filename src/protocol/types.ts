/**
 * Types of the ThingsBoard Entity Data Query / Alarm Data Query protocol and of the v2 WebSocket API.
 *
 * Every type, field and enum value mirrors the server's Java classes in thingsboard/thingsboard: the query objects,
 * the key discovery answers and the v2 WebSocket commands and updates. Paths are short: `Q/` is
 * common/data/src/main/java/org/thingsboard/server/common/data/query/, `CD/` the same without query/, `DAO/`
 * dao/src/main/java/org/thingsboard/server/dao/ (the simulator's README lists every prefix).
 * The enum values are also exported as `readonly` arrays so that validation and the editor share one list.
 */

// ---------------------------------------------------------------------------------------------------------------
// Enum value lists
// ---------------------------------------------------------------------------------------------------------------

/**
 * Entity types known to the server (`CD/EntityType.java`). The server may know more than this list (it grows with
 * every release), so {@link EntityType} accepts any string and validation only insists on the enum-name form.
 */
export const ENTITY_TYPES = [
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
  'QUEUE_STATS',
  'NOTIFICATION_TARGET',
  'NOTIFICATION_TEMPLATE',
  'NOTIFICATION_REQUEST',
  'NOTIFICATION',
  'NOTIFICATION_RULE',
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
export type KnownEntityType = (typeof ENTITY_TYPES)[number];
/** A known entity type, or any other string (newer servers know more types). */
export type EntityType = KnownEntityType | (string & {});

/**
 * Entity types that the `entityType`, `entityName` and `entityList` filters can really query: the ones with a table
 * in `entityTableMap` (`DAO/sql/query/DefaultEntityQueryRepository.java`). For the editor's drop-downs.
 */
export const QUERYABLE_ENTITY_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'TENANT',
  'EDGE',
  'API_USAGE_STATE',
  'RULE_CHAIN',
  'DEVICE_PROFILE',
  'ASSET_PROFILE',
  'TENANT_PROFILE',
  'QUEUE_STATS',
] as const;

/**
 * Alias entity types that the server resolves to the caller's user, tenant, customer or owner (`Q/AliasEntityId.java`).
 */
export const ALIAS_ENTITY_TYPES = ['CURRENT_USER', 'CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER_OWNER'] as const;
export type AliasEntityType = (typeof ALIAS_ENTITY_TYPES)[number];

/** The 14 entity filter types of CE (`Q/EntityFilterType.java`). `stateEntity` is UI-only and not among them. */
export const ENTITY_FILTER_TYPES = [
  'singleEntity',
  'entityList',
  'entityName',
  'entityType',
  'assetType',
  'deviceType',
  'edgeType',
  'entityViewType',
  'apiUsageState',
  'relationsQuery',
  'assetSearchQuery',
  'deviceSearchQuery',
  'entityViewSearchQuery',
  'edgeSearchQuery',
] as const;
export type EntityFilterType = (typeof ENTITY_FILTER_TYPES)[number];

/** The key types the server knows (`Q/EntityKeyType.java`). CONSTANT and COUNT are UI-only. */
export const ENTITY_KEY_TYPES = [
  'ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'SERVER_ATTRIBUTE',
  'TIME_SERIES',
  'ENTITY_FIELD',
  'ALARM_FIELD',
] as const;
export type EntityKeyType = (typeof ENTITY_KEY_TYPES)[number];

/** Key types allowed outside alarm fields: everything but ALARM_FIELD. */
export const NON_ALARM_KEY_TYPES: readonly Exclude<EntityKeyType, 'ALARM_FIELD'>[] = ENTITY_KEY_TYPES.filter(
  (t): t is Exclude<EntityKeyType, 'ALARM_FIELD'> => t !== 'ALARM_FIELD',
);

/** Attribute key types, in the order the flat format merges them. */
export const ATTRIBUTE_KEY_TYPES = ['ATTRIBUTE', 'SERVER_ATTRIBUTE', 'SHARED_ATTRIBUTE', 'CLIENT_ATTRIBUTE'] as const;

export const ATTRIBUTE_SCOPES = ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'] as const;
export type AttributeScope = (typeof ATTRIBUTE_SCOPES)[number];

export const ENTITY_KEY_VALUE_TYPES = ['STRING', 'NUMERIC', 'BOOLEAN', 'DATE_TIME'] as const;
export type EntityKeyValueType = (typeof ENTITY_KEY_VALUE_TYPES)[number];

export const FILTER_PREDICATE_TYPES = ['STRING', 'NUMERIC', 'BOOLEAN', 'COMPLEX'] as const;
export type FilterPredicateType = (typeof FILTER_PREDICATE_TYPES)[number];

export const STRING_OPERATIONS = [
  'EQUAL',
  'NOT_EQUAL',
  'STARTS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'NOT_CONTAINS',
  'IN',
  'NOT_IN',
] as const;
export type StringOperation = (typeof STRING_OPERATIONS)[number];

export const NUMERIC_OPERATIONS = [
  'EQUAL',
  'NOT_EQUAL',
  'GREATER',
  'LESS',
  'GREATER_OR_EQUAL',
  'LESS_OR_EQUAL',
] as const;
export type NumericOperation = (typeof NUMERIC_OPERATIONS)[number];

export const BOOLEAN_OPERATIONS = ['EQUAL', 'NOT_EQUAL'] as const;
export type BooleanOperation = (typeof BOOLEAN_OPERATIONS)[number];

export const COMPLEX_OPERATIONS = ['AND', 'OR'] as const;
export type ComplexOperation = (typeof COMPLEX_OPERATIONS)[number];

/** `keyFiltersOperation` (HEAD / 4.4 only). */
export const KEY_FILTERS_OPERATIONS = ['AND', 'OR'] as const;
export type KeyFiltersOperation = (typeof KEY_FILTERS_OPERATIONS)[number];

export const DYNAMIC_VALUE_SOURCE_TYPES = [
  'CURRENT_TENANT',
  'CURRENT_CUSTOMER',
  'CURRENT_USER',
  'CURRENT_DEVICE',
] as const;
export type DynamicValueSourceType = (typeof DYNAMIC_VALUE_SOURCE_TYPES)[number];

export const SORT_DIRECTIONS = ['ASC', 'DESC'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export const RELATION_DIRECTIONS = ['FROM', 'TO'] as const;
export type EntitySearchDirection = (typeof RELATION_DIRECTIONS)[number];

export const ALARM_SEARCH_STATUSES = ['ANY', 'ACTIVE', 'CLEARED', 'ACK', 'UNACK'] as const;
export type AlarmSearchStatus = (typeof ALARM_SEARCH_STATUSES)[number];

export const ALARM_SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'] as const;
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];

/** Computed alarm status (output only). */
export const ALARM_STATUSES = ['ACTIVE_UNACK', 'ACTIVE_ACK', 'CLEARED_UNACK', 'CLEARED_ACK'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];

// ---------------------------------------------------------------------------------------------------------------
// Ids and keys
// ---------------------------------------------------------------------------------------------------------------

/** `{"entityType":"DEVICE","id":"<uuid>"}`; UserId, CustomerId, TenantId and AlarmId have the same shape. */
export interface EntityId<T extends EntityType = EntityType> {
  entityType: T;
  id: string;
}
export type UserId = EntityId<'USER'>;
export type CustomerId = EntityId<'CUSTOMER'>;
export type TenantId = EntityId<'TENANT'>;
export type AlarmId = EntityId<'ALARM'>;

/**
 * An entity id, or an alias the server resolves (`Q/AliasEntityIdDeserializer.java`). For the aliases `id` is
 * optional (for CURRENT_CUSTOMER it is the fallback customer).
 */
export type AliasEntityId = EntityId | { entityType: AliasEntityType; id?: string };

export interface EntityKey {
  type: EntityKeyType;
  key: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Entity filters
// ---------------------------------------------------------------------------------------------------------------

export interface SingleEntityFilter {
  type: 'singleEntity';
  singleEntity: AliasEntityId;
}

export interface EntityListFilter {
  type: 'entityList';
  entityType: EntityType;
  entityList: string[];
}

export interface EntityNameFilter {
  type: 'entityName';
  entityType: EntityType;
  entityNameFilter: string;
}

export interface EntityTypeFilter {
  type: 'entityType';
  entityType: EntityType;
}

/**
 * The deprecated singular field (`assetType` …) is accepted on input and normalised to the plural list. A `null`
 * item is kept as sent: it is how Jackson writes an empty Java filter (`getAssetTypes()` falls back to
 * `singletonList(null)`), and the server runs it as `type in (null)`, which matches nothing.
 */
export interface AssetTypeFilter {
  type: 'assetType';
  assetTypes: (string | null)[];
  assetNameFilter?: string;
}

export interface DeviceTypeFilter {
  type: 'deviceType';
  deviceTypes: (string | null)[];
  deviceNameFilter?: string;
}

export interface EdgeTypeFilter {
  type: 'edgeType';
  edgeTypes: (string | null)[];
  edgeNameFilter?: string;
}

export interface EntityViewTypeFilter {
  type: 'entityViewType';
  entityViewTypes: (string | null)[];
  entityViewNameFilter?: string;
}

export interface ApiUsageStateFilter {
  type: 'apiUsageState';
  customerId?: CustomerId;
}

/** One element of `relationsQuery.filters` (`CD/relation/RelationEntityTypeFilter.java`). */
export interface RelationEntityTypeFilter {
  relationType?: string;
  entityTypes?: EntityType[];
  negate?: boolean;
}

export interface RelationsQueryFilter {
  type: 'relationsQuery';
  rootEntity?: AliasEntityId;
  multiRoot?: boolean;
  multiRootEntitiesType?: EntityType;
  multiRootEntityIds?: string[];
  direction: EntitySearchDirection;
  filters: RelationEntityTypeFilter[];
  /** 1 = direct relations; 0 (or > 50) means 50 on the server. */
  maxLevel?: number;
  fetchLastLevelOnly?: boolean;
  negate?: boolean;
  rootStateEntity?: boolean;
  defaultStateEntity?: AliasEntityId;
}

/** Fields common to the four `*SearchQuery` filters (`Q/EntitySearchQueryFilter.java`). */
export interface EntitySearchQueryFilterBase {
  rootEntity: AliasEntityId;
  /** Optional: the relation type of the last hop. */
  relationType?: string;
  direction: EntitySearchDirection;
  maxLevel?: number;
  fetchLastLevelOnly?: boolean;
  rootStateEntity?: boolean;
  defaultStateEntity?: AliasEntityId;
}

/**
 * The `*SearchQuery` filters have only the plural list (no deprecated singular field: a `deviceType` there is an
 * unknown property, which the server ignores). Empty or absent = any type; a `null` item matches nothing.
 */
export interface AssetSearchQueryFilter extends EntitySearchQueryFilterBase {
  type: 'assetSearchQuery';
  assetTypes?: (string | null)[];
}

export interface DeviceSearchQueryFilter extends EntitySearchQueryFilterBase {
  type: 'deviceSearchQuery';
  deviceTypes?: (string | null)[];
}

export interface EntityViewSearchQueryFilter extends EntitySearchQueryFilterBase {
  type: 'entityViewSearchQuery';
  entityViewTypes?: (string | null)[];
}

export interface EdgeSearchQueryFilter extends EntitySearchQueryFilterBase {
  type: 'edgeSearchQuery';
  edgeTypes?: (string | null)[];
}

export type EntityFilter =
  | SingleEntityFilter
  | EntityListFilter
  | EntityNameFilter
  | EntityTypeFilter
  | AssetTypeFilter
  | DeviceTypeFilter
  | EdgeTypeFilter
  | EntityViewTypeFilter
  | ApiUsageStateFilter
  | RelationsQueryFilter
  | AssetSearchQueryFilter
  | DeviceSearchQueryFilter
  | EntityViewSearchQueryFilter
  | EdgeSearchQueryFilter;

// ---------------------------------------------------------------------------------------------------------------
// Key filters
// ---------------------------------------------------------------------------------------------------------------

/**
 * `resolvedValue` is normally filled by the server. One the client sends is used as is by REST find (resolution
 * only runs when it is null, `DefaultEntityQueryService#setResolvedValue`); a live subscription replaces it only
 * when the source attribute exists (`TbAbstractEntityQuerySubCtx#resolveEntityValue`).
 */
export interface DynamicValue<T = string | number | boolean> {
  sourceType: DynamicValueSourceType;
  sourceAttribute: string;
  /** Ignored by CE. */
  inherit?: boolean;
  resolvedValue?: T | null;
}

/** The value used is `userValue` if not null, else the resolved dynamic value, else `defaultValue`. */
export interface FilterPredicateValue<T> {
  defaultValue: T | null;
  userValue?: T | null;
  dynamicValue?: DynamicValue<T> | null;
}

export interface StringFilterPredicate {
  type: 'STRING';
  operation: StringOperation;
  value: FilterPredicateValue<string>;
  ignoreCase?: boolean;
}

export interface NumericFilterPredicate {
  type: 'NUMERIC';
  operation: NumericOperation;
  value: FilterPredicateValue<number>;
}

export interface BooleanFilterPredicate {
  type: 'BOOLEAN';
  operation: BooleanOperation;
  value: FilterPredicateValue<boolean>;
}

export interface ComplexFilterPredicate {
  type: 'COMPLEX';
  operation: ComplexOperation;
  predicates: KeyFilterPredicate[];
}

export type SimpleKeyFilterPredicate = StringFilterPredicate | NumericFilterPredicate | BooleanFilterPredicate;
export type KeyFilterPredicate = SimpleKeyFilterPredicate | ComplexFilterPredicate;

export interface KeyFilter {
  key: EntityKey;
  /**
   * Only a hint; the predicate type decides the comparison. DATE_TIME goes with a NUMERIC predicate (epoch ms).
   * Absent only when it was not given and cannot be implied: a COMPLEX predicate without any simple predicate.
   */
  valueType?: EntityKeyValueType;
  predicate: KeyFilterPredicate;
}

// ---------------------------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------------------------

export interface EntityDataSortOrder {
  key: EntityKey;
  direction: SortDirection;
}

export interface EntityDataPageLink {
  pageSize: number;
  page: number;
  textSearch?: string | null;
  sortOrder?: EntityDataSortOrder | null;
  dynamic?: boolean;
}

/** The alarm filter fields, shared by AlarmDataPageLink and AlarmCountQuery. */
export interface AlarmFilterFields {
  startTs?: number;
  endTs?: number;
  timeWindow?: number;
  typeList?: string[];
  statusList?: AlarmSearchStatus[];
  severityList?: AlarmSeverity[];
  searchPropagatedAlarms?: boolean;
  assigneeId?: UserId;
}

export interface AlarmDataPageLink extends EntityDataPageLink, AlarmFilterFields {}

export interface EntityCountQuery {
  entityFilter: EntityFilter;
  keyFilters?: KeyFilter[];
  /** HEAD (4.4) only; released servers AND all key filters. */
  keyFiltersOperation?: KeyFiltersOperation;
}

export interface EntityDataQuery extends EntityCountQuery {
  pageLink: EntityDataPageLink;
  entityFields?: EntityKey[];
  latestValues?: EntityKey[];
}

export interface AlarmDataQuery extends EntityCountQuery {
  pageLink: AlarmDataPageLink;
  entityFields?: EntityKey[];
  latestValues?: EntityKey[];
  /** Must be non-null (the server NPEs without it). Chooses the textSearch columns only. */
  alarmFields: EntityKey[];
}

export interface AlarmCountQuery extends AlarmFilterFields {
  /** Optional here: without it every alarm of the tenant / customer is counted. */
  entityFilter?: EntityFilter;
  keyFilters?: KeyFilter[];
  keyFiltersOperation?: KeyFiltersOperation;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------------------

/** `count` is present only for aggregated values. `{ts:0, value:""}` means "no value". */
export interface TsValue {
  ts: number;
  value: string;
  count?: number;
}

export interface ComparisonTsValue {
  current?: TsValue | null;
  previous?: TsValue | null;
}

/** `latest[<EntityKeyType>][<key>]`. */
export type LatestValues = Partial<Record<EntityKeyType, Record<string, TsValue>>>;

export interface EntityData {
  entityId: EntityId;
  /** `null` in WS time-series updates. */
  latest: LatestValues | null;
  /** `{}` in REST answers; `null` in WS latest updates. */
  timeseries: Record<string, TsValue[]> | null;
  /** AggKey id -> value; `{}` in REST answers, `null` in WS latest and ts updates. */
  aggLatest?: Record<string, ComparisonTsValue> | null;
}

export interface AlarmAssignee {
  id: UserId;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
}

/**
 * One alarm as `GET /api/alarm/info/{id}` and the alarm actions answer it (`CD/alarm/AlarmInfo.java`): the Alarm
 * plus the assignee and originator names.
 */
export interface AlarmInfo {
  id: AlarmId;
  createdTime: number;
  tenantId: TenantId;
  customerId: CustomerId | null;
  type: string;
  originator: EntityId;
  severity: AlarmSeverity;
  acknowledged: boolean;
  cleared: boolean;
  status: AlarmStatus;
  /** Same as `type`, read-only. */
  name: string;
  assigneeId: UserId | null;
  assignee: AlarmAssignee | null;
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
  originatorName: string | null;
  originatorLabel: string | null;
  originatorDisplayName: string | null;
}

/** AlarmData = AlarmInfo + the query-specific `entityId` and `latest` (`Q/AlarmData.java`). */
export interface AlarmData extends AlarmInfo {
  /** The queried entity this alarm matched (an object, although the UI declares a string). */
  entityId: EntityId;
  /** Same map as EntityData.latest, copied from that entity's query row. */
  latest: LatestValues | null;
}

export interface PageData<T> {
  data: T[];
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Alarm actions
// ---------------------------------------------------------------------------------------------------------------

/** The body of `POST /api/alarm` without an id: create, or update the active alarm of that originator and type. */
export interface AlarmCreateBody {
  originator: EntityId;
  type: string;
  severity: AlarmSeverity;
  /** Absent: the server stores `{}`. */
  details?: unknown;
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
  /** Required from a customer user (its own customer: the CREATE permission check); absent for a tenant admin. */
  customerId?: CustomerId;
  /** The active alarm's assignee, kept (see `raiseWireBody`). */
  assigneeId?: UserId;
}

/** The `Alarm` some actions answer (`POST /api/alarm`, assign, unassign): AlarmInfo without the names. */
export type Alarm = Omit<AlarmInfo, 'assignee' | 'originatorName' | 'originatorLabel' | 'originatorDisplayName'>;

/** `POST /api/alarm/{id}/comment` answers the saved comment (`CD/alarm/AlarmComment.java`). */
export interface AlarmComment {
  /** `{"id": "<uuid>"}` (an AlarmCommentId carries no entityType). */
  id: { id: string; entityType?: string };
  createdTime: number;
  alarmId: AlarmId;
  userId: UserId | null;
  type: 'SYSTEM' | 'OTHER';
  comment: { text: string; [key: string]: unknown };
}

/** An item of `GET /api/users/assign/{alarmId}` (`CD/UserEmailInfo.java`). */
export interface UserEmailInfo {
  id: UserId;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

/** v1 key discovery answer. Note the singular `attribute`. */
export interface AvailableEntityKeys {
  entityTypes: EntityType[];
  timeseries: string[];
  attribute: string[];
}

export interface KeyInfo {
  key: string;
  /** Only with includeSamples=true; `value` is typed JSON. */
  sample?: { ts: number; value: unknown };
}

/** v2 key discovery answer (`@JsonInclude(NON_NULL)`: absent parts are left out). */
export interface AvailableEntityKeysV2 {
  entityTypes: EntityType[];
  timeseries?: KeyInfo[];
  attributes?: Partial<Record<AttributeScope, KeyInfo[]>>;
}

// ---------------------------------------------------------------------------------------------------------------
// WebSocket commands
// ---------------------------------------------------------------------------------------------------------------

export const WS_CMD_TYPES = [
  'AUTH',
  'ATTRIBUTES',
  'TIMESERIES',
  'TIMESERIES_HISTORY',
  'ENTITY_DATA',
  'ENTITY_COUNT',
  'ALARM_DATA',
  'ALARM_COUNT',
  'ALARM_STATUS',
  'NOTIFICATIONS',
  'NOTIFICATIONS_COUNT',
  'MARK_NOTIFICATIONS_AS_READ',
  'MARK_ALL_NOTIFICATIONS_AS_READ',
  'ENTITY_DATA_UNSUBSCRIBE',
  'ENTITY_COUNT_UNSUBSCRIBE',
  'ALARM_DATA_UNSUBSCRIBE',
  'ALARM_COUNT_UNSUBSCRIBE',
  'ALARM_STATUS_UNSUBSCRIBE',
  'NOTIFICATIONS_UNSUBSCRIBE',
] as const;
export type WsCmdType = (typeof WS_CMD_TYPES)[number];

export const UNSUBSCRIBE_CMD_TYPES = [
  'ENTITY_DATA_UNSUBSCRIBE',
  'ENTITY_COUNT_UNSUBSCRIBE',
  'ALARM_DATA_UNSUBSCRIBE',
  'ALARM_COUNT_UNSUBSCRIBE',
  'ALARM_STATUS_UNSUBSCRIBE',
] as const;
export type UnsubscribeCmdType = (typeof UNSUBSCRIBE_CMD_TYPES)[number];

/** The server's `Aggregation` values, none first (the order a dialog offers them in). */
export const AGGREGATIONS = ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export const INTERVAL_TYPES = ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'] as const;
export type IntervalType = (typeof INTERVAL_TYPES)[number];

/** `{"authCmd":{"cmdId":0,"token":"<JWT>"}}`; `apiKey` works on HEAD (4.4) only. */
export interface AuthCmd {
  cmdId: number;
  token?: string;
  apiKey?: string;
}

/** `latestCmd` (`WS2/LatestValueCmd.java`). */
export interface LatestValueCmd {
  keys: EntityKey[];
}

interface TimeSeriesCmdBase {
  keys: string[];
  startTs: number;
  interval?: number;
  intervalType?: IntervalType;
  timeZoneId?: string;
  /** 0 means 100. */
  limit?: number;
  agg?: Aggregation;
  fetchLatestPreviousPoint?: boolean;
}

/** `tsCmd`: the window is `[startTs, startTs + timeWindow]`, then live (`WS2/TimeSeriesCmd.java`). */
export interface TimeSeriesCmd extends TimeSeriesCmdBase {
  timeWindow: number;
}

/** `historyCmd`: one-off fetch of `[startTs, endTs]` (`WS2/EntityHistoryCmd.java`). */
export interface EntityHistoryCmd extends TimeSeriesCmdBase {
  endTs: number;
}

export interface AggKey {
  id: number;
  key: string;
  agg: Aggregation;
  previousStartTs?: number;
  previousEndTs?: number;
  previousValueOnly?: boolean;
}

export interface AggHistoryCmd {
  keys: AggKey[];
  startTs: number;
  endTs: number;
}

export interface AggTimeSeriesCmd {
  keys: AggKey[];
  startTs: number;
  timeWindow: number;
}

export interface EntityDataCmd {
  type: 'ENTITY_DATA';
  cmdId: number;
  query?: EntityDataQuery;
  latestCmd?: LatestValueCmd;
  tsCmd?: TimeSeriesCmd;
  historyCmd?: EntityHistoryCmd;
  aggHistoryCmd?: AggHistoryCmd;
  aggTsCmd?: AggTimeSeriesCmd;
}

export interface EntityCountCmd {
  type: 'ENTITY_COUNT';
  cmdId: number;
  query: EntityCountQuery;
}

export interface AlarmDataCmd {
  type: 'ALARM_DATA';
  cmdId: number;
  query: AlarmDataQuery;
}

export interface AlarmCountCmd {
  type: 'ALARM_COUNT';
  cmdId: number;
  /** May be `{}`. */
  query: AlarmCountQuery | Record<string, never>;
}

/** Send `null`, not `[]`, for "any": an empty list matches nothing. */
export interface AlarmStatusCmd {
  type: 'ALARM_STATUS';
  cmdId: number;
  originatorId: EntityId;
  typeList: string[] | null;
  severityList: AlarmSeverity[] | null;
}

/** All five unsubscribe types cancel whatever subscription holds the cmdId; no reply is sent. */
export interface UnsubscribeCmd {
  type: UnsubscribeCmdType;
  cmdId: number;
}

export type WsCmd = EntityDataCmd | EntityCountCmd | AlarmDataCmd | AlarmCountCmd | AlarmStatusCmd | UnsubscribeCmd;

/** The envelope the client sends to `/api/ws`. */
export interface WsCmdsWrapper {
  authCmd?: AuthCmd;
  cmds: WsCmd[];
}

// ---------------------------------------------------------------------------------------------------------------
// WebSocket updates
// ---------------------------------------------------------------------------------------------------------------

export const CMD_UPDATE_TYPES = [
  'ENTITY_DATA',
  'ALARM_DATA',
  'ALARM_COUNT_DATA',
  'ALARM_STATUS',
  'COUNT_DATA',
  'NOTIFICATIONS',
  'NOTIFICATIONS_COUNT',
] as const;
export type CmdUpdateType = (typeof CMD_UPDATE_TYPES)[number];

/** `SubscriptionErrorCode` plus the over-rate notice (34). */
export const SUBSCRIPTION_ERROR_CODES = {
  NO_ERROR: 0,
  INTERNAL_ERROR: 1,
  BAD_REQUEST: 2,
  UNAUTHORIZED: 3,
  TOO_MANY_UPDATES: 34,
} as const;

export interface CmdUpdate {
  cmdId: number;
  /** 0 when fine; 1 (INTERNAL_ERROR) for errors raised by the data services, with the data fields null. */
  errorCode: number;
  errorMsg: string | null;
  cmdUpdateType: CmdUpdateType;
}

/** Exactly one of `data` and `update` is non-null in a success message. */
export interface EntityDataUpdate extends CmdUpdate {
  cmdUpdateType: 'ENTITY_DATA';
  data: PageData<EntityData> | null;
  update: EntityData[] | null;
  allowedEntities: number;
}

export interface AlarmDataUpdate extends CmdUpdate {
  cmdUpdateType: 'ALARM_DATA';
  data: PageData<AlarmData> | null;
  update: AlarmData[] | null;
  allowedEntities: number;
  totalEntities: number;
}

export interface EntityCountUpdate extends CmdUpdate {
  cmdUpdateType: 'COUNT_DATA';
  count: number;
}

export interface AlarmCountUpdate extends CmdUpdate {
  cmdUpdateType: 'ALARM_COUNT_DATA';
  count: number;
}

export interface AlarmStatusUpdate extends CmdUpdate {
  cmdUpdateType: 'ALARM_STATUS';
  active: boolean;
}

export type WsCmdUpdate = EntityDataUpdate | AlarmDataUpdate | EntityCountUpdate | AlarmCountUpdate | AlarmStatusUpdate;

/**
 * Validation / dispatcher errors, in the legacy shape keyed by `subscriptionId` (no cmdId, no cmdUpdateType).
 * A parse failure always reports subscriptionId 1. The "Too many updates!" notice (errorCode 34) has no `data`.
 */
export interface SubscriptionErrorUpdate {
  subscriptionId: number;
  errorCode: number;
  errorMsg: string | null;
  data?: null;
  latestValues?: Record<string, unknown>;
}

export type WsServerMessage = WsCmdUpdate | SubscriptionErrorUpdate;
