/**
 * The look-ups the editor uses: profile infos and names, entity view / edge / alarm types, and the
 * system info. Each function answers one endpoint from the dataset, the way the server's controller, service
 * and repository do (cited per function); the routes themselves are declared in server.ts.
 *
 * Request parameters follow Spring's binding inside a ThingsBoard controller: a missing required `int` is a
 * MissingServletRequestParameterException, which BaseController's `@ExceptionHandler(Exception.class)` maps to
 * **500 code 2** (not Spring's default 400: the controller's own handler wins); an unparsable one is a
 * MethodArgumentTypeMismatchException → 400 code 31 (`BaseController#handleException`).
 */
import type { Dataset, SimEntity } from './dataset';
import { badRequest, general } from './errors';
import { compileIlike } from './query/predicates';
import type { Caller, EntityId, EntityType, PageData } from './types';

const COLLATOR = new Intl.Collator('en-US');

/** `@RequestParam int <name>` (required). */
export function requiredInt(params: URLSearchParams, name: string): number {
  const v = params.get(name);
  if (v === null) throw general(`Required request parameter '${name}' for method parameter type int is not present`);
  const s = v.trim();
  if (!/^[+-]?\d+$/.test(s) || Math.abs(Number(s)) > 2147483647) {
    throw badRequest(
      `Method parameter '${name}': Failed to convert value of type 'java.lang.String' to required type 'int'; For ` +
        `input string: "${v}"`,
    );
  }
  return Number(s);
}

/** A non-empty optional parameter, or null (Spring binds `?x=` as ""; the services treat "" like null). */
export function optional(params: URLSearchParams, name: string): string | null {
  const v = params.get(name);
  return v === null || v === '' ? null : v;
}

export type Direction = 'ASC' | 'DESC';

export interface PageLink {
  pageSize: number;
  page: number;
  textSearch: string | null;
  sort: { property: string; direction: Direction } | null;
}

/** `BaseController#createPageLink` then `Validator#validatePageLink` (`DAO/service/Validator.java`). */
export function pageLink(
  params: URLSearchParams,
  sortProperty: string | null = optional(params, 'sortProperty'),
): PageLink {
  const pageSize = requiredInt(params, 'pageSize');
  const page = requiredInt(params, 'page');
  const textSearch = optional(params, 'textSearch');
  let sort: PageLink['sort'] = null;
  if (sortProperty !== null) {
    if (!/^[\p{L}0-9_-]+$/u.test(sortProperty)) throw badRequest('Invalid sort property');
    sort = { property: sortProperty, direction: direction(optional(params, 'sortOrder')) };
  }
  return { pageSize, page, textSearch, sort };
}

function direction(v: string | null): Direction {
  if (v === null) return 'ASC';
  const d = v.toUpperCase();
  if (d !== 'ASC' && d !== 'DESC')
    throw badRequest(`Unsupported sort order '${v}'! Only 'ASC' or 'DESC' types are allowed.`);
  return d;
}

export function validatePageLink(p: PageLink): void {
  if (p.pageSize < 1)
    throw badRequest(`Incorrect page link page size '${p.pageSize}'. Page size must be greater than zero.`);
  if (p.page < 0) throw badRequest(`Incorrect page link page '${p.page}'. Page must be positive integer.`);
}

/** One page of `rows` as Spring Data's Page turned into PageData (`DaoUtil.toPageData`). */
export function toPage<T>(rows: T[], p: PageLink): PageData<T> {
  const start = p.page * p.pageSize;
  const data = rows.slice(start, start + p.pageSize);
  const totalPages = Math.ceil(rows.length / p.pageSize);
  return { data, totalPages, totalElements: rows.length, hasNext: p.page + 1 < totalPages };
}

/** The `ilike(name, CONCAT('%', :textSearch, '%'))` of the repositories: `%` and `_` stay wildcards. */
export function containsIlike(textSearch: string | null): (s: string) => boolean {
  if (textSearch === null) return () => true;
  return compileIlike(`%${textSearch}%`);
}

