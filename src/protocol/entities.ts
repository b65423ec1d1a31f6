/**
 * Entity management on the wire (devices, assets, customers, entity views): what one row of a create-or-update asks
 * for, checked, and the body that goes to `POST /api/device` (`/api/asset`, `/api/customer`, `/api/entityView`).
 * The server replaces the whole object on update (`dao/sql/JpaAbstractDao.java`): a missing `customerId` unassigns,
 * a missing `additionalInfo` clears the gateway flag, a missing profile id moves a device to the default profile, a
 * view's missing keys are null. So an update is always the entity as read, with only the fields the row gives
 * changed (`mergeUpdate`), sent back with the version read. Pure: nothing here sends anything.
 */
import { TbInputError } from '../errors';

export const MANAGED_TYPES = ['DEVICE', 'ASSET', 'CUSTOMER', 'ENTITY_VIEW'] as const;
export type ManagedType = (typeof MANAGED_TYPES)[number];

/** What an entity view shows: a device or an asset. */
export const VIEWED_TYPES = ['DEVICE', 'ASSET'] as const;
export type ViewedType = (typeof VIEWED_TYPES)[number];

/** The attribute scopes of a view's keys, as a row names them and as the wire does (`AttributesEntityView`). */
export const VIEW_SCOPES = { client: 'cs', shared: 'sh', server: 'ss' } as const;
export type ViewScope = keyof typeof VIEW_SCOPES;

/** An entity view's own fields, as a row gives them (each optional: an update keeps what it leaves out). */
export interface ViewSpec {
  /** where the row is (`msg.payload[3]`): the errors found after a look-up name their field */
  field: string;
  /** the view's own type: free text, not a profile; required on create */
  viewType?: string;
  /** the viewed entity by id */
  entity?: { entityType: ViewedType; id: string };
  /** the viewed entity by name (resolved by a look-up before the write) */
  entityName?: string;
  /** the viewed entity's type when named (default DEVICE) */
  entityType?: ViewedType;
  /** the time series keys the view shows */
  timeseries?: string[];
  /** the attribute keys the view shows, per scope */
  attributes?: Partial<Record<ViewScope, string[]>>;
  /** the window in ms since the epoch; 0 = unbounded */
  startTime?: number;
  endTime?: number;
}

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
  /** entity views only: the view's type, entity, keys and window */
  view?: ViewSpec;
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
  if (type === 'ENTITY_VIEW') {
    spec.view = readView(row, field);
  } else if (type !== 'CUSTOMER') {
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
  // a view's `attributes` are the keys it shows (read above), not attributes to set
  for (const key of type === 'ENTITY_VIEW'
    ? (['additionalInfo'] as const)
    : (['additionalInfo', 'attributes'] as const)) {
    const v = row[key];
    if (v === undefined || v === null) continue;
    if (!isObj(v)) throw new TbInputError(`${field}.${key}`, `Give ${field}.${key} as an object (it is ${kind(v)})`);
    spec[key] = v;
  }
  return spec;
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function viewedType(v: unknown, at: string): ViewedType {
  const t = typeof v === 'string' ? v.trim().toUpperCase() : v;
  if (t === 'DEVICE' || t === 'ASSET') return t;
  throw new TbInputError(at, `Set ${at} to DEVICE or ASSET: an entity view shows a device or an asset`);
}

/** A list of keys: a list of texts, or one text with commas (a CSV cell); empty entries are dropped. */
function keyList(v: unknown, at: string): string[] {
  const items = typeof v === 'string' ? v.split(',') : v;
  if (!Array.isArray(items) || items.some((k) => typeof k !== 'string'))
    throw new TbInputError(at, `Give ${at} as a list of key names, or one text with commas (it is ${kind(v)})`);
  return (items as string[]).map((k) => k.trim()).filter((k) => k !== '');
}

/** Milliseconds since the epoch (a number or a CSV's digits); 0 = unbounded. */
function millis(v: unknown, at: string): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new TbInputError(at, `Give ${at} as milliseconds since 1970, 0 for no bound (it is ${JSON.stringify(v)})`);
  return n;
}

/**
 * An entity view's fields of a row: `type` (the view's own), the viewed entity (`entity`: `{entityType, id}`, or
 * `entityName` with `entityType`, default DEVICE), `timeseries` (keys), `attributes` (`{client, shared, server}`
 * lists of keys), `startTime` / `endTime` (ms, 0 = unbounded). `profile` and `label` are refused: a view has neither.
 */
