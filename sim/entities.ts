/**
 * Entity management: devices, assets, customers and entity views created, updated, read, deleted, assigned and
 * unassigned, and a device's credentials (`C/DeviceController.java`, `C/AssetController.java`,
 * `C/CustomerController.java`, `C/EntityViewController.java`).
 *
 * The server's traps are kept on purpose, since a client must cope with them:
 * - the same POST creates (no `id`) or updates (with `id`), and an update **replaces the whole object**: a missing
 *   `customerId` unassigns, a missing `additionalInfo` is stored as null, a missing profile id is resolved again
 *   from `type` or the default profile (`DAO/sql/JpaAbstractDao.java`,
 *   `DAO/service/validator/DeviceDataValidator.java`);
 * - a `type` naming no profile **creates that profile** (`DeviceProfileServiceImpl#findOrCreateDeviceProfile`);
 * - a duplicate name is 400 code 31, not 409; a stale `version` is 409 code 35 (since 3.8), a missing one overwrites;
 * - every save, assign and unassign included, bumps `version`;
 * - a device is created with ACCESS_TOKEN credentials in the same transaction: a token already in use rejects the
 *   whole create; the credentials are their own record with their own `id` and `version`;
 * - an entity view needs a name and a type (free text, not a profile); a device or asset that has entity views
 *   cannot be deleted (400 code 31).
 *
 * A test sets `behaviour()`: the tenant's entity limits (403 code 41) and concurrent writers (the next N versioned
 * updates find the entity changed by someone else just before, as a second client would have done).
 */
import { createHash } from 'node:crypto';
import type { Dataset, SimEntity } from './dataset';
import { ApiError, badRequest, forbidden } from './errors';
import { NULL_UUID, type Caller, type EntityId } from './types';
import type { JsonValue } from './values';

export type ManagedType = 'DEVICE' | 'ASSET' | 'CUSTOMER' | 'ENTITY_VIEW';
/** The types a customer owns: they are assigned and unassigned. */
export type OwnedType = 'DEVICE' | 'ASSET' | 'ENTITY_VIEW';

export interface EntityBehaviour {
  /** the tenant profile's maximum of devices / assets / customers (0 or absent = no limit; none for views) */
  limits: Partial<Record<Exclude<ManagedType, 'ENTITY_VIEW'>, number>>;
  /** how many of the next versioned updates find the entity changed by someone else just before */
  concurrentWrites: number;
}

export interface DeviceCredentials {
  id: string;
  createdTime: number;
  deviceId: string;
  credentialsType: string;
  credentialsId: string;
  credentialsValue: string | null;
  version: number;
}

export interface EntitiesContext {
  data: Dataset;
  now(): number;
  versionAtLeast(v: string): boolean;
}

/** The server's "normal name" of each type, as its messages print it. */
const NORMAL: Record<ManagedType, string> = {
  DEVICE: 'Device',
  ASSET: 'Asset',
  CUSTOMER: 'Customer',
  ENTITY_VIEW: 'Entity view',
};
/** The same in the messages' lower case ("Can't assign entity view to …"). */
const LOWER: Record<OwnedType, string> = { DEVICE: 'device', ASSET: 'asset', ENTITY_VIEW: 'entity view' };
const PLURAL: Record<Exclude<ManagedType, 'ENTITY_VIEW'>, string> = {
  DEVICE: 'Devices',
  ASSET: 'Assets',
  CUSTOMER: 'Customers',
};
/** The by-name parameter of `GET /api/tenant/devices?deviceName=` and the others. */
export const NAME_PARAM: Record<ManagedType, string> = {
  DEVICE: 'deviceName',
  ASSET: 'assetName',
  CUSTOMER: 'customerTitle',
  ENTITY_VIEW: 'entityViewName',
};
const UUID_RE = /^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$/;
const CREDENTIAL_TYPES = ['ACCESS_TOKEN', 'X509_CERTIFICATE', 'MQTT_BASIC', 'LWM2M_CREDENTIALS'];
/** The contact columns of a customer (`data/ContactBased.java`). */
const CONTACT_FIELDS = ['country', 'state', 'city', 'address', 'address2', 'zip', 'phone', 'email'] as const;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `BaseController#toUUID`: a malformed id is 400 "Invalid UUID string: …". */
export function uuidParam(s: string): string {
  if (!UUID_RE.test(s)) throw badRequest(`Invalid UUID string: ${s}`);
  return s.toLowerCase();
}

