/**
 * tb-alarm-action's pure logic: the operation, the assignee and the comment of a message, the node's raise settings,
 * and the body of a raise (the node's settings win; what they leave empty comes from `msg.payload`). No I/O, no
 * Node-RED. Every failure is a `TbInputError(field, message)` naming where the value was read
 * (`msg.payload.originator`, `assignee`…) and what is accepted; nothing has been sent when one is thrown.
 */
import { TbInputError } from '../../errors';
import {
  ALARM_OPERATIONS,
  MAX_ALARM_TYPE_LENGTH,
  type AlarmOperation,
  type AssigneeRef,
} from '../../protocol/alarm-actions';
import { uuidText } from '../../protocol/targets';
import {
  ALARM_SEVERITIES,
  ENTITY_TYPES,
  type AlarmCreateBody,
  type AlarmSeverity,
  type EntityId,
  type EntityType,
} from '../../protocol/types';
import { describe, got, isJsonData, isObject, prepareEntityId } from '../../protocol/validate';
import type { Sourced } from '../../settings/options';
import { TB_ALARM_ACTION } from './settings';

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** The operations after which a comment (optional, or required for `comment`) is written. */
export const COMMENT_OPERATIONS: readonly AlarmOperation[] = ['acknowledge', 'clear', 'assign', 'unassign', 'comment'];

/** The operations that act on an existing alarm (all but raise). */
export const EXISTING_ALARM_OPERATIONS: readonly AlarmOperation[] = [
  'acknowledge',
  'clear',
  'assign',
  'unassign',
  'comment',
  'delete',
];

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

const OPERATION_TEXT = ALARM_OPERATIONS.join(', ');

const SEVERITY_TEXT = ALARM_SEVERITIES.join(', ');

const ASSIGNEE_SHAPES =
  'the user to assign: a user id (a UUID or {"entityType": "USER", "id": "<uuid>"}) or an e-mail address';

const ORIGINATOR_SHAPES =
  'the entity to raise the alarm on: {"entityType": "DEVICE", "id": "<uuid>"}, a UUID, or an entity as the entity ' +
  'query node sends it';

// ---------------------------------------------------------------------------------------------------------------
// Operation
// ---------------------------------------------------------------------------------------------------------------

/** One of the seven operations (e.g. from `msg.operation`); a wrong case gets a "did you mean". */
export function prepareOperation(v: unknown, field: string): AlarmOperation {
  if (typeof v === 'string') {
    const t = v.trim();
    if ((ALARM_OPERATIONS as readonly string[]).includes(t)) return t as AlarmOperation;
    const hint = ALARM_OPERATIONS.find((o) => o === t.toLowerCase());
    if (hint) fail(field, `${field} must be one of ${OPERATION_TEXT} (got ${describe(v)}; did you mean "${hint}"?)`);
  }
  return fail(field, `${field} must be one of ${OPERATION_TEXT} ${got(v)}`);
}

/**
 * The user to assign: a user UUID, `{entityType: "USER", id}` (also the `id` object of an assignee or of a user
 * look-up item), or an e-mail address (anything with an "@"), which the client resolves to the user.
 */
export function prepareAssignee(v: unknown, field: string): AssigneeRef {
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.includes('@')) {
      if (EMAIL_RE.test(t)) return { email: t };
      fail(field, `${field} must be ${ASSIGNEE_SHAPES} (got ${describe(v)}: not an e-mail address)`);
    }
    const u = uuidText(t);
    if (u) return { id: u };
    fail(field, `${field} must be ${ASSIGNEE_SHAPES} ${got(v)}`);
  }
  if (isObject(v)) {
    if (v.entityType != null && v.entityType !== 'USER') {
      fail(field, `${field} must be ${ASSIGNEE_SHAPES}; this is a ${describe(v.entityType)}, not a user`);
    }
    const id = isObject(v.id) ? v.id : undefined;
    if (id && id.entityType != null && id.entityType !== 'USER') {
      fail(field, `${field} must be ${ASSIGNEE_SHAPES}; its id is a ${describe(id.entityType)} id`);
    }
    const u = uuidText(id ? id.id : v.id);
    if (u) return { id: u };
    if (v.id == null && typeof v.email === 'string') return prepareAssignee(v.email, `${field}.email`);
    fail(field, `${field} must be ${ASSIGNEE_SHAPES} (got an object without a user id)`);
  }
  return fail(field, `${field} must be ${ASSIGNEE_SHAPES} ${got(v)}`);
}