function readView(row: Obj, field: string): ViewSpec {
  for (const k of ['profile', 'label'])
    if (row[k] !== undefined && row[k] !== null && row[k] !== '')
      throw new TbInputError(
        `${field}.${k}`,
        `Remove ${field}.${k}: an entity view has no ${k} (its "type" is free text)`,
      );
  const view: ViewSpec = { field };
  const type = optText(row, 'type', field);
  if (type !== undefined && type.trim() !== '') view.viewType = type;
  if (row.entity !== undefined && row.entity !== null && row.entity !== '') {
    const e = row.entity;
    if (!isObj(e) || typeof e.id !== 'string' || !UUID_RE.test(e.id))
      throw new TbInputError(
        `${field}.entity`,
        `Give ${field}.entity as {entityType, id} with the id of a device or asset, or give ${field}.entityName`,
      );
    view.entity = { entityType: viewedType(e.entityType, `${field}.entity.entityType`), id: e.id.toLowerCase() };
  } else {
    const name = optText(row, 'entityName', field);
    if (name !== undefined && name.trim() !== '') view.entityName = name;
  }
  if (row.entityType !== undefined && row.entityType !== null && row.entityType !== '')
    view.entityType = viewedType(row.entityType, `${field}.entityType`);
  if (row.timeseries !== undefined && row.timeseries !== null)
    view.timeseries = keyList(row.timeseries, `${field}.timeseries`);
  const attrs = row.attributes;
  if (attrs !== undefined && attrs !== null) {
    if (!isObj(attrs))
      throw new TbInputError(
        `${field}.attributes`,
        `Give ${field}.attributes as {client, shared, server}, each a list of keys (it is ${kind(attrs)})`,
      );
    view.attributes = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (!(k in VIEW_SCOPES))
        throw new TbInputError(
          `${field}.attributes.${k}`,
          `Name the scope client, shared or server in ${field}.attributes (not "${k}")`,
        );
      if (v !== undefined && v !== null) view.attributes[k as ViewScope] = keyList(v, `${field}.attributes.${k}`);
    }
  }
  for (const k of ['startTime', 'endTime'] as const)
    if (row[k] !== undefined && row[k] !== null && row[k] !== '') view[k] = millis(row[k], `${field}.${k}`);
  if (view.startTime && view.endTime && view.endTime < view.startTime)
    throw new TbInputError(`${field}.endTime`, `Set ${field}.endTime after ${field}.startTime, or 0 for no end`);
  return view;
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

/** A view's keys on the wire: `{timeseries, attributes: {cs, ss, sh}}`, the row's lists over `current`'s. */
function viewKeys(view: ViewSpec, current: unknown): Obj {
  const cur = isObj(current) ? current : {};
  const curAttrs = isObj(cur.attributes) ? cur.attributes : {};
  const list = (v: unknown): string[] => (Array.isArray(v) ? (v as string[]) : []);
  // the order of what was read is kept, so that an unchanged view compares equal
  const attributes: Obj = { ...curAttrs };
  for (const [scope, wire] of Object.entries(VIEW_SCOPES))
    attributes[wire] = view.attributes?.[scope as ViewScope] ?? list(curAttrs[wire]);
  return { ...cur, timeseries: view.timeseries ?? list(cur.timeseries), attributes };
}

/** The view's fields on the wire; the viewed entity must be resolved to `entity` beforehand. */
function viewFields(view: ViewSpec, current: Obj): Obj {
  const out: Obj = {};
  if (view.viewType !== undefined) out.type = view.viewType;
  if (view.entity) out.entityId = { entityType: view.entity.entityType, id: view.entity.id };
  if (view.timeseries !== undefined || view.attributes !== undefined || current.keys === undefined)
    out.keys = viewKeys(view, current.keys);
  if (view.startTime !== undefined) out.startTimeMs = view.startTime;
  if (view.endTime !== undefined) out.endTimeMs = view.endTime;
  return out;
}

/**
 * The body of a create: the name, the profile by name (`type`, checked to exist beforehand, so the server finds it
 * rather than making one), the label, additionalInfo and contact fields the row gives.
 */
export function createBody(spec: EntitySpec): Obj {
  const body: Obj = spec.type === 'CUSTOMER' ? { title: spec.rename ?? spec.name } : { name: spec.rename ?? spec.name };
  if (spec.view) Object.assign(body, { startTimeMs: 0, endTimeMs: 0 }, viewFields(spec.view, {}));
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
  if (spec.view) {
    // only what the row gives: a view's keys read as null stay null unless the row names some
    const fields = viewFields(spec.view, { keys: current.keys ?? null });
    for (const [k, v] of Object.entries(fields)) set(k, v);
  } else if (spec.type !== 'CUSTOMER') {
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
