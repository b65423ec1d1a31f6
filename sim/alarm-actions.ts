/**
 * The alarm actions (acknowledge, clear, assign, unassign, comment, create / update,
 * delete, the users an alarm may be assigned to), answered the way the server's controllers and services do:
 *
 * - `APP/controller/AlarmController.java`, `AlarmCommentController.java`, `UserController#getUsersForAssign`,
 *   `BaseController` (`toUUID`, `checkAlarmId` / `checkAlarmInfoId` / `checkEntityId`, `handleException`);
 * - `APP/service/entitiy/alarm/DefaultTbAlarmService.java` (the "already" errors, the SYSTEM comments, `save`);
 * - `APP/service/telemetry/DefaultAlarmSubscriptionService.java` (the SEVERITY_CHANGED comment);
 * - `DAO/alarm/BaseAlarmService.java` (request validation, customer checks), `BaseAlarmCommentService.java`,
 *   `DAO/service/validator/AlarmCommentDataValidator.java`, `dao/src/main/resources/sql/schema-functions.sql`
 *   (create_or_update_active_alarm, update_alarm, acknowledge_alarm, clear_alarm, assign_alarm, unassign_alarm);
 * - the permission checkers `APP/service/security/permission/{TenantAdmin,CustomerUser}Permissions.java`.
 *
 * Every change goes through the dataset's mutations, so live WebSocket subscriptions see it as the server pushes
 * it. Node runs one request at a time: a check and its change are atomic, which is what the SQL functions'
 * `SELECT … FOR UPDATE` gives the server (two concurrent acks: one 200, one 400 "already").
 */
import type { AlarmFields, Dataset, SimAlarm, SimAlarmComment, SimEntity } from './dataset';
import { ApiError, badRequest, forbidden, general, jsonParseError } from './errors';
import { compareValues, pageLink, requiredInt, toPage, type PageLink } from './lookups';
import { bool, enumOf, isObj, num, obj, str, strList } from './query/parse';
import { compileIlike } from './query/predicates';
import {
  ALARM_SEVERITIES,
  ENTITY_TYPE_NAMES,
  NULL_UUID,
  type AlarmInfo,
  type AlarmSeverity,
  type Authority,
  type Caller,
  type EntityId,
  type PageData,
} from './types';
import type { JsonValue } from './values';

const PKG = 'org.thingsboard.server.common.data';

/** `AlarmCommentSubType` texts (`CD/alarm/AlarmCommentSubType.java`). */
export const SYSTEM_COMMENT_TEXTS = {
  ACKED_BY_USER: 'Alarm was acknowledged by user %s',
  CLEARED_BY_USER: 'Alarm was cleared by user %s',
  ASSIGNED_TO_USER: 'Alarm was assigned by user %s to user %s',
  UNASSIGNED_BY_USER: 'Alarm was unassigned by user %s',
  SEVERITY_CHANGED: 'Alarm severity was updated from %s to %s',
} as const;
type SystemSubtype = keyof typeof SYSTEM_COMMENT_TEXTS;

function format(template: string, ...args: string[]): string {
  let i = 0;
  return template.replace(/%s/g, () => args[i++] ?? 'null');
}

// -------------------------------------------------------------------------------------------------------------
// Java's UUID.fromString

/**
 * `java.util.UUID.fromString` as `BaseController#toUUID` calls it (any IllegalArgumentException, NumberFormatException
 * included, is 400 code 31 with its message). Accepts what Java accepts (`1-1-1-1-1`, upper case) and returns the
 * canonical lower-case form. `java25`: the empty-segment message of Java 25 (ThingsBoard 4.4); 4.3 runs Java 17,
 * whose message for it is empty.
 */
export function javaUuid(name: string, java25: boolean): string {
  if (name.length > 36) throw badRequest('UUID string too large');
  const dash1 = name.indexOf('-');
  const dash2 = name.indexOf('-', dash1 + 1);
  const dash3 = name.indexOf('-', dash2 + 1);
  const dash4 = name.indexOf('-', dash3 + 1);
  const dash5 = name.indexOf('-', dash4 + 1);
  if (dash1 < 0 || dash2 < 0 || dash3 < 0 || dash4 < 0 || dash5 >= 0) throw badRequest(`Invalid UUID string: ${name}`);
  const seg = (from: number, to: number, mask: bigint): bigint => parseHexLong(name.slice(from, to), java25) & mask;
  const parts = [
    seg(0, dash1, 0xffffffffn),
    seg(dash1 + 1, dash2, 0xffffn),
    seg(dash2 + 1, dash3, 0xffffn),
    seg(dash3 + 1, dash4, 0xffffn),
    seg(dash4 + 1, name.length, 0xffffffffffffn),
  ];
  const widths = [8, 4, 4, 4, 12];
  return parts.map((p, i) => p.toString(16).padStart(widths[i], '0')).join('-');
}

