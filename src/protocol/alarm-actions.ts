/**
 * Alarm actions (protocol §11), the pure part: the operations, where an alarm, an assignee, a comment and an
 * originator come from and what they may look like, the body of `POST /api/alarm`, the look-up that tells a
 * created alarm from an updated one, and the four "already" answers an idempotent client recognises.
 *
 * No I/O, no Node-RED. Every failure is a `TbInputError(field, message)` naming where the value was read
 * (`msg.payload.originator`, `assignee`…) and what is accepted; nothing has been sent when one is thrown.
 *
 * Shapes accepted for an alarm: a UUID string; `{entityType: "ALARM", id}`; an alarm in the flat form
 * (`{id: "<uuid>", type, …}`: tb-alarm-query split rows, tb-subscribe alarm events, tb-alarm-action output) or
 * in the raw form (`{id: {entityType: "ALARM", id}, …}`).
 */
import { TbApiError, TbInputError } from '../errors';
import {
  ALARM_SEVERITIES,
  ENTITY_TYPES,
  type Alarm,
  type AlarmCreateBody,
  type AlarmDataQuery,
  type AlarmInfo,
  type AlarmSeverity,
  type EntityId,
  type EntityType,
  type UserEmailInfo,
} from './types';
import { describe, got, isJsonData, isObject, prepareEntityId, UUID_PATTERN } from './validate';

export const ALARM_OPERATIONS = ['acknowledge', 'clear', 'assign', 'unassign', 'comment', 'raise', 'delete'] as const;
export type AlarmOperation = (typeof ALARM_OPERATIONS)[number];

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

/** `type` is `@Length`-checked by the server: 255 characters at most. */
export const MAX_ALARM_TYPE_LENGTH = 255;

const UUID_RE = new RegExp(UUID_PATTERN);
const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;
const OPERATION_TEXT = ALARM_OPERATIONS.join(', ');
const SEVERITY_TEXT = ALARM_SEVERITIES.join(', ');

/** What an alarm reference may be, for messages. */
export const ALARM_SHAPES =
  'an alarm id: a UUID, {"entityType": "ALARM", "id": "<uuid>"}, or an alarm as the alarm query, subscribe and alarm action nodes send it';
const ASSIGNEE_SHAPES =
  'the user to assign: a user id (a UUID or {"entityType": "USER", "id": "<uuid>"}) or an e-mail address';
const ORIGINATOR_SHAPES =
  'the entity to raise the alarm on: {"entityType": "DEVICE", "id": "<uuid>"}, a UUID, or an entity as the entity query node sends it';