function idOf(v: unknown): string | null {
  if (!isObj(v) || typeof v.id !== 'string') return null;
  return v.id === NULL_UUID ? null : uuidParam(v.id);
}

export class EntityService {
  private readonly versions = new Map<string, number>();
  private readonly credentials = new Map<string, DeviceCredentials>();
  private readonly byToken = new Map<string, string>();
  private tokenSeq = 0;
  private behaviour_: EntityBehaviour = { limits: {}, concurrentWrites: 0 };

  constructor(private readonly ctx: EntitiesContext) {}

  behaviour(): EntityBehaviour {
    return { limits: { ...this.behaviour_.limits }, concurrentWrites: this.behaviour_.concurrentWrites };
  }

  setBehaviour(b: Partial<EntityBehaviour>): void {
    if (b.limits !== undefined) this.behaviour_.limits = { ...b.limits };
    if (b.concurrentWrites !== undefined)
      this.behaviour_.concurrentWrites = Math.max(0, Math.floor(b.concurrentWrites));
  }

  reset(): void {
    this.behaviour_ = { limits: {}, concurrentWrites: 0 };
  }

  /** The entity's current version (1 for a seeded one). */
  versionOf(id: string): number {
    return this.versions.get(id) ?? 1;
  }

  /** Someone else saved the entity: its version moves on (a test's concurrent writer). */
  touch(id: string): number {
    const v = this.versionOf(id) + 1;
    this.versions.set(id, v);
    return v;
  }

  // -----------------------------------------------------------------------------------------------------------
  // JSON of the four types

  private ref(entityType: string, id: string | null): EntityId {
    return { entityType, id: id ?? NULL_UUID };
  }

  private profileOf(e: SimEntity): SimEntity | undefined {
    const kind = e.entityType === 'DEVICE' ? 'DEVICE_PROFILE' : 'ASSET_PROFILE';
    return this.ctx.data.list(kind).find((p) => p.tenantId === e.tenantId && p.name === e.type);
  }

  toJson(e: SimEntity): Obj {
    const withVersion = this.ctx.versionAtLeast('3.8');
    const info = e.additionalInfo === null ? null : (JSON.parse(e.additionalInfo) as JsonValue);
    const base: Obj = {
      id: this.ref(e.entityType, e.id),
      createdTime: e.createdTime,
      tenantId: this.ref('TENANT', e.tenantId),
    };
    if (e.entityType === 'CUSTOMER') {
      Object.assign(base, { title: e.name, name: e.name });
      for (const f of CONTACT_FIELDS) base[f] = e.fields[f] ?? null;
      Object.assign(base, { additionalInfo: info, externalId: null });
    } else {
      const profile = this.profileOf(e);
      Object.assign(base, {
        customerId: this.ref('CUSTOMER', e.customerId),
        name: e.name,
        type: e.type,
        label: e.label,
      });
      if (e.entityType === 'ENTITY_VIEW') {
        // `data/EntityView.java`: no label column; the keys as they were sent, the window in ms (0 = unbounded)
        delete base.label;
        Object.assign(base, {
          entityId: e.viewOf ?? null,
          keys: e.view ? e.view.keys : { timeseries: [], attributes: { cs: [], ss: [], sh: [] } },
          startTimeMs: e.view?.startTimeMs ?? 0,
          endTimeMs: e.view?.endTimeMs ?? 0,
          additionalInfo: info,
          externalId: null,
        });
      } else if (e.entityType === 'DEVICE') {
        Object.assign(base, {
          deviceProfileId: this.ref('DEVICE_PROFILE', profile?.id ?? null),
          firmwareId: null,
          softwareId: null,
          externalId: null,
          additionalInfo: info,
          deviceData: { configuration: { type: 'DEFAULT' }, transportConfiguration: { type: 'DEFAULT' } },
        });
      } else {
        Object.assign(base, {
          assetProfileId: this.ref('ASSET_PROFILE', profile?.id ?? null),
          externalId: null,
          additionalInfo: info,
        });
      }
    }
    if (withVersion) base.version = this.versionOf(e.id);
    return base;
  }

  // -----------------------------------------------------------------------------------------------------------
  // checks