/**
 * A comment's text: a string (or `{text}`), trimmed. An empty one counts as none: an error when the operation
 * needs a comment (`required`), otherwise undefined.
 */
export function prepareComment(v: unknown, field: string, required: boolean): string | undefined {
  let text: unknown = v;
  if (isObject(v) && 'text' in v) text = v.text;
  if (text === undefined || text === null || (typeof text === 'string' && text.trim() === '')) {
    if (required)
      fail(
        field,
        `${field} must be the comment's text (a non-empty string) ${v === undefined ? '(missing)' : '(it is empty)'}`,
      );
    return undefined;
  }
  if (typeof text !== 'string') fail(field, `${field} must be the comment's text (a string) ${got(text)}`);
  return text.trim();
}

// ---------------------------------------------------------------------------------------------------------------
// Raise (create or update)
// ---------------------------------------------------------------------------------------------------------------

/** The node's raise settings, validated once: an unset value (undefined) is taken from `msg.payload`. */
export interface RaiseSettings {
  type: string | undefined;
  severity: AlarmSeverity | undefined;
  /** True: always propagate; false: as `msg.payload.propagate` says (default false). Same for the two others. */
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[] | undefined;
  /** The entity type of an originator given as a bare UUID. */
  originatorEntityType: EntityType;
}

export interface RaiseSettingsInput {
  alarmName?: unknown;
  severity?: unknown;
  propagate?: unknown;
  propagateToOwner?: unknown;
  propagateToTenant?: unknown;
  propagateRelationTypes?: unknown;
  originatorEntityType?: unknown;
}

function severity(v: unknown, field: string): AlarmSeverity {
  if (typeof v === 'string') {
    const t = v.trim();
    if ((ALARM_SEVERITIES as readonly string[]).includes(t)) return t as AlarmSeverity;
    const hint = ALARM_SEVERITIES.find((s) => s === t.toUpperCase());
    if (hint) fail(field, `${field} must be one of ${SEVERITY_TEXT} (got ${describe(v)}; did you mean "${hint}"?)`);
  }
  return fail(field, `${field} must be one of ${SEVERITY_TEXT} ${got(v)}`);
}

function alarmType(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '') {
    return fail(
      field,
      `${field} must be the alarm type, a non-empty string such as "High ` +
        `Temperature" ${v === '' ? '(it is empty)' : got(v)}`,
    );
  }
  const t = v.trim();
  if (t.length > MAX_ALARM_TYPE_LENGTH)
    fail(field, `${field} must be at most ${MAX_ALARM_TYPE_LENGTH} characters long (got ${t.length})`);
  return t;
}

function relationTypes(v: unknown, field: string): string[] {
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(v)) {
    return v.map((s, i) => {
      if (typeof s !== 'string' || s.trim() === '')
        fail(`${field}[${i}]`, `${field}[${i}] must be a relation type name such as "Contains" ${got(s)}`);
      return s.trim();
    });
  }
  return fail(
    field,
    `${field} must be a list of relation type names (an array, or a comma-separated string) ${got(v)}`,
  );
}

function flagSetting(v: unknown): boolean {
  return v === true || v === 'true';
}

/** Validates the node's raise settings (field names are the node's property names). */
export function prepareRaiseSettings(cfg: RaiseSettingsInput): RaiseSettings {
  const et = blank(cfg.originatorEntityType)
    ? TB_ALARM_ACTION.settings.originatorEntityType.default
    : cfg.originatorEntityType;
  if (typeof et !== 'string' || et === 'ALARM' || !(ENTITY_TYPES as readonly string[]).includes(et)) {
    fail(
      'originatorEntityType',
      `originatorEntityType must be an entity type such as DEVICE, ASSET, ENTITY_VIEW, CUSTOMER, EDGE ${got(et)}`,
    );
  }
  const originatorEntityType: EntityType = et;
  return {
    type: blank(cfg.alarmName) ? undefined : alarmType(cfg.alarmName, 'alarmName'),
    severity: blank(cfg.severity) ? undefined : severity(cfg.severity, 'severity'),
    propagate: flagSetting(cfg.propagate),
    propagateToOwner: flagSetting(cfg.propagateToOwner),
    propagateToTenant: flagSetting(cfg.propagateToTenant),
    propagateRelationTypes: blank(cfg.propagateRelationTypes)
      ? undefined
      : relationTypes(cfg.propagateRelationTypes, 'propagateRelationTypes'),
    originatorEntityType,
  };
}

