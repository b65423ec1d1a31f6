/**
 * The notification center: targets, templates, requests and each user's inbox, with the REST endpoints of
 * `C/NotificationController.java`, `C/NotificationTargetController.java` and `C/NotificationTemplateController.java`,
 * the sending of `SVC/notification/DefaultNotificationCenter.java` (checks, recipients per target, the delivery
 * methods each target supports, stats per method and recipient, status PROCESSING then SENT) and the events the
 * WebSocket subscriptions of `SVC/ws/notification/DefaultNotificationCommandsHandler.java` follow.
 *
 * Sending is asynchronous as on the server: the request is answered PROCESSING, and the delivery runs on the next
 * turn (or when a test releases it, see `hold()`), then the request is SENT with its stats. WEB notifications land in
 * the recipients' inboxes (and reach their WebSocket subscriptions); EMAIL, SLACK and MICROSOFT_TEAMS messages go to
 * `outbox`; SMS and MOBILE_APP fail per recipient (no phone number, no mobile session), counted in the stats.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { javaUuid } from './alarm-actions';
import { ApiError, badRequest, forbidden, general, jsonParseError } from './errors';
import { containsIlike, pageLink, toPage, validatePageLink } from './lookups';
import type { UserAccount } from './seed';
import type { Caller, EntityId, PageData } from './types';

export const DELIVERY_METHODS = ['WEB', 'EMAIL', 'SMS', 'SLACK', 'MICROSOFT_TEAMS', 'MOBILE_APP'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** `NotificationDeliveryMethod.getName()`, as the error messages say it. */
const METHOD_NAME: Record<DeliveryMethod, string> = {
  WEB: 'web',
  EMAIL: 'email',
  SMS: 'SMS',
  SLACK: 'Slack',
  MICROSOFT_TEAMS: 'Microsoft Teams',
  MOBILE_APP: 'mobile app',
};

/** `NotificationTargetType.getSupportedDeliveryMethods()`. */
const SUPPORTED: Record<TargetType, readonly DeliveryMethod[]> = {
  PLATFORM_USERS: ['WEB', 'EMAIL', 'SMS', 'MOBILE_APP'],
  SLACK: ['SLACK'],
  MICROSOFT_TEAMS: ['MICROSOFT_TEAMS'],
};

export const NOTIFICATION_TYPES = [
  'GENERAL',
  'ALARM',
  'DEVICE_ACTIVITY',
  'ENTITY_ACTION',
  'ALARM_COMMENT',
  'RULE_ENGINE_COMPONENT_LIFECYCLE_EVENT',
  'ALARM_ASSIGNMENT',
  'NEW_PLATFORM_VERSION',
  'ENTITIES_LIMIT',
  'ENTITIES_LIMIT_INCREASE_REQUEST',
  'API_USAGE_LIMIT',
  'RULE_NODE',
  'RATE_LIMITS',
  'EDGE_CONNECTION',
  'EDGE_COMMUNICATION_FAILURE',
  'TASK_PROCESSING_FAILURE',
  'RESOURCES_SHORTAGE',
] as const;

const TARGET_TYPES = ['PLATFORM_USERS', 'SLACK', 'MICROSOFT_TEAMS'] as const;
type TargetType = (typeof TARGET_TYPES)[number];
const USERS_FILTER_TYPES = [
  'USER_LIST',
  'CUSTOMER_USERS',
  'TENANT_ADMINISTRATORS',
  'AFFECTED_TENANT_ADMINISTRATORS',
  'SYSTEM_ADMINISTRATORS',
  'ALL_USERS',
  'ORIGINATOR_ENTITY_OWNER_USERS',
  'AFFECTED_USER',
] as const;

const PKG = 'org.thingsboard.server.common.data.notification';
/** `server.ws`-less limit of `NotificationRequestConfig.sendingDelayInSec` (`@Max(604800)`). */
const MAX_DELAY_SEC = 604800;

type Obj = Record<string, unknown>;

export interface SimTarget {
  id: string;
  tenantId: string;
  createdTime: number;
  name: string;
  /** As saved: `{type, usersFilter?, description?, conversationType?, conversation?, webhookUrl?, channelName?}`. */
  configuration: Obj;
}

export interface SimTemplate {
  id: string;
  tenantId: string;
  createdTime: number;
  name: string;
  notificationType: string;
  /** `{deliveryMethodsTemplates: {WEB: {method, enabled, subject, body, …}, …}}` */
  configuration: { deliveryMethodsTemplates: Record<string, Obj> };
}

export interface RequestStats {
  sent: Partial<Record<DeliveryMethod, number>>;
  errors: Partial<Record<DeliveryMethod, Record<string, string>>>;
  totalErrors: number;
  error: string | null;
}

export interface SimRequest {
  id: string;
  tenantId: string;
  createdTime: number;
  targets: string[];
  templateId: string | null;
  /** the inline template, as sent (null when a saved one was named) */
  template: SimTemplate | null;
  additionalConfig: { sendingDelayInSec: number } | null;
  originatorUserId: string;
  status: 'PROCESSING' | 'SENT' | 'SCHEDULED';
  stats: RequestStats | null;
}

export interface SimNotification {
  id: string;
  createdTime: number;
  requestId: string | null;
  recipientId: string;
  type: string;
  deliveryMethod: 'WEB' | 'MOBILE_APP';
  subject: string | null;
  text: string;
  additionalConfig: unknown;
  status: 'SENT' | 'READ';
}