/** `Long.parseLong(s, 16)` on one segment, with its NumberFormatException messages. */
function parseHexLong(s: string, java25: boolean): bigint {
  if (s === '') throw badRequest(java25 ? 'For input string: "" under radix 16' : '');
  let i = 0;
  let negative = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    i = 1;
    if (s.length === 1) throw badRequest(`Error at index 1 in: "${s}"`);
  }
  const limit = negative ? 0x8000000000000000n : 0x7fffffffffffffffn;
  let v = 0n;
  for (; i < s.length; i++) {
    const d = parseInt(s[i], 16);
    if (Number.isNaN(d)) throw badRequest(`Error at index ${i} in: "${s}"`);
    v = v * 16n + BigInt(d);
    if (v > limit) throw badRequest(`Error at index ${i} in: "${s}"`);
  }
  return negative ? -v & 0xffffffffffffffffn : v;
}

// -------------------------------------------------------------------------------------------------------------
// NoXss / Length (ConstraintValidator)

/**
 * `@NoXss` (`DAO/service/NoXssValidator.java`): a `{{…}}` template, or what AntiSamy flags with the server's
 * `xss-policy.xml`. The simulator approximates AntiSamy by rejecting any tag (`<` directly followed by a letter,
 * `/`, `!` or `?`); plain text with `<` (like "a < b") passes.
 */
export function noXss(s: string): boolean {
  if (s === '') return true;
  if (/\{\{.*\}\}/s.test(s)) return false;
  return !/<[A-Za-z!/?]/.test(s);
}

/** `ConstraintValidator.validateFields`: "Validation error: " + the sorted distinct messages. */
function validationError(messages: string[]): ApiError | null {
  if (messages.length === 0) return null;
  return badRequest(`Validation error: ${[...new Set(messages)].sort().join(', ')}`);
}

// -------------------------------------------------------------------------------------------------------------
// JSON shapes

