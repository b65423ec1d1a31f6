/**
 * Alarm actions over REST: acknowledge, clear, assign, unassign, comment, raise (create or update)
 * and delete, plus the users an alarm may be assigned to and one alarm's AlarmInfo. Every request goes through
 * the Requester (auth, the retry after 401 "token expired", the 429 policy, our error classes).
 *
 * `run` carries out one validated action the way the tb-alarm-action node promises:
 * - idempotent unless `strict`: the server's four "already" answers (400) become `alreadyDone: true` with the
 *   alarm as it is; deleting an alarm that is gone is `alreadyDone: true` too;
 * - the answer is always an AlarmInfo (fetched with `GET /api/alarm/info/{id}` when the action answers only an
 *   Alarm, a comment, or nothing); for delete it is the alarm as it was just before;
 * - a comment is written after the action, also when the action was already done (not in strict mode, where
 *   that is an error and nothing else is done);
 * - raise tells a created alarm from an updated one (see `isCreated`), and raises of
 *   the same originator and type on one connection go out one after the other, so that each look-up sees the
 *   previous raise;
 * - 404 and 403 answers say which alarm (or user) and what was refused.
 * Nothing in here knows about Node-RED.
 */
import { TbError } from '../errors';
import {
  activeAlarmQuery,
  findUserByEmail,
  isAlarm,
  isAlarmInfo,
  isAlreadyDone,
  isCreated,
  raiseWireBody,
  type AlarmActionRequest,
  type AlarmOperation,
  type AssigneeRef,
} from '../protocol/alarm-actions';
import type {
  Alarm,
  AlarmComment,
  AlarmCreateBody,
  AlarmData,
  AlarmInfo,
  EntityId,
  PageData,
  UserEmailInfo,
} from '../protocol/types';
import { explained, statusOf } from './explain';
import type { HttpMethod, RequestOptions } from './http';
import type { PlatformLookups } from './lookups';
import type { EntityQueries } from './queries';
import { checkObject, checkPage, isMissingEndpoint, type CallOptions, type Requester } from './requester';

export interface AlarmActionOptions extends CallOptions {
  /** Already done is an error (the server's own), and an alarm that is gone cannot be deleted. */
  strict?: boolean;
}

export interface AlarmActionResult {
  operation: AlarmOperation;
  /** The alarm's UUID (for raise, the created or updated alarm's). */
  alarmId: string;
  /** The alarm after the action (for delete, just before it); null only when a delete found it gone already. */
  alarm: AlarmInfo | null;
  /** The action had been done before (or, for delete, the alarm was gone): nothing changed. */
  alreadyDone: boolean;
  /** raise only: a new alarm was created (false: the active alarm of that originator and type was updated). */
  created?: boolean;
  /** The comment written after the action, when there was one. */
  comment?: AlarmComment;
}

/** Page size of the user look-up by e-mail, and how many pages it reads at most. */
const USER_PAGE_SIZE = 100;
const MAX_USER_PAGES = 20;

const VERB: Record<AlarmOperation, string> = {
  acknowledge: 'acknowledge',
  clear: 'clear',
  assign: 'assign',
  unassign: 'unassign',
  comment: 'comment on',
  raise: 'raise',
  delete: 'delete',
};

/** What the alarm "was" after each change, for messages. */
const DONE: Record<'acknowledge' | 'clear' | 'assign' | 'unassign', string> = {
  acknowledge: 'acknowledged',
  clear: 'cleared',
  assign: 'assigned',
  unassign: 'unassigned',
};

const enc = encodeURIComponent;

/** 404 / 403 of a request about one alarm, in words. */
function aboutAlarm(err: unknown, alarmId: string, operation: AlarmOperation | 'read'): unknown {
  if (isMissingEndpoint(err)) {
    const what = operation === 'read' ? 'this request' : `"${operation}"`;
    return explained(
      err,
      `This ThingsBoard server does not offer ${what} for alarms (assign, unassign, comments and the assignee ` +
        'look-up need ThingsBoard 3.5 or newer)',
    );
  }
  const status = statusOf(err);
  if (status === 404) return explained(err, `Alarm ${alarmId} was not found: it was deleted, or never existed`);
  if (status === 403) {
    const what = operation === 'read' ? 'read' : VERB[operation];
    return explained(
      err,
      `ThingsBoard did not allow this connection's user to ${what} alarm ${alarmId} (a customer user may only act on ` +
        "its own customer's alarms)",
    );
  }
  return err;
}

