/**
 * ThingsBoard's notification center on the wire (3.5+): the delivery methods, what a target, a template, a request
 * and a notification look like, the body of `POST /api/notification/request` (targets as bare UUID strings, a saved
 * template as an EntityId object, an inline template complete with its name, type and each entry's `method`), the
 * length limits the server checks, and where a message holds a notification to mark read. No I/O, no Node-RED.
 */
import { TbInputError } from '../errors';
import type { EntityId } from './types';
import { describe, got, isObject, UUID_PATTERN } from './validate';

/** `NotificationDeliveryMethod`, in the server's order. */
export const DELIVERY_METHODS = ['WEB', 'EMAIL', 'SMS', 'SLACK', 'MICROSOFT_TEAMS', 'MOBILE_APP'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/**
 * The delivery methods a message written in the node's dialog can use: those that reach the platform's users
 * (Slack and Teams messages go to a conversation or a channel, whose target a tenant sets up in ThingsBoard, and
 * take their own template there).
 */
export const TEXT_METHODS = ['WEB', 'EMAIL', 'SMS', 'MOBILE_APP', 'SLACK', 'MICROSOFT_TEAMS'] as const;

/** What each method's entry of a template needs (`*DeliveryMethodNotificationTemplate`): a subject, and limits. */
export const METHOD_LIMITS: Readonly<
  Record<DeliveryMethod, { subject: boolean; subjectMax?: number; bodyMax?: number }>
> = {
  WEB: { subject: true, subjectMax: 150, bodyMax: 250 },
  EMAIL: { subject: true, subjectMax: 250 },
  SMS: { subject: false, bodyMax: 320 },
  SLACK: { subject: false },
  MICROSOFT_TEAMS: { subject: true },
  MOBILE_APP: { subject: true },
};

/** The name an inline template is sent with: the server validates it (`@NotEmpty`) but never saves it. */
export const INLINE_TEMPLATE_NAME = 'Node-RED';

export type TargetType = 'PLATFORM_USERS' | 'SLACK' | 'MICROSOFT_TEAMS';

/** The methods a target of each type can carry (`NotificationTargetType.getSupportedDeliveryMethods()`). */
export const TARGET_METHODS: Readonly<Record<TargetType, readonly DeliveryMethod[]>> = {
  PLATFORM_USERS: ['WEB', 'EMAIL', 'SMS', 'MOBILE_APP'],
  SLACK: ['SLACK'],
  MICROSOFT_TEAMS: ['MICROSOFT_TEAMS'],
};

export interface NotificationTarget {
  id: EntityId;
  name: string;
  configuration: { type: TargetType | string; description?: string } & Record<string, unknown>;
}

export interface DeliveryMethodTemplate {
  method: DeliveryMethod;
  enabled: boolean;
  subject?: string;
  body: string;
}

export interface NotificationTemplate {
  id?: EntityId | null;
  name: string;
  notificationType: string;
  configuration: { deliveryMethodsTemplates: Partial<Record<DeliveryMethod, DeliveryMethodTemplate>> };
}

export interface NotificationRequestStats {
  sent: Partial<Record<DeliveryMethod, number>>;
  errors: Partial<Record<DeliveryMethod, Record<string, string>>>;
  totalErrors: number;
  error: string | null;
}

/** `NotificationRequestInfo` (the request's GET) or the `NotificationRequest` the send answers. */
export interface NotificationRequestInfo {
  id: EntityId;
  createdTime?: number;
  status: 'PROCESSING' | 'SENT' | 'SCHEDULED' | string;
  stats: NotificationRequestStats | null;
  templateName?: string | null;
  deliveryMethods?: DeliveryMethod[];
}

/** A notification of a user's inbox (`Notification`). */
export interface Notification {
  id: EntityId;
  createdTime: number;
  requestId?: EntityId | null;
  recipientId?: EntityId;
  type: string;
  deliveryMethod?: string;
  subject: string | null;
  text: string;
  additionalConfig?: unknown;
  info?: unknown;
  status: 'SENT' | 'READ' | string;
}

/** The body of `POST /api/notification/request`. */
export interface SendBody {
  /** bare UUID strings, not EntityId objects */
  targets: string[];
  templateId?: { entityType: 'NOTIFICATION_TEMPLATE'; id: string };
  template?: NotificationTemplate;
}

const UUID_RE = new RegExp(UUID_PATTERN);

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** A UUID, trimmed; undefined for anything else. */
export function uuidOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return UUID_RE.test(t) ? t : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// What a node names: targets, a template, delivery methods
// ---------------------------------------------------------------------------------------------------------------

/** A target or template as a node names it: its id, or its name (resolved by the client). */
export type NamedRef = { id: string } | { name: string };

/**
 * The targets a node sends to: a list of names or ids (an array, or a comma-separated text), or target objects as
 * ThingsBoard answers them (`{id: {id}, name}`). At least one.
 */
export function prepareTargetRefs(v: unknown, field: string): NamedRef[] {
  const shapes = 'the targets: their names or ids, as a list or separated by commas';
  let items: unknown[];
  if (typeof v === 'string') items = v.split(',');
  else if (Array.isArray(v)) items = v;
  else if (isObject(v)) items = [v];
  else return fail(field, `${field} must name ${shapes} ${got(v)}`);
  const out: NamedRef[] = [];
  items.forEach((item, i) => {
    const at = Array.isArray(v) ? `${field}[${i}]` : field;
    const r = namedRef(item, at, 'target');
    if (r) out.push(r);
  });
  if (out.length === 0) fail(field, `${field} must name ${shapes} (${v === '' ? 'it is empty' : 'none given'})`);
  return out;
}

/** One template, target: a UUID, a name, `{id}` / `{id: {id}}` (with an entity type of that kind, if any). */
export function namedRef(v: unknown, field: string, what: 'target' | 'template'): NamedRef | undefined {
  if (typeof v === 'string') {
    const t = v.trim();
    if (t === '') return undefined;
    const id = uuidOf(t);
    return id ? { id } : { name: t };
  }
  if (isObject(v)) {
    const entityType = what === 'target' ? 'NOTIFICATION_TARGET' : 'NOTIFICATION_TEMPLATE';
    const idObj = isObject(v.id) ? v.id : undefined;
    const et = idObj ? idObj.entityType : v.entityType;
    if (et != null && et !== entityType)
      fail(field, `${field} must be a notification ${what}; this is a ${describe(et)}`);
    const id = uuidOf(idObj ? idObj.id : v.id);
    if (id) return { id };
    if (typeof v.name === 'string' && v.name.trim() !== '') return { name: v.name.trim() };
  }
  return fail(field, `${field} must be a notification ${what}'s name or id ${got(v)}`);
}

/** A comma-separated list of delivery methods (upper case), each known; at least one. */
export function prepareMethods(v: unknown, field: string): DeliveryMethod[] {
  const names = (typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : [v]).map((x) =>
    typeof x === 'string' ? x.trim() : x,
  );
  const out: DeliveryMethod[] = [];
  for (const n of names) {
    if (n === '') continue;
    if (typeof n !== 'string' || !(DELIVERY_METHODS as readonly string[]).includes(n.toUpperCase()))
      fail(field, `${field} must list delivery methods among ${DELIVERY_METHODS.join(', ')} ${got(n)}`);
    const m = n.toUpperCase() as DeliveryMethod;
    if (!out.includes(m)) out.push(m);
  }
  if (out.length === 0) fail(field, `${field} must list at least one delivery method, such as WEB (it is empty)`);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------------------------------

/**
 * A complete inline template for a subject and a text written in the node's dialog: one entry per method, each
 * with its `method` (Jackson's type id), `enabled`, the subject where the method has one, and the text as its body.
 * The server checks every limit; they are checked here first, so that nothing is sent that the server would refuse,
 * and the error names the field.
 */
export function inlineTemplate(
  subject: string,
  text: string,
  methods: readonly DeliveryMethod[],
  fields: { subject: string; text: string } = { subject: 'subject', text: 'text' },
): NotificationTemplate {
  if (text.trim() === '')
    fail(fields.text, `Write the notification's text in the node, or send it in msg.payload (${fields.text} is empty)`);
  const entries: Partial<Record<DeliveryMethod, DeliveryMethodTemplate>> = {};
  for (const m of methods) {
    const lim = METHOD_LIMITS[m];
    const entry: DeliveryMethodTemplate = { method: m, enabled: true, body: text };
    if (lim.subject) {
      if (subject.trim() === '')
        fail(
          fields.subject,
          `Write a subject in the node, or send it in msg.topic: ${m} notifications need one (${fields.subject} is ` +
            'empty)',
        );
      if (lim.subjectMax !== undefined && subject.length > lim.subjectMax)
        fail(
          fields.subject,
          `Shorten ${fields.subject} to ${lim.subjectMax} characters for ${m} notifications (it has ${subject.length})`,
        );
      entry.subject = subject;
    }
    if (lim.bodyMax !== undefined && text.length > lim.bodyMax)
      fail(
        fields.text,
        `Shorten ${fields.text} to ${lim.bodyMax} characters for ${m} notifications (it has ${text.length})`,
      );
    entries[m] = entry;
  }
  return {
    name: INLINE_TEMPLATE_NAME,
    notificationType: 'GENERAL',
    configuration: { deliveryMethodsTemplates: entries },
  };
}

/** The body of `POST /api/notification/request`: targets as bare UUIDs, a saved template as an EntityId object. */
export function sendBody(targetIds: readonly string[], template: { id: string } | NotificationTemplate): SendBody {
  const body: SendBody = { targets: [...targetIds] };
  if ('id' in template && typeof template.id === 'string')
    body.templateId = { entityType: 'NOTIFICATION_TEMPLATE', id: template.id };
  else body.template = template as NotificationTemplate;
  return body;
}

/** The enabled methods of a saved template, in the server's order. */
export function templateMethods(t: Pick<NotificationTemplate, 'configuration'>): DeliveryMethod[] {
  const dmt = t.configuration?.deliveryMethodsTemplates ?? {};
  return DELIVERY_METHODS.filter((m) => {
    const e = dmt[m];
    return !!e && e.enabled !== false;
  });
}

/** Is a request done with (its stats final, or never coming: SCHEDULED sends later)? */
export function requestSettled(r: Pick<NotificationRequestInfo, 'status'>): boolean {
  return r.status === 'SENT' || r.status === 'SCHEDULED';
}

/** What the node outputs for a request: its id, status, stats and, when known, the template's name and methods. */
export interface RequestResult {
  id: string;
  status: string;
  stats: NotificationRequestStats | null;
  sent: number | null;
  failed: number | null;
  templateName?: string | null;
  deliveryMethods?: DeliveryMethod[];
}

export function requestResult(r: NotificationRequestInfo): RequestResult {
  const stats = r.stats && isObject(r.stats) ? r.stats : null;
  const sent = stats ? Object.values(stats.sent ?? {}).reduce((a, b) => a + (typeof b === 'number' ? b : 0), 0) : null;
  const out: RequestResult = {
    id: r.id.id,
    status: r.status,
    stats,
    sent,
    failed: stats ? (typeof stats.totalErrors === 'number' ? stats.totalErrors : 0) : null,
  };
  if (r.templateName !== undefined) out.templateName = r.templateName;
  if (r.deliveryMethods !== undefined) out.deliveryMethods = r.deliveryMethods;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// A notification of the inbox
// ---------------------------------------------------------------------------------------------------------------

const NOTIFICATION_SHAPES =
  'a notification id: a UUID, {"entityType": "NOTIFICATION", "id": "<uuid>"}, or a notification as the subscribe ' +
  'node sends it';

/** The notification's UUID from a UUID, an id object, or a notification in the flat or the raw form. */
export function prepareNotificationId(v: unknown, field: string): string {
  const direct = uuidOf(v);
  if (direct) return direct;
  if (isObject(v)) {
    const idObj = isObject(v.id) ? v.id : undefined;
    const et = idObj ? idObj.entityType : v.entityType;
    if (et != null && et !== 'NOTIFICATION')
      fail(field, `${field} must be ${NOTIFICATION_SHAPES}; this is a ${describe(et)}`);
    const id = uuidOf(idObj ? idObj.id : v.id);
    if (id) return id;
  }
  return fail(field, `${field} must be ${NOTIFICATION_SHAPES} ${got(v)}`);
}

/** The notification a message names: `msg.payload` (an id, or a notification), else `msg.topic`. */
export function notificationIdFromMessage(msg: { payload?: unknown; topic?: unknown }): string {
  const p = msg.payload;
  const t = msg.topic;
  if ((isObject(p) && p.id != null) || uuidOf(p)) return prepareNotificationId(p, 'msg.payload');
  if (uuidOf(t)) return prepareNotificationId(t, 'msg.topic');
  if (p === undefined || p === null || p === '')
    fail('msg.payload', 'Send the notification, or its id, in msg.payload (msg.payload and msg.topic are empty)');
  return prepareNotificationId(p, 'msg.payload');
}

/** A notification as the subscribe node sends it in the flat format: ids as strings, the rest as it is. */
export function flattenNotification(n: Notification): Record<string, unknown> {
  return {
    id: n.id?.id,
    subject: n.subject ?? null,
    text: n.text,
    type: n.type,
    status: n.status,
    createdTime: n.createdTime,
    deliveryMethod: n.deliveryMethod ?? 'WEB',
    requestId: n.requestId?.id ?? null,
    info: n.info ?? null,
  };
}
