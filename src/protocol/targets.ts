/**
 * Which entity a device action (tb-telemetry, tb-attributes, tb-rpc) acts on, read from whatever
 * an earlier node put in the message. Pure: no I/O, no Node-RED.
 *
 * Shapes accepted for one entity:
 * - an entity id `{entityType, id}`;
 * - an item of tb-entity-query's output: flat `{id: "<uuid>", entityType, …}` or raw `{entityId: {entityType, id}, …}`;
 * - an entity as the REST API returns it, `{id: {entityType, id}, …}`;
 * - an alarm (flat or raw, as tb-alarm-query, tb-subscribe and tb-alarm-action send it): its `originator`;
 * - a UUID string, typed by the node's `targetEntityType` (default DEVICE);
 * - an **array** of any of these: one action per entity (bulk), results in the same order.
 *
 * Read "from the message", the entity is msg.entity, else msg.topic as a UUID, else msg.payload when it is a list of
 * entities as the query nodes give it (see `isEntityList`). The node passes on what it acted on in msg.entity
 * (`entityOut`), so that the next node of the chain reads it as it is.
 *
 * Every failure is a `TbInputError` naming where the value was read (`msg.entity[3].id`…) and what is accepted.
 */
import { TbInputError } from '../errors';
import { ENTITY_TYPES, type EntityId, type EntityType } from './types';
import { describe, got, isObject, UUID_PATTERN } from './validate';

const UUID_RE = new RegExp(UUID_PATTERN);

/**
 * Entity types whose attributes and time series the server can read and write (`AccessValidator`):
 * any other type (ALARM, DASHBOARD…) is answered with a 500 "Not Implemented!", so it is refused before sending.
 */
export const TELEMETRY_ENTITY_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'CUSTOMER',
  'TENANT',
  'USER',
  'EDGE',
  'DEVICE_PROFILE',
  'ASSET_PROFILE',
  'RULE_CHAIN',
  'TENANT_PROFILE',
  'API_USAGE_STATE',
  'TB_RESOURCE',
  'OTA_PACKAGE',
  'RPC',
] as const;

/** The entity types a node offers for a bare UUID (the editor's list). */
export const TARGET_ENTITY_TYPES = ['DEVICE', 'ASSET', 'ENTITY_VIEW', 'CUSTOMER', 'TENANT', 'USER', 'EDGE'] as const;

/** What a target may look like, for messages: short, the shapes in full are on the nodes' pages. */
export const TARGET_SHAPES = 'an entity, its id, or a list of them';
const ONE_TARGET = 'an entity ({ "entityType", "id" }, a query row, an alarm) or its id';

/** What to do when a message names no entity: the fix, first. */
export const NO_ENTITY_FIX = "Set the query node's Output to msg.entity, or send the entity in msg.entity";

/** The entity types a device action's target may have: all of them, or a subset (e.g. DEVICE for RPC). */
export interface TargetPolicy {
  /** The types accepted, for a target and for the node's `targetEntityType` (default: TELEMETRY_ENTITY_TYPES). */
  allowed?: readonly string[];
  /** Why only those, for the message (e.g. "RPC goes to devices only"). */
  why?: string;
}

/** A policy with the type of a bare UUID. */
export interface TargetRules extends TargetPolicy {
  defaultType: EntityType;
}

export type DeviceActionType = 'tb-telemetry' | 'tb-attributes' | 'tb-rpc' | 'tb-rule-engine' | 'tb-relation';

/** The entity types a relation's ends may have, as a node offers them. */
export const RELATION_ENTITY_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'CUSTOMER',
  'TENANT',
  'USER',
  'EDGE',
  'DASHBOARD',
] as const;

/**
 * Which entities each device action acts on, the one rule that the nodes and their dialogs read: RPC goes to
 * devices only; attributes and time series to every type that has them, and a rule engine message comes from them.
 */
export const ACTION_TARGETS: Readonly<Record<DeviceActionType, TargetPolicy>> = {
  'tb-telemetry': {},
  'tb-attributes': {},
  'tb-rpc': { allowed: ['DEVICE'], why: 'RPC goes to devices only' },
  // The rule engine's access check knows the same types (`AccessValidator`): any other is a 500 "Not Implemented!".
  'tb-rule-engine': {
    why: `a rule engine message's originator must be one of ${TELEMETRY_ENTITY_TYPES.join(', ')}`,
  },
  'tb-relation': {
    allowed: RELATION_ENTITY_TYPES,
    why: `a relation's ends are one of ${RELATION_ENTITY_TYPES.join(', ')}`,
  },
};