export class AlarmActions {
  /** The tail of the raises in flight per originator and type. */
  private readonly raising = new Map<string, Promise<unknown>>();

  constructor(
    private readonly requester: Requester,
    /** For the active alarms of an originator (raise). */
    private readonly queries: Pick<EntityQueries, 'findAlarmData'>,
    /** For the connection's user (assign to oneself). */
    private readonly lookups: Pick<PlatformLookups, 'me'>,
  ) {}

  private call(
    method: HttpMethod,
    path: string,
    body: unknown,
    opts?: RequestOptions,
    params?: Record<string, string | number>,
  ): Promise<unknown> {
    return this.requester.request(method, path, body, params ? { ...opts, params } : opts);
  }

  // -------------------------------------------------------------------------------------------------------------
  // One request each
  // -------------------------------------------------------------------------------------------------------------

  /** `GET /api/alarm/info/{id}`; an alarm that is gone is a TB_NOT_FOUND error naming it. */
  async info(alarmId: string, opts?: CallOptions): Promise<AlarmInfo> {
    const path = `/api/alarm/info/${enc(alarmId)}`;
    try {
      return checkObject<AlarmInfo>(await this.call('GET', path, undefined, opts), path, 'an alarm', isAlarm);
    } catch (err) {
      throw aboutAlarm(err, alarmId, 'read');
    }
  }

  /** `POST /api/alarm/{id}/ack`: AlarmInfo (3.5+), nothing before. */
  acknowledge(alarmId: string, opts?: CallOptions): Promise<unknown> {
    return this.call('POST', `/api/alarm/${enc(alarmId)}/ack`, undefined, opts);
  }

  /** `POST /api/alarm/{id}/clear`: AlarmInfo (3.5+), nothing before. */
  clear(alarmId: string, opts?: CallOptions): Promise<unknown> {
    return this.call('POST', `/api/alarm/${enc(alarmId)}/clear`, undefined, opts);
  }

  /** `POST /api/alarm/{id}/assign/{userId}`: the Alarm. */
  assign(alarmId: string, userId: string, opts?: CallOptions): Promise<unknown> {
    return this.call('POST', `/api/alarm/${enc(alarmId)}/assign/${enc(userId)}`, undefined, opts);
  }

  /** `DELETE /api/alarm/{id}/assign`: the Alarm. */
  unassign(alarmId: string, opts?: CallOptions): Promise<unknown> {
    return this.call('DELETE', `/api/alarm/${enc(alarmId)}/assign`, undefined, opts);
  }

  /** `POST /api/alarm/{id}/comment` with `{comment: {text}}`: the saved AlarmComment. */
  async comment(alarmId: string, text: string, opts?: CallOptions): Promise<AlarmComment> {
    const path = `/api/alarm/${enc(alarmId)}/comment`;
    // Never resent after a 502/503/504: a second comment would be a second comment.
    const body = await this.call('POST', path, { comment: { text } }, { ...opts, delivery: 'once' });
    return checkObject<AlarmComment>(body, path, 'a comment', (b) => !!b && typeof b === 'object' && !Array.isArray(b));
  }

  /** `POST /api/alarm` without an id: the created alarm, or the active one of that originator and type, updated. */
  async save(body: AlarmCreateBody, opts?: CallOptions): Promise<Alarm> {
    // Never resent after a 502/503/504: a resend may change the details of an alarm that another raise updated since.
    return checkObject<Alarm>(
      await this.call('POST', '/api/alarm', body, { ...opts, delivery: 'once' }),
      '/api/alarm',
      'an alarm',
      isAlarm,
    );
  }

  /** `DELETE /api/alarm/{id}`. */
  async delete(alarmId: string, opts?: CallOptions): Promise<void> {
    await this.call('DELETE', `/api/alarm/${enc(alarmId)}`, undefined, opts);
  }

