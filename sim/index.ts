/**
 * A ThingsBoard-compatible simulator for tests, benchmarks and the demo (see sim/README.md).
 *
 *   const sim = new Simulator();
 *   const url = await sim.start();          // http://127.0.0.1:PORT
 *   …
 *   await sim.stop();
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { AnalyticsService, type AnalyticsOptions } from './analytics';
import { AuthService, type JwtPair } from './auth';
import { versionAtLeast } from './auth';
import { ControlApi } from './control';
import { Dataset, type DatasetOptions } from './dataset';
import { EntityService } from './entities';
import { GenericApi } from './generic';
import { Faults, RequestLog, type FaultSpec } from './hooks';
import { NotificationCenter } from './notifications';
import { AlarmQueryEngine } from './query/alarms';
import { EntityQueryEngine } from './query/entities';
import { Rooms } from './rooms';
import { RpcService, type DeviceBehaviour, type TimerMode } from './rpc';
import { RuleEngineService } from './rule-engine';
import { seedDataset, seedNotifications, type SeedInfo } from './seed';
import { HttpFront } from './server';
import { TelemetryApi } from './telemetry';
import { ControlWithWs, WsControl, WsServer } from './ws';

export interface SimOptions {
  /** The analytics (Trendz) service mounted at /apiTrendz/ (see analytics/README.md). */
  analytics?: AnalyticsOptions;
  /** default 127.0.0.1 */
  host?: string;
  /** default 0 (a free port) */
  port?: number;
  /** access-token lifetime in seconds (default 9000) */
  tokenLifetimeSec?: number;
  /** refresh-token lifetime in seconds (default 604800) */
  refreshLifetimeSec?: number;
  /**
   * server version to imitate (default '4.3.1.3'): below 4.3.1.2 the v2 keys endpoint is an unknown path (404),
   * below 4.3 API keys are not accepted, below 3.5 there is no /api/alarmsQuery/count.
   */
  version?: string;
  /** dataset options, e.g. `{ extraDevices: 100000 }` */
  dataset?: DatasetOptions;
  /** the clock (default Date.now); stored data never depends on it */
  now?: () => number;
  /** artificial latency added to every /api response (default 0) */
  latencyMs?: number;
  /** HS512 secret (default: a fixed development secret) */
  jwtSecret?: string;
  /** see EngineOptions.filterKeysInLatest (default 'server') */
  filterKeysInLatest?: 'server' | 'always';
  /** request log ring size (default 1000) */
  requestLogSize?: number;
  /** entities considered per alarm query (server.ws.max_entities_per_alarm_subscription, default 10000) */
  maxAlarmEntities?: number;
  // --- WebSocket API (/api/ws, see README "WebSocket API") ---
  /** a session without authCmd is closed 1008 after this (default 10000) */
  wsAuthTimeoutMs?: number;
  /** the server pings a session that sent no pong for this long (default 10000) */
  wsPingIntervalMs?: number;
  /** and closes it with 4500 after this long without a pong (default 30000) */
  wsPongTimeoutMs?: number;
  /** pending outbound messages per session before close 1008 "Max pending updates limit reached!" (default 1000) */
  wsMaxQueue?: number;
  /** refresh interval of dynamic page links, counts and alarm counters (default 60000) */
  wsDynamicRefreshMs?: number;
  /** alarm re-fetches per refresh interval (default 10) */
  wsMaxAlarmQueriesPerRefresh?: number;
  /** allowedEntities of ENTITY_DATA updates (default 10000) */
  wsMaxEntitiesPerDataSubscription?: number;
  /** per-session update rate limit, tenant-profile format "10:1,300:60" (default none) */
  wsUpdatesRateLimit?: string | null;
  /** accept authCmd.apiKey (default: version >= 4.4) */
  wsApiKeyAuth?: boolean;
  /** authenticated sessions per tenant; more close 1008 (default 0 = unlimited) */
  wsMaxSessionsPerTenant?: number;
  /** incoming frames above this close 1009 (default 32768) */
  wsMaxMessageBytes?: number;
  /** entries kept in sim.ws.commandsReceived() (default 1000) */
  wsCommandLogSize?: number;
  // --- acting on devices (see README "Acting on devices") ---
  /** RPC timers: 'real' (wall clock, default) or 'manual' (only `sim.rpc.advance(ms)` moves them) */
  rpcTimers?: TimerMode;
  /** real timers: every RPC delay is multiplied by this (default 1; 0.01 makes a 10 s timeout take 100 ms) */
  rpcTimeScale?: number;
  /** server.rest.server_side_rpc.min_timeout (default 5000) */
  rpcMinTimeoutMs?: number;
  /** server.rest.server_side_rpc.default_timeout (default 10000) */
  rpcDefaultTimeoutMs?: number;
  /** spring.mvc.async.request-timeout: the cap of every RPC wait (default 30000) */
  asyncRequestTimeoutMs?: number;
  /** actors.rpc.max_retries (default 5) */
  rpcMaxRetries?: number;
  /** behaviour of devices without one of their own (default `{mode: 'answer'}`) */
  rpcDefaultDevice?: DeviceBehaviour;
  // --- the rule engine (see README "Rule engine") ---
  /** rule engine timers: 'real' (wall clock, default) or 'manual' (only `sim.ruleEngine.advance(ms)` moves them) */
  ruleEngineTimers?: TimerMode;
  /** real timers: every rule engine wait is multiplied by this (default 1) */
  ruleEngineTimeScale?: number;
  /** server.rest.rule_engine.response_timeout: the wait when the path has none (default 10000) */
  ruleEngineDefaultTimeoutMs?: number;
}