  /** `checkXxxId(id, op)`: 404 "<Type> with id [<uuid>] is not found" when absent or of another tenant. */
  check(caller: Caller, type: ManagedType, rawId: string, op: 'READ' | 'WRITE' | 'DELETE' | 'CREDENTIALS'): SimEntity {
    const id = uuidParam(rawId);
    const e = this.ctx.data.get(id);
    if (!e || e.entityType !== type || e.tenantId !== caller.tenantId)
      throw new ApiError(404, 32, `${NORMAL[type]} with id [${id}] is not found`);
    if (caller.authority === 'CUSTOMER_USER') {
      // CustomerUserPermissions: the own customer's devices, assets and entity views: READ and WRITE, never DELETE,
      // credentials writes, assign; the own customer: READ only
      if (type === 'CUSTOMER') {
        if (e.id !== caller.customerId || op !== 'READ') throw forbidden();
      } else if (e.customerId !== caller.customerId || op === 'DELETE' || op === 'CREDENTIALS') throw forbidden();
    }
    return e;
  }

  private checkLimit(type: ManagedType, tenantId: string): void {
    // the tenant profile has no limit of entity views
    if (type === 'ENTITY_VIEW') return;
    const limit = this.behaviour_.limits[type] ?? 0;
    if (limit <= 0) return;
    const n = this.ctx.data.list(type).filter((e) => e.tenantId === tenantId).length;
    if (n >= limit)
      throw new ApiError(403, 41, `${PLURAL[type]} limit reached`, {}, { entityType: type, limit: limit });
  }

  private checkName(type: ManagedType, name: unknown): string {
    const label = type === 'CUSTOMER' ? 'Customer title' : `${NORMAL[type]} name`;
    if (typeof name !== 'string' || name.trim() === '') throw badRequest(`${label} should be specified!`);
    if (name.length > 255)
      throw badRequest(
        `Validation error: ${type === 'CUSTOMER' ? 'title' : 'name'} length must be equal or less than 255`,
      );
    return name;
  }

  private checkVersion(type: ManagedType, e: SimEntity, body: Obj): void {
    if (!this.ctx.versionAtLeast('3.8')) return;
    if (this.behaviour_.concurrentWrites > 0 && typeof body.version === 'number') {
      this.behaviour_.concurrentWrites--;
      this.touch(e.id);
    }
    // a null or missing version overwrites without a check (`JpaAbstractDao#update`)
    if (typeof body.version === 'number' && body.version !== this.versionOf(e.id))
      throw new ApiError(409, 35, `${NORMAL[type]} was already changed by someone else`);
  }

  /** The owner of a device, asset or view: the body's `customerId`, which must be a customer of the tenant. */
  private customerOf(type: OwnedType, caller: Caller, body: Obj): string | null {
    const id = idOf(body.customerId);
    if (id === null) return null;
    const c = this.ctx.data.get(id);
    const what = LOWER[type];
    if (!c || c.entityType !== 'CUSTOMER') throw badRequest(`Can't assign ${what} to non-existent customer!`);
    if (c.tenantId !== caller.tenantId) throw badRequest(`Can't assign ${what} to customer from different tenant!`);
    return c.id;
  }

  /**
   * The profile name the entity gets: the profile id's (must exist, same tenant), else `type` (an unknown name
   * creates a new profile), else "default" (`DeviceServiceImpl#doSaveDeviceWithoutCredentials`).
   */
  private resolveProfile(type: 'DEVICE' | 'ASSET', caller: Caller, body: Obj): string {
    const kind = type === 'DEVICE' ? 'DEVICE_PROFILE' : 'ASSET_PROFILE';
    const field = type === 'DEVICE' ? 'deviceProfileId' : 'assetProfileId';
    const word = type === 'DEVICE' ? 'device' : 'asset';
    const id = idOf(body[field]);
    if (id !== null) {
      const p = this.ctx.data.get(id);
      if (!p || p.entityType !== kind) throw badRequest(`${NORMAL[type]} is referencing non existing ${word} profile!`);
      if (p.tenantId !== caller.tenantId)
        throw badRequest(`${NORMAL[type]} can\`t be referencing to ${word} profile from different tenant!`);
      return p.name;
    }
    if (typeof body.type === 'string' && body.type !== '') {
      const known = this.ctx.data.list(kind).some((p) => p.tenantId === caller.tenantId && p.name === body.type);
      if (!known) this.ctx.data.addEntity({ entityType: kind, name: body.type, tenantId: caller.tenantId });
      return body.type;
    }
    return 'default';
  }

  private randomToken(): string {
    this.tokenSeq++;
    const h = createHash('sha256').update(`tb-sim-token:${this.tokenSeq}`).digest('base64');
    return h.replace(/[^A-Za-z0-9]/g, '').slice(0, 20);
  }

  // -----------------------------------------------------------------------------------------------------------
  // save (create or update)