const tenantRef = (tenantId: string): EntityId => ({ entityType: 'TENANT', id: tenantId });

// -------------------------------------------------------------------------------------------------------------
// Profiles

const DEVICE_TRANSPORT_TYPES = ['DEFAULT', 'MQTT', 'COAP', 'LWM2M', 'SNMP'];

/**
 * Sortable columns of the profile tables; `description` and `isDefault` are null / false on every simulated profile.
 */
function profileSortValue(e: SimEntity, property: string, device: boolean): string | number | null {
  switch (property) {
    case 'createdTime':
      return e.createdTime;
    case 'name':
      return e.name;
    case 'description':
      return null;
    case 'isDefault':
      return e.name === 'default' ? 1 : 0;
    case 'type':
      if (device) return e.type ?? 'DEFAULT';
      break;
    case 'transportType':
      if (device) return 'DEFAULT';
      break;
  }
  // JPA: an order-by property the entity does not have (PropertyReferenceException, mapped to 500 code 2)
  throw general(`No property '${property}' found for type '${device ? 'DeviceProfileEntity' : 'AssetProfileEntity'}'`);
}

export function compareValues(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1; // NULLS LAST for ASC (Postgres default)
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return COLLATOR.compare(String(a), String(b));
}

function tenantProfiles(ds: Dataset, caller: Caller, type: 'DEVICE_PROFILE' | 'ASSET_PROFILE'): SimEntity[] {
  return ds.list(type).filter((e) => e.tenantId === caller.tenantId);
}

/**
 * `GET /api/deviceProfileInfos` and `/api/assetProfileInfos` (DeviceProfileController / AssetProfileController
 * `#get…ProfileInfos`; `DeviceProfileRepository#findDeviceProfileInfos`): the tenant's profiles, also for a
 * customer user; without sortProperty in creation order (the database's order is unspecified).
 */
export function profileInfos(
  ds: Dataset,
  caller: Caller,
  params: URLSearchParams,
  kind: 'DEVICE' | 'ASSET',
): PageData<unknown> {
  const device = kind === 'DEVICE';
  const p = pageLink(params);
  const transportType = device ? optional(params, 'transportType') : null;
  validatePageLink(p);
  if (transportType !== null && !DEVICE_TRANSPORT_TYPES.includes(transportType)) {
    throw badRequest(`No enum constant org.thingsboard.server.common.data.DeviceTransportType.${transportType}`);
  }
  const match = containsIlike(p.textSearch);
  // every simulated device profile uses the DEFAULT transport
  let rows = tenantProfiles(ds, caller, device ? 'DEVICE_PROFILE' : 'ASSET_PROFILE').filter(
    (e) => match(e.name) && (transportType === null || transportType === 'DEFAULT'),
  );
  if (p.sort) {
    const { property, direction: dir } = p.sort;
    const keyed = rows.map((e) => ({ e, v: profileSortValue(e, property, device) }));
    keyed.sort((a, b) => (dir === 'ASC' ? compareValues(a.v, b.v) : compareValues(b.v, a.v)));
    rows = keyed.map((k) => k.e);
  }
  const page = toPage(rows, p);
  return { ...page, data: page.data.map((e) => profileInfo(e, device)) };
}

function profileInfo(e: SimEntity, device: boolean): Record<string, unknown> {
  const info: Record<string, unknown> = {
    id: { entityType: e.entityType, id: e.id },
    tenantId: tenantRef(e.tenantId),
    name: e.name,
    image: null,
    defaultDashboardId: null,
  };
  if (device) {
    info.type = e.type ?? 'DEFAULT';
    info.transportType = 'DEFAULT';
  }
  return info;
}

/**
 * `GET /api/deviceProfile/names?activeOnly=` and `/api/assetProfile/names` (since 3.6.2;
 * `DeviceProfileServiceImpl#findDeviceProfileNamesByTenantId`): `[{id, name}]` of the tenant's profiles sorted by
 * name (Java String order); `activeOnly=true` keeps the profiles some device (asset) of the tenant uses.
 */