/** The entity types a dialog offers for a fixed entity and for a bare UUID: those allowed, else the usual ones. */
export function targetEntityTypes(type: DeviceActionType): readonly string[] {
  return ACTION_TARGETS[type].allowed ?? TARGET_ENTITY_TYPES;
}

/** A node's rules: its action's policy, a bare UUID typed by its `targetEntityType` setting (checked: it throws). */
export function targetRules(type: DeviceActionType, targetEntityType: unknown): TargetRules {
  return policyRules(ACTION_TARGETS[type], targetEntityType);
}

/** A policy's rules, a bare UUID typed by the node's `targetEntityType` setting (checked: it throws). */
export function policyRules(policy: TargetPolicy, targetEntityType: unknown): TargetRules {
  const { allowed, why } = policy;
  return { defaultType: prepareTargetEntityType(targetEntityType, 'targetEntityType', allowed), allowed, why };
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** A text that is a UUID (trimmed), else undefined. */
export function uuidText(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return UUID_RE.test(t) ? t : undefined;
}

/** A bare-UUID entity type setting (`targetEntityType`), checked once at deploy. */
export function prepareTargetEntityType(
  v: unknown,
  field = 'targetEntityType',
  allowed: readonly string[] = TELEMETRY_ENTITY_TYPES,
): EntityType {
  if (v === undefined || v === null || v === '') return 'DEVICE';
  if (typeof v === 'string' && allowed.includes(v)) return v;
  return fail(field, `${field} must be one of ${allowed.join(', ')} ${got(v)}`);
}

function idOf(v: Record<string, unknown>, field: string, defaultType: EntityType): EntityId {
  const et = v.entityType == null || v.entityType === '' ? defaultType : v.entityType;
  if (typeof et !== 'string')
    fail(`${field}.entityType`, `${field}.entityType must be an entity type such as DEVICE or ASSET ${got(et)}`);
  if (!(ENTITY_TYPES as readonly string[]).includes(et)) {
    const hint = ENTITY_TYPES.find((t) => t === et.toUpperCase());
    fail(
      `${field}.entityType`,
      `${field}.entityType must be an entity type such as DEVICE, ASSET, ENTITY_VIEW, CUSTOMER ` +
        `(got ${describe(et)}${hint ? `; did you mean "${hint}"?` : ''})`,
    );
  }
  const id = uuidText(v.id);
  if (!id) fail(`${field}.id`, `${field}.id must be the entity's UUID ${got(v.id)}`);
  return { entityType: et, id };
}

/** One entity from any accepted shape (see the module comment), checked against the rules. */
export function prepareTarget(v: unknown, field: string, rules: TargetRules): EntityId {
  let id: EntityId;
  let where = field;
  if (typeof v === 'string') {
    const u = uuidText(v);
    if (!u) fail(field, `${field} must be ${ONE_TARGET} ${got(v)}`);
    id = { entityType: rules.defaultType, id: u };
  } else if (isObject(v)) {
    if (isObject(v.originator)) {
      // An alarm: act on the entity that raised it.
      where = `${field}.originator`;
      id = idOf(v.originator, where, rules.defaultType);
    } else if (isObject(v.entityId)) {
      where = `${field}.entityId`;
      id = idOf(v.entityId, where, rules.defaultType);
    } else if (isObject(v.id)) {
      where = `${field}.id`;
      id = idOf(v.id, where, rules.defaultType);
    } else if (v.id !== undefined || v.entityType !== undefined) {
      id = idOf(v, field, rules.defaultType);
    } else {
      return fail(field, `${field} must be ${ONE_TARGET} (got an object without an id)`);
    }
  } else {
    return fail(field, `${field} must be ${ONE_TARGET} ${got(v)}`);
  }
  const allowed = rules.allowed ?? TELEMETRY_ENTITY_TYPES;
  if (!allowed.includes(id.entityType)) {
    const why = rules.why ?? `ThingsBoard keeps attributes and time series only for ${allowed.join(', ')}`;
    fail(`${where}.entityType`, `${where}.entityType is ${id.entityType}: ${why} (entity ${id.id})`);
  }
  return id;
}

/**
 * An entity's name as our nodes give it: a flat row's `name`, a raw row's name entity field, an alarm's originator
 * name; undefined for a bare id or an entity without one.
 */
export function entityNameOf(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  if (typeof v.name === 'string' && v.name !== '') return v.name;
  const ef = isObject(v.latest) && isObject(v.latest.ENTITY_FIELD) ? v.latest.ENTITY_FIELD : undefined;
  const field = ef && isObject(ef.name) ? ef.name.value : undefined;
  if (typeof field === 'string' && field !== '') return field;
  if (typeof v.originatorName === 'string' && v.originatorName !== '') return v.originatorName;
  return undefined;
}

/** The entities of a message: one, or a list (bulk). An empty list is refused: there would be nothing to do. */
export interface Targets {
  entities: EntityId[];
  /** A list's names, where its items bring them (query rows, alarms): `names[i]` is entity i's, else undefined. */
  names?: Array<string | undefined>;
  /** True when the value was an array: the output is a list of results even for one entity. */
  bulk: boolean;
  /** Where they were read: `msg.entity`, `msg.topic`, `msg.payload`, `target` (the node's setting), `msg.<path>`. */
  field: string;
}

export function prepareTargets(v: unknown, field: string, rules: TargetRules): Targets {
  if (Array.isArray(v)) {
    if (v.length === 0) fail(field, `${field} is an empty list: there is no entity to act on`);
    const entities: EntityId[] = new Array(v.length);
    let names: Array<string | undefined> | undefined;
    for (let i = 0; i < v.length; i++) {
      entities[i] = prepareTarget(v[i], `${field}[${i}]`, rules);
      const name = entityNameOf(v[i]);
      if (name !== undefined) (names ??= new Array<string | undefined>(v.length).fill(undefined))[i] = name;
    }
    return names ? { entities, bulk: true, field, names } : { entities, bulk: true, field };
  }
  if (v === undefined || v === null || v === '')
    fail(field, `${field} must be ${TARGET_SHAPES} ${got(v === null ? undefined : v)}`);
  return { entities: [prepareTarget(v, field, rules)], bulk: false, field };
}

/**
 * The entity a row of our query or live nodes concerns, as a new `{ entityType, id }` (the receiver may keep or change
 * it): an entity query's flat row (`id` and `entityType` as text) or raw row (`entityId`), or an alarm's row, flat or
 * raw (its `originator`). Undefined for anything else.
 */
export function rowEntity(row: unknown): EntityId | undefined {
  if (!isObject(row)) return undefined;
  const e = isObject(row.originator) ? row.originator : isObject(row.entityId) ? row.entityId : undefined;
  if (e) return { entityType: e.entityType as EntityId['entityType'], id: e.id as string };
  if (typeof row.id === 'string' && typeof row.entityType === 'string')
    return { entityType: row.entityType as EntityId['entityType'], id: row.id };
  return undefined;
}

/** A list of entities as the query nodes give it in msg.payload: not empty, and every row has its entity. */
export function isEntityList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && v.every((row) => rowEntity(row) !== undefined);
}

