/**
 * The HTTP front of the simulator: routing of the ThingsBoard REST endpoints (auth, queries, key discovery),
 * fault injection, artificial latency, the request log, and the unauthenticated `/__sim/…` control API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AlarmActions } from './alarm-actions';
import type { AuthService, Principal } from './auth';
import { versionAtLeast } from './auth';
import type { ControlApi } from './control';
import type { Dataset } from './dataset';
import type { EntityService, ManagedType } from './entities';
import { ApiError, forbidden, jsonParseError, PlainError, SpringError, general } from './errors';
import type { GenericApi } from './generic';
import { defaultFaultBody, type Fault, type Faults, type RequestLog } from './hooks';
import { alarmTypes, entityTypes, profileInfos, profileNames, systemInfo } from './lookups';
import type { NotificationCenter } from './notifications';
import { springBool } from './params';
import type { AlarmQueryEngine } from './query/alarms';
import type { EntityQueryEngine } from './query/entities';
import { findKeysV1, findKeysV2 } from './query/keys';
import { parseAlarmCountQuery, parseAlarmDataQuery, parseEntityCountQuery, parseEntityDataQuery } from './query/parse';
import { RelationsApi } from './relations';
import type { RpcService } from './rpc';
import type { RuleEngineService } from './rule-engine';
import type { TelemetryApi } from './telemetry';
import { ATTRIBUTE_SCOPES, type AttributeScope, type Authority, type Caller } from './types';

/** What the HTTP front needs from the simulator. */
export interface FrontContext {
  readonly data: Dataset;
  readonly auth: AuthService;
  readonly faults: Faults;
  readonly requests: RequestLog;
  readonly entityQuery: EntityQueryEngine;
  readonly alarmQuery: AlarmQueryEngine;
  readonly control: ControlApi;
  readonly telemetry: TelemetryApi;
  readonly rpc: RpcService;
  readonly generic: GenericApi;
  readonly ruleEngine: RuleEngineService;
  readonly entities: EntityService;
  readonly notifications: NotificationCenter;
  now(): number;
  latencyMs(): number;
  version(): string;
}

export interface Req {
  method: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  principal: Principal | null;
  /** the `{variables}` of a pattern route, URL-decoded */
  params?: string[];
}

export interface Result {
  status: number;
  /** undefined = empty body; a string is sent as text only when `text` is set */
  body?: unknown;
  text?: boolean;
  /** an already serialised JSON body */
  json?: string;
  /** a body of bytes (a file), sent with `headers` as they are */
  bytes?: Buffer;
  /** with `text`: the Content-Type (default `text/plain;charset=UTF-8`) */
  contentType?: string;
  headers?: Record<string, string>;
}

/** A handler answers synchronously, or later (the RPC routes wait for the device). */
type Handler = (r: Req) => Result | Promise<Result>;

interface Route {
  auth: boolean;
  /** allowed authorities; undefined = any authenticated principal */
  authorities?: readonly Authority[];
  /** endpoint exists only from this server version */
  since?: string;
  handler: Handler;
}

const ALL_USERS: readonly Authority[] = ['SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'];
const TENANT_AND_CUSTOMER: readonly Authority[] = ['TENANT_ADMIN', 'CUSTOMER_USER'];
const MAX_BODY = 16 * 1024 * 1024;
/**
 * `server.http.max_payload_size` (YML): the first pattern that matches the path wins. The filter reads only the
 * declared Content-Length (`PayloadSizeFilter.java`), so a chunked body passes it.
 */