/** A value and where it was read (for messages): `{value: msg.payload.originator, field: "msg.payload.originator"}`. */
export interface Sourced {
  value: unknown;
  field: string;
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

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

// ---------------------------------------------------------------------------------------------------------------
// Alarm reference
// ---------------------------------------------------------------------------------------------------------------

function uuidText(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return UUID_RE.test(t) ? t : undefined;
}

/** The alarm's UUID from any accepted shape (see the module comment). */
export function prepareAlarmId(v: unknown, field: string): string {
  const direct = uuidText(v);
  if (direct) return direct;
  if (isObject(v)) {
    const et = v.entityType;
    if (et != null && et !== 'ALARM') {
      fail(field, `${field} must be ${ALARM_SHAPES}; this is a ${describe(et)}, not an alarm`);
    }
    const id = v.id;
    if (typeof id === 'string') {
      const u = uuidText(id);
      if (u) return u;
      fail(`${field}.id`, `${field}.id must be the alarm's UUID ${got(id)}`);
    }
    if (isObject(id)) {
      if (id.entityType != null && id.entityType !== 'ALARM') {
        fail(field, `${field} must be ${ALARM_SHAPES}; its id is a ${describe(id.entityType)} id, not an alarm id`);
      }
      const u = uuidText(id.id);
      if (u) return u;
      fail(`${field}.id.id`, `${field}.id.id must be the alarm's UUID ${got(id.id)}`);
    }
    fail(field, `${field} must be ${ALARM_SHAPES} (got an object without an id)`);
  }
  return fail(field, `${field} must be ${ALARM_SHAPES} ${got(v)}`);
}

/** Where the node looks for the alarm by default, for messages. */
export const AUTO_ALARM_TEXT = 'msg.payload.id, then msg.payload (an alarm id), then msg.topic';

/**
 * The alarm of a message when the node reads it "automatically": `msg.payload` when it is an object with an `id`
 * (an alarm event or row) or an alarm id itself, else `msg.topic` when it holds an id (e.g. after a template
 * replaced the payload with a text), else whatever is there, for the error. An id put in `msg.payload` wins over
 * `msg.topic`, which often still carries another id (a tb-subscribe entity update's topic is the device's). The
 * error of a message without one says where the node looked.
 */
export function alarmIdFromMessage(msg: { payload?: unknown; topic?: unknown }): string {
  const p = msg.payload;
  const t = msg.topic;
  let pick: Sourced | undefined;
  if ((isObject(p) && p.id != null) || uuidText(p)) pick = { value: p, field: 'msg.payload' };
  else if (uuidText(t) || isObject(t)) pick = { value: t, field: 'msg.topic' };
  else if (!blank(p)) pick = { value: p, field: 'msg.payload' };
  else if (!blank(t)) pick = { value: t, field: 'msg.topic' };
  if (!pick) {
    fail(
      'msg.payload',
      `No alarm to act on: msg.payload.id, msg.payload and msg.topic are all empty. Send ${ALARM_SHAPES}`,
    );
  }
  try {
    return prepareAlarmId(pick.value, pick.field);
  } catch (err) {
    if (err instanceof TbInputError)
      fail(err.field, `${err.message} (the node looks for the alarm in ${AUTO_ALARM_TEXT})`);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Assignee and comment
// ---------------------------------------------------------------------------------------------------------------

export type AssigneeRef = { id: string } | { email: string };

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

/** The user of a `GET /api/users/assign/{alarmId}` page with exactly this e-mail (case-insensitive). */
export function findUserByEmail(users: readonly UserEmailInfo[], email: string): UserEmailInfo | undefined {
  const e = email.toLowerCase();
  return users.find((u) => typeof u.email === 'string' && u.email.toLowerCase() === e);
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
      `${field} must be the alarm type, a non-empty string such as "High Temperature" ${v === '' ? '(it is empty)' : got(v)}`,
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
  const et = blank(cfg.originatorEntityType) ? 'DEVICE' : cfg.originatorEntityType;
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
      `${originator.field} must be ${ORIGINATOR_SHAPES} ${got(originator.value === null ? undefined : originator.value)}`,
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

/**
 * The query that finds the active alarms of one originator and type (what the server would update instead of
 * creating a new one): `POST /api/alarmsQuery/find` with a singleEntity filter, no time window, newest first.
 */
export function activeAlarmQuery(originator: EntityId, type: string): AlarmDataQuery {
  return {
    entityFilter: { type: 'singleEntity', singleEntity: { entityType: originator.entityType, id: originator.id } },
    keyFilters: [],
    pageLink: {
      page: 0,
      pageSize: 10,
      typeList: [type],
      statusList: ['ACTIVE'],
      searchPropagatedAlarms: false,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
    },
    entityFields: [],
    latestValues: [],
    alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
  };
}

/** Who the connection acts as (`GET /api/auth/user`): what the create body depends on. */
export interface RaiseCaller {
  authority: string;
  customerId?: EntityId | null;
}

/**
 * The body as sent, for this caller and the active alarm the server will update (if any):
 * - a customer user must name its own customer (`customerId`): the server checks the CREATE permission on the
 *   body (`CustomerUserPermissions`' alarm checker compares the alarm's customer with the user's), and then
 *   requires the originator's customer to be the same; a tenant admin sends none (the server takes the
 *   originator's);
 * - the active alarm's assignee is sent back (`assigneeId`): `DefaultTbAlarmService#save` unassigns an alarm
 *   whose body has no assignee, and for a create that call fails with a NullPointerException (HTTP 500) after the
 *   update was saved.
 */
export function raiseWireBody(
  body: AlarmCreateBody,
  caller: RaiseCaller,
  active: { assigneeId?: EntityId | null } | undefined,
): AlarmCreateBody {
  const out: AlarmCreateBody = { ...body };
  if (caller.authority === 'CUSTOMER_USER' && caller.customerId && typeof caller.customerId.id === 'string') {
    out.customerId = { entityType: 'CUSTOMER', id: caller.customerId.id };
  }
  const assignee = active?.assigneeId;
  if (assignee && typeof assignee.id === 'string') out.assigneeId = { entityType: 'USER', id: assignee.id };
  return out;
}

/**
 * Did `POST /api/alarm` (sent without startTs/endTs) create a new alarm, or update the active one?
 *
 * The answer carries no flag, so two facts decide:
 * 1. `activeBefore`: the ids of the active alarms of this originator and type found just before the create.
 *    Answering one of them means the server updated it.
 * 2. Otherwise the server's timestamps (AlarmController → `validateAlarmRequest` sets startTs = endTs = now, then
 *    the DAO inserts with created_time = now, or updates the existing alarm's end_ts to that now — HEAD
 *    `create_or_update_active_alarm`, and `merge` up to 3.4): a created alarm has `createdTime >= endTs`, an
 *    updated one was created before this request, so `createdTime < endTs`.
 * What is left is a race: another client creating the same alarm after the look-up and within the same
 * millisecond as this request (or server nodes whose clocks disagree by more than the time between the two).
 */
export function isCreated(
  activeBefore: readonly string[],
  saved: Pick<Alarm, 'id' | 'createdTime' | 'endTs'>,
): boolean {
  if (activeBefore.includes(saved.id.id)) return false;
  if (typeof saved.createdTime !== 'number' || typeof saved.endTs !== 'number') return true;
  return saved.createdTime >= saved.endTs;
}

// ---------------------------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------------------------

/**
 * The server's answers when an action was already done (400, errorCode 31; `DefaultTbAlarmService`, the same
 * texts from 3.5 to HEAD). Servers before 3.5 answer 200 and change nothing instead.
 */
export const ALREADY_DONE_MESSAGES: Readonly<Partial<Record<AlarmOperation, string>>> = {
  acknowledge: 'Alarm was already acknowledged!',
  clear: 'Alarm was already cleared!',
  assign: 'Alarm was already assigned to this user!',
  unassign: 'Alarm was already unassigned!',
};

/** Is this error the server saying the operation was already done (exactly one of the four answers)? */
export function isAlreadyDone(operation: AlarmOperation, err: unknown): boolean {
  const expected = ALREADY_DONE_MESSAGES[operation];
  return (
    expected !== undefined &&
    err instanceof TbApiError &&
    err.status === 400 &&
    typeof err.serverMessage === 'string' &&
    err.serverMessage.trim() === expected
  );
}

/** An answer that is a whole AlarmInfo (ack and clear answer one; assign and unassign may; create does not). */
export function isAlarmInfo(body: unknown): body is AlarmInfo {
  return (
    isObject(body) &&
    isObject(body.id) &&
    typeof body.id.id === 'string' &&
    'originatorName' in body &&
    'assignee' in body
  );
}

/** An answer that is at least an Alarm with its id. */
export function isAlarm(body: unknown): body is Alarm {
  return isObject(body) && isObject(body.id) && typeof body.id.id === 'string';
}

// ---------------------------------------------------------------------------------------------------------------
// The request the platform client carries out
// ---------------------------------------------------------------------------------------------------------------

/** One validated alarm action: what the prepare functions above produced from the node's settings and the message. */
export type AlarmActionRequest =
  | { operation: 'acknowledge' | 'clear' | 'unassign'; alarmId: string; comment?: string }
  | { operation: 'assign'; alarmId: string; assignee: AssigneeRef; comment?: string }
  | { operation: 'comment'; alarmId: string; comment: string }
  | { operation: 'delete'; alarmId: string }
  | { operation: 'raise'; alarm: AlarmCreateBody };