  /**
   * An entity view's own columns from the body (`EntityViewDataValidator`): the type is required (free text, never
   * a profile); `entityId`, `keys` and the time window are stored as sent (the server does not check the viewed
   * entity here), `startTimeMs` / `endTimeMs` default to 0.
   */
  private viewColumns(body: Obj): {
    viewType: string;
    viewOf: EntityId | undefined;
    view: NonNullable<SimEntity['view']>;
  } {
    if (typeof body.type !== 'string' || body.type.trim() === '')
      throw badRequest('Entity view type should be specified!');
    const ms = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);
    const of = isObj(body.entityId) && typeof body.entityId.entityType === 'string' ? idOf(body.entityId) : null;
    return {
      viewType: body.type,
      viewOf: of === null ? undefined : { entityType: String((body.entityId as Obj).entityType), id: of },
      view: {
        keys: (body.keys ?? null) as JsonValue,
        startTimeMs: ms(body.startTimeMs),
        endTimeMs: ms(body.endTimeMs),
      },
    };
  }

  /** `POST /api/device`, `/api/asset`, `/api/customer`, `/api/entityView`. */
  save(caller: Caller, type: ManagedType, body: unknown, params: URLSearchParams): Obj {
    if (!isObj(body)) throw badRequest(`${NORMAL[type]} should be specified!`);
    const name = type === 'CUSTOMER' ? body.title : body.name;
    const existingId = idOf(body.id);
    const d = this.ctx.data;
    if (existingId === null) {
      if (caller.authority !== 'TENANT_ADMIN') throw forbidden();
      const title = this.checkName(type, name);
      if (type === 'CUSTOMER' && title === 'Public')
        throw badRequest("'Public' title for customer is system reserved!");
      // the view's type is checked with its name, before the name's uniqueness (`DataValidator#validate`)
      const cols = type === 'ENTITY_VIEW' ? this.viewColumns(body) : undefined;
      this.checkLimit(type, caller.tenantId);
      this.checkDuplicate(type, caller, title, null);
      const token = type === 'DEVICE' ? (params.get('accessToken') ?? '') : '';
      if (token !== '' && this.byToken.has(token))
        throw badRequest('Device credentials are already assigned to another device!');
      if (type === 'CUSTOMER') {
        const e = d.addEntity({
          entityType: 'CUSTOMER',
          name: title,
          tenantId: caller.tenantId,
          fields: this.contactFields(body),
          additionalInfo: isObj(body.additionalInfo) ? (body.additionalInfo as JsonValue) : undefined,
        });
        this.versions.set(e.id, 1);
        return this.toJson(e);
      }
      if (type === 'ENTITY_VIEW') {
        const view = cols as ReturnType<EntityService['viewColumns']>;
        const customerId = this.customerOf(type, caller, body);
        const e = d.addEntity({
          entityType: 'ENTITY_VIEW',
          name: title,
          tenantId: caller.tenantId,
          type: view.viewType,
          customerId,
          additionalInfo: isObj(body.additionalInfo) ? (body.additionalInfo as JsonValue) : undefined,
        });
        e.viewOf = view.viewOf;
        e.view = view.view;
        this.versions.set(e.id, 1);
        return this.toJson(e);
      }
      const customerId = this.customerOf(type, caller, body);
      const profile = this.resolveProfile(type, caller, body);
      const e = d.addEntity({
        entityType: type,
        name: title,
        tenantId: caller.tenantId,
        type: profile,
        label: typeof body.label === 'string' ? body.label : null,
        customerId,
        additionalInfo:
          body.additionalInfo === undefined || body.additionalInfo === null
            ? undefined
            : (body.additionalInfo as JsonValue),
      });
      this.versions.set(e.id, 1);
      if (type === 'DEVICE') this.storeCredentials(e, token !== '' ? token : this.randomToken());
      return this.toJson(e);
    }
    // update: the whole object is replaced
    const e = this.check(caller, type, existingId, 'WRITE');
    const title = this.checkName(type, name);
    if (type === 'CUSTOMER' && title === 'Public') throw badRequest("'Public' title for customer is system reserved!");
    const cols = type === 'ENTITY_VIEW' ? this.viewColumns(body) : undefined;
    this.checkVersion(type, e, body);
    this.checkDuplicate(type, caller, title, e.id);
    const additionalInfo = (body.additionalInfo ?? null) as JsonValue;
    if (type === 'ENTITY_VIEW' && cols) {
      // the whole view is replaced: no entityId = none, no keys = null, no window = 0 (unbounded)
      d.updateEntity(e, {
        name: title,
        type: cols.viewType,
        customerId: this.customerOf(type, caller, body),
        additionalInfo,
      });
      e.viewOf = cols.viewOf;
      e.view = cols.view;
    } else if (type === 'CUSTOMER') {
      const fields: Record<string, string | null> = {};
      for (const f of CONTACT_FIELDS) fields[f] = typeof body[f] === 'string' ? (body[f] as string) : null;
      d.updateEntity(e, { name: title, fields, additionalInfo });
    } else {
      const owned = type as 'DEVICE' | 'ASSET';
      const customerId = this.customerOf(owned, caller, body);
      const profile = this.resolveProfile(owned, caller, body);
      d.updateEntity(e, {
        name: title,
        label: typeof body.label === 'string' ? body.label : null,
        type: profile,
        customerId,
        additionalInfo,
      });
    }
    if (additionalInfo === null) e.additionalInfo = null;
    this.touch(e.id);
    return this.toJson(e);
  }

  private contactFields(body: Obj): Record<string, string | null> {
    const fields: Record<string, string | null> = {};
    for (const f of CONTACT_FIELDS) if (typeof body[f] === 'string') fields[f] = body[f] as string;
    return fields;
  }

  private checkDuplicate(type: ManagedType, caller: Caller, name: string, self: string | null): void {
    const other = this.ctx.data.findByName(type, name);
    if (other && other.id !== self && other.tenantId === caller.tenantId) {
      const what = type === 'CUSTOMER' ? 'Customer with such title' : `${NORMAL[type]} with such name`;
      throw badRequest(`${what} already exists!`);
    }
  }

  // -----------------------------------------------------------------------------------------------------------
  // get, by name, delete

  get(caller: Caller, type: ManagedType, rawId: string): Obj {
    return this.toJson(this.check(caller, type, rawId, 'READ'));
  }

  /**
   * `GET /api/tenant/devices?deviceName=`, `/api/tenant/assets?assetName=`, `/api/tenant/customers?customerTitle=`,
   * `/api/tenant/entityViews?entityViewName=` (tenant administrators only): the entity, or 404.
   */
  byName(caller: Caller, type: ManagedType, name: string | null): Obj {
    const param = NAME_PARAM[type];
    if (name === null)
      throw new ApiError(
        500,
        2,
        `Required request parameter '${param}' for method parameter type String is not present`,
      );
    const e = this.ctx.data.findByName(type, name);
    if (!e || e.tenantId !== caller.tenantId) {
      if (type === 'CUSTOMER') throw new ApiError(404, 32, `Customer with title [${name}] is not found`);
      throw new ApiError(404, 32, "Requested item wasn't found!");
    }
    return this.toJson(e);
  }

  /** `DELETE /api/device/{id}` and the others: 200 with an empty body. */
  remove(caller: Caller, type: ManagedType, rawId: string): void {
    if (caller.authority !== 'TENANT_ADMIN') throw forbidden();
    const e = this.check(caller, type, rawId, 'DELETE');
    const d = this.ctx.data;
    if ((type === 'DEVICE' || type === 'ASSET') && d.entityViews().some((v) => v.viewOf?.id === e.id)) {
      const what = LOWER[type];
      throw badRequest(`Can't delete ${what} that has entity views or is referenced in calculated fields!`);
    }
    if (type === 'CUSTOMER') {
      // the customer's devices, assets and entity views go back to the tenant
      for (const t of ['DEVICE', 'ASSET', 'ENTITY_VIEW'] as const)
        for (const x of d.list(t))
          if (x.customerId === e.id) {
            d.updateEntity(x, { customerId: null });
            this.touch(x.id);
          }
    }
    if (type === 'DEVICE') {
      const c = this.credentials.get(e.id);
      if (c) this.byToken.delete(c.credentialsId);
      this.credentials.delete(e.id);
    }
    d.removeEntity(e);
    this.versions.delete(e.id);
  }

  // -----------------------------------------------------------------------------------------------------------
  // assign / unassign

  /** `POST /api/customer/{customerId}/device/{id}` (and asset, entity view). */
  assign(caller: Caller, type: OwnedType, rawCustomerId: string, rawId: string): Obj {
    if (caller.authority !== 'TENANT_ADMIN') throw forbidden();
    const c = this.check(caller, 'CUSTOMER', rawCustomerId, 'READ');
    const e = this.check(caller, type, rawId, 'WRITE');
    this.ctx.data.updateEntity(e, { customerId: c.id });
    this.touch(e.id);
    return this.toJson(e);
  }

  /** `DELETE /api/customer/device/{id}` (and asset, entity view): 400 when it is not assigned. */
  unassign(caller: Caller, type: OwnedType, rawId: string): Obj {
    if (caller.authority !== 'TENANT_ADMIN') throw forbidden();
    const e = this.check(caller, type, rawId, 'WRITE');
    // the entity view controller spells it with a capital V (`C/EntityViewController.java`)
    const what = type === 'ENTITY_VIEW' ? 'Entity View' : NORMAL[type];
    if (e.customerId === null) throw badRequest(`${what} isn't assigned to any customer!`);
    this.ctx.data.updateEntity(e, { customerId: null });
    this.touch(e.id);
    return this.toJson(e);
  }

  // -----------------------------------------------------------------------------------------------------------
  // credentials

  private storeCredentials(e: SimEntity, token: string): DeviceCredentials {
    const c: DeviceCredentials = {
      id: this.ctx.data.nextId(),
      createdTime: this.ctx.now(),
      deviceId: e.id,
      credentialsType: 'ACCESS_TOKEN',
      credentialsId: token,
      credentialsValue: null,
      version: 1,
    };
    this.credentials.set(e.id, c);
    this.byToken.set(token, e.id);
    return c;
  }

  /** A seeded device's credentials are made when first asked for (a deterministic token). */
  credentialsOf(e: SimEntity): DeviceCredentials {
    return this.credentials.get(e.id) ?? this.storeCredentials(e, this.randomToken());
  }

  private credentialsJson(c: DeviceCredentials): Obj {
    const o: Obj = {
      id: { id: c.id },
      createdTime: c.createdTime,
      deviceId: { entityType: 'DEVICE', id: c.deviceId },
      credentialsType: c.credentialsType,
      credentialsId: c.credentialsId,
      credentialsValue: c.credentialsValue,
    };
    if (this.ctx.versionAtLeast('3.8')) o.version = c.version;
    return o;
  }

  /** `GET /api/device/{id}/credentials`. */
  getCredentials(caller: Caller, rawId: string): Obj {
    return this.credentialsJson(this.credentialsOf(this.check(caller, 'DEVICE', rawId, 'READ')));
  }

  /**
   * `POST /api/device/credentials`: an update, which needs the record's own `id` (without it the call is a create,
   * refused since the device has credentials already).
   */
  saveCredentials(caller: Caller, body: unknown): Obj {
    if (caller.authority !== 'TENANT_ADMIN') throw forbidden();
    if (!isObj(body)) throw badRequest('Device credentials should be specified!');
    const deviceId = idOf(body.deviceId);
    if (deviceId === null) throw badRequest('Device credentials id should be specified!');
    const e = this.check(caller, 'DEVICE', deviceId, 'CREDENTIALS');
    const current = this.credentialsOf(e);
    const recordId = idOf(body.id);
    if (recordId === null) throw badRequest('Credentials for this device are already specified!');
    if (recordId !== current.id) throw badRequest('Unable to update non-existent device credentials!');
    if (typeof body.credentialsType !== 'string' || !CREDENTIAL_TYPES.includes(body.credentialsType))
      throw badRequest('Device credentials type should be specified!');
    if (this.ctx.versionAtLeast('3.8') && typeof body.version === 'number' && body.version !== current.version)
      throw new ApiError(409, 35, 'Device credentials was already changed by someone else');
    let credentialsId = typeof body.credentialsId === 'string' ? body.credentialsId : '';
    const value = typeof body.credentialsValue === 'string' ? body.credentialsValue : null;
    if (body.credentialsType === 'ACCESS_TOKEN') {
      if (credentialsId === '') throw badRequest('Device credentials id should be specified!');

      if (/[\u0000-\u001f\u007f]/.test(credentialsId))
        throw badRequest('credentialsId must not contain control characters!');
    } else {
      // the server derives the id of the other types from their value
      credentialsId = createHash('sha256')
        .update(value ?? '')
        .digest('hex');
    }
    const owner = this.byToken.get(credentialsId);
    if (owner !== undefined && owner !== e.id)
      throw badRequest('Device credentials are already assigned to another device!');
    this.byToken.delete(current.credentialsId);
    current.credentialsType = body.credentialsType;
    current.credentialsId = credentialsId;
    current.credentialsValue = value;
    current.version++;
    this.byToken.set(credentialsId, e.id);
    return this.credentialsJson(current);
  }
}