const DEFAULT_SECRET = 'thingsboard-simulator-development-secret-not-for-production-use-0123456789';

export class Simulator {
  readonly data: Dataset;
  readonly faults = new Faults();
  readonly requests: RequestLog;
  readonly auth: AuthService;
  readonly entityQuery: EntityQueryEngine;
  readonly alarmQuery: AlarmQueryEngine;
  readonly seed: SeedInfo;
  readonly control: ControlApi;
  /** the WebSocket API and its test hooks (`sim.ws.connections()`, `dropAll()`, `pushTelemetryBurst()`, …) */
  readonly ws: WsServer;
  /** The analytics (Trendz) service, mounted at `<url>/apiTrendz/`. */
  readonly analytics: AnalyticsService;
  /** the telemetry and attribute routes; counters `storedPoints()`, `saves()`, `attributeWrites()`, `sharedPushes()` */
  readonly telemetry: TelemetryApi;
  /**
   * server-side RPC: simulated devices (`setDevice`), timers (`advance`), counters (`deliveredCount`, `calls`), events
   */
  readonly rpc: RpcService;
  /**
   * the rule engine's REST API: how the rule chains answer (`setChain`), the messages that reached them (`calls`,
   * `count`), timers (`advance`)
   */
  readonly ruleEngine: RuleEngineService;
  /** devices, assets and customers: versions, credentials, limits, concurrent writers */
  readonly entities: EntityService;
  /**
   * heated rooms: off until `sim.rooms.start()`; then each `step()` moves every thermostat's temperature toward its
   * target (the shared attribute `targetTemperature` or the RPC `setTarget`) or its own temperature
   */
  readonly rooms: Rooms;
  /**
   * a few platform endpoints for the generic REST node: the audit log, OTA packages and their files, a customer's
   * title, a path that needs no login; `seen()` tells which requests carried a credential
   */
  readonly generic: GenericApi;
  /**
   * the notification center: targets, templates, requests, inboxes (`inbox(userId)`), `outbox`, channel settings
   * (`configure`), `hold()` / `release()` of the delivery, events 'processed' (a request SENT) and 'inbox'
   */
  readonly notifications: NotificationCenter;
  /** the underlying node:http server (exists after start; the WebSocket layer attaches to it) */
  httpServer: Server | null = null;

  private readonly opts: SimOptions;
  private clock: () => number;
  private latency: number;
  private ver: string;
  private readonly front: HttpFront;
  private readonly sockets = new Set<Socket>();
  private url_ = '';
  private port_ = 0;