const PAYLOAD_LIMITS: ReadonlyArray<[RegExp, number]> = [
  [/^\/api\/image[^/]*(\/|$)/, 52428800],
  [/^\/api\/resource(\/|$)/, 52428800],
  [/^\/api\//, 16777216],
];
const SPRING_ERRORS: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed' };

function requiredBool(params: URLSearchParams, name: string): boolean {
  const v = params.get(name);
  if (v === null)
    throw general(`Required request parameter '${name}' for method parameter type boolean is not present`);
  return springBool(v, name);
}

function parseScope(v: string): AttributeScope {
  if ((ATTRIBUTE_SCOPES as readonly string[]).includes(v)) return v as AttributeScope;
  throw general(
    "Failed to convert value of type 'java.lang.String' to required type " +
      `'org.thingsboard.server.common.data.AttributeScope'; No enum constant ${v}`,
  );
}

export class HttpFront {
  private readonly routes = new Map<string, Map<string, Route>>();
  /** routes with a path parameter at the end: `prefix` + one segment */
  private readonly prefixRoutes: { method: string; prefix: string; route: Route }[] = [];
  /** routes with `{variables}` anywhere (segments; null = a variable), most literal segments first */
  private readonly patternRoutes: { method: string; segments: (string | null)[]; route: Route }[] = [];
  private readonly alarmActions: AlarmActions;
  private readonly relations: RelationsApi;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly versionMemo = new Map<string, boolean>();
  private stopped = false;

  constructor(private readonly ctx: FrontContext) {
    this.alarmActions = new AlarmActions({
      data: ctx.data,
      now: () => ctx.now(),
      version: () => ctx.version(),
      versionAtLeast: (min) => versionAtLeast(ctx.version(), min),
      authorityOf: (userId) => ctx.auth.users.find((u) => u.userId === userId)?.authority ?? null,
    });
    this.relations = new RelationsApi({
      data: ctx.data,
      versionAtLeast: (min) => versionAtLeast(ctx.version(), min),
      authorityOf: (userId) => ctx.auth.users.find((u) => u.userId === userId)?.authority ?? null,
    });
    this.defineRoutes();
    this.defineRelationRoutes();
  }

  /** Relations (`C/EntityRelationController.java`): save, delete, get, lists, the relations query. */
  private defineRelationRoutes(): void {
    const rel = this.relations;
    const q = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const answer = (out: unknown): Result => (out === undefined ? { status: 200 } : { status: 200, body: out });
    const route = (method: string, path: string, body: (r: Req) => unknown, since?: string): void =>
      this.add(method, path, { auth: true, authorities: ALL_USERS, since, handler: (r) => answer(body(r)) });
    route('POST', '/api/relation', (r) => rel.save(this.caller(r), this.json(r), false));
    route('POST', '/api/v2/relation', (r) => rel.save(this.caller(r), this.json(r), true), '3.8');
    route('DELETE', '/api/relation', (r) => rel.remove(this.caller(r), q(r), false));
    route('DELETE', '/api/v2/relation', (r) => rel.remove(this.caller(r), q(r), true), '3.8');
    route('GET', '/api/relation', (r) => rel.get(this.caller(r), q(r)));
    route('DELETE', '/api/relations', (r) => rel.removeAll(this.caller(r), q(r)));
    route('GET', '/api/relations', (r) => rel.list(this.caller(r), q(r), false));
    route('GET', '/api/relations/info', (r) => rel.list(this.caller(r), q(r), true));
    route('POST', '/api/relations', (r) => rel.query(this.caller(r), this.json(r), false));
    route('POST', '/api/relations/info', (r) => rel.query(this.caller(r), this.json(r), true));
  }

  /** Accepts requests again (after a stop, on the next start). */
  resume(): void {
    this.stopped = false;
  }

  /** Cancels pending latency timers (on stop). */
  shutdown(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private add(method: string, path: string, route: Route): void {
    let m = this.routes.get(path);
    if (!m) {
      m = new Map();
      this.routes.set(path, m);
    }
    m.set(method, route);
  }

  /** A route whose path has `{variables}` (Spring's path patterns; each variable is one segment). */
  private addPattern(method: string, pattern: string, route: Route): void {
    const segments = pattern.split('/').map((x) => (x.startsWith('{') && x.endsWith('}') ? null : x));
    this.patternRoutes.push({ method, segments, route });
    const literals = (x: { segments: (string | null)[] }): number => x.segments.filter((g) => g !== null).length;
    this.patternRoutes.sort((a, b) => literals(b) - literals(a));
  }

  /** The body for the auth endpoints: unreadable or empty is `undefined` ("Authentication failed" there). */
  private lenientJson(r: Req): unknown {
    try {
      return r.body.length ? JSON.parse(r.body.toString('utf8')) : undefined;
    } catch {
      return undefined;
    }
  }

  private json(r: Req): unknown {
    if (r.body.length === 0) throw general('Required request body is missing');
    try {
      return JSON.parse(r.body.toString('utf8'));
    } catch (e) {
      throw jsonParseError((e as Error).message);
    }
  }

  private caller(r: Req): Caller {
    const p = r.principal as Principal;
    return { authority: p.authority as Authority, userId: p.userId, tenantId: p.tenantId, customerId: p.customerId };
  }

  private defineRoutes(): void {
    const c = this.ctx;
    this.add('POST', '/api/auth/login', {
      auth: false,
      handler: (r) => ({ status: 200, body: c.auth.login(this.lenientJson(r)) }),
    });
    this.add('POST', '/api/auth/token', {
      auth: false,
      handler: (r) => ({ status: 200, body: c.auth.refresh(this.lenientJson(r)) }),
    });
    this.add('POST', '/api/auth/logout', {
      auth: true,
      handler: (r) => {
        c.auth.logout(r.principal as Principal);
        return { status: 200 };
      },
    });
    this.add('GET', '/api/auth/user', {
      auth: true,
      authorities: ALL_USERS,
      handler: (r) => {
        const p = r.principal as Principal;
        const e = c.data.get(p.userId);
        const acc = c.auth.users.find((u) => u.userId === p.userId);
        return {
          status: 200,
          body: {
            id: { entityType: 'USER', id: p.userId },
            createdTime: e?.createdTime ?? 0,
            tenantId: { entityType: 'TENANT', id: p.tenantId },
            customerId: { entityType: 'CUSTOMER', id: p.customerId ?? '13814000-1dd2-11b2-8080-808080808080' },
            email: acc?.email ?? e?.name ?? '',
            authority: p.authority,
            firstName: acc?.firstName ?? null,
            lastName: acc?.lastName ?? null,
            name: acc?.email ?? e?.name ?? '',
          },
        };
      },
    });
    this.add('POST', '/api/entitiesQuery/find', {
      auth: true,
      authorities: ALL_USERS,
      handler: (r) => ({
        status: 200,
        json: c.entityQuery.findJson(this.caller(r), parseEntityDataQuery(this.json(r)), c.now()),
      }),
    });
    this.add('POST', '/api/entitiesQuery/count', {
      auth: true,
      authorities: ALL_USERS,
      handler: (r) => ({ status: 200, body: c.entityQuery.count(this.caller(r), parseEntityCountQuery(this.json(r))) }),
    });
    this.add('POST', '/api/alarmsQuery/find', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      handler: (r) => ({
        status: 200,
        body: c.alarmQuery.find(this.caller(r), parseAlarmDataQuery(this.json(r)), c.now()),
      }),
    });
    this.add('POST', '/api/alarmsQuery/count', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      since: '3.5',
      handler: (r) => ({
        status: 200,
        body: c.alarmQuery.count(this.caller(r), parseAlarmCountQuery(this.json(r)), c.now()),
      }),
    });
    this.add('POST', '/api/entitiesQuery/find/keys', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      since: '3.4',
      handler: (r) => {
        const params = new URLSearchParams(r.query);
        const timeseries = requiredBool(params, 'timeseries');
        const attributes = requiredBool(params, 'attributes');
        const scopeParam = params.get('scope');
        const scope = scopeParam ? parseScope(scopeParam) : null;
        const q = parseEntityDataQuery(this.json(r));
        return {
          status: 200,
          body: findKeysV1(c.data, c.entityQuery, this.caller(r), q, { timeseries, attributes, scope }),
        };
      },
    });
    this.add('POST', '/api/v2/entitiesQuery/find/keys', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      since: '4.3.1.2',
      handler: (r) => {
        const params = new URLSearchParams(r.query);
        const flag = (name: string, dflt: boolean): boolean => {
          const v = params.get(name);
          return v === null ? dflt : springBool(v, name);
        };
        const scopes = params
          .getAll('scopes')
          .flatMap((s) => s.split(','))
          .map((s) => s.trim())
          .filter((s) => s !== '')
          .map(parseScope);
        const q = parseEntityDataQuery(this.json(r));
        return {
          status: 200,
          body: findKeysV2(c.data, c.entityQuery, this.caller(r), q, {
            includeTimeseries: flag('includeTimeseries', true),
            includeAttributes: flag('includeAttributes', true),
            scopes: scopes.length > 0 ? scopes : null,
            includeSamples: flag('includeSamples', false),
          }),
        };
      },
    });
    this.defineLookupRoutes();
    this.defineAlarmActionRoutes();
    this.defineDeviceRoutes();
    this.defineGenericRoutes();
    this.defineRuleEngineRoutes();
    this.defineEntityRoutes();
    this.defineNotificationRoutes();
  }

  /** A few platform endpoints outside the package's own business, for the generic REST node (sim/generic.ts). */
  private defineGenericRoutes(): void {
    const g = this.ctx.generic;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const q = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const noted =
      (handler: Handler): Handler =>
      (r) => {
        g.note(r.method, r.path, r.headers['x-authorization'] !== undefined || r.headers.authorization !== undefined);
        return handler(r);
      };
    const route = (
      method: string,
      pattern: string,
      authorities: readonly Authority[],
      since: string | undefined,
      h: Handler,
    ): void => this.addPattern(method, pattern, { auth: true, authorities, since, handler: noted(h) });
    const admins: readonly Authority[] = ['SYS_ADMIN', 'TENANT_ADMIN'];
    this.add('GET', '/api/audit/logs', {
      auth: true,
      authorities: admins,
      handler: noted((r) => ({ status: 200, body: g.auditLogPage(this.caller(r), q(r)) })),
    });
    route('GET', '/api/audit/logs/entity/{entityType}/{entityId}', admins, undefined, (r) => ({
      status: 200,
      body: g.auditLogPage(this.caller(r), q(r), g.auditLogScope('entity', [p(r, 0), p(r, 1)])),
    }));
    route('GET', '/api/audit/logs/customer/{customerId}', ['TENANT_ADMIN'], undefined, (r) => ({
      status: 200,
      body: g.auditLogPage(this.caller(r), q(r), g.auditLogScope('customer', [p(r, 0)])),
    }));
    route('GET', '/api/audit/logs/user/{userId}', ['TENANT_ADMIN'], undefined, (r) => ({
      status: 200,
      body: g.auditLogPage(this.caller(r), q(r), g.auditLogScope('user', [p(r, 0)])),
    }));
    this.add('GET', '/api/otaPackages', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      since: '3.3',
      handler: noted((r) => ({ status: 200, body: g.otaPackagePage(this.caller(r), q(r)) })),
    });
    route('GET', '/api/otaPackage/info/{otaPackageId}', TENANT_AND_CUSTOMER, '3.3', (r) => ({
      status: 200,
      body: g.otaPackageInfo(this.caller(r), p(r, 0)),
    }));
    route('GET', '/api/otaPackage/{otaPackageId}/download', ['TENANT_ADMIN'], '3.3', (r) => {
      const d = g.otaDownload(this.caller(r), p(r, 0));
      return { status: d.status, bytes: d.bytes, headers: d.headers };
    });
    route('GET', '/api/customer/{customerId}/title', TENANT_AND_CUSTOMER, undefined, (r) => ({
      status: 200,
      body: g.customerTitle(this.caller(r), p(r, 0)),
      text: true,
      contentType: 'application/text;charset=UTF-8',
    }));
    this.add('GET', '/api/noauth/userPasswordPolicy', {
      auth: false,
      handler: noted(() => ({ status: 200, body: g.passwordPolicy() })),
    });
  }

  /**
   * Devices, assets, customers and entity views: save (create or update), get, by name, delete, assign, unassign, a
   * device's credentials (`C/DeviceController.java`, `C/AssetController.java`, `C/CustomerController.java`,
   * `C/EntityViewController.java`; sim/entities.ts).
   */
  private defineEntityRoutes(): void {
    const en = this.ctx.entities;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const q = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const ok = (body: unknown): Result => ({ status: 200, body });
    const route = (method: string, pattern: string, authorities: readonly Authority[], h: Handler, since?: string) =>
      pattern.includes('{')
        ? this.addPattern(method, pattern, { auth: true, authorities, since, handler: h })
        : this.add(method, pattern, { auth: true, authorities, since, handler: h });
    const TENANT: readonly Authority[] = ['TENANT_ADMIN'];
    const kinds: [ManagedType, string, string, string][] = [
      ['DEVICE', 'device', 'devices', 'deviceName'],
      ['ASSET', 'asset', 'assets', 'assetName'],
      ['CUSTOMER', 'customer', 'customers', 'customerTitle'],
      ['ENTITY_VIEW', 'entityView', 'entityViews', 'entityViewName'],
    ];
    for (const [type, one, many, param] of kinds) {
      // customers are saved by tenant administrators only; the others also by customer users (update only)
      route('POST', `/api/${one}`, type === 'CUSTOMER' ? TENANT : TENANT_AND_CUSTOMER, (r) =>
        ok(en.save(this.caller(r), type, this.json(r), q(r))),
      );
      route('GET', `/api/${one}/{id}`, TENANT_AND_CUSTOMER, (r) => ok(en.get(this.caller(r), type, p(r, 0))));
      route('DELETE', `/api/${one}/{id}`, TENANT, (r) => {
        en.remove(this.caller(r), type, p(r, 0));
        return { status: 200 };
      });
      route('GET', `/api/tenant/${many}`, TENANT, (r) => ok(en.byName(this.caller(r), type, q(r).get(param))));
      if (type !== 'CUSTOMER') {
        route(
          'GET',
          `/api/tenant/${one}`,
          TENANT,
          (r) => ok(en.byName(this.caller(r), type, q(r).get(param))),
          '4.3.1.2',
        );
        route('POST', `/api/customer/{customerId}/${one}/{id}`, TENANT, (r) =>
          ok(en.assign(this.caller(r), type, p(r, 0), p(r, 1))),
        );
        route('DELETE', `/api/customer/${one}/{id}`, TENANT, (r) => ok(en.unassign(this.caller(r), type, p(r, 0))));
      }
    }
    route('GET', '/api/device/{id}/credentials', TENANT_AND_CUSTOMER, (r) =>
      ok(en.getCredentials(this.caller(r), p(r, 0))),
    );
    route('POST', '/api/device/credentials', TENANT, (r) => ok(en.saveCredentials(this.caller(r), this.json(r))));
  }

  /**
   * The rule engine (`C/RuleEngineController.java`, since 3.8). The calling user's path is `/api/rule-engine/` with
   * its trailing slash: Spring matches the pattern exactly, so `/api/rule-engine` is an unknown path (404).
   */
  private defineRuleEngineRoutes(): void {
    const re = this.ctx.ruleEngine;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const since = '3.8';
    this.add('POST', '/api/rule-engine/', {
      auth: true,
      authorities: ALL_USERS,
      since,
      handler: (r) => re.handle(this.caller(r), null, null, null, null, r.body),
    });
    const route = (pattern: string, handler: Handler): void =>
      this.addPattern('POST', pattern, { auth: true, authorities: ALL_USERS, since, handler });
    const R = '/api/rule-engine';
    route(`${R}/{entityType}/{entityId}`, (r) => re.handle(this.caller(r), p(r, 0), p(r, 1), null, null, r.body));
    route(`${R}/{entityType}/{entityId}/{timeout}`, (r) =>
      re.handle(this.caller(r), p(r, 0), p(r, 1), null, p(r, 2), r.body),
    );
    route(`${R}/{entityType}/{entityId}/{queueName}/{timeout}`, (r) =>
      re.handle(this.caller(r), p(r, 0), p(r, 1), p(r, 2), p(r, 3), r.body),
    );
  }

  /**
   * The notification center (3.5+): targets, templates and requests for SYS_ADMIN and TENANT_ADMIN, the current
   * user's inbox for every authority (C/NotificationController.java, NotificationTargetController.java,
   * NotificationTemplateController.java).
   */
  private defineNotificationRoutes(): void {
    const n = this.ctx.notifications;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const q = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const ADMINS: readonly Authority[] = ['SYS_ADMIN', 'TENANT_ADMIN'];
    const answer = (out: unknown): Result => (out === undefined ? { status: 200 } : { status: 200, body: out });
    const literal = (
      method: string,
      path: string,
      authorities: readonly Authority[],
      body: (r: Req) => unknown,
      since = '3.5',
    ): void => this.add(method, path, { auth: true, authorities, since, handler: (r) => answer(body(r)) });
    const pattern = (
      method: string,
      path: string,
      authorities: readonly Authority[],
      body: (r: Req) => unknown,
      since = '3.5',
    ): void => this.addPattern(method, path, { auth: true, authorities, since, handler: (r) => answer(body(r)) });
    // sending and its requests
    literal('POST', '/api/notification/request', ADMINS, (r) => n.send(this.caller(r), this.json(r)));
    pattern('GET', '/api/notification/request/{id}', ADMINS, (r) => n.getRequest(this.caller(r), p(r, 0)));
    pattern('DELETE', '/api/notification/request/{id}', ADMINS, (r) => n.deleteRequest(this.caller(r), p(r, 0)));
    literal('GET', '/api/notification/requests', ADMINS, (r) => n.listRequests(this.caller(r), q(r)));
    // targets
    literal('GET', '/api/notification/targets', ADMINS, (r) => n.listTargets(this.caller(r), q(r)));
    literal(
      'GET',
      '/api/notification/targets/list',
      ADMINS,
      (r) => n.targetsByIds(this.caller(r), q(r).get('ids') ?? ''),
      '4.4',
    );
    literal('POST', '/api/notification/target', ADMINS, (r) => n.saveTarget(this.caller(r), this.json(r)));
    pattern('GET', '/api/notification/target/{id}', ADMINS, (r) => n.getTarget(this.caller(r), p(r, 0)));
    pattern('DELETE', '/api/notification/target/{id}', ADMINS, (r) => n.deleteTarget(this.caller(r), p(r, 0)));
    // templates
    literal('GET', '/api/notification/templates', ADMINS, (r) => n.listTemplates(this.caller(r), q(r)));
    literal('POST', '/api/notification/template', ADMINS, (r) => n.saveTemplate(this.caller(r), this.json(r)));
    pattern('GET', '/api/notification/template/{id}', ADMINS, (r) => n.getTemplate(this.caller(r), p(r, 0)));
    pattern('DELETE', '/api/notification/template/{id}', ADMINS, (r) => n.deleteTemplate(this.caller(r), p(r, 0)));
    // the current user's inbox
    literal('GET', '/api/notifications', ALL_USERS, (r) => n.list(this.caller(r), q(r)));
    literal('GET', '/api/notifications/unread/count', ALL_USERS, (r) => n.unreadCount(this.caller(r), q(r)), '3.7');
    pattern('PUT', '/api/notification/{id}/read', ALL_USERS, (r) => n.markRead(this.caller(r), p(r, 0)));
    literal('PUT', '/api/notifications/read', ALL_USERS, (r) => n.markAllRead(this.caller(r), q(r)));
    pattern('DELETE', '/api/notification/{id}', ALL_USERS, (r) => n.deleteNotification(this.caller(r), p(r, 0)));
    literal('GET', '/api/notification/deliveryMethods', ALL_USERS, () => n.deliveryMethods());
  }

  /**
   * Telemetry and attributes, and server-side RPC. Each variable is one path
   * segment; among patterns of one length the most literal ones are tried first (Spring's specificity).
   */
  private defineDeviceRoutes(): void {
    const t = this.ctx.telemetry;
    const rpc = this.ctx.rpc;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const q = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const route = (method: string, pattern: string, handler: Handler, authorities = ALL_USERS, since?: string): void =>
      this.addPattern(method, pattern, { auth: true, authorities, since, handler });
    const T = '/api/plugins/telemetry';
    // saves (C/TelemetryController.java:384-495)
    route('POST', `${T}/{entityType}/{entityId}/timeseries/{scope}`, (r) =>
      t.saveTelemetry(this.caller(r), p(r, 0), p(r, 1), null, r.body),
    );
    route('POST', `${T}/{entityType}/{entityId}/timeseries/{scope}/{ttl}`, (r) =>
      t.saveTelemetry(this.caller(r), p(r, 0), p(r, 1), p(r, 3), r.body),
    );
    route('POST', `${T}/{entityType}/{entityId}/attributes/{scope}`, (r) =>
      t.saveAttributes(this.caller(r), p(r, 0), p(r, 1), p(r, 2), r.body),
    );
    route('POST', `${T}/{entityType}/{entityId}/{scope}`, (r) =>
      t.saveAttributes(this.caller(r), p(r, 0), p(r, 1), p(r, 2), r.body),
    );
    route('POST', `${T}/{deviceId}/{scope}`, (r) =>
      t.saveAttributes(this.caller(r), 'DEVICE', p(r, 0), p(r, 1), r.body),
    );
    // deletes
    route('DELETE', `${T}/{entityType}/{entityId}/timeseries/delete`, (r) =>
      t.deleteTimeseries(this.caller(r), p(r, 0), p(r, 1), q(r)),
    );
    route('DELETE', `${T}/{entityType}/{entityId}/{scope}`, (r) =>
      t.deleteAttributes(this.caller(r), p(r, 0), p(r, 1), p(r, 2), q(r)),
    );
    route('DELETE', `${T}/{deviceId}/{scope}`, (r) =>
      t.deleteAttributes(this.caller(r), 'DEVICE', p(r, 0), p(r, 1), q(r)),
    );
    // reads: `values/timeseries` is the history mapping when startTs and endTs are present (up to 4.2 also keys)
    route('GET', `${T}/{entityType}/{entityId}/values/timeseries`, (r) => {
      const params = q(r);
      const history =
        params.has('startTs') &&
        params.has('endTs') &&
        (versionAtLeast(this.ctx.version(), '4.3') || params.has('keys'));
      return history
        ? t.history(this.caller(r), p(r, 0), p(r, 1), params)
        : t.latest(this.caller(r), p(r, 0), p(r, 1), params);
    });
    route(
      'GET',
      `${T}/{entityType}/{entityId}/values/timeseries/history`,
      (r) => t.history(this.caller(r), p(r, 0), p(r, 1), q(r)),
      ALL_USERS,
      '4.3.1.2',
    );
    route('GET', `${T}/{entityType}/{entityId}/values/attributes`, (r) =>
      t.attributes(this.caller(r), p(r, 0), p(r, 1), null, q(r)),
    );
    route('GET', `${T}/{entityType}/{entityId}/values/attributes/{scope}`, (r) =>
      t.attributes(this.caller(r), p(r, 0), p(r, 1), p(r, 2), q(r)),
    );
    route('GET', `${T}/{entityType}/{entityId}/keys/timeseries`, (r) =>
      t.keys(this.caller(r), p(r, 0), p(r, 1), 'timeseries', null),
    );
    route('GET', `${T}/{entityType}/{entityId}/keys/attributes`, (r) =>
      t.keys(this.caller(r), p(r, 0), p(r, 1), 'attributes', null),
    );
    route('GET', `${T}/{entityType}/{entityId}/keys/attributes/{scope}`, (r) =>
      t.keys(this.caller(r), p(r, 0), p(r, 1), 'attributes', p(r, 2)),
    );
    // RPC (C/RpcV1Controller.java, C/RpcV2Controller.java)
    for (const [prefix, v1, since] of [
      ['/api/rpc', false, '3.3'],
      ['/api/plugins/rpc', true, undefined],
    ] as const) {
      route(
        'POST',
        `${prefix}/oneway/{deviceId}`,
        (r) => rpc.send(this.caller(r), p(r, 0), r.body, true, v1),
        ALL_USERS,
        since,
      );
      route(
        'POST',
        `${prefix}/twoway/{deviceId}`,
        (r) => rpc.send(this.caller(r), p(r, 0), r.body, false, v1),
        ALL_USERS,
        since,
      );
    }
    route(
      'GET',
      '/api/rpc/persistent/{rpcId}',
      (r) => rpc.getPersistent(this.caller(r), p(r, 0)),
      TENANT_AND_CUSTOMER,
      '3.3',
    );
    route(
      'DELETE',
      '/api/rpc/persistent/{rpcId}',
      (r) => rpc.deletePersistent(this.caller(r), p(r, 0)),
      ['TENANT_ADMIN'],
      '3.3',
    );
    route(
      'GET',
      '/api/rpc/persistent/device/{deviceId}',
      (r) => rpc.listPersistent(this.caller(r), p(r, 0), q(r)),
      TENANT_AND_CUSTOMER,
      '3.3',
    );
  }

  /** The alarm actions and `GET /api/alarm/{id}`, `/api/alarm/info/{id}`. */
  private defineAlarmActionRoutes(): void {
    const a = this.alarmActions;
    const p = (r: Req, i: number): string => (r.params ?? [])[i] ?? '';
    const params = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const route = (method: string, pattern: string, since: string | undefined, body: (r: Req) => unknown): void =>
      this.addPattern(method, pattern, {
        auth: true,
        authorities: TENANT_AND_CUSTOMER,
        since,
        handler: (r) => {
          const out = body(r);
          return out === undefined ? { status: 200 } : { status: 200, body: out };
        },
      });
    route('GET', '/api/alarm/{alarmId}', undefined, (r) => a.getAlarm(this.caller(r), p(r, 0)));
    route('GET', '/api/alarm/info/{alarmId}', undefined, (r) => a.getAlarmInfo(this.caller(r), p(r, 0)));
    route('POST', '/api/alarm/{alarmId}/ack', undefined, (r) => a.ack(this.caller(r), p(r, 0)));
    route('POST', '/api/alarm/{alarmId}/clear', undefined, (r) => a.clear(this.caller(r), p(r, 0)));
    route('POST', '/api/alarm/{alarmId}/assign/{assigneeId}', '3.5', (r) => a.assign(this.caller(r), p(r, 0), p(r, 1)));
    route('DELETE', '/api/alarm/{alarmId}/assign', '3.5', (r) => a.unassign(this.caller(r), p(r, 0)));
    route('DELETE', '/api/alarm/{alarmId}', undefined, (r) => a.delete(this.caller(r), p(r, 0)));
    route('POST', '/api/alarm/{alarmId}/comment', '3.5', (r) => a.saveComment(this.caller(r), p(r, 0), this.json(r)));
    route('GET', '/api/users/assign/{alarmId}', '3.5', (r) => a.usersForAssign(this.caller(r), p(r, 0), params(r)));
    this.add('POST', '/api/alarm', {
      auth: true,
      authorities: TENANT_AND_CUSTOMER,
      handler: (r) => ({ status: 200, body: a.save(this.caller(r), this.json(r)) }),
    });
    // GET comments: @PreAuthorize admits SYS_ADMIN too; checkAlarmId then answers 404 (missing) or 403
    this.addPattern('GET', '/api/alarm/{alarmId}/comment', {
      auth: true,
      authorities: ALL_USERS,
      since: '3.5',
      handler: (r) => ({ status: 200, body: a.listComments(this.caller(r), p(r, 0), params(r)) }),
    });
  }

  /** The look-ups the editor uses. */
  private defineLookupRoutes(): void {
    const c = this.ctx;
    const params = (r: Req): URLSearchParams => new URLSearchParams(r.query);
    const lookup = (
      path: string,
      since: string | undefined,
      authorities: readonly Authority[],
      body: (r: Req) => unknown,
    ): void =>
      this.add('GET', path, { auth: true, authorities, since, handler: (r) => ({ status: 200, body: body(r) }) });
    lookup('/api/deviceProfileInfos', undefined, TENANT_AND_CUSTOMER, (r) =>
      profileInfos(c.data, this.caller(r), params(r), 'DEVICE'),
    );
    lookup('/api/assetProfileInfos', '3.5', TENANT_AND_CUSTOMER, (r) =>
      profileInfos(c.data, this.caller(r), params(r), 'ASSET'),
    );
    const activeOnly = (r: Req): boolean => {
      const v = params(r).get('activeOnly');
      return v === null ? false : springBool(v, 'activeOnly');
    };
    lookup('/api/deviceProfile/names', '3.6.2', TENANT_AND_CUSTOMER, (r) =>
      profileNames(c.data, this.caller(r), activeOnly(r), 'DEVICE'),
    );
    lookup('/api/assetProfile/names', '3.6.2', TENANT_AND_CUSTOMER, (r) =>
      profileNames(c.data, this.caller(r), activeOnly(r), 'ASSET'),
    );
    lookup('/api/entityView/types', undefined, TENANT_AND_CUSTOMER, (r) =>
      entityTypes(c.data, this.caller(r), 'ENTITY_VIEW'),
    );
    lookup('/api/edge/types', undefined, TENANT_AND_CUSTOMER, (r) => entityTypes(c.data, this.caller(r), 'EDGE'));
    lookup('/api/alarm/types', '3.6', TENANT_AND_CUSTOMER, (r) => alarmTypes(c.data, this.caller(r), params(r)));
    lookup('/api/system/info', '3.3.3', ALL_USERS, () => systemInfo(c.version(), versionAtLeast(c.version(), '4.0')));
  }

  // -------------------------------------------------------------------------------------------------------------

  /** The node:http request listener. */
  readonly onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const query = qi < 0 ? '' : url.slice(qi + 1);
    const method = (req.method ?? 'GET').toUpperCase();
    if (path.startsWith('/__sim')) {
      this.readBody(req, res, (body) => this.ctx.control.handle(method, path, query, body, res));
      return;
    }
    const arrival = this.ctx.now();
    const started = Date.now();
    this.ctx.requests.arrive(method, path);
    const declared = Number(req.headers['content-length']);
    const limit = PAYLOAD_LIMITS.find(([re]) => re.test(path))?.[1];
    if (limit !== undefined && declared > limit) {
      // PayloadSizeFilter: before security and routing, a JSON string as the body, no Content-Type. The body is read
      // and dropped, so that the client, still sending, gets the answer rather than a reset connection.
      const text = JSON.stringify(`Payload size exceeds the limit of ${limit} bytes`);
      res.writeHead(413, { 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      req.resume();
      this.ctx.requests.record({ method, path, query, status: 413, time: arrival, durationMs: Date.now() - started });
      return;
    }
    const fault = this.ctx.faults.take(method, path);
    this.readBody(req, res, (body) => {
      const delay = this.ctx.latencyMs() + (fault?.delayMs ?? 0);
      const go = (): void => {
        if (this.stopped) return;
        this.respond(
          { method, path, query, headers: req.headers, body, principal: null },
          res,
          fault,
          req,
          (status) => {
            this.ctx.requests.record({ method, path, query, status, time: arrival, durationMs: Date.now() - started });
          },
        );
      };
      if (delay > 0) {
        const t = setTimeout(() => {
          this.timers.delete(t);
          go();
        }, delay);
        this.timers.add(t);
      } else {
        go();
      }
    });
  };

  private readBody(req: IncomingMessage, res: ServerResponse, done: (body: Buffer) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let aborted = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY && !aborted) {
        aborted = true;
        this.send(res, 413, {
          status: 413,
          message: 'Request body is too large',
          errorCode: 2,
          timestamp: this.ctx.now(),
        });
        req.destroy();
        return;
      }
      if (!aborted) chunks.push(c);
    });
    req.on('end', () => {
      if (!aborted) done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', () => {
      aborted = true;
    });
  }

  /**
   * Answers one request; `done` gets the status sent (0 = connection dropped), at once or when an async route answers.
   */
  private respond(
    r: Req,
    res: ServerResponse,
    fault: Fault | undefined,
    req: IncomingMessage,
    done: (status: number) => void,
  ): void {
    const status = this.respondNow(r, res, fault, req, done);
    if (status !== null) done(status);
  }

  /** null = the answer comes later through `done` */
  private respondNow(
    r: Req,
    res: ServerResponse,
    fault: Fault | undefined,
    req: IncomingMessage,
    done: (status: number) => void,
  ): number | null {
    if (fault) {
      const headers: Record<string, string> = { ...(fault.headers ?? {}) };
      if (fault.retryAfter !== undefined) headers['Retry-After'] = String(fault.retryAfter);
      if (fault.dropConnection === 'after') {
        // handled first (a save stored, an RPC delivered or queued), then the connection goes without an answer
        try {
          const out = this.route(r);
          if (out instanceof Promise) out.catch(() => undefined);
        } catch {
          /* the request failed: nothing was stored, the connection still goes */
        }
        req.socket.destroy();
        return 0;
      }
      if (fault.dropConnection) {
        req.socket.destroy();
        return 0;
      }
      if (fault.malformed) {
        const status = fault.status ?? 200;
        this.sendRaw(res, status, '{"data":[{"entityId":{"entityType":"DEVICE","id":"', 'application/json', headers);
        return status;
      }
      if (fault.bodyBytes !== undefined) {
        const status = fault.status ?? 200;
        this.sendFiller(res, status, fault.bodyBytes, headers, fault.chunked === true);
        return status;
      }
      if (fault.status !== undefined || fault.body !== undefined) {
        const status = fault.status ?? 500;
        const body = fault.body === undefined ? defaultFaultBody(status, this.ctx.now()) : fault.body;
        const answer = (): number => {
          if (res.destroyed) return 0;
          if (typeof body === 'string') this.sendRaw(res, status, body, 'text/plain;charset=UTF-8', headers);
          else this.send(res, status, body, headers);
          return status;
        };
        if (fault.handled) {
          // the work is done (or fails) first; the client only ever sees the fault
          let out: unknown;
          try {
            out = this.route(r);
          } catch {
            /* the request failed: nothing was done, the fault still answers */
          }
          if (out instanceof Promise) {
            out.then(
              () => done(answer()),
              () => done(answer()),
            );
            return null;
          }
        }
        return answer();
      }
    }
    let result: Result;
    try {
      const out = this.route(r);
      if (out instanceof Promise) {
        out
          .then(
            (x) => x,
            (e: unknown) => this.errorResult(e, r.path),
          )
          .then(
            (x) => {
              if (this.stopped || res.destroyed) {
                done(0);
                return;
              }
              done(this.write(res, x));
            },
            () => done(0),
          );
        return null;
      }
      result = out;
    } catch (e) {
      result = this.errorResult(e, r.path);
    }
    return this.write(res, result);
  }

  private write(res: ServerResponse, result: Result): number {
    if (result.bytes !== undefined) {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(result.status, { ...(result.headers ?? {}), 'Content-Length': result.bytes.length });
        res.end(result.bytes);
      }
      return result.status;
    }
    if (result.json !== undefined)
      this.sendRaw(res, result.status, result.json, 'application/json', result.headers ?? {});
    else if (result.text && typeof result.body === 'string')
      this.sendRaw(
        res,
        result.status,
        result.body,
        result.contentType ?? 'text/plain;charset=UTF-8',
        result.headers ?? {},
      );
    else this.send(res, result.status, result.body, result.headers);
    return result.status;
  }

  private versionOk(since: string | undefined): boolean {
    if (!since) return true;
    const v = this.ctx.version();
    const k = `${v}|${since}`;
    let ok = this.versionMemo.get(k);
    if (ok === undefined) {
      ok = versionAtLeast(v, since);
      this.versionMemo.set(k, ok);
    }
    return ok;
  }

  private route(r: Req): Result | Promise<Result> {
    let byMethod = this.routes.get(r.path);
    if (!byMethod) {
      const rest = (p: string): string => r.path.slice(p.length);
      const hits = this.prefixRoutes.filter(
        (x) => r.path.startsWith(x.prefix) && rest(x.prefix) !== '' && !rest(x.prefix).includes('/'),
      );
      if (hits.length > 0) byMethod = new Map(hits.map((x) => [x.method, x.route]));
    }
    // Spring picks, per method, the most specific matching pattern (a literal path beats `{variables}`). A literal
    // path of a later version keeps the patterns out: before 3.6 /api/alarm/types stays a Spring 404 here, where
    // the server would route GET to getAlarmById("types") (400 "Invalid UUID string: types").
    const segs = r.path.split('/');
    const literalOfLaterVersion =
      byMethod !== undefined && ![...byMethod.values()].some((x) => this.versionOk(x.since));
    for (const x of literalOfLaterVersion ? [] : this.patternRoutes) {
      if (x.segments.length !== segs.length || byMethod?.has(x.method)) continue;
      if (!x.segments.every((g, i) => (g === null ? segs[i] !== '' : g === segs[i]))) continue;
      const vars = x.segments.flatMap((g, i) => (g === null ? [segs[i]] : []));
      const route: Route = { ...x.route, handler: (q) => x.route.handler({ ...q, params: vars.map(decodePathVar) }) };
      byMethod = new Map(byMethod ?? []);
      byMethod.set(x.method, route);
    }
    let route = byMethod?.get(r.method);
    if (route && !this.versionOk(route.since)) route = undefined;
    if (!route) {
      const exists = byMethod !== undefined && [...byMethod.values()].some((x) => this.versionOk(x.since));
      if (r.path === '/api/auth/login') throw new ApiError(401, 10, 'Authentication method not supported');
      // `/api/noauth/**` is permitAll: an unknown path there is a 404 without a token too
      if (r.path.startsWith('/api/') && r.path !== '/api/auth/token' && !r.path.startsWith('/api/noauth/')) {
        r.principal = this.ctx.auth.authenticate(header(r.headers['x-authorization']), header(r.headers.authorization));
      }
      throw new SpringError(exists ? 405 : 404, exists ? 'Method Not Allowed' : 'Not Found');
    }
    if (route.auth) {
      r.principal = this.ctx.auth.authenticate(header(r.headers['x-authorization']), header(r.headers.authorization));
      const authority = r.principal.authority;
      if (route.authorities && (authority === null || !route.authorities.includes(authority))) throw forbidden();
    }
    return route.handler(r);
  }

  private errorResult(e: unknown, path: string): Result {
    if (e instanceof PlainError) {
      return e.text === null ? { status: e.status } : { status: e.status, body: e.text, text: true };
    }
    if (e instanceof ApiError) {
      return {
        status: e.status,
        body: { status: e.status, message: e.message, errorCode: e.errorCode, timestamp: this.ctx.now(), ...e.extra },
        headers: e.headers,
      };
    }
    if (e instanceof SpringError) {
      return {
        status: e.status,
        body: {
          timestamp: new Date(this.ctx.now()).toISOString().replace('Z', '+00:00'),
          status: e.status,
          error: SPRING_ERRORS[e.status] ?? e.error,
          path,
        },
      };
    }
    const msg = e instanceof Error ? e.message : String(e);
    return { status: 500, body: { status: 500, message: msg, errorCode: 2, timestamp: this.ctx.now() } };
  }

  send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    if (body === undefined) {
      res.writeHead(status, { ...headers, 'Content-Length': '0' });
      res.end();
      return;
    }
    const buf = Buffer.from(JSON.stringify(body), 'utf8');
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': buf.length });
    res.end(buf);
  }

  /** `{"filler":"xxx…"}` of `bytes` bytes (at least the 13 of the envelope), written in 1 MiB chunks. */
  private sendFiller(
    res: ServerResponse,
    status: number,
    bytes: number,
    headers: Record<string, string>,
    chunked: boolean,
  ): void {
    if (res.headersSent || res.destroyed) return;
    const head = '{"filler":"';
    const tail = '"}';
    const size = Math.max(head.length + tail.length, Math.floor(bytes));
    res.writeHead(status, {
      ...headers,
      'Content-Type': 'application/json',
      ...(chunked ? {} : { 'Content-Length': size }),
    });
    const chunk = Buffer.alloc(1 << 20, 'x');
    let left = size - head.length - tail.length;
    res.write(head);
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end(tail);
    };
    res.once('close', () => {
      left = 0;
    });
    pump();
  }

  sendRaw(
    res: ServerResponse,
    status: number,
    text: string,
    contentType: string,
    headers: Record<string, string>,
  ): void {
    if (res.headersSent || res.destroyed) return;
    const buf = Buffer.from(text, 'utf8');
    res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': buf.length });
    res.end(buf);
  }
}

/** Spring URL-decodes path variables (a malformed escape stays as it is). */
function decodePathVar(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