  /**
   * One page of `GET /api/users/assign/{alarmId}` (the users this alarm may be assigned to; search by e-mail or name).
   */
  async usersForAssign(
    alarmId: string,
    textSearch: string,
    page: number,
    opts?: CallOptions,
  ): Promise<PageData<UserEmailInfo>> {
    const path = `/api/users/assign/${enc(alarmId)}`;
    const params: Record<string, string | number> = { pageSize: USER_PAGE_SIZE, page };
    if (textSearch) params.textSearch = textSearch;
    const body = await this.call('GET', path, undefined, opts, params);
    return checkPage<UserEmailInfo>(body, path, 'a page of users');
  }

  /** The active alarms of one originator and type, newest first (`POST /api/alarmsQuery/find`). */
  async activeAlarms(originator: EntityId, type: string, opts?: CallOptions): Promise<AlarmData[]> {
    const page = await this.queries.findAlarmData(activeAlarmQuery(originator, type), opts);
    return page.data.filter((a) => a && a.id && typeof a.id.id === 'string' && a.type === type);
  }

  // -------------------------------------------------------------------------------------------------------------
  // One action, as the node promises it
  // -------------------------------------------------------------------------------------------------------------

  run(req: AlarmActionRequest, opts: AlarmActionOptions = {}): Promise<AlarmActionResult> {
    const call: CallOptions = { onRetry: opts.onRetry };
    switch (req.operation) {
      case 'raise':
        return this.raise(req.alarm, call);
      case 'delete':
        return this.remove(req.alarmId, !!opts.strict, call);
      case 'comment':
        return this.commentOnly(req.alarmId, req.comment, call);
      default:
        return this.change(req, !!opts.strict, call);
    }
  }

  /** acknowledge / clear / assign / unassign, then the comment if any. */
  private async change(
    req: Extract<AlarmActionRequest, { operation: 'acknowledge' | 'clear' | 'assign' | 'unassign' }>,
    strict: boolean,
    call: CallOptions,
  ): Promise<AlarmActionResult> {
    const { operation, alarmId } = req;
    let userId = '';
    if (req.operation === 'assign') {
      try {
        userId = await this.assigneeId(alarmId, req.assignee, call);
      } catch (err) {
        throw aboutAlarm(err, alarmId, operation);
      }
    }
    let answer: unknown;
    let alreadyDone = false;
    try {
      if (operation === 'acknowledge') answer = await this.acknowledge(alarmId, call);
      else if (operation === 'clear') answer = await this.clear(alarmId, call);
      else if (operation === 'unassign') answer = await this.unassign(alarmId, call);
      else answer = await this.assign(alarmId, userId, call);
    } catch (err) {
      if (strict || !isAlreadyDone(operation, err)) {
        throw operation === 'assign'
          ? await this.aboutAssign(err, alarmId, userId, call)
          : aboutAlarm(err, alarmId, operation);
      }
      alreadyDone = true;
    }
    const alarm = !alreadyDone && isAlarmInfo(answer) ? answer : await this.info(alarmId, call);
    const result: AlarmActionResult = { operation, alarmId: alarm.id.id, alarm, alreadyDone };
    if (req.comment !== undefined) {
      try {
        result.comment = await this.comment(alarmId, req.comment, call);
      } catch (err) {
        const done = `${alreadyDone ? 'already ' : ''}${DONE[operation]}`;
        throw explained(err, `Alarm ${alarmId} was ${done}, but the comment could not be saved`);
      }
    }
    return result;
  }

  /** A 404 / 403 of assign: about the alarm, or about the user (the alarm is there)? */
  private async aboutAssign(err: unknown, alarmId: string, userId: string, call: CallOptions): Promise<unknown> {
    if (isMissingEndpoint(err)) return aboutAlarm(err, alarmId, 'assign');
    const status = statusOf(err);
    if (status !== 404 && status !== 403) return err;
    try {
      await this.info(alarmId, call);
    } catch (infoErr) {
      return statusOf(infoErr) === 404 || statusOf(infoErr) === 403 ? infoErr : err;
    }
    if (status === 404)
      return explained(err, `User ${userId} was not found: alarm ${alarmId} cannot be assigned to it`);
    return explained(
      err,
      `ThingsBoard did not allow this connection's user to assign alarm ${alarmId} to user ${userId}`,
    );
  }

