/**
 * A few endpoints of the platform that are not the package's own business, answered as the server answers them, for
 * the generic REST node (tb-api) and its tests:
 *
 * - the audit log (`C/AuditLogController.java`, `DAO/sql/audit/AuditLogRepository.java`): `GET /api/audit/logs`,
 *   `…/entity/{entityType}/{entityId}`, `…/customer/{customerId}`, `…/user/{userId}`, paged, with text search (ILIKE
 *   over entity type, entity name, user name, action type and status), a time range (`startTime` default 1, `endTime`
 *   default now), `actionTypes` (comma-separated, an unknown one 400/31 "No enum constant …") and sorting; SYS_ADMIN
 *   and TENANT_ADMIN (the by-customer and by-user lists: TENANT_ADMIN only), a customer user 403/20. Without a sort
 *   the simulator answers newest first (the database's order is unspecified);
 * - OTA packages (`C/OtaPackageController.java`): `GET /api/otaPackages` (paged OtaPackageInfo, TENANT_ADMIN and
 *   CUSTOMER_USER), `GET /api/otaPackage/info/{id}`, and `GET /api/otaPackage/{id}/download` (TENANT_ADMIN): the file
 *   with its stored content type, `Content-Disposition: attachment;filename=<fileName>`, `x-filename` and
 *   `Content-Length`; a package kept as a URL answers **400 with no body**; a missing one 404/32 "Ota package with id
 *   [<id>] is not found"; a bad id 400/31 "Invalid UUID string: <id>";
 * - `GET /api/customer/{customerId}/title` (`C/CustomerController.java`, `produces = "application/text"`): the title
 *   as bare text; another customer's 403/20;
 * - `GET /api/noauth/userPasswordPolicy` (`C/AuthController.java`): served to anyone, no token needed (the default
 *   policy of `DAO/settings/DefaultSecuritySettingsService.java`: 6 to 72 characters).
 *
 * Every request these routes see is noted with whether it carried a credential (`seen()`), so that a test can check
 * that a path which needs no login got none. Deterministic: fixed ids, times before BASE_TIME, no wall clock.
 */
import { createHash } from 'node:crypto';
import type { Dataset } from './dataset';
import { BASE_TIME, HOUR } from './dataset';
import { ApiError, badRequest, forbidden, general, PlainError } from './errors';
import { containsIlike, compareValues, pageLink, toPage, validatePageLink } from './lookups';
import { numberParam } from './params';
import type { UserAccount } from './seed';
import type { Caller, EntityId, PageData } from './types';

/** `ActionType` (`CD/audit/ActionType.java`): the names the `actionTypes` parameter accepts. */
export const ACTION_TYPES = [
  'ADDED',
  'DELETED',
  'UPDATED',
  'ATTRIBUTES_UPDATED',
  'ATTRIBUTES_DELETED',
  'TIMESERIES_UPDATED',
  'TIMESERIES_DELETED',
  'RPC_CALL',
  'CREDENTIALS_UPDATED',
  'ASSIGNED_TO_CUSTOMER',
  'UNASSIGNED_FROM_CUSTOMER',
  'ACTIVATED',
  'SUSPENDED',
  'CREDENTIALS_READ',
  'ATTRIBUTES_READ',
  'RELATION_ADD_OR_UPDATE',
  'RELATION_DELETED',
  'RELATIONS_DELETED',
  'REST_API_RULE_ENGINE_CALL',
  'ALARM_ACK',
  'ALARM_CLEAR',
  'ALARM_DELETE',
  'ALARM_ASSIGNED',
  'ALARM_UNASSIGNED',
  'LOGIN',
  'LOGOUT',
  'LOCKOUT',
  'ASSIGNED_FROM_TENANT',
  'ASSIGNED_TO_TENANT',
  'PROVISION_SUCCESS',
  'PROVISION_FAILURE',
  'ASSIGNED_TO_EDGE',
  'UNASSIGNED_FROM_EDGE',
  'ADDED_COMMENT',
  'UPDATED_COMMENT',
  'DELETED_COMMENT',
  'SMS_SENT',
] as const;

