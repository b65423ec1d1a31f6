/**
 * The access check of the telemetry, attribute and RPC routes (`SEC/AccessValidator.java`,
 * `SEC/permission/*Permissions.java`). Refusals are bare strings (403 / 404, `EXC/AccessDeniedException.java`,
 * `EXC/EntityNotFoundException.java`); an entity type the validator does not know throws `IllegalStateException("Not
 * Implemented!")` synchronously: 500 JSON.
 */
import type { Dataset, SimEntity } from './dataset';
import { general, MSG_PERMISSION, PlainError } from './errors';
import type { Caller, EntityId } from './types';

export type Operation =
  | 'READ_ATTRIBUTES'
  | 'READ_TELEMETRY'
  | 'WRITE_ATTRIBUTES'
  | 'WRITE_TELEMETRY'
  | 'RPC_CALL'
  // the rule engine's check of a message's originator (`C/RuleEngineController.java` L173)
  | 'WRITE';

export const MSG_SYSADMIN = 'System administrator is not allowed to perform this operation!';
export const MSG_CUSTOMER = 'Customer user is not allowed to perform this operation!';
export const MSG_ONLY_SYSADMIN = 'Only system administrator is allowed to perform this operation!';

/** `AccessValidator#validate`'s switch (`SEC/AccessValidator.java:210-228`). */
const SUPPORTED = new Set([
  'DEVICE',
  'DEVICE_PROFILE',
  'ASSET',
  'ASSET_PROFILE',
  'RULE_CHAIN',
  'CUSTOMER',
  'TENANT',
  'TENANT_PROFILE',
  'USER',
  'ENTITY_VIEW',
  'EDGE',
  'API_USAGE_STATE',
  'TB_RESOURCE',
  'OTA_PACKAGE',
  'RPC',
]);

const NOT_FOUND: Record<string, string> = {
  DEVICE: "Device with requested id wasn't found!",
  ASSET: "Asset with requested id wasn't found!",
  ENTITY_VIEW: "Entity-view with requested id wasn't found!",
  EDGE: "Edge with requested id wasn't found!",
  CUSTOMER: "Customer with requested id wasn't found!",
  TENANT: "Tenant with requested id wasn't found!",
  USER: "User with requested id wasn't found!",
  DEVICE_PROFILE: "Device profile with requested id wasn't found!",
  ASSET_PROFILE: "Asset profile with requested id wasn't found!",
  RULE_CHAIN: "Rule chain with requested id wasn't found!",
  API_USAGE_STATE: "Api Usage State with requested id wasn't found!",
  TB_RESOURCE: "Resource with requested id wasn't found!",
  OTA_PACKAGE: "OtaPackage with requested id wasn't found!",
  RPC: "Rpc with requested id wasn't found!",
};

const READS: readonly Operation[] = ['READ_ATTRIBUTES', 'READ_TELEMETRY'];
const CUSTOMER_ENTITY_OPS: readonly Operation[] = [
  'READ_ATTRIBUTES',
  'READ_TELEMETRY',
  'RPC_CALL',
  'WRITE_ATTRIBUTES',
  'WRITE_TELEMETRY',
  'WRITE',
];

export interface AccessContext {
  data: Dataset;
  /** `authorityOf(userId)` for USER targets */
  authorityOf(userId: string): string | null;
  versionAtLeast(v: string): boolean;
}

const denied = (msg = MSG_PERMISSION): PlainError => new PlainError(403, msg);

/**
 * Checks `op` on the entity for the caller; returns the entity (null for the sysadmin on TENANT / TENANT_PROFILE,
 * which the server does not look up). Throws PlainError 403/404 or the 500 JSON "Not Implemented!".
 */
export function validateAccess(ctx: AccessContext, caller: Caller, op: Operation, id: EntityId): SimEntity | null {
  const type = id.entityType;
  if (!SUPPORTED.has(type)) throw general('Not Implemented!');
  const sys = caller.authority === 'SYS_ADMIN';
  const customer = caller.authority === 'CUSTOMER_USER';
  const lookup = (): SimEntity => {
    const e = ctx.data.get(id.id);
    if (!e || e.entityType !== type || (e.tenantId !== caller.tenantId && type !== 'TENANT_PROFILE'))
      throw new PlainError(404, NOT_FOUND[type] ?? "Requested item wasn't found!");
    return e;
  };
  switch (type) {
    case 'TENANT': {
      if (customer) throw denied(MSG_CUSTOMER);
      if (sys) return null;
      const e = lookup();
      // TenantAdminPermissions: the own TENANT only READ, READ_ATTRIBUTES, READ_TELEMETRY (and DELETE): a tenant
      // admin writing its tenant's attributes or telemetry is refused by design
      if (e.id !== caller.tenantId || !READS.includes(op)) throw denied();
      return e;
    }
    case 'TENANT_PROFILE':
      if (!sys) throw denied(MSG_ONLY_SYSADMIN);
      return null;
    case 'USER': {
      const e = ctx.data.get(id.id);
      if (!e || e.entityType !== 'USER') throw new PlainError(404, NOT_FOUND.USER);
      if (sys) return e;
      if (e.tenantId !== caller.tenantId) throw denied();
      if (caller.authority === 'TENANT_ADMIN') {
        if (ctx.authorityOf(e.id) === 'SYS_ADMIN') throw denied();
        return e;
      }
      // CustomerUserPermissions.userPermissionChecker: READ for users of its customer, anything else only on itself
      if (e.customerId !== caller.customerId || e.id !== caller.userId) throw denied();
      return e;
    }
    case 'API_USAGE_STATE': {
      if (sys) throw denied(MSG_SYSADMIN);
      if (op !== 'READ_TELEMETRY') throw denied('Allowed only READ_TELEMETRY operation!');
      const e = lookup();
      if (customer) throw denied();
      return e;
    }
    case 'DEVICE':
    case 'ASSET':
    case 'ENTITY_VIEW':
    case 'EDGE': {
      if (sys) throw denied(MSG_SYSADMIN);
      const e = lookup();
      if (!customer) return e;
      // customerEntityPermissionChecker; the write operations for customer users exist since 3.3
      const writes = op === 'WRITE_ATTRIBUTES' || op === 'WRITE_TELEMETRY' || op === 'WRITE';
      if (!CUSTOMER_ENTITY_OPS.includes(op) || (writes && !ctx.versionAtLeast('3.3'))) throw denied();
      if (e.customerId === null || e.customerId !== caller.customerId) throw denied();
      return e;
    }
    case 'CUSTOMER': {
      if (sys) throw denied(MSG_SYSADMIN);
      const e = lookup();
      if (customer && (e.id !== caller.customerId || !READS.includes(op))) throw denied();
      return e;
    }
    default: {
      // profiles, rule chains, resources, OTA packages, RPCs: tenant admins of the tenant; customer users read the
      // profiles only (READ, not READ_ATTRIBUTES): refused
      if (sys) throw denied(MSG_SYSADMIN);
      const e = lookup();
      if (customer) throw denied();
      return e;
    }
  }
}
