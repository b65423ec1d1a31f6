/**
 * Alarm actions on the wire: the operations, what an alarm reference may look like (and where a message holds one),
 * the request the platform client carries out, the body of `POST /api/alarm` as the caller must send it, the look-up
 * that tells a created alarm from an updated one, and the four "already" answers an idempotent client recognises.
 * No I/O, no Node-RED.
 *
 * Shapes accepted for an alarm: a UUID string; `{entityType: "ALARM", id}`; an alarm in the flat form
 * (`{id: "<uuid>", type, …}`: tb-alarm-query split rows, tb-subscribe alarm events, tb-alarm-action output) or
 * in the raw form (`{id: {entityType: "ALARM", id}, …}`).
 */
import { TbApiError, TbInputError } from '../errors';
import {
  type Alarm,
  type AlarmCreateBody,
  type AlarmDataQuery,
  type AlarmInfo,
  type EntityId,
  type UserEmailInfo,
} from './types';
import { describe, got, isObject, UUID_PATTERN } from './validate';

export const ALARM_OPERATIONS = ['acknowledge', 'clear', 'assign', 'unassign', 'comment', 'raise', 'delete'] as const;

export type AlarmOperation = (typeof ALARM_OPERATIONS)[number];

/** `type` is `@Length`-checked by the server: 255 characters at most. */
export const MAX_ALARM_TYPE_LENGTH = 255;

const UUID_RE = new RegExp(UUID_PATTERN);

/** What an alarm reference may be, for messages. */
export const ALARM_SHAPES =
  'an alarm id: a UUID, {"entityType": "ALARM", "id": "<uuid>"}, or an alarm as the alarm query, subscribe and alarm ' +
  'action nodes send it';

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
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
  let pick: { value: unknown; field: string } | undefined;
  if ((isObject(p) && p.id != null) || uuidText(p)) pick = { value: p, field: 'msg.payload' };
  else if (uuidText(t) || isObject(t)) pick = { value: t, field: 'msg.topic' };
  else if (!blank(p)) pick = { value: p, field: 'msg.payload' };
  else if (!blank(t)) pick = { value: t, field: 'msg.topic' };
  if (!pick) {
    // The fix first, short: the debug sidebar shows a text's first 80 characters on its line.
    fail('msg.payload', 'Send the alarm, or its id, in msg.payload (msg.payload and msg.topic are empty)');
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

/** The user of a `GET /api/users/assign/{alarmId}` page with exactly this e-mail (case-insensitive). */
export function findUserByEmail(users: readonly UserEmailInfo[], email: string): UserEmailInfo | undefined {
  const e = email.toLowerCase();
  return users.find((u) => typeof u.email === 'string' && u.email.toLowerCase() === e);
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