/** A message that left by a channel other than the web inbox. */
export interface OutboxEntry {
  requestId: string;
  method: DeliveryMethod;
  /** e-mail address, Slack conversation or Teams channel */
  to: string;
  subject: string | null;
  body: string;
}

/**
 * What the inbox subscriptions follow (`NotificationUpdate` and `NotificationRequestUpdate`):
 * - created: a new WEB notification for `userId`;
 * - read: one notification of `userId` became READ (only when a row changed);
 * - allRead: every unread WEB notification of `userId` became READ (only when some did);
 * - deleted: a notification of `userId` was deleted (its state before);
 * - request: a request's notifications were deleted with it (every subscription re-reads).
 */
export type InboxEvent =
  | { kind: 'created'; userId: string; notification: SimNotification }
  | { kind: 'read'; userId: string; id: string }
  | { kind: 'allRead'; userId: string }
  | { kind: 'deleted'; userId: string; notification: SimNotification }
  | { kind: 'request'; tenantId: string };

/** Which channels the tenant and the system have configured (what `getAvailableDeliveryMethods` checks). */
export interface ChannelConfig {
  /** a system mail server (EMAIL) */
  mail: boolean;
  /** a system SMS provider (SMS) */
  sms: boolean;
  /** the tenant's Slack bot token (SLACK) */
  slack: boolean;
  /** the system's Firebase credentials (MOBILE_APP, 3.7+) */
  mobileApp: boolean;
}

export interface NotificationDeps {
  users: readonly UserAccount[];
  now(): number;
  versionAtLeast(v: string): boolean;
  /** the name of an entity (a customer's, for the permission check of CUSTOMER_USERS targets) */
  customerExists(id: string): boolean;
}

const ref = (entityType: string, id: string): EntityId => ({ entityType, id }) as EntityId;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A user's title (`User.getTitle()`): "First Last" when a name is set, else the e-mail. */
export function userTitle(u: UserAccount): string {
  const name = [u.firstName, u.lastName].filter((s) => s && s.trim() !== '').join(' ');
  return name !== '' ? name : u.email;
}

/** `TemplateUtils.processTemplate`: `${name}` replaced where the context has it, anything else kept as written. */
export function processTemplate(text: string, ctx: Record<string, string>): string {
  return text.replace(/\$\{([^}:]+)(?::[^}]*)?\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(ctx, name) ? ctx[name] : whole,
  );
}

export class NotificationCenter extends EventEmitter {
  private seq = 0;
  readonly targets = new Map<string, SimTarget>();
  readonly templates = new Map<string, SimTemplate>();
  readonly requests = new Map<string, SimRequest>();
  /** every notification, by id (each user's inbox is the ones whose recipientId is theirs) */
  readonly notifications = new Map<string, SimNotification>();
  /** EMAIL, SLACK and MICROSOFT_TEAMS messages, in the order they were sent */
  readonly outbox: OutboxEntry[] = [];
  readonly channels: ChannelConfig = { mail: true, sms: false, slack: false, mobileApp: false };
  private held = false;
  private readonly waiting: SimRequest[] = [];
  private readonly timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();

  constructor(private readonly deps: NodeDeps) {
    super();
    this.setMaxListeners(0);
  }