  constructor(opts: SimOptions = {}) {
    this.opts = opts;
    this.clock = opts.now ?? Date.now;
    this.latency = opts.latencyMs ?? 0;
    this.ver = opts.version ?? '4.3.1.3';
    const now = (): number => this.clock();
    this.data = new Dataset(now, opts.dataset);
    this.seed = seedDataset(this.data, opts.dataset ?? {});
    this.notifications = new NotificationCenter({
      users: this.seed.users,
      now,
      versionAtLeast: (v) => versionAtLeast(this.ver, v),
      customerExists: (id) => this.data.get(id)?.entityType === 'CUSTOMER',
    });
    if (!opts.dataset?.empty) seedNotifications(this.notifications, this.data, this.seed.users);
    this.analytics = new AnalyticsService({ ...opts.analytics, data: this.data, users: this.seed.users, now });
    this.requests = new RequestLog(opts.requestLogSize ?? 1000);
    this.auth = new AuthService(this.seed.users, this.seed.apiKeys, {
      tokenLifetimeSec: opts.tokenLifetimeSec ?? 9000,
      refreshLifetimeSec: opts.refreshLifetimeSec ?? 604800,
      version: this.ver,
      now,
      secret: Buffer.from(opts.jwtSecret ?? DEFAULT_SECRET),
    });
    this.entityQuery = new EntityQueryEngine(this.data, { filterKeysInLatest: opts.filterKeysInLatest });
    this.alarmQuery = new AlarmQueryEngine(this.data, this.entityQuery, opts.maxAlarmEntities);
    this.ws = new WsServer(
      {
        data: this.data,
        entityQuery: this.entityQuery,
        alarmQuery: this.alarmQuery,
        auth: this.auth,
        now,
        secret: Buffer.from(opts.jwtSecret ?? DEFAULT_SECRET),
        version: () => this.ver,
        notifications: this.notifications,
      },
      {
        authTimeoutMs: opts.wsAuthTimeoutMs,
        pingIntervalMs: opts.wsPingIntervalMs,
        pongTimeoutMs: opts.wsPongTimeoutMs,
        maxQueue: opts.wsMaxQueue,
        dynamicRefreshMs: opts.wsDynamicRefreshMs,
        maxAlarmQueriesPerRefresh: opts.wsMaxAlarmQueriesPerRefresh,
        maxEntitiesPerDataSubscription: opts.wsMaxEntitiesPerDataSubscription,
        maxEntitiesPerAlarmSubscription: opts.maxAlarmEntities,
        updatesRateLimit: opts.wsUpdatesRateLimit,
        apiKeyAuth: opts.wsApiKeyAuth,
        maxSessionsPerTenant: opts.wsMaxSessionsPerTenant,
        maxMessageBytes: opts.wsMaxMessageBytes,
        commandLogSize: opts.wsCommandLogSize,
      },
    );
    const deviceCtx = {
      data: this.data,
      now,
      versionAtLeast: (v: string): boolean => versionAtLeast(this.ver, v),
      authorityOf: (userId: string): string | null =>
        this.seed.users.find((u) => u.userId === userId)?.authority ?? null,
    };
    this.telemetry = new TelemetryApi(deviceCtx);
    this.rpc = new RpcService(deviceCtx, {
      timers: opts.rpcTimers,
      timeScale: opts.rpcTimeScale,
      minTimeoutMs: opts.rpcMinTimeoutMs,
      defaultTimeoutMs: opts.rpcDefaultTimeoutMs,
      asyncRequestTimeoutMs: opts.asyncRequestTimeoutMs,
      maxRetries: opts.rpcMaxRetries,
      defaultDevice: opts.rpcDefaultDevice,
    });
    this.ruleEngine = new RuleEngineService(deviceCtx, {
      timers: opts.ruleEngineTimers,
      timeScale: opts.ruleEngineTimeScale,
      defaultTimeoutMs: opts.ruleEngineDefaultTimeoutMs,
      asyncRequestTimeoutMs: opts.asyncRequestTimeoutMs,
    });
    this.entities = new EntityService(deviceCtx);
    this.rooms = new Rooms({ data: this.data, rpc: this.rpc, now });
    const spare = this.data.findByName('DEVICE', 'Spare Sensor');
    if (spare) this.rpc.seedDevice(spare.id, { mode: 'offline' });
    this.generic = new GenericApi({ data: this.data, users: this.seed.users, now });
    const wsControl = new WsControl(this.ws);
    this.control = new ControlWithWs(this, () => wsControl);
    this.front = new HttpFront({
      data: this.data,
      auth: this.auth,
      faults: this.faults,
      requests: this.requests,
      entityQuery: this.entityQuery,
      alarmQuery: this.alarmQuery,
      control: this.control,
      telemetry: this.telemetry,
      rpc: this.rpc,
      generic: this.generic,
      ruleEngine: this.ruleEngine,
      entities: this.entities,
      notifications: this.notifications,
      now,
      latencyMs: () => this.latency,
      version: () => this.ver,
    });
  }

  /** Base URL, e.g. http://127.0.0.1:34567 (empty before start). */
  get url(): string {
    return this.url_;
  }
  get port(): number {
    return this.port_;
  }
  get version(): string {
    return this.ver;
  }

  /** The simulator clock. */
  now(): number {
    return this.clock();
  }

  /** Replaces the clock (null = back to the `now` option or Date.now). */
  setNow(now: (() => number) | null): void {
    this.clock = now ?? this.opts.now ?? Date.now;
  }

