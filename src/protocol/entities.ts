/**
 * Entity management on the wire (devices, assets, customers): what one row of a create-or-update asks for, checked,
 * and the body that goes to `POST /api/device` (`/api/asset`, `/api/customer`). The server replaces the whole object
 * on update (`dao/sql/JpaAbstractDao.java`): a missing `customerId` unassigns, a missing `additionalInfo` clears the
 * gateway flag, a missing profile id moves a device to the default profile. So an update is always the entity as
 * read, with only the fields the row gives changed (`mergeUpdate`), sent back with the version read. Pure: nothing
 * here sends anything.
 */
import { TbInputError } from '../errors';

export const MANAGED_TYPES = ['DEVICE', 'ASSET', 'CUSTOMER'] as const;
export type ManagedType = (typeof MANAGED_TYPES)[number];

/** The contact fields a customer row may set (`data/ContactBased.java`). */
export const CUSTOMER_FIELDS = ['email', 'phone', 'country', 'state', 'city', 'address', 'address2', 'zip'] as const;

/** What one row asks for: the entity's name and the fields to set; a field left out is kept as it is. */
export interface EntitySpec {
  type: ManagedType;
  name: string;
  /** the new name (an update by name that renames) */
  rename?: string;
  /** device / asset profile, by name (never created: an unknown name is an error) */
  profile?: string;
  label?: string;
  description?: string;
  /** devices only */
  gateway?: boolean;
  /** other additionalInfo keys, merged into what the entity has */
  additionalInfo?: Record<string, unknown>;
  /** a customer's contact fields */
  contact?: Partial<Record<(typeof CUSTOMER_FIELDS)[number], string>>;
  /** server-scope attributes to set after the save */
  attributes?: Record<string, unknown>;
  /** devices only: the access token to create the device with (on create only) */
  accessToken?: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optText(row: Obj, key: string, field: string): string | undefined {
  const v = row[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') throw new TbInputError(`${field}.${key}`, `Give ${field}.${key} as text`);
  return v;
}

/** A spreadsheet's "true"/"yes"/"1" and a JSON boolean alike. */
function optBool(row: Obj, key: string, field: string): boolean | undefined {
  const v = row[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  const s = String(v).trim().toLowerCase();
  if (['true', 'yes', '1'].includes(s)) return true;
  if (['false', 'no', '0'].includes(s)) return false;
  throw new TbInputError(`${field}.${key}`, `Set ${field}.${key} to true or false (it is ${JSON.stringify(v)})`);
}

/**
 * One row (an object, e.g. a CSV line) read as an EntitySpec of `type`. `name` (or `title` for a customer) is
 * required; `profile` (or `type`), `label`, `description`, `gateway`, `accessToken`, `attributes` (an object), a
 * customer's contact fields, and `additionalInfo` (an object) are optional. Throws a TbInputError naming the field.
 */
export function readSpec(row: unknown, type: ManagedType, field: string): EntitySpec {
  if (!isObj(row)) throw new TbInputError(field, `Give ${field} as an object with a name (it is ${kind(row)})`);
  const name = optText(row, type === 'CUSTOMER' && row.title !== undefined ? 'title' : 'name', field);
  if (name === undefined || name.trim() === '')
    throw new TbInputError(`${field}.name`, `Give ${field}.name: the ${type.toLowerCase()}'s name is required`);
  if (name.length > 255) throw new TbInputError(`${field}.name`, `Shorten ${field}.name to 255 characters at most`);
  const spec: EntitySpec = { type, name };
  const rename = optText(row, 'rename', field);
  if (rename !== undefined && rename.trim() !== '') spec.rename = rename;
  if (type !== 'CUSTOMER') {
    const profile = optText(row, 'profile', field) ?? optText(row, 'type', field);
    if (profile !== undefined && profile !== '') spec.profile = profile;
    const label = optText(row, 'label', field);
    if (label !== undefined) spec.label = label;
  } else {
    const contact: EntitySpec['contact'] = {};
    for (const f of CUSTOMER_FIELDS) {
      const v = optText(row, f, field);
      if (v !== undefined) contact[f] = v;
    }
    if (Object.keys(contact).length) spec.contact = contact;
  }
  const description = optText(row, 'description', field);
  if (description !== undefined) spec.description = description;
  if (type === 'DEVICE') {
    const gateway = optBool(row, 'gateway', field);
    if (gateway !== undefined) spec.gateway = gateway;
    const token = optText(row, 'accessToken', field);
    if (token !== undefined && token !== '') spec.accessToken = token;
  }
  for (const key of ['additionalInfo', 'attributes'] as const) {
    const v = row[key];
    if (v === undefined || v === null) continue;
    if (!isObj(v)) throw new TbInputError(`${field}.${key}`, `Give ${field}.${key} as an object (it is ${kind(v)})`);
    spec[key] = v;
  }
  return spec;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'string' ? 'text' : `a ${typeof v}`;
}

/** The profile id field of a device or asset. */
export function profileField(type: ManagedType): 'deviceProfileId' | 'assetProfileId' | undefined {
  return type === 'DEVICE' ? 'deviceProfileId' : type === 'ASSET' ? 'assetProfileId' : undefined;
}

/** The additionalInfo the row gives, merged into `current` (null or an object). */
function mergedInfo(spec: EntitySpec, current: unknown): Obj | null {
  const touched = spec.additionalInfo !== undefined || spec.description !== undefined || spec.gateway !== undefined;
  const base = isObj(current) ? current : null;
  if (!touched) return base;
  const info: Obj = { ...(base ?? {}), ...(spec.additionalInfo ?? {}) };
  if (spec.description !== undefined) info.description = spec.description;
  if (spec.gateway !== undefined) info.gateway = spec.gateway;
  return info;
}

/**
 * The body of a create: the name, the profile by name (`type`, checked to exist beforehand, so the server finds it
 * rather than making one), the label, additionalInfo and contact fields the row gives.
 */
export function createBody(spec: EntitySpec): Obj {
  const body: Obj = spec.type === 'CUSTOMER' ? { title: spec.rename ?? spec.name } : { name: spec.rename ?? spec.name };
  if (spec.profile !== undefined) body.type = spec.profile;
  if (spec.label !== undefined) body.label = spec.label;
  const info = mergedInfo(spec, null);
  if (info) body.additionalInfo = info;
  if (spec.contact) Object.assign(body, spec.contact);
  return body;
}

/**
 * The body of an update: the entity as read (its id, version, customerId, profile id, additionalInfo: everything
 * the server would otherwise drop), with only the row's fields changed. A new profile replaces the profile id by
 * its `type` name (checked to exist beforehand). Null when nothing would change (no write, no version bump).
 */
export function mergeUpdate(spec: EntitySpec, current: Obj): Obj | null {
  const body: Obj = { ...current };
  const nameKey = spec.type === 'CUSTOMER' ? 'title' : 'name';
  let changed = false;
  const set = (key: string, value: unknown): void => {
    if (JSON.stringify(body[key]) !== JSON.stringify(value)) {
      body[key] = value;
      changed = true;
    }
  };
  if (spec.rename !== undefined) set(nameKey, spec.rename);
  if (spec.type !== 'CUSTOMER') {
    if (spec.profile !== undefined && spec.profile !== current.type) {
      delete body[profileField(spec.type) as string];
      body.type = spec.profile;
      changed = true;
    }
    if (spec.label !== undefined) set('label', spec.label);
  }
  if (spec.contact) for (const [k, v] of Object.entries(spec.contact)) set(k, v);
  const info = mergedInfo(spec, current.additionalInfo);
  if (info !== null && info !== current.additionalInfo) set('additionalInfo', info);
  // a customer's `name` is read-only (the title's copy): the server ignores it, so it is dropped
  if (spec.type === 'CUSTOMER') delete body.name;
  return changed ? body : null;
}

/** What a row's result says it did. */
export type EntityAction = 'created' | 'updated' | 'unchanged' | 'deleted' | 'found' | 'assigned' | 'unassigned';

/** The id of an entity as the server answered it (`{entityType, id}`). */
export function entityIdOf(e: unknown): { entityType: string; id: string } | undefined {
  if (!isObj(e) || !isObj(e.id)) return undefined;
  const { entityType, id } = e.id;
  return typeof entityType === 'string' && typeof id === 'string' ? { entityType, id } : undefined;
}