/**
 * The entity an alarm is raised on: `{entityType, id}`, a UUID (of `defaultType`), a flat tb-entity-query item
 * `{id, entityType, …}`, a raw one `{entityId: {…}, …}`, or an entity as the REST API returns it
 * (`{id: {entityType, id}, …}`).
 */
export function prepareOriginator(v: unknown, field: string, defaultType: EntityType): EntityId {
  let id: EntityId;
  if (typeof v === 'string') {
    const u = uuidText(v);
    if (!u) fail(field, `${field} must be ${ORIGINATOR_SHAPES} ${got(v)}`);
    id = { entityType: defaultType, id: u };
  } else if (isObject(v)) {
    if (isObject(v.entityId)) id = prepareEntityId(v.entityId, `${field}.entityId`);
    else if (isObject(v.id)) id = prepareEntityId(v.id, `${field}.id`);
    else if (v.entityType == null && typeof v.id === 'string')
      id = prepareEntityId({ entityType: defaultType, id: v.id.trim() }, field);
    else if (v.id !== undefined || v.entityType !== undefined)
      id = prepareEntityId({ entityType: v.entityType, id: typeof v.id === 'string' ? v.id.trim() : v.id }, field);
    else return fail(field, `${field} must be ${ORIGINATOR_SHAPES} (got an object without an id)`);
  } else {
    return fail(field, `${field} must be ${ORIGINATOR_SHAPES} ${got(v)}`);
  }
  if (id.entityType === 'ALARM')
    fail(field, `${field} must be ${ORIGINATOR_SHAPES}; an alarm cannot be the originator of an alarm`);
  return id;
}

function payloadField(payload: unknown, name: string): unknown {
  return isObject(payload) ? payload[name] : undefined;
}

function payloadFlag(payload: unknown, name: string): boolean {
  const v = payloadField(payload, name);
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  return fail(`msg.payload.${name}`, `msg.payload.${name} must be true or false ${got(v)}`);
}

/**
 * The wire body of `POST /api/alarm` (no id: create, or update the active alarm of the same originator and type).
 * The node's settings win; what they leave empty comes from `msg.payload` (`type`, `severity`, `propagate`…).
 * `originator` and `details` were read by the node from where its settings say (by default
 * `msg.payload.originator` and `msg.payload.details`). No startTs/endTs are sent: the server sets both to now
 * (see {@link isCreated}).
 */
export function prepareRaise(
  settings: RaiseSettings,
  payload: unknown,
  originator: Sourced,
  details: Sourced | undefined,
): AlarmCreateBody {
  if (originator.value === undefined || originator.value === null || originator.value === '') {
    fail(
      originator.field,
      `${originator.field} must ` +
        `be ${ORIGINATOR_SHAPES} ${got(originator.value === null ? undefined : originator.value)}`,
    );
  }
  const body: AlarmCreateBody = {
    originator: prepareOriginator(originator.value, originator.field, settings.originatorEntityType),
    type: settings.type ?? alarmType(payloadField(payload, 'type'), 'msg.payload.type'),
    severity: settings.severity ?? severity(payloadField(payload, 'severity'), 'msg.payload.severity'),
    propagate: settings.propagate || payloadFlag(payload, 'propagate'),
    propagateToOwner: settings.propagateToOwner || payloadFlag(payload, 'propagateToOwner'),
    propagateToTenant: settings.propagateToTenant || payloadFlag(payload, 'propagateToTenant'),
    propagateRelationTypes: [],
  };
  if (details !== undefined && details.value !== undefined) {
    if (!isJsonData(details.value))
      fail(
        details.field,
        `${details.field} must be JSON data; it holds a cyclic reference or a BigInt, which cannot be sent`,
      );
    body.details = details.value;
  }
  if (settings.propagateRelationTypes) body.propagateRelationTypes = settings.propagateRelationTypes;
  else {
    const p = payloadField(payload, 'propagateRelationTypes');
    if (p !== undefined && p !== null)
      body.propagateRelationTypes = relationTypes(p, 'msg.payload.propagateRelationTypes');
  }
  return body;
}