/**
 * The entity (or entities) of a message when the node reads them "automatically": `msg.entity`; when that is
 * absent, `msg.topic` as a UUID (tb-subscribe's updates carry the entity id there); when neither gives one,
 * `msg.payload` when it is a list of entities as the query nodes give it (`isEntityList`). `payloadUse` says what the
 * node reads msg.payload as for this message (such as "the values to save"), when it does: then msg.payload is not
 * read as the entities, and the error says why.
 */
export function targetsFromMessage(
  msg: { entity?: unknown; topic?: unknown; payload?: unknown },
  rules: TargetRules,
  payloadUse?: string,
): Targets {
  if (msg.entity !== undefined && msg.entity !== null) return prepareTargets(msg.entity, 'msg.entity', rules);
  const t = msg.topic;
  if (typeof t === 'string' && uuidText(t)) return prepareTargets(t, 'msg.topic', rules);
  if (isEntityList(msg.payload)) {
    if (!payloadUse) return prepareTargets(msg.payload, 'msg.payload', rules);
    return fail('msg.entity', `Set the query node's Output to msg.entity (msg.payload holds ${payloadUse})`);
  }
  if (t === undefined || t === null || t === '') return fail('msg.entity', NO_ENTITY_FIX);
  return fail('msg.entity', `${NO_ENTITY_FIX} (msg.topic is not an entity id ${got(t)})`);
}

/**
 * What msg.entity holds once a node has read `targets` from a message whose msg.entity was `current`: what the node
 * acted on, in a form the next node reads as it is. Read from msg.entity, it stays as it came (query rows keep
 * their names), but for a bare id, which becomes `{ entityType, id }` (the next node may type bare ids otherwise);
 * read from anywhere else, the entity `{ entityType, id }`, or the list of them for a list.
 */
export function entityOut(targets: Targets, current: unknown): unknown {
  const { entities } = targets;
  if (targets.field !== 'msg.entity') return targets.bulk ? entities : entities[0];
  if (typeof current === 'string') return entities[0];
  if (Array.isArray(current) && current.some((x) => typeof x === 'string'))
    return current.map((x, i) => (typeof x === 'string' ? entities[i] : x));
  return current;
}

/** "DEVICE 784f394c-…" for messages. */
export function entityText(e: EntityId): string {
  return `${e.entityType} ${e.id}`;
}