export interface AuditLogEntry {
  id: string;
  createdTime: number;
  tenantId: string;
  customerId: string | null;
  entityId: EntityId;
  entityName: string;
  userId: string;
  userName: string;
  actionType: string;
  actionData: unknown;
  actionStatus: 'SUCCESS' | 'FAILURE';
  actionFailureDetails: string | null;
}

export interface OtaPackage {
  id: string;
  createdTime: number;
  tenantId: string;
  deviceProfileId: string | null;
  type: 'FIRMWARE' | 'SOFTWARE';
  title: string;
  version: string;
  tag: string | null;
  /** a package kept outside ThingsBoard: no data, the download answers 400 */
  url: string | null;
  fileName: string | null;
  contentType: string | null;
  data: Buffer | null;
}

/** A request these routes answered: whether it carried a credential (`X-Authorization` or `Authorization`). */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: boolean;
}

const NULL_CUSTOMER = '13814000-1dd2-11b2-8080-808080808080';
const SORTABLE = ['createdTime', 'entityType', 'entityName', 'userName', 'actionType', 'actionStatus'];

/** A fixed UUID for the n-th object of these routes (not drawn from the dataset's counter). */
function fixedId(n: number): string {
  const h = createHash('md5').update(`tb-sim:generic:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A deterministic firmware image of `size` bytes. */
function firmware(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
}

const UUID = /^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$/;

/** `UUID.fromString` as the controllers call it (`BaseController#toUUID`): 400/31 when it is not one. */
function toUuid(s: string): string {
  if (s.length > 36) throw badRequest('UUID string too large');
  if (!UUID.test(s)) throw badRequest(`Invalid UUID string: ${s}`);
  return s.toLowerCase();
}

export interface GenericContext {
  readonly data: Dataset;
  readonly users: readonly UserAccount[];
  now(): number;
}

export class GenericApi {
  private readonly logs: AuditLogEntry[] = [];
  private readonly packages: OtaPackage[] = [];
  private readonly seenList: SeenRequest[] = [];
  private seq = 0;

  constructor(private readonly ctx: GenericContext) {
    this.seedAuditLog();
    this.seedPackages();
  }

  /** The requests these routes answered, oldest first (at most the last 200). */
  seen(): SeenRequest[] {
    return this.seenList.slice();
  }

  /** @internal the HTTP front notes each request of these routes */
  note(method: string, path: string, authorization: boolean): void {
    this.seenList.push({ method, path, authorization });
    if (this.seenList.length > 200) this.seenList.shift();
  }

  /** The audit log, oldest first (a copy). */
  auditLogs(): AuditLogEntry[] {
    return this.logs.map((l) => ({ ...l }));
  }

  /** Adds an audit log entry (a test's, or the demo's); its id and time are given when not set. */
  addAuditLog(entry: Omit<AuditLogEntry, 'id' | 'createdTime'> & { id?: string; createdTime?: number }): AuditLogEntry {
    const e: AuditLogEntry = {
      ...entry,
      id: entry.id ?? fixedId(1000 + this.seq++),
      createdTime: entry.createdTime ?? this.ctx.now(),
    };
    this.logs.push(e);
    return { ...e };
  }

  /** The OTA packages (their data included). */
  otaPackages(): OtaPackage[] {
    return this.packages.slice();
  }

  private seedAuditLog(): void {
    const d = this.ctx.data;
    const tenant = this.ctx.users.find((u) => u.email === 'tenant@thingsboard.org');
    const customer = this.ctx.users.find((u) => u.email === 'customer@thingsboard.org');
    if (!tenant) return;
    const by = { tenantId: tenant.tenantId, userId: tenant.userId, userName: tenant.email };
    const ref = (type: string, name: string): { entityId: EntityId; entityName: string } | undefined => {
      const e = d.findByName(type as Parameters<Dataset['findByName']>[0], name);
      return e ? { entityId: { entityType: e.entityType, id: e.id }, entityName: e.name } : undefined;
    };
    const add = (at: number, what: Partial<AuditLogEntry> & { entityId: EntityId; entityName: string }): void => {
      this.logs.push({
        id: fixedId(this.logs.length + 1),
        createdTime: at,
        customerId: null,
        actionData: {},
        actionStatus: 'SUCCESS',
        actionFailureDetails: null,
        actionType: 'UPDATED',
        ...by,
        ...what,
      });
    };
    const me = { entityId: { entityType: 'USER', id: tenant.userId }, entityName: tenant.email };
    add(BASE_TIME - 6 * HOUR, {
      ...me,
      actionType: 'LOGIN',
      actionData: { clientAddress: '192.0.2.10', browser: 'Firefox 140', os: 'Linux', device: 'Computer' },
    });
    const a101 = ref('DEVICE', 'Thermo A-101');
    if (a101) {
      add(BASE_TIME - 5 * HOUR, {
        ...a101,
        actionType: 'ATTRIBUTES_UPDATED',
        actionData: { entityId: a101.entityId.id, scope: 'SHARED_SCOPE', attributes: { targetTemperature: 21 } },
      });
    }
    const b203 = ref('DEVICE', 'Thermo B-203');
    if (b203) {
      add(BASE_TIME - 4 * HOUR, {
        ...b203,
        actionType: 'RPC_CALL',
        actionData: { entityId: b203.entityId.id, oneWay: true, method: 'setTarget', params: '{"target":23}' },
      });
    }
    if (customer) {
      const c = {
        tenantId: customer.tenantId,
        customerId: customer.customerId,
        userId: customer.userId,
        userName: customer.email,
      };
      this.logs.push({
        id: fixedId(this.logs.length + 1),
        createdTime: BASE_TIME - 3 * HOUR,
        ...c,
        entityId: { entityType: 'USER', id: customer.userId },
        entityName: customer.email,
        actionType: 'LOGIN',
        actionData: { clientAddress: '198.51.100.7', browser: 'Chrome 138', os: 'Windows', device: 'Computer' },
        actionStatus: 'FAILURE',
        actionFailureDetails: 'Invalid username or password',
      });
    }
    const a102 = ref('DEVICE', 'Thermo A-102');
    if (a102)
      add(BASE_TIME - 2 * HOUR, {
        ...a102,
        actionType: 'UPDATED',
        actionData: { entity: { name: a102.entityName, label: 'Meeting room' } },
      });
    const custA = ref('CUSTOMER', 'Customer A');
    if (custA)
      add(BASE_TIME - HOUR, {
        ...custA,
        customerId: custA.entityId.id,
        actionType: 'UPDATED',
        actionData: { entity: { title: custA.entityName } },
      });
  }

  private seedPackages(): void {
    const tenant = this.ctx.users.find((u) => u.email === 'tenant@thingsboard.org');
    if (!tenant) return;
    const profile = this.ctx.data.findByName('DEVICE_PROFILE', 'thermostat');
    const base = { tenantId: tenant.tenantId, deviceProfileId: profile?.id ?? null, tag: null };
    this.packages.push(
      {
        ...base,
        id: fixedId(501),
        createdTime: BASE_TIME - 30 * 24 * HOUR,
        type: 'FIRMWARE',
        title: 'Thermostat firmware',
        version: '1.2',
        tag: 'Thermostat firmware 1.2',
        url: null,
        fileName: 'thermo-fw-1.2.bin',
        contentType: 'application/octet-stream',
        data: firmware(4096, 12),
      },
      {
        ...base,
        id: fixedId(502),
        createdTime: BASE_TIME - 10 * 24 * HOUR,
        type: 'SOFTWARE',
        title: 'Thermostat schedule',
        version: '2026.1',
        url: null,
        fileName: 'schedule.json',
        contentType: 'application/json',
        data: Buffer.from(
          JSON.stringify({ weekday: { '06:30': 21, '22:00': 17 }, weekend: { '08:00': 21, '23:00': 17 } }),
        ),
      },
      {
        ...base,
        id: fixedId(503),
        createdTime: BASE_TIME - 2 * 24 * HOUR,
        type: 'FIRMWARE',
        title: 'Thermostat firmware',
        version: '1.3',
        url: 'https://firmware.example.com/thermo-fw-1.3.bin',
        fileName: null,
        contentType: null,
        data: null,
      },
    );
  }

  // ---- the routes -------------------------------------------------------------------------------------------------

  /** `GET /api/audit/logs[/entity/{type}/{id} | /customer/{id} | /user/{id}]` */
  auditLogPage(
    caller: Caller,
    params: URLSearchParams,
    scope?: { entity?: EntityId; customerId?: string; userId?: string },
  ): PageData<unknown> {
    const sortProperty = params.get('sortProperty');
    const p = pageLink(params, sortProperty === '' ? null : sortProperty);
    const startTime = numberParam(params, 'startTime', 'Long') ?? 1;
    const endTime = numberParam(params, 'endTime', 'Long') ?? this.ctx.now();
    const typesText = params.get('actionTypes');
    let types: string[] | null = null;
    if (typesText !== null && typesText.trim() !== '') {
      types = typesText.split(',').map((t) => {
        const u = t.toUpperCase();
        if (!(ACTION_TYPES as readonly string[]).includes(u))
          throw badRequest(`No enum constant org.thingsboard.server.common.data.audit.ActionType.${u}`);
        return u;
      });
    }
    validatePageLink(p);
    if (p.sort && !SORTABLE.includes(p.sort.property))
      throw general(`No property '${p.sort.property}' found for type 'AuditLogEntity'`);
    const matches = containsIlike(p.textSearch);
    const rows = this.logs.filter((l) => {
      if (l.tenantId !== caller.tenantId) return false;
      if (scope?.entity && (l.entityId.entityType !== scope.entity.entityType || l.entityId.id !== scope.entity.id))
        return false;
      if (scope?.customerId && l.customerId !== scope.customerId) return false;
      if (scope?.userId && l.userId !== scope.userId) return false;
      if (l.createdTime < startTime || l.createdTime > endTime) return false;
      if (types && !types.includes(l.actionType)) return false;
      if (p.textSearch === null) return true;
      // the entity-id query leaves the entity type out of its text search
      const fields = [l.entityName, l.userName, l.actionType, l.actionStatus];
      if (!scope?.entity) fields.push(l.entityId.entityType);
      return fields.some((f) => matches(f));
    });
    const sort = p.sort ?? { property: 'createdTime', direction: 'DESC' as const };
    const value = (l: AuditLogEntry): string | number | null => {
      switch (sort.property) {
        case 'createdTime':
          return l.createdTime;
        case 'entityType':
          return l.entityId.entityType;
        default:
          return (l as unknown as Record<string, string | null>)[sort.property] ?? null;
      }
    };
    rows.sort((a, b) => {
      const c = compareValues(value(a), value(b));
      return sort.direction === 'DESC' ? -c : c;
    });
    return toPage(rows.map(auditLogJson), p);
  }

  auditLogScope(
    kind: 'entity' | 'customer' | 'user',
    parts: string[],
  ): { entity?: EntityId; customerId?: string; userId?: string } {
    if (kind === 'entity') {
      if (!parts[1]) throw badRequest("Parameter 'EntityId' can't be empty!");
      return { entity: { entityType: parts[0].toUpperCase(), id: toUuid(parts[1]) } };
    }
    const id = toUuid(parts[0]);
    return kind === 'customer' ? { customerId: id } : { userId: id };
  }

  /** `GET /api/otaPackages` */
  otaPackagePage(caller: Caller, params: URLSearchParams): PageData<unknown> {
    const p = pageLink(params);
    validatePageLink(p);
    const matches = containsIlike(p.textSearch);
    const rows = this.packages.filter((x) => x.tenantId === caller.tenantId && matches(x.title));
    if (p.sort) {
      const key = p.sort.property as keyof OtaPackage;
      if (!['createdTime', 'title', 'version', 'type', 'tag', 'url', 'fileName', 'contentType'].includes(key))
        throw general(`No property '${p.sort.property}' found for type 'OtaPackageInfoEntity'`);
      const dir = p.sort.direction;
      rows.sort((a, b) => {
        const c = compareValues(a[key] as string | number | null, b[key] as string | number | null);
        return dir === 'DESC' ? -c : c;
      });
    } else rows.sort((a, b) => a.createdTime - b.createdTime);
    return toPage(rows.map(otaInfoJson), p);
  }

  private findPackage(caller: Caller, idText: string): OtaPackage {
    const id = toUuid(idText);
    const pkg = this.packages.find((x) => x.id === id);
    if (!pkg) throw new ApiError(404, 32, `Ota package with id [${id}] is not found`);
    if (pkg.tenantId !== caller.tenantId) throw forbidden();
    return pkg;
  }

  /** `GET /api/otaPackage/info/{id}` */
  otaPackageInfo(caller: Caller, id: string): unknown {
    return otaInfoJson(this.findPackage(caller, id));
  }

  /** `GET /api/otaPackage/{id}/download`: the file, or 400 with no body for a package kept as a URL. */
  otaDownload(caller: Caller, id: string): { status: number; bytes?: Buffer; headers?: Record<string, string> } {
    const pkg = this.findPackage(caller, id);
    if (pkg.url !== null || !pkg.data) throw new PlainError(400, null);
    const name = pkg.fileName ?? '';
    return {
      status: 200,
      bytes: pkg.data,
      headers: {
        'Content-Disposition': `attachment;filename=${name}`,
        'x-filename': name,
        'Content-Type': pkg.contentType ?? 'application/octet-stream',
      },
    };
  }

  /** `GET /api/customer/{customerId}/title`: the title as bare text. */
  customerTitle(caller: Caller, idText: string): string {
    const id = toUuid(idText);
    const c = this.ctx.data.get(id);
    if (!c || c.entityType !== 'CUSTOMER' || c.tenantId !== caller.tenantId)
      throw new ApiError(404, 32, `Customer with id [${id}] is not found`);
    if (caller.authority === 'CUSTOMER_USER' && caller.customerId !== id) throw forbidden();
    return c.name;
  }

  /** `GET /api/noauth/userPasswordPolicy`: the default policy. */
  passwordPolicy(): unknown {
    return {
      minimumLength: 6,
      maximumLength: 72,
      minimumUppercaseLetters: null,
      minimumLowercaseLetters: null,
      minimumDigits: null,
      minimumSpecialCharacters: null,
      allowWhitespaces: true,
      forceUserToResetPasswordIfNotValid: false,
      passwordExpirationPeriodDays: null,
      passwordReuseFrequencyDays: null,
    };
  }
}

function auditLogJson(l: AuditLogEntry): unknown {
  return {
    id: { entityType: 'AUDIT_LOG', id: l.id },
    createdTime: l.createdTime,
    tenantId: { entityType: 'TENANT', id: l.tenantId },
    customerId: { entityType: 'CUSTOMER', id: l.customerId ?? NULL_CUSTOMER },
    entityId: l.entityId,
    entityName: l.entityName,
    userId: { entityType: 'USER', id: l.userId },
    userName: l.userName,
    actionType: l.actionType,
    actionData: l.actionData,
    actionStatus: l.actionStatus,
    actionFailureDetails: l.actionFailureDetails,
  };
}

function otaInfoJson(x: OtaPackage): unknown {
  const data = x.data;
  return {
    id: { entityType: 'OTA_PACKAGE', id: x.id },
    createdTime: x.createdTime,
    additionalInfo: null,
    tenantId: { entityType: 'TENANT', id: x.tenantId },
    deviceProfileId: x.deviceProfileId ? { entityType: 'DEVICE_PROFILE', id: x.deviceProfileId } : null,
    type: x.type,
    title: x.title,
    version: x.version,
    tag: x.tag,
    url: x.url,
    hasData: data !== null,
    fileName: x.fileName,
    contentType: x.contentType,
    checksumAlgorithm: data ? 'SHA256' : null,
    checksum: data ? createHash('sha256').update(data).digest('hex') : null,
    dataSize: data ? data.length : null,
    externalId: null,
    name: x.title,
  };
}