export function profileNames(
  ds: Dataset,
  caller: Caller,
  activeOnly: boolean,
  kind: 'DEVICE' | 'ASSET',
): Array<{ id: EntityId; name: string }> {
  let rows = tenantProfiles(ds, caller, kind === 'DEVICE' ? 'DEVICE_PROFILE' : 'ASSET_PROFILE');
  if (activeOnly) {
    const used = new Set<string>();
    for (const e of ds.entitiesOfType(kind)) if (e.tenantId === caller.tenantId && e.type !== null) used.add(e.type);
    rows = rows.filter((p) => used.has(p.name));
  }
  return rows
    .map((e) => ({ id: { entityType: e.entityType, id: e.id }, name: e.name }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// -------------------------------------------------------------------------------------------------------------
// Types

/**
 * `GET /api/entityView/types`, `GET /api/edge/types` (`EntityViewServiceImpl#findEntityViewTypesByTenantId`,
 * `EdgeServiceImpl#findEdgeTypesByTenantId`): the distinct types of the **tenant's** entity views / edges, also
 * for a customer user (the API doc mentions "assigned to the customer", the code reads by tenant only), sorted
 * by type (Java String order).
 */
export function entityTypes(
  ds: Dataset,
  caller: Caller,
  type: 'ENTITY_VIEW' | 'EDGE',
): Array<{ tenantId: EntityId; entityType: EntityType; type: string }> {
  const types = new Set<string>();
  for (const e of ds.list(type)) if (e.tenantId === caller.tenantId && e.type !== null) types.add(e.type);
  return [...types].sort().map((t) => ({ tenantId: tenantRef(caller.tenantId), entityType: type, type: t }));
}

/**
 * `GET /api/alarm/types?pageSize=&page=&textSearch=&sortOrder=` (since 3.6; `AlarmController#getAlarmTypes`,
 * `JpaAlarmDao#findTenantAlarmTypes`): the tenant's alarm types (`alarm_types` table, i.e. the types of its
 * existing alarms; a customer user gets the tenant's types as well), `ILIKE %textSearch%`, ordered by type.
 * The page link is not validated by the service, so a bad page size or page is Spring Data's
 * IllegalArgumentException (400 code 31); an empty page, also one past the end, is `PageData.emptyPageData()`.
 */
export function alarmTypes(
  ds: Dataset,
  caller: Caller,
  params: URLSearchParams,
): PageData<{ tenantId: EntityId; entityType: 'ALARM'; type: string }> {
  const p = pageLink(params, 'type');
  if (p.page < 0) throw badRequest('Page index must not be less than zero');
  if (p.pageSize < 1) throw badRequest('Page size must not be less than one');
  const match = containsIlike(p.textSearch);
  const types = new Set<string>();
  for (const a of ds.alarms()) if (a.tenantId === caller.tenantId && match(a.type)) types.add(a.type);
  const sorted = [...types].sort((a, b) => COLLATOR.compare(a, b));
  if (p.sort?.direction === 'DESC') sorted.reverse();
  const page = toPage(sorted, p);
  if (page.data.length === 0) return { data: [], totalPages: 0, totalElements: 0, hasNext: false };
  return {
    ...page,
    data: page.data.map((type) => ({ tenantId: tenantRef(caller.tenantId), entityType: 'ALARM' as const, type })),
  };
}

// -------------------------------------------------------------------------------------------------------------
// System info

/**
 * `GET /api/system/info` (since 3.3.3, every authority; `SystemInfoController#buildInfoObject`): the build's
 * version, artifact and name, plus `type: "CE"` from 4.0 on.
 */
export function systemInfo(version: string, withType: boolean): Record<string, string> {
  const info: Record<string, string> = { version, artifact: 'application', name: 'ThingsBoard Server Application' };
  if (withType) info.type = 'CE';
  return info;
}