  /** The user id of the assignee: as given, or the user with that e-mail among those the alarm may be assigned to. */
  private async assigneeId(alarmId: string, ref: AssigneeRef, call: CallOptions): Promise<string> {
    if ('id' in ref) return ref.id;
    for (let page = 0; page < MAX_USER_PAGES; page++) {
      const p = await this.usersForAssign(alarmId, ref.email, page, call);
      const hit = findUserByEmail(p.data, ref.email);
      if (hit && hit.id && typeof hit.id.id === 'string') return hit.id.id;
      if (!p.hasNext || p.data.length === 0) break;
    }
    throw new TbError(
      'TB_NOT_FOUND',
      `No user with the e-mail "${ref.email}" can be assigned alarm ${alarmId}: ThingsBoard offers the tenant's ` +
        "administrators and the users of the alarm's customer (check the address, or give the user's id)",
    );
  }

  private async commentOnly(alarmId: string, text: string, call: CallOptions): Promise<AlarmActionResult> {
    let comment: AlarmComment;
    try {
      comment = await this.comment(alarmId, text, call);
    } catch (err) {
      throw aboutAlarm(err, alarmId, 'comment');
    }
    const alarm = await this.info(alarmId, call);
    return { operation: 'comment', alarmId: alarm.id.id, alarm, alreadyDone: false, comment };
  }

  /** Delete: the alarm as it was, then DELETE; gone before or meanwhile = already done (unless strict). */
  private async remove(alarmId: string, strict: boolean, call: CallOptions): Promise<AlarmActionResult> {
    let before: AlarmInfo;
    try {
      before = await this.info(alarmId, call);
    } catch (err) {
      if (!strict && statusOf(err) === 404) return { operation: 'delete', alarmId, alarm: null, alreadyDone: true };
      throw err;
    }
    try {
      await this.delete(alarmId, call);
    } catch (err) {
      if (!strict && statusOf(err) === 404 && !isMissingEndpoint(err))
        return { operation: 'delete', alarmId, alarm: before, alreadyDone: true };
      throw aboutAlarm(err, alarmId, 'delete');
    }
    return { operation: 'delete', alarmId, alarm: before, alreadyDone: false };
  }

  /** Raise: look up the active alarm, create or update, tell which (one raise per originator and type at a time). */
  private raise(body: AlarmCreateBody, call: CallOptions): Promise<AlarmActionResult> {
    const key = `${body.originator.entityType}:${body.originator.id}:${body.type}`;
    const prev = this.raising.get(key) ?? Promise.resolve();
    const run = prev.then(
      () => this.raiseNow(body, call),
      () => this.raiseNow(body, call),
    );
    const tail = run.catch(() => undefined);
    this.raising.set(key, tail);
    void tail.then(() => {
      if (this.raising.get(key) === tail) this.raising.delete(key);
    });
    return run;
  }

  private async raiseNow(body: AlarmCreateBody, call: CallOptions): Promise<AlarmActionResult> {
    const who = `${body.originator.entityType} ${body.originator.id}`;
    let before: AlarmData[];
    let saved: Alarm;
    try {
      const me = await this.lookups.me(call);
      before = await this.activeAlarms(body.originator, body.type, call);
      saved = await this.save(raiseWireBody(body, me, before[0]), call);
    } catch (err) {
      const status = statusOf(err);
      if (status === 404) throw explained(err, `Cannot raise "${body.type}" on ${who}: the entity was not found`);
      if (status === 403)
        throw explained(err, `ThingsBoard did not allow this connection's user to raise an alarm on ${who}`);
      throw err;
    }
    const created = isCreated(
      before.map((a) => a.id.id),
      saved,
    );
    const alarm = isAlarmInfo(saved) ? saved : await this.info(saved.id.id, call);
    return { operation: 'raise', alarmId: saved.id.id, alarm, alreadyDone: false, created };
  }
}