  /** Next deterministic UUID of the notification center (its own counter: the dataset's ids do not move). */
  nextId(): string {
    this.seq++;
    const h = createHash('md5').update(`tb-sim-notification:${this.seq}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-b${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  // -------------------------------------------------------------------------------------------------------------
  // test hooks

  /** Changes which channels are configured (see ChannelConfig). */
  configure(c: Partial<ChannelConfig>): void {
    Object.assign(this.channels, c);
  }

  /** Keeps new requests PROCESSING until `release()` (a test can then see the client poll). */
  hold(on = true): void {
    this.held = on;
    if (!on) this.release();
  }

  /** Delivers the requests held so far (in order); returns how many. */
  release(): number {
    this.held = false;
    const list = this.waiting.splice(0);
    for (const r of list) this.deliver(r);
    return list.length;
  }

  /** Requests still PROCESSING because of `hold()`. */
  get heldCount(): number {
    return this.waiting.length;
  }

  /** Cancels pending deliveries (on stop). */
  shutdown(): void {
    for (const t of this.timers) {
      clearTimeout(t as NodeJS.Timeout);
      clearImmediate(t as NodeJS.Immediate);
    }
    this.timers.clear();
  }

  /** A user's notifications, newest first (WEB unless `method` says otherwise). */
  inbox(userId: string, method: 'WEB' | 'MOBILE_APP' = 'WEB'): SimNotification[] {
    return [...this.notifications.values()]
      .filter((n) => n.recipientId === userId && n.deliveryMethod === method)
      .sort((a, b) => b.createdTime - a.createdTime || (a.id < b.id ? 1 : -1));
  }

  /** Puts a notification into a user's inbox directly (as a rule or the system would), with its event. */
  addNotification(spec: {
    recipientId: string;
    subject?: string | null;
    text: string;
    type?: string;
    createdTime?: number;
    status?: 'SENT' | 'READ';
    deliveryMethod?: 'WEB' | 'MOBILE_APP';
    requestId?: string | null;
  }): SimNotification {
    const n: SimNotification = {
      id: this.nextId(),
      createdTime: spec.createdTime ?? this.deps.now(),
      requestId: spec.requestId ?? null,
      recipientId: spec.recipientId,
      type: spec.type ?? 'GENERAL',
      deliveryMethod: spec.deliveryMethod ?? 'WEB',
      subject: spec.subject ?? null,
      text: spec.text,
      additionalConfig: null,
      status: spec.status ?? 'SENT',
    };
    this.notifications.set(n.id, n);
    // only the WEB channel tells the subscriptions (DefaultNotificationCenter: the web channel's onNotificationUpdate)
    if (n.deliveryMethod === 'WEB' && n.status === 'SENT')
      this.emitInbox({ kind: 'created', userId: n.recipientId, notification: n });
    return n;
  }

  /** Adds a target without HTTP (the seed, tests). */
  addTarget(tenantId: string, name: string, configuration: Obj, createdTime = this.deps.now()): SimTarget {
    const t: SimTarget = { id: this.nextId(), tenantId, createdTime, name, configuration };
    this.targets.set(t.id, t);
    return t;
  }

  /** Adds a template without HTTP (the seed, tests). */
  addTemplate(
    tenantId: string,
    name: string,
    notificationType: string,
    methods: Record<string, Obj>,
    createdTime = this.deps.now(),
  ): SimTemplate {
    const deliveryMethodsTemplates: Record<string, Obj> = {};
    for (const [m, t] of Object.entries(methods)) deliveryMethodsTemplates[m] = { method: m, enabled: true, ...t };
    const t: SimTemplate = {
      id: this.nextId(),
      tenantId,
      createdTime,
      name,
      notificationType,
      configuration: { deliveryMethodsTemplates },
    };
    this.templates.set(t.id, t);
    return t;
  }

  findTarget(name: string): SimTarget | undefined {
    return [...this.targets.values()].find((t) => t.name === name);
  }

  findTemplate(name: string): SimTemplate | undefined {
    return [...this.templates.values()].find((t) => t.name === name);
  }

  private emitInbox(ev: InboxEvent): void {
    this.emit('inbox', ev);
  }

  // -------------------------------------------------------------------------------------------------------------
  // JSON

  targetJson(t: SimTarget): Obj {
    return {
      id: ref('NOTIFICATION_TARGET', t.id),
      createdTime: t.createdTime,
      tenantId: ref('TENANT', t.tenantId),
      name: t.name,
      configuration: t.configuration,
    };
  }

  templateJson(t: SimTemplate): Obj {
    return {
      id: ref('NOTIFICATION_TEMPLATE', t.id),
      createdTime: t.createdTime,
      tenantId: ref('TENANT', t.tenantId),
      name: t.name,
      notificationType: t.notificationType,
      configuration: t.configuration,
    };
  }

  requestJson(r: SimRequest, info = false): Obj {
    const out: Obj = {
      id: ref('NOTIFICATION_REQUEST', r.id),
      createdTime: r.createdTime,
      tenantId: ref('TENANT', r.tenantId),
      targets: r.targets,
      templateId: r.templateId ? ref('NOTIFICATION_TEMPLATE', r.templateId) : null,
      template: r.template ? this.templateJson(r.template) : null,
      info: null,
      additionalConfig: r.additionalConfig,
      originatorEntityId: ref('USER', r.originatorUserId),
      ruleId: null,
      status: r.status,
      stats: r.stats,
    };
    if (r.template) (out.template as Obj).id = null;
    if (info) {
      // NotificationRequestInfo: the template's name and its enabled delivery methods
      const tpl = this.templateOf(r);
      out.templateName = tpl ? tpl.name : null;
      out.deliveryMethods = tpl ? enabledMethods(tpl) : [];
    }
    return out;
  }

  notificationJson(n: SimNotification): Obj {
    return {
      id: ref('NOTIFICATION', n.id),
      createdTime: n.createdTime,
      requestId: n.requestId ? ref('NOTIFICATION_REQUEST', n.requestId) : null,
      recipientId: ref('USER', n.recipientId),
      type: n.type,
      deliveryMethod: n.deliveryMethod,
      subject: n.subject,
      text: n.text,
      additionalConfig: n.additionalConfig,
      info: null,
      status: n.status,
    };
  }

  private templateOf(r: SimRequest): SimTemplate | undefined {
    return r.templateId ? this.templates.get(r.templateId) : (r.template ?? undefined);
  }

  // -------------------------------------------------------------------------------------------------------------
  // REST: the current user's inbox (every authority)

  private uuid(v: string, name: string): string {
    if (v.trim() === '') throw badRequest(`Parameter '${name}' can't be empty!`);
    return javaUuid(v, this.deps.versionAtLeast('4.4'));
  }

  /** `GET /api/notifications`: a page of the user's notifications, newest first unless sorted otherwise. */
  list(caller: Caller, params: URLSearchParams): PageData<Obj> {
    const p = pageLink(params);
    validatePageLink(p);
    const unreadOnly = params.get('unreadOnly') === 'true';
    const method = this.methodParam(params, 'WEB');
    const matches = containsIlike(p.textSearch);
    let rows = this.inbox(caller.userId, method === 'MOBILE_APP' ? 'MOBILE_APP' : 'WEB');
    if (method !== 'WEB' && method !== 'MOBILE_APP') rows = [];
    rows = rows.filter((n) => (!unreadOnly || n.status !== 'READ') && (matches(n.subject ?? '') || matches(n.text)));
    if (p.sort && p.sort.property === 'createdTime' && p.sort.direction === 'ASC') rows.reverse();
    return toPage(
      rows.map((n) => this.notificationJson(n)),
      p,
    );
  }

  /**
   * `GET /api/notifications/unread/count`: a bare number. Its `deliveryMethod` defaults to MOBILE_APP
   * (NotificationController L201), unlike the list and "mark all read", which default to WEB.
   */
  unreadCount(caller: Caller, params: URLSearchParams): number {
    const method = this.methodParam(params, 'MOBILE_APP');
    return this.inbox(caller.userId, method === 'WEB' ? 'WEB' : 'MOBILE_APP').filter(
      (n) => n.status !== 'READ' && (method === 'WEB' || method === 'MOBILE_APP'),
    ).length;
  }

  /** `PUT /api/notification/{id}/read`: 200 also for an unknown id or one of another user (nothing changes). */
  markRead(caller: Caller, idText: string): void {
    const id = this.uuid(idText, 'id');
    const n = this.notifications.get(id);
    if (!n || n.recipientId !== caller.userId || n.status === 'READ') return;
    n.status = 'READ';
    if (n.deliveryMethod === 'WEB') this.emitInbox({ kind: 'read', userId: caller.userId, id });
  }

  /** `PUT /api/notifications/read?deliveryMethod=WEB`: every unread notification of that method. */
  markAllRead(caller: Caller, params: URLSearchParams): void {
    const method = this.methodParam(params, 'WEB');
    let changed = 0;
    for (const n of this.notifications.values()) {
      if (n.recipientId === caller.userId && n.deliveryMethod === method && n.status !== 'READ') {
        n.status = 'READ';
        changed++;
      }
    }
    if (changed > 0 && method === 'WEB') this.emitInbox({ kind: 'allRead', userId: caller.userId });
  }

  /** `DELETE /api/notification/{id}`: one of the user's own (another's or unknown: 200, nothing). */
  deleteNotification(caller: Caller, idText: string): void {
    const id = this.uuid(idText, 'id');
    const n = this.notifications.get(id);
    if (!n || n.recipientId !== caller.userId) return;
    this.notifications.delete(id);
    if (n.deliveryMethod === 'WEB') this.emitInbox({ kind: 'deleted', userId: caller.userId, notification: n });
  }

  /** `GET /api/notification/deliveryMethods`: the methods configured now, in the enum's order. */
  deliveryMethods(): DeliveryMethod[] {
    return DELIVERY_METHODS.filter((m) => this.channelProblem(m) === null);
  }

  private methodParam(params: URLSearchParams, dflt: DeliveryMethod): DeliveryMethod {
    const v = params.get('deliveryMethod');
    if (v === null || v === '') return dflt;
    if ((DELIVERY_METHODS as readonly string[]).includes(v)) return v as DeliveryMethod;
    throw badRequest(
      "Failed to convert value of type 'java.lang.String' to required type " +
        `'${PKG}.NotificationDeliveryMethod'; Failed to convert from type [java.lang.String] to type ` +
        `[@org.springframework.web.bind.annotation.RequestParam ${PKG}.NotificationDeliveryMethod] for value [${v}]`,
    );
  }

  /** The channel's own check (`*NotificationChannel.check`): null when it can send. */
  private channelProblem(m: DeliveryMethod): string | null {
    switch (m) {
      case 'EMAIL':
        return this.channels.mail ? null : 'Mail server is not configured';
      case 'SMS':
        return this.channels.sms ? null : 'SMS provider is not configured';
      case 'SLACK':
        return this.channels.slack ? null : 'Slack API token is not configured';
      case 'MOBILE_APP':
        return this.channels.mobileApp && this.deps.versionAtLeast('3.7')
          ? null
          : 'Push-notifications to mobile are not configured';
      case 'MICROSOFT_TEAMS':
        return this.deps.versionAtLeast('3.6') ? null : 'Microsoft Teams is not supported';
      default:
        return null;
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // REST: targets and templates (SYS_ADMIN, TENANT_ADMIN)

  private ownTarget(caller: Caller, idText: string): SimTarget {
    const id = this.uuid(idText, 'id');
    const t = this.targets.get(id);
    if (!t) throw new ApiError(404, 32, `Notification target with id [${id}] is not found`);
    if (t.tenantId !== caller.tenantId) throw forbidden();
    return t;
  }

  private ownTemplate(caller: Caller, idText: string): SimTemplate {
    const id = this.uuid(idText, 'id');
    const t = this.templates.get(id);
    if (!t) throw new ApiError(404, 32, `Notification template with id [${id}] is not found`);
    if (t.tenantId !== caller.tenantId) throw forbidden();
    return t;
  }

  /**
   * `GET /api/notification/targets?pageSize&page[&textSearch&sortProperty&sortOrder]`, or with `ids` (hidden on
   * master, the UI's call) the list of those targets (unknown ids left out).
   */
  listTargets(caller: Caller, params: URLSearchParams): unknown {
    const ids = params.get('ids');
    if (ids !== null) return this.targetsByIds(caller, ids);
    const p = pageLink(params);
    validatePageLink(p);
    const type = params.get('notificationType');
    const matches = containsIlike(p.textSearch);
    let rows = [...this.targets.values()].filter((t) => t.tenantId === caller.tenantId && matches(t.name));
    if (type !== null) rows = rows.filter((t) => t.configuration.type === 'PLATFORM_USERS');
    rows = sortRows(rows, p.sort);
    return toPage(
      rows.map((t) => this.targetJson(t)),
      p,
    );
  }

  /** `GET /api/notification/targets/list?ids=a,b` (master) and the hidden `?ids=`. */
  targetsByIds(caller: Caller, ids: string): Obj[] {
    const wanted = ids
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => this.uuid(s, 'ids'));
    return wanted
      .map((id) => this.targets.get(id))
      .filter((t): t is SimTarget => !!t && t.tenantId === caller.tenantId)
      .map((t) => this.targetJson(t));
  }

  getTarget(caller: Caller, id: string): Obj {
    return this.targetJson(this.ownTarget(caller, id));
  }

  /** `POST /api/notification/target`: create, or update with an `id`. */
  saveTarget(caller: Caller, body: unknown): Obj {
    if (!isObj(body)) throw general('Required request body is missing');
    const errors: string[] = [];
    const name = typeof body.name === 'string' ? body.name : '';
    if (name.trim() === '') errors.push('name must not be blank');
    else if (name.length > 255) errors.push('name length must be equal or less than 255');
    const cfg = body.configuration;
    if (!isObj(cfg)) errors.push('configuration must not be null');
    else {
      if (cfg.type === undefined || cfg.type === null)
        throw jsonParseError(
          `Could not resolve subtype of [simple type, class ${PKG}.targets.NotificationTargetConfig]: missing type ` +
            "id property 'type'",
        );
      if (!(TARGET_TYPES as readonly unknown[]).includes(cfg.type))
        throw jsonParseError(
          `Could not resolve type id '${String(cfg.type)}' as a subtype of \`${PKG}.targets.NotificationTargetConfig\``,
        );
      if (cfg.type === 'PLATFORM_USERS') {
        const f = cfg.usersFilter;
        if (!isObj(f)) errors.push('configuration.usersFilter must not be null');
        else {
          if (!(USERS_FILTER_TYPES as readonly unknown[]).includes(f.type))
            throw jsonParseError(
              `Could not resolve type id '${String(f.type)}' as a subtype of \`${PKG}.targets.platform.UsersFilter\``,
            );
          if (f.type === 'USER_LIST' && (!Array.isArray(f.usersIds) || f.usersIds.length === 0))
            errors.push('configuration.usersFilter.usersIds must not be empty');
        }
      }
    }
    if (errors.length) throw badRequest(`Validation error: ${errors.sort().join(', ')}`);
    const c = cfg as Obj;
    const f = c.usersFilter as Obj | undefined;
    // NotificationTargetController.checkTargetUsers: what a tenant administrator may target
    if (caller.authority === 'TENANT_ADMIN' && f) {
      if (f.type === 'SYSTEM_ADMINISTRATORS') throw forbidden();
      if (f.type === 'TENANT_ADMINISTRATORS' && (nonEmpty(f.tenantsIds) || nonEmpty(f.tenantProfilesIds)))
        throw forbidden();
      if (f.type === 'CUSTOMER_USERS') {
        const cid = typeof f.customerId === 'string' ? f.customerId : '';
        if (!this.deps.customerExists(cid)) throw new ApiError(404, 32, `Customer with id [${cid}] is not found`);
      }
      if (f.type === 'USER_LIST') {
        for (const u of f.usersIds as unknown[]) {
          const user = this.deps.users.find((x) => x.userId === u);
          if (!user) throw new ApiError(404, 32, `User with id [${String(u)}] is not found`);
          if (user.tenantId !== caller.tenantId) throw forbidden();
        }
      }
    }
    const idObj = isObj(body.id) ? body.id : null;
    const dup = [...this.targets.values()].find(
      (t) => t.tenantId === caller.tenantId && t.name === name && (!idObj || t.id !== idObj.id),
    );
    if (dup) throw badRequest('Notification target with such name already exists');
    if (idObj && typeof idObj.id === 'string') {
      const t = this.ownTarget(caller, idObj.id);
      t.name = name;
      t.configuration = c;
      return this.targetJson(t);
    }
    return this.targetJson(this.addTarget(caller.tenantId, name, c));
  }

  deleteTarget(caller: Caller, id: string): void {
    const t = this.ownTarget(caller, id);
    const used = [...this.requests.values()].some((r) => r.status === 'SCHEDULED' && r.targets.includes(t.id));
    if (used) throw badRequest('Notification target is referenced by scheduled notification request');
    this.targets.delete(t.id);
  }

  /** `GET /api/notification/templates?pageSize&page[&textSearch&sortProperty&sortOrder&notificationTypes=A,B]`. */
  listTemplates(caller: Caller, params: URLSearchParams): PageData<Obj> {
    const p = pageLink(params);
    validatePageLink(p);
    const matches = containsIlike(p.textSearch);
    const typesParam = params.get('notificationTypes');
    const types = typesParam
      ? typesParam
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : null;
    for (const t of types ?? [])
      if (!(NOTIFICATION_TYPES as readonly string[]).includes(t))
        throw badRequest(`No enum constant ${PKG}.NotificationType.${t}`);
    let rows = [...this.templates.values()].filter(
      (t) =>
        t.tenantId === caller.tenantId &&
        (matches(t.name) || matches(t.notificationType)) &&
        (!types || types.includes(t.notificationType)),
    );
    rows = sortRows(rows, p.sort);
    return toPage(
      rows.map((t) => this.templateJson(t)),
      p,
    );
  }

  getTemplate(caller: Caller, id: string): Obj {
    return this.templateJson(this.ownTemplate(caller, id));
  }

  saveTemplate(caller: Caller, body: unknown): Obj {
    const t = this.parseTemplate(body, '');
    const idObj = isObj(body) && isObj(body.id) ? body.id : null;
    const dup = [...this.templates.values()].find(
      (x) => x.tenantId === caller.tenantId && x.name === t.name && (!idObj || x.id !== idObj.id),
    );
    if (dup) throw badRequest('Notification template with such name already exists');
    if (idObj && typeof idObj.id === 'string') {
      const saved = this.ownTemplate(caller, idObj.id);
      saved.name = t.name;
      saved.notificationType = t.notificationType;
      saved.configuration = t.configuration;
      return this.templateJson(saved);
    }
    return this.templateJson(
      this.addTemplate(caller.tenantId, t.name, t.notificationType, t.configuration.deliveryMethodsTemplates),
    );
  }

  deleteTemplate(caller: Caller, id: string): void {
    const t = this.ownTemplate(caller, id);
    const used = [...this.requests.values()].some((r) => r.status === 'SCHEDULED' && r.templateId === t.id);
    if (used) throw badRequest('Notification template is referenced by scheduled notification request');
    this.templates.delete(t.id);
  }

  /**
   * A template as Jackson and the validator read it (`NotificationTemplate`, `@Valid`): a missing `method` in an
   * entry is Jackson's type-id error (500 "JSON parse error"), the field checks are one 400 "Validation error: …"
   * with every failure, sorted. `prefix` is the path of the template in the body ("template." inside a request).
   */
  private parseTemplate(body: unknown, prefix: string): SimTemplate {
    if (!isObj(body)) {
      if (prefix === '') throw general('Required request body is missing');
      throw jsonParseError(`Cannot construct instance of \`${PKG}.template.NotificationTemplate\``);
    }
    const errors: string[] = [];
    const name = typeof body.name === 'string' ? body.name : '';
    if (name === '') errors.push(`${prefix}name must not be empty`);
    else if (name.length > 255) errors.push(`${prefix}name length must be equal or less than 255`);
    const type = body.notificationType;
    if (type === undefined || type === null) errors.push(`${prefix}notificationType must not be null`);
    else if (!(NOTIFICATION_TYPES as readonly unknown[]).includes(type))
      throw jsonParseError(
        `Cannot deserialize value of type \`${PKG}.NotificationType\` from String "${String(type)}": not one of the ` +
          `values accepted for Enum class: [${NOTIFICATION_TYPES.join(', ')}]`,
      );
    const cfg = body.configuration;
    const dmt = isObj(cfg) ? cfg.deliveryMethodsTemplates : undefined;
    const templates: Record<string, Obj> = {};
    if (!isObj(cfg)) errors.push(`${prefix}configuration must not be null`);
    else if (!isObj(dmt) || Object.keys(dmt).length === 0)
      errors.push(`${prefix}configuration.deliveryMethodsTemplates must not be empty`);
    else {
      for (const [key, entry] of Object.entries(dmt)) {
        if (!(DELIVERY_METHODS as readonly string[]).includes(key))
          throw jsonParseError(
            `Cannot deserialize Map key of type \`${PKG}.NotificationDeliveryMethod\` from String "${key}": not a ` +
              'valid representation',
          );
        if (!isObj(entry)) continue;
        // the entry's own "method" is the Jackson type id (DeliveryMethodNotificationTemplate's @JsonTypeInfo)
        if (entry.method === undefined || entry.method === null)
          throw jsonParseError(
            `Could not resolve subtype of [simple type, class ${PKG}.template.DeliveryMethodNotificationTemplate]: ` +
              "missing type id property 'method'",
          );
        if (!(DELIVERY_METHODS as readonly unknown[]).includes(entry.method))
          throw jsonParseError(
            `Could not resolve type id '${String(entry.method)}' as a subtype of ` +
              `\`${PKG}.template.DeliveryMethodNotificationTemplate\``,
          );
        const at = `${prefix}configuration.deliveryMethodsTemplates[${key}]`;
        const m = entry.method as DeliveryMethod;
        const body_ = typeof entry.body === 'string' ? entry.body : '';
        const subject = typeof entry.subject === 'string' ? entry.subject : '';
        if (body_ === '') errors.push(`${at}.body must not be empty`);
        if (m === 'WEB') {
          if (subject === '') errors.push(`${at}.subject must not be empty`);
          else if (subject.length > 150) errors.push(`${at}.subject length must be equal or less than 150`);
          if (body_.length > 250) errors.push(`${at}.body length must be equal or less than 250`);
        }
        if (m === 'EMAIL') {
          if (subject === '') errors.push(`${at}.subject must not be empty`);
          else if (subject.length > 250) errors.push(`${at}.subject length must be equal or less than 250`);
        }
        if (m === 'SMS' && body_.length > 320) errors.push(`${at}.body length must be equal or less than 320`);
        if (m === 'MOBILE_APP' && subject === '') errors.push(`${at}.subject must not be empty`);
        templates[m] = { ...entry, enabled: entry.enabled !== false };
      }
    }
    if (errors.length) throw badRequest(`Validation error: ${errors.sort().join(', ')}`);
    return {
      id: '',
      tenantId: '',
      createdTime: 0,
      name,
      notificationType: String(type),
      configuration: { deliveryMethodsTemplates: templates },
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // REST: requests (SYS_ADMIN, TENANT_ADMIN)

  /** `POST /api/notification/request` (NotificationController L271-294, DefaultNotificationCenter L109-191). */
  send(caller: Caller, body: unknown): Obj {
    if (!isObj(body)) throw general('Required request body is missing');
    if (body.id !== undefined && body.id !== null)
      throw badRequest('Notification request cannot be updated. You may only cancel/delete it');
    // @Valid: the request's own fields, then the inline template's
    const errors: string[] = [];
    if (!Array.isArray(body.targets) || body.targets.length === 0) errors.push('targets must not be empty');
    let inline: SimTemplate | null = null;
    if (body.template !== undefined && body.template !== null) {
      try {
        inline = this.parseTemplate(body.template, 'template.');
      } catch (e) {
        const m = e instanceof ApiError && e.status === 400 ? /^Validation error: (.*)$/.exec(e.message) : null;
        if (!m) throw e;
        errors.push(...m[1].split(', '));
      }
    }
    const cfg = body.additionalConfig;
    let delay = 0;
    if (isObj(cfg) && cfg.sendingDelayInSec !== undefined && cfg.sendingDelayInSec !== null) {
      if (typeof cfg.sendingDelayInSec !== 'number' || !Number.isInteger(cfg.sendingDelayInSec))
        throw jsonParseError(
          `Cannot deserialize value of type \`int\` from ${JSON.stringify(cfg.sendingDelayInSec)}: not a valid int`,
        );
      delay = cfg.sendingDelayInSec;
      if (delay > MAX_DELAY_SEC) errors.push('additionalConfig.sendingDelayInSec cannot be longer than 1 week');
    }
    if (errors.length) throw badRequest(`Validation error: ${errors.sort().join(', ')}`);
    // targets are bare UUID strings (a JSON object there is Jackson's error)
    const targetIds = (body.targets as unknown[]).map((t) => {
      if (typeof t !== 'string')
        throw jsonParseError(
          `Cannot deserialize value of type \`java.util.UUID\` from ${isObj(t) ? 'Object value' : 'a non-string'}`,
        );
      try {
        return javaUuid(t, this.deps.versionAtLeast('4.4'));
      } catch {
        throw jsonParseError(`Cannot deserialize value of type \`java.util.UUID\` from String "${t}"`);
      }
    });
    // each target: READ permission (404 unknown, 403 another tenant's)
    const targets = targetIds.map((id) => this.ownTarget(caller, id));
    let templateId: string | null = null;
    if (isObj(body.templateId)) {
      const tid = body.templateId.id;
      if (typeof tid === 'string') templateId = tid;
    }
    // a saved template (found) wins over an inline one
    const saved = templateId !== null ? this.templates.get(templateId) : undefined;
    const template = saved && saved.tenantId === caller.tenantId ? saved : inline;
    if (!template) throw badRequest('Template is missing');
    if (targets.length === 0) throw badRequest('No recipients chosen');
    const enabled = enabledMethods(template);
    for (const m of enabled) {
      const problem = this.channelProblem(m);
      if (problem !== null) throw badRequest(problem);
      if (!targets.some((t) => SUPPORTED[t.configuration.type as TargetType]?.includes(m)))
        throw badRequest(`Recipients for ${METHOD_NAME[m]} delivery method not chosen`);
    }
    if (enabled.length === 0) throw badRequest('No delivery methods to send notification with');
    const r: SimRequest = {
      id: this.nextId(),
      tenantId: caller.tenantId,
      createdTime: this.deps.now(),
      targets: targets.map((t) => t.id),
      templateId: saved ? saved.id : null,
      template: saved ? null : { ...template, tenantId: caller.tenantId },
      additionalConfig: isObj(cfg) ? { sendingDelayInSec: delay } : null,
      originatorUserId: caller.userId,
      status: delay > 0 ? 'SCHEDULED' : 'PROCESSING',
      stats: null,
    };
    this.requests.set(r.id, r);
    if (delay > 0) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        if (!this.requests.has(r.id)) return;
        r.status = 'PROCESSING';
        this.schedule(r);
      }, delay * 1000);
      t.unref();
      this.timers.add(t);
    } else {
      this.schedule(r);
    }
    return this.requestJson(r);
  }

  /** Runs the delivery on the next turn, as the server's executor does (or keeps it while held). */
  private schedule(r: SimRequest): void {
    if (this.held) {
      this.waiting.push(r);
      return;
    }
    const t = setImmediate(() => {
      this.timers.delete(t);
      this.deliver(r);
    });
    this.timers.add(t);
  }

  /** Delivers a request to every recipient of its targets, then marks it SENT with its stats. */
  private deliver(r: SimRequest): void {
    if (!this.requests.has(r.id) || r.status === 'SENT') return;
    const template = this.templateOf(r);
    const stats: RequestStats = { sent: {}, errors: {}, totalErrors: 0, error: null };
    const done = new Set<string>();
    const methods = template ? enabledMethods(template) : [];
    for (const targetId of r.targets) {
      const target = this.targets.get(targetId);
      if (!target || !template) continue;
      const type = target.configuration.type as TargetType;
      const supported = methods.filter((m) => SUPPORTED[type]?.includes(m));
      if (supported.length === 0) continue;
      for (const rec of this.recipients(target, r.tenantId)) {
        for (const m of supported) {
          const key = `${m}:${rec.id}`;
          if (done.has(key)) continue; // already sent to this recipient by another target
          done.add(key);
          const entry = template.configuration.deliveryMethodsTemplates[m];
          const ctx: Record<string, string> = rec.user
            ? {
                recipientTitle: userTitle(rec.user),
                recipientEmail: rec.user.email,
                recipientFirstName: rec.user.firstName ?? '',
                recipientLastName: rec.user.lastName ?? '',
              }
            : {};
          const subject = typeof entry.subject === 'string' ? processTemplate(entry.subject, ctx) : null;
          const text = processTemplate(String(entry.body ?? ''), ctx);
          const failure = this.deliverOne(r, template, m, rec, subject, text);
          if (failure === null) stats.sent[m] = (stats.sent[m] ?? 0) + 1;
          else {
            const byTitle = (stats.errors[m] ??= {});
            if (Object.keys(byTitle).length < 100) byTitle[rec.title] = failure;
            stats.totalErrors++;
          }
        }
      }
    }
    r.status = 'SENT';
    r.stats = stats;
    this.emit('processed', this.requestJson(r, true));
  }

  /** One recipient by one method: null when sent, else the reason it failed. */
  private deliverOne(
    r: SimRequest,
    template: SimTemplate,
    m: DeliveryMethod,
    rec: Recipient,
    subject: string | null,
    text: string,
  ): string | null {
    switch (m) {
      case 'WEB':
        this.addNotification({
          recipientId: rec.id,
          subject,
          text,
          type: template.notificationType,
          requestId: r.id,
        });
        return null;
      case 'EMAIL':
        if (!rec.user) return 'Unsupported recipient';
        this.outbox.push({ requestId: r.id, method: m, to: rec.user.email, subject, body: text });
        return null;
      case 'SMS':
        return 'User does not have phone number';
      case 'MOBILE_APP':
        return "User doesn't use the mobile app";
      default:
        this.outbox.push({ requestId: r.id, method: m, to: rec.title, subject, body: text });
        return null;
    }
  }

  /** The recipients of a target: platform users by their filter, or the Slack conversation / Teams channel. */
  private recipients(target: SimTarget, tenantId: string): Recipient[] {
    const c = target.configuration;
    if (c.type === 'SLACK') {
      const conv = isObj(c.conversation) ? c.conversation : {};
      const name = typeof conv.name === 'string' ? conv.name : String(conv.id ?? 'conversation');
      return [{ id: `slack:${String(conv.id ?? name)}`, title: name }];
    }
    if (c.type === 'MICROSOFT_TEAMS') {
      const name = typeof c.channelName === 'string' ? c.channelName : String(c.webhookUrl ?? 'channel');
      return [{ id: `teams:${String(c.webhookUrl ?? name)}`, title: name }];
    }
    const f = isObj(c.usersFilter) ? c.usersFilter : {};
    const users = this.deps.users.filter((u) => u.tenantId === tenantId || u.authority === 'SYS_ADMIN');
    let list: UserAccount[];
    switch (f.type) {
      case 'USER_LIST': {
        const ids = Array.isArray(f.usersIds) ? f.usersIds : [];
        list = users.filter((u) => ids.includes(u.userId));
        break;
      }
      case 'CUSTOMER_USERS':
        list = users.filter((u) => u.authority === 'CUSTOMER_USER' && u.customerId === f.customerId);
        break;
      case 'TENANT_ADMINISTRATORS':
        list = users.filter((u) => u.authority === 'TENANT_ADMIN' && u.tenantId === tenantId);
        break;
      case 'SYSTEM_ADMINISTRATORS':
        list = users.filter((u) => u.authority === 'SYS_ADMIN');
        break;
      case 'ALL_USERS':
        list = users.filter((u) => u.authority !== 'SYS_ADMIN' && u.tenantId === tenantId);
        break;
      default:
        // the filters of notification rules (affected users, the originator's owners) resolve to nobody here
        list = [];
    }
    return list.map((u) => ({ id: u.userId, title: userTitle(u), user: u }));
  }

  /** `GET /api/notification/request/{id}`: NotificationRequestInfo. */
  getRequest(caller: Caller, idText: string): Obj {
    return this.requestJson(this.ownRequest(caller, idText), true);
  }

  private ownRequest(caller: Caller, idText: string): SimRequest {
    const id = this.uuid(idText, 'id');
    const r = this.requests.get(id);
    if (!r) throw new ApiError(404, 32, `Notification request with id [${id}] is not found`);
    if (r.tenantId !== caller.tenantId) throw forbidden();
    return r;
  }

  /** `GET /api/notification/requests`: requests sent by users, textSearch on the template's name. */
  listRequests(caller: Caller, params: URLSearchParams): PageData<Obj> {
    const p = pageLink(params);
    validatePageLink(p);
    const matches = containsIlike(p.textSearch);
    const rows = [...this.requests.values()]
      .filter((r) => r.tenantId === caller.tenantId && matches(this.templateOf(r)?.name ?? ''))
      .sort((a, b) => b.createdTime - a.createdTime);
    return toPage(
      rows.map((r) => this.requestJson(r, true)),
      p,
    );
  }

  /** `DELETE /api/notification/request/{id}`: a sent one goes with its notifications; a scheduled one is cancelled. */
  deleteRequest(caller: Caller, idText: string): void {
    const r = this.ownRequest(caller, idText);
    this.requests.delete(r.id);
    if (r.status === 'SCHEDULED') return;
    let any = false;
    for (const [id, n] of this.notifications) {
      if (n.requestId === r.id) {
        this.notifications.delete(id);
        any = true;
      }
    }
    if (any) this.emitInbox({ kind: 'request', tenantId: r.tenantId });
  }
}

interface Recipient {
  id: string;
  title: string;
  user?: UserAccount;
}

type NodeDeps = NotificationDeps;

/** The template's enabled delivery methods, in the enum's order. */
function enabledMethods(t: SimTemplate): DeliveryMethod[] {
  const dmt = t.configuration.deliveryMethodsTemplates;
  return DELIVERY_METHODS.filter((m) => dmt[m] && dmt[m].enabled !== false);
}

function nonEmpty(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

function sortRows<T extends { name: string; createdTime: number }>(
  rows: T[],
  sort: { property: string; direction: 'ASC' | 'DESC' } | null,
): T[] {
  const out = rows.slice();
  if (!sort) return out.sort((a, b) => a.createdTime - b.createdTime);
  const key = (r: T): string | number => (sort.property === 'name' ? r.name : r.createdTime);
  out.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return sort.direction === 'DESC' ? -c : c;
  });
  return out;
}