  async start(): Promise<string> {
    if (this.httpServer) return this.url_;
    this.front.resume();
    // The analytics service answers /apiTrendz/... and /__sim/analytics/...; the front everything else.
    const server = createServer((req, res) => {
      if (this.analytics.handle(req, res)) return;
      this.front.onRequest(req, res);
    });
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => this.sockets.delete(s));
    });
    this.httpServer = server;
    this.ws.attach(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // a restart reuses the port of the previous run, so clients can reconnect to the same URL
      server.listen(this.port_ > 0 ? this.port_ : (this.opts.port ?? 0), this.opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address() as AddressInfo;
    this.port_ = addr.port;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.url_ = `http://${host}:${addr.port}`;
    return this.url_;
  }

  /** Closes the server, every keep-alive socket and every pending timer. */
  async stop(): Promise<void> {
    const server = this.httpServer;
    if (!server) return;
    this.httpServer = null;
    this.ws.detach();
    this.front.shutdown();
    this.rpc.shutdown();
    this.ruleEngine.shutdown();
    this.notifications.shutdown();
    this.analytics.shutdown();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await closed;
  }

  // --- hooks ---------------------------------------------------------------------------------------------------

  /** Requests (arrived) whose path starts with the prefix or matches the RegExp; optionally one method. */
  countRequests(match: string | RegExp, method?: string): number {
    return this.requests.count(match, method);
  }
  resetRequests(): void {
    this.requests.reset();
  }
  /** Closes every idle keep-alive connection (a client reusing one meets a closed socket). */
  closeIdleConnections(): void {
    this.httpServer?.closeIdleConnections();
  }
  /** Shorthand for `sim.faults.add(spec)`. */
  addFault(spec: FaultSpec): number {
    return this.faults.add(spec);
  }
  /** Lifetime of access tokens issued from now on. */
  setTokenLifetime(sec: number): void {
    this.auth.setTokenLifetime(sec);
  }
  setRefreshTokenLifetime(sec: number): void {
    this.auth.setRefreshLifetime(sec);
  }
  /** Every access token issued so far answers 401 code 11 "Token has expired". */
  expireAllTokens(): void {
    this.auth.expireAllTokens();
  }
  /** Every refresh token issued so far answers 401 code 10 "Token is outdated". */
  revokeRefreshTokens(): void {
    this.auth.revokeRefreshTokens();
  }
  setLatency(ms: number): void {
    this.latency = Math.max(0, ms);
  }
  setVersion(version: string): void {
    this.ver = version;
    this.auth.setVersion(version);
  }
  /** A token pair for a built-in user without going through HTTP. */
  tokensFor(email: string): JwtPair {
    return this.auth.tokensFor(email);
  }
}

/** Creates and starts a simulator. */
export async function startSimulator(opts: SimOptions = {}): Promise<Simulator> {
  const sim = new Simulator(opts);
  await sim.start();
  return sim;
}

export { BASE_TIME, HOUR, Dataset } from './dataset';
export type {
  ChangeEvent,
  SimAlarm,
  SimEntity,
  SimRelation,
  DatasetOptions,
  CreateAlarmSpec,
  AddEntitySpec,
} from './dataset';
export { TENANT_API_KEY, DISABLED_API_KEY, EXPIRED_API_KEY, CUSTOMER_API_KEY } from './seed';
export type { UserAccount } from './seed';
export { dbl, long, javaValueString, sqlValueString } from './values';
export type { KvInput } from './values';
export type { FaultSpec, Fault, RequestLogEntry } from './hooks';
export type { DeviceBehaviour, DeviceMode, RpcCall, RpcStatus, TimerMode } from './rpc';
export type { ChainBehaviour, ChainMode, RuleEngineMsg } from './rule-engine';
export type { DeviceCredentials, EntityBehaviour, ManagedType } from './entities';
export type { SaveRecord } from './telemetry';
export { NotificationCenter, DELIVERY_METHODS } from './notifications';
export type {
  ChannelConfig,
  DeliveryMethod,
  InboxEvent,
  OutboxEntry,
  SimNotification,
  SimRequest,
  SimTarget,
  SimTemplate,
} from './notifications';
export { Rooms, ROOM_TARGET_KEY, ROOM_TARGET_METHOD, ROOM_TEMPERATURE_KEY } from './rooms';
export type { RoomsOptions, RoomState } from './rooms';
export type { JwtPair } from './auth';
export type { WsOptions, BurstOptions, BurstResult, WsCommandLogEntry, WsConnections, WsSessionInfo } from './ws';
export * from './types';
export {
  AnalyticsService,
  startAnalyticsServer,
  attachAnalytics,
  DEMO_VIEW_ID,
  VIEW_IDS,
  VIEW_ENERGY_PER_BUILDING_PER_DAY,
  VIEW_ENERGY_PER_BUILDING_PER_HOUR,
  VIEW_DEVICE_TEMPERATURE,
  VIEW_TOP_ALARMED_DEVICES,
} from './analytics';
export type { AnalyticsOptions, AnalyticsStats, ViewSpec, TelemetryViewSpec } from './analytics';