/** `EntityType#getNormalName`. */
function normalName(entityType: string): string {
  if (entityType === 'ENTITY_VIEW') return 'Entity View';
  if (entityType === 'AI_MODEL') return 'AI model';
  const s = entityType.replace(/^TB_/, '').toLowerCase().replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** 404 code 32 with the message `BaseController#checkEntityId` gives a missing entity. */
function entityNotFound(entityType: string, id: string): ApiError {
  return new ApiError(404, 32, `${normalName(entityType)} with id [${id}] is not found`);
}

/** The `Alarm` JSON (AlarmInfo without originator names and assignee), as `saveAlarm` answers it. */
export function alarmJson(info: AlarmInfo): Record<string, unknown> {
  const alarm: Record<string, unknown> = { ...info };
  for (const k of ['originatorName', 'originatorLabel', 'originatorDisplayName', 'assignee']) delete alarm[k];
  return alarm;
}

/** `User#getTitle`: "First Last", else the e-mail. */
export function userTitle(email: string | null, firstName: string | null, lastName: string | null): string {
  let title = '';
  if (firstName) title += firstName;
  if (lastName) title += (title ? ' ' : '') + lastName;
  return title || (email ?? '');
}

/** The `AlarmComment` JSON: `id` is an AlarmCommentId (`{"id"}`, no entityType), `name` is the comment's JSON text. */
export function commentJson(c: SimAlarmComment): Record<string, unknown> {
  return {
    id: { id: c.id },
    createdTime: c.createdTime,
    alarmId: { entityType: 'ALARM', id: c.alarmId },
    userId: c.userId ? { entityType: 'USER', id: c.userId } : null,
    type: c.type,
    comment: c.comment,
    name: JSON.stringify(c.comment),
  };
}

/** The `AlarmCommentInfo` JSON: the comment plus its author's firstName, lastName, email (null without an author). */
export function commentInfoJson(ds: Dataset, c: SimAlarmComment): Record<string, unknown> {
  const u = c.userId ? ds.get(c.userId) : undefined;
  const { name, ...rest } = commentJson(c);
  return {
    ...rest,
    firstName: u ? (u.fields.firstName ?? null) : null,
    lastName: u ? (u.fields.lastName ?? null) : null,
    email: u ? (u.fields.email ?? u.name) : null,
    name,
  };
}

// -------------------------------------------------------------------------------------------------------------
// The request body of POST /api/alarm (Jackson into `Alarm`, unknown properties ignored)

interface AlarmBody {
  id: string | null;
  customerId: string | null;
  type: string | null;
  originator: EntityId | null;
  severity: AlarmSeverity | null;
  acknowledged: boolean;
  cleared: boolean;
  assigneeId: string | null;
  startTs: number;
  endTs: number;
  ackTs: number;
  clearTs: number;
  assignTs: number;
  /** undefined = absent (stored as `{}`), null = JSON null (a NullNode, stored as `null`) */
  details: JsonValue | undefined;
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
}

const UUID36 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** An `{"id": "<uuid>"}` id object (AlarmId, CustomerId, UserId…: `@JsonCreator(@JsonProperty("id") UUID)`). */
function uuidId(v: unknown, cls: string): string | null {
  const o = obj(v, `${PKG}.id.${cls}`);
  if (!o) return null;
  const id = str(o.id);
  if (id === null) throw jsonParseError(`Cannot construct instance of \`${PKG}.id.${cls}\`: null id`);
  if (!UUID36.test(id)) {
    throw jsonParseError(
      `Cannot deserialize value of type \`java.util.UUID\` from String "${id}": UUID has to be represented by ` +
        'standard 36-char representation',
    );
  }
  return id.toLowerCase();
}

/** `EntityIdDeserializer`: both fields required, then `EntityIdFactory.getByTypeAndId`. */
function entityIdOf(v: unknown, java25: boolean): EntityId | null {
  if (v === null || v === undefined) return null;
  if (!isObj(v) || !('entityType' in v) || !('id' in v)) throw general('I/O error while reading input message');
  const type = String(v.entityType);
  if (!(ENTITY_TYPE_NAMES as readonly string[]).includes(type))
    throw jsonParseError(`No enum constant ${PKG}.EntityType.${type}`);
  let id: string;
  try {
    id = javaUuid(String(v.id), java25);
  } catch (e) {
    throw jsonParseError((e as Error).message);
  }
  return { entityType: type, id };
}

function parseAlarmBody(json: unknown, java25: boolean): AlarmBody {
  const o = obj(json, `${PKG}.alarm.Alarm`);
  if (!o) throw general('Required request body is missing');
  const rel = o.propagateRelationTypes;
  return {
    id: uuidId(o.id, 'AlarmId'),
    customerId: uuidId(o.customerId, 'CustomerId'),
    type: str(o.type),
    originator: entityIdOf(o.originator, java25),
    severity: enumOf(o.severity, ALARM_SEVERITIES, `${PKG}.alarm.AlarmSeverity`),
    acknowledged: bool(o.acknowledged),
    cleared: bool(o.cleared),
    assigneeId: uuidId(o.assigneeId, 'UserId'),
    startTs: num(o.startTs, 0, 'long'),
    endTs: num(o.endTs, 0, 'long'),
    ackTs: num(o.ackTs, 0, 'long'),
    clearTs: num(o.clearTs, 0, 'long'),
    assignTs: num(o.assignTs, 0, 'long'),
    details: 'details' in o ? (o.details as JsonValue) : undefined,
    propagate: bool(o.propagate),
    propagateToOwner: bool(o.propagateToOwner),
    propagateToTenant: bool(o.propagateToTenant),
    propagateRelationTypes: rel === null || rel === undefined ? [] : strList(rel),
  };
}

// -------------------------------------------------------------------------------------------------------------

export interface AlarmActionsContext {
  readonly data: Dataset;
  now(): number;
  /** the simulated server version ('4.4' and later run Java 25) */
  version(): string;
  versionAtLeast(min: string): boolean;
  /** authority of a user id (the built-in accounts), else derived from the USER entity */
  authorityOf(userId: string): Authority | null;
}

export class AlarmActions {
  constructor(private readonly ctx: AlarmActionsContext) {}

  private get ds(): Dataset {
    return this.ctx.data;
  }

  private get java25(): boolean {
    return this.ctx.versionAtLeast('4.4');
  }

  /** `checkParameter` then `toUUID`. */
  uuidParam(name: string, value: string): string {
    if (value.trim() === '') throw badRequest(`Parameter '${name}' can't be empty!`);
    return javaUuid(value, this.java25);
  }

  // --- permissions -----------------------------------------------------------------------------------------------

  /** The alarm permission checkers (tenant: same tenant; customer user: same tenant and the alarm's customer). */
  canAccessAlarm(caller: Caller, a: SimAlarm): boolean {
    if (caller.authority === 'TENANT_ADMIN') return a.tenantId === caller.tenantId;
    if (caller.authority === 'CUSTOMER_USER')
      return a.tenantId === caller.tenantId && a.customerId !== null && a.customerId === caller.customerId;
    return false;
  }

  /**
   * `checkAlarmId` (`alarmService.findAlarmById`: any tenant, then 403) or, with `tenantScoped`, `checkAlarmInfoId`
   * (`findAlarmInfoById` filters by the caller's tenant: another tenant's alarm is 404).
   */
  checkAlarm(caller: Caller, id: string, tenantScoped = false): SimAlarm {
    const a = this.ds.getAlarm(id);
    if (!a || (tenantScoped && a.tenantId !== caller.tenantId)) throw entityNotFound('ALARM', id);
    if (!this.canAccessAlarm(caller, a)) throw forbidden();
    return a;
  }

  private userAuthority(e: SimEntity): Authority {
    return (
      this.ctx.authorityOf(e.id) ??
      (e.tenantId === NULL_UUID ? 'SYS_ADMIN' : e.customerId ? 'CUSTOMER_USER' : 'TENANT_ADMIN')
    );
  }

  /**
   * `checkEntityId(id, READ)` for the entity types of the dataset (missing: 404 "<Type> with id [..] is not found").
   */
  checkEntityRead(caller: Caller, ref: EntityId): SimEntity | SimAlarm {
    if (ref.entityType === 'ALARM') return this.checkAlarm(caller, ref.id);
    const e = this.ds.get(ref.id);
    if (!e || e.entityType !== ref.entityType) throw entityNotFound(ref.entityType, ref.id);
    if (!this.canRead(caller, e)) throw forbidden();
    return e;
  }

  private canRead(caller: Caller, e: SimEntity): boolean {
    const sameTenant = e.tenantId === caller.tenantId;
    if (caller.authority === 'TENANT_ADMIN') {
      if (e.entityType === 'TENANT') return e.id === caller.tenantId;
      if (e.entityType === 'USER') return sameTenant && this.userAuthority(e) !== 'SYS_ADMIN';
      return sameTenant;
    }
    if (caller.authority !== 'CUSTOMER_USER') return false;
    switch (e.entityType) {
      case 'DEVICE':
      case 'ASSET':
      case 'ENTITY_VIEW':
      case 'EDGE':
        return sameTenant && e.customerId !== null && e.customerId === caller.customerId;
      case 'CUSTOMER':
        return e.id === caller.customerId;
      case 'USER':
        return this.userAuthority(e) === 'CUSTOMER_USER' && e.customerId === caller.customerId;
      case 'DASHBOARD':
        return sameTenant && (e.assignedCustomerIds ?? []).includes(caller.customerId ?? '');
      case 'DEVICE_PROFILE':
      case 'ASSET_PROFILE':
        return sameTenant;
      default:
        return false;
    }
  }

  /**
   * `EntityService#fetchEntityCustomerId`: the owner of a HasCustomerId entity (device, asset, entity view, edge,
   * user), else none.
   */
  originatorCustomer(ref: EntityId): string | null {
    const e = this.ds.get(ref.id);
    if (!e) return null;
    return ['DEVICE', 'ASSET', 'ENTITY_VIEW', 'EDGE', 'USER'].includes(e.entityType) ? e.customerId : null;
  }

  private titleOf(userId: string): string {
    const u = this.ds.get(userId);
    return userTitle(u?.fields.email ?? u?.name ?? null, u?.fields.firstName ?? null, u?.fields.lastName ?? null);
  }

  private info(a: SimAlarm): AlarmInfo {
    return this.ds.alarmInfo(a);
  }

  /** `DefaultTbAlarmService#addSystemAlarmComment`: `{text, subtype, <params>}`, authored by the acting user. */
  private systemComment(
    a: SimAlarm,
    userId: string | null,
    subtype: SystemSubtype,
    params: Record<string, string>,
  ): void {
    const comment: Record<string, JsonValue> = {
      text: format(SYSTEM_COMMENT_TEXTS[subtype], ...Object.values(params)),
      subtype,
    };
    Object.assign(comment, params);
    this.ds.addAlarmComment(a.id, { type: 'SYSTEM', userId, comment });
  }

  private ts(ts: number): number {
    return ts > 0 ? ts : this.ctx.now();
  }

  // --- the service calls (DefaultTbAlarmService) ------------------------------------------------------------------

  /** `ack`: "Alarm was already acknowledged!" when nothing changed; a SYSTEM comment ACKED_BY_USER otherwise. */
  private doAck(caller: Caller, a: SimAlarm, ackTs = 0): void {
    const r = this.ds.tryAckAlarm(a.id, this.ts(ackTs));
    if (!r.modified) throw badRequest('Alarm was already acknowledged!');
    this.systemComment(a, caller.userId, 'ACKED_BY_USER', { userName: this.titleOf(caller.userId) });
  }

  private doClear(caller: Caller, a: SimAlarm, clearTs = 0): void {
    const r = this.ds.tryClearAlarm(a.id, this.ts(clearTs));
    if (!r.modified) throw badRequest('Alarm was already cleared!');
    this.systemComment(a, caller.userId, 'CLEARED_BY_USER', { userName: this.titleOf(caller.userId) });
  }

  private doAssign(caller: Caller, a: SimAlarm, assigneeId: string, assignTs = 0): void {
    const r = this.ds.tryAssignAlarm(a.id, assigneeId, this.ts(assignTs));
    if (!r.modified) throw badRequest('Alarm was already assigned to this user!');
    const assignee = this.info(a).assignee;
    this.systemComment(a, caller.userId, 'ASSIGNED_TO_USER', {
      userName: this.titleOf(caller.userId),
      assigneeName: assignee ? userTitle(assignee.email, assignee.firstName, assignee.lastName) : '',
    });
  }

  private doUnassign(caller: Caller, a: SimAlarm, unassignTs = 0): void {
    const r = this.ds.tryUnassignAlarm(a.id, this.ts(unassignTs));
    if (!r.modified) throw badRequest('Alarm was already unassigned!');
    this.systemComment(a, caller.userId, 'UNASSIGNED_BY_USER', { userName: this.titleOf(caller.userId) });
  }

  /** `DefaultAlarmSubscriptionService#withWsCallback`: a severity change writes SEVERITY_CHANGED. */
  private severityComment(a: SimAlarm, oldSeverity: AlarmSeverity | null, userId: string | null): void {
    if (oldSeverity === null) return;
    const comment: Record<string, JsonValue> = {
      text: format(SYSTEM_COMMENT_TEXTS.SEVERITY_CHANGED, oldSeverity, a.severity),
      subtype: 'SEVERITY_CHANGED',
      oldSeverity,
      newSeverity: a.severity,
    };
    this.ds.addAlarmComment(a.id, { type: 'SYSTEM', userId, comment });
  }

  // --- endpoints ----------------------------------------------------------------------------------------------------

  /** `GET /api/alarm/{alarmId}` → Alarm. */
  getAlarm(caller: Caller, strId: string): Record<string, unknown> {
    return alarmJson(this.info(this.checkAlarm(caller, this.uuidParam('alarmId', strId))));
  }

  /** `GET /api/alarm/info/{alarmId}` → AlarmInfo (tenant-scoped lookup). */
  getAlarmInfo(caller: Caller, strId: string): AlarmInfo {
    return this.info(this.checkAlarm(caller, this.uuidParam('alarmId', strId), true));
  }

  /** `POST /api/alarm/{alarmId}/ack` → AlarmInfo (before 3.5: an empty 200 and no "already" error). */
  ack(caller: Caller, strId: string): AlarmInfo | undefined {
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    if (!this.ctx.versionAtLeast('3.5')) {
      this.ds.tryAckAlarm(a.id, this.ctx.now());
      return undefined;
    }
    this.doAck(caller, a);
    return this.info(a);
  }

  /** `POST /api/alarm/{alarmId}/clear` → AlarmInfo (before 3.5: an empty 200 and no "already" error). */
  clear(caller: Caller, strId: string): AlarmInfo | undefined {
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    if (!this.ctx.versionAtLeast('3.5')) {
      this.ds.tryClearAlarm(a.id, this.ctx.now());
      return undefined;
    }
    this.doClear(caller, a);
    return this.info(a);
  }

  /**
   * `POST /api/alarm/{alarmId}/assign/{assigneeId}`: the method is declared to return `Alarm`, but the object is the
   * service's AlarmInfo and Spring serialises the runtime type, so the answer is the AlarmInfo JSON.
   * The assignee must be readable by the caller (`checkUserId(assigneeId, READ)`): a missing user is 404
   * "User with id [..] is not found"; a customer user may only assign users of its own customer (403).
   */
  assign(caller: Caller, strId: string, strAssignee: string): AlarmInfo {
    if (strAssignee.trim() === '') throw badRequest("Parameter 'assigneeId' can't be empty!");
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    const assigneeId = javaUuid(strAssignee, this.java25);
    this.checkEntityRead(caller, { entityType: 'USER', id: assigneeId });
    this.doAssign(caller, a, assigneeId);
    return this.info(a);
  }

  /** `DELETE /api/alarm/{alarmId}/assign` → the AlarmInfo JSON (see `assign`). */
  unassign(caller: Caller, strId: string): AlarmInfo {
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    this.doUnassign(caller, a);
    return this.info(a);
  }

  /** `DELETE /api/alarm/{alarmId}` → `true`. */
  delete(caller: Caller, strId: string): boolean {
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    return this.ds.deleteAlarm(a.id);
  }

  /**
   * `POST /api/alarm/{alarmId}/comment` → AlarmComment. The type is always OTHER, `alarmId`/`userId` of the body are
   * ignored; with `id` the comment is edited (author only: 403 "User is not allowed to edit other user's comment";
   * SYSTEM comments: 400 "System alarm comment can't be updated!"), `edited: "true"` and `editedOn` are added.
   */
  saveComment(caller: Caller, strId: string, body: unknown): Record<string, unknown> {
    // the body is read (Jackson) before the controller method runs
    const o = obj(body, `${PKG}.alarm.AlarmComment`);
    if (!o) throw general('Required request body is missing');
    const commentId = uuidId(o.id, 'AlarmCommentId');
    enumOf(o.type, ['SYSTEM', 'OTHER'] as const, `${PKG}.alarm.AlarmCommentType`);
    const comment = o.comment === undefined ? null : (o.comment as JsonValue);
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId), true);
    let existing: SimAlarmComment | undefined;
    if (commentId !== null) {
      existing = this.ds.getAlarmComment(commentId);
      if (!existing) throw new ApiError(404, 32, `Alarm comment with id [${commentId}] is not found`);
      if (existing.alarmId !== a.id) throw badRequest('Alarm id does not match with comment alarm id');
      if (existing.userId !== null && existing.userId !== caller.userId) {
        throw new ApiError(403, 20, "User is not allowed to edit other user's comment");
      }
    }
    // AlarmCommentDataValidator: field constraints, then the comment, then the update checks
    if (comment !== null) {
      const text = JSON.stringify(comment);
      const err = validationError([
        ...(noXss(text) ? [] : ['comment is malformed']),
        ...(text.length > 10000 ? ['comment length must be equal or less than 10000'] : []),
      ]);
      if (err) throw err;
    }
    if (comment === null) throw badRequest('Alarm comment should be specified!');
    if (existing) {
      if (existing.type === 'SYSTEM') throw badRequest("System alarm comment can't be updated!");
      if (!isObj(comment)) {
        throw general(
          `class com.fasterxml.jackson.databind.node.${nodeClass(comment)} cannot be cast to class ` +
            'com.fasterxml.jackson.databind.node.ObjectNode',
        );
      }
      const edited: Record<string, JsonValue> = { ...comment, edited: 'true', editedOn: this.ctx.now() };
      return commentJson(this.ds.editAlarmComment(existing.id, edited));
    }
    return commentJson(this.ds.addAlarmComment(a.id, { type: 'OTHER', userId: caller.userId, comment }));
  }

  /**
   * `GET /api/alarm/{alarmId}/comment?pageSize=&page=[&sortProperty=&sortOrder=]` → PageData<AlarmCommentInfo>
   * (`AlarmCommentRepository#findAllByAlarmId`: LEFT JOIN of the author's firstName, lastName, email). Without
   * sortProperty the order is by id (`PageLink` default sort), otherwise by the property, then by id.
   */
  listComments(caller: Caller, strId: string, params: URLSearchParams): PageData<Record<string, unknown>> {
    requiredInt(params, 'pageSize');
    requiredInt(params, 'page');
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    const p: PageLink = { ...pageLink(params), textSearch: null };
    if (p.page < 0) throw badRequest('Page index must not be less than zero');
    if (p.pageSize < 1) throw badRequest('Page size must not be less than one');
    const key = (c: SimAlarmComment): string | number | null => {
      switch (p.sort?.property) {
        case 'createdTime':
          return c.createdTime;
        case 'type':
          return c.type;
        case 'userId':
          return c.userId;
        case 'alarmId':
          return c.alarmId;
        case 'comment':
          return JSON.stringify(c.comment);
        default:
          return c.id;
      }
    };
    if (p.sort && !['id', 'createdTime', 'type', 'userId', 'alarmId', 'comment'].includes(p.sort.property)) {
      throw new ApiError(500, 46, 'Database error');
    }
    const dir = p.sort?.direction === 'DESC' ? -1 : 1;
    const rows = [...this.ds.alarmComments(a.id)].sort(
      (x, y) => dir * compareValues(key(x), key(y)) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
    );
    const page = toPage(rows, p);
    return { ...page, data: page.data.map((c) => commentInfoJson(this.ds, c)) };
  }

  /**
   * `GET /api/users/assign/{alarmId}?pageSize=&page=[&textSearch=&sortProperty=&sortOrder=]` → PageData<UserEmailInfo>.
   * Tenant admin: the tenant admins for an alarm without customer, else every user whose customer is "none" or the
   * originator's customer; customer user: the CUSTOMER_USERs of the alarm's customer. `textSearch` is
   * `ilike(email, '%…%')` (the e-mail only, whatever the API doc says); default order by id.
   */
  usersForAssign(caller: Caller, strId: string, params: URLSearchParams): PageData<Record<string, unknown>> {
    requiredInt(params, 'pageSize');
    requiredInt(params, 'page');
    const a = this.checkAlarm(caller, this.uuidParam('alarmId', strId));
    const p = pageLink(params);
    if (p.pageSize < 1)
      throw badRequest(`Incorrect page link page size '${p.pageSize}'. Page size must be greater than zero.`);
    if (p.page < 0) throw badRequest(`Incorrect page link page '${p.page}'. Page must be positive integer.`);
    const match = p.textSearch === null ? (): boolean => true : compileIlike(`%${p.textSearch}%`);
    const originatorCustomer = this.originatorCustomer(a.originator);
    const owner = (u: SimEntity): string => u.customerId ?? NULL_UUID;
    let keep: (u: SimEntity) => boolean;
    if (caller.authority === 'TENANT_ADMIN') {
      if (a.customerId === null) keep = (u) => owner(u) === NULL_UUID && this.userAuthority(u) === 'TENANT_ADMIN';
      else keep = (u) => owner(u) === NULL_UUID || (originatorCustomer !== null && owner(u) === originatorCustomer);
    } else {
      keep = (u) => owner(u) === a.customerId && this.userAuthority(u) === 'CUSTOMER_USER';
    }
    const email = (u: SimEntity): string => u.fields.email ?? u.name;
    let rows = this.ds.users().filter((u) => u.tenantId === caller.tenantId && keep(u) && match(email(u)));
    const sortable: Record<string, (u: SimEntity) => string | number | null> = {
      id: (u) => u.id,
      createdTime: (u) => u.createdTime,
      email,
      firstName: (u) => u.fields.firstName ?? null,
      lastName: (u) => u.fields.lastName ?? null,
      authority: (u) => this.userAuthority(u),
      phone: (u) => u.fields.phone ?? null,
    };
    const key = p.sort ? sortable[p.sort.property] : sortable.id;
    if (!key) throw new ApiError(500, 46, 'Database error');
    const dir = p.sort?.direction === 'DESC' ? -1 : 1;
    rows = rows.sort((x, y) => dir * compareValues(key(x), key(y)) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const page = toPage(rows, p);
    return {
      ...page,
      data: page.data.map((u) => ({
        id: { entityType: 'USER', id: u.id },
        email: email(u),
        firstName: u.fields.firstName ?? null,
        lastName: u.fields.lastName ?? null,
      })),
    };
  }

  /**
   * `POST /api/alarm` (`AlarmController#saveAlarm`, `DefaultTbAlarmService#save`) → the saved Alarm.
   *
   * Without `id`: `create_or_update_active_alarm`, i.e. while an alarm of that type is not cleared on the
   * originator it is updated (severity, startTs, endTs, details, propagation) and keeps its id. With `id`:
   * `update_alarm` of that alarm (type, originator and customer of the body are ignored). startTs 0 means now,
   * endTs 0 means startTs (`BaseAlarmService#validateAlarmRequest`). Then, in this order: `acknowledged: true` acks
   * (if not yet), `cleared: true` clears (if not yet), a different `assigneeId` assigns, and a missing `assigneeId`
   * while the alarm has an assignee unassigns, each through the ack / clear / assign / unassign paths (SYSTEM
   * comments, events). The unassign is called with the *request's* alarm: for a create (no id) that is a
   * NullPointerException, so re-posting a create for an assigned active alarm updates it and then answers 500.
   */
  save(caller: Caller, json: unknown): Record<string, unknown> {
    const body = parseAlarmBody(json, this.java25);
    if (body.originator === null) throw new ApiError(404, 32, "Requested item wasn't found!");
    let target: SimAlarm | null = null;
    if (body.id === null) {
      // accessControlService.checkPermission(user, ALARM, CREATE, null, alarm): the body's customerId counts
      if (caller.authority === 'CUSTOMER_USER' && (body.customerId === null || body.customerId !== caller.customerId))
        throw forbidden();
    } else {
      target = this.checkAlarm(caller, body.id);
    }
    this.checkEntityRead(caller, body.originator);
    if (body.assigneeId !== null) this.checkEntityRead(caller, { entityType: 'USER', id: body.assigneeId });

    // validateAlarmRequest (the create request validates type, severity and details; the update request no type)
    const messages: string[] = [];
    if (body.id === null) {
      if (body.type === null) messages.push('type must not be null');
      else {
        if (!noXss(body.type)) messages.push('type is malformed');
        if (body.type.length > 255) messages.push('type length must be equal or less than 255');
      }
    }
    if (body.severity === null) messages.push('severity must not be null');
    const details: JsonValue = body.details === undefined ? {} : body.details;
    if (details !== null && !noXss(JSON.stringify(details))) messages.push('details is malformed');
    const err = validationError(messages);
    if (err) throw err;
    if (body.endTs > 0 && body.startTs > body.endTs)
      throw badRequest("Alarm start ts can't be greater then alarm end ts!");
    const startTs = body.startTs === 0 ? this.ctx.now() : body.startTs;
    const fields: AlarmFields = {
      severity: body.severity as AlarmSeverity,
      startTs,
      endTs: body.endTs === 0 ? startTs : body.endTs,
      details,
      propagate: body.propagate,
      propagateToOwner: body.propagateToOwner,
      propagateToTenant: body.propagateToTenant,
      propagateRelationTypes: body.propagateRelationTypes,
    };

    let a: SimAlarm;
    if (target === null) {
      const customerId = this.originatorCustomer(body.originator);
      if (body.customerId !== null && body.customerId !== (customerId ?? NULL_UUID)) {
        throw badRequest("Can't assign alarm to customer. Originator belongs to different customer!");
      }
      const r = this.ds.createOrUpdateActiveAlarm({
        ...fields,
        originator: body.originator,
        type: body.type as string,
        customerId,
      });
      a = r.alarm;
      this.severityComment(a, r.oldSeverity, caller.userId);
    } else {
      const r = this.ds.updateAlarmFields(target.id, fields);
      a = r.alarm;
      this.severityComment(a, r.oldSeverity, null);
    }
    if (body.acknowledged && !a.acknowledged) this.doAck(caller, a, body.ackTs);
    if (body.cleared && !a.cleared) this.doClear(caller, a, body.clearTs);
    if (body.assigneeId !== null && body.assigneeId !== a.assigneeId) {
      this.doAssign(caller, a, body.assigneeId, body.assignTs);
    } else if (body.assigneeId === null && a.assigneeId !== null) {
      if (body.id === null) {
        throw general('Cannot invoke "org.thingsboard.server.common.data.id.AlarmId.getId()" because "id" is null');
      }
      this.doUnassign(caller, a, body.assignTs);
    }
    return alarmJson(this.info(a));
  }
}

function nodeClass(v: JsonValue): string {
  if (Array.isArray(v)) return 'ArrayNode';
  if (typeof v === 'string') return 'TextNode';
  if (typeof v === 'boolean') return 'BooleanNode';
  if (typeof v === 'number') return Number.isInteger(v) ? 'IntNode' : 'DoubleNode';
  return 'NullNode';
}
