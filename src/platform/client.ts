/**
 * The REST client of one ThingsBoard platform connection. It only composes: the keep-alive HTTP client, the token
 * manager and the session that joins them (the Requester every sub-client stands on), and the sub-clients for
 * entity and alarm queries, look-ups, alarm actions, device data, RPC, the rule engine, notifications and any other
 * call, each made on first use and kept, so that what one learnt about the server (which endpoints it has) lasts as
 * long as the connection.
 */
import type https from 'node:https';
import type { KeysResult } from '../protocol/format';
import { entityNames as entityNamesOfRows, entityNamesQuery, type LookupEntityType } from '../protocol/lookups';
import type {
  AlarmCountQuery,
  AlarmData,
  AlarmDataQuery,
  EntityCountQuery,
  EntityData,
  EntityDataQuery,
  PageData,
} from '../protocol/types';
import type { KeysOptions } from '../protocol/validate';
import { AlarmActions } from './alarm-actions';
import { ApiCalls } from './api-call';
import { AuthManager, AuthMode, AuthOptions, Credentials, WsAuth } from './auth';
import { DeviceData } from './device-data';
import { EntityManagement } from './entities';
import { DEFAULT_RETRY, HttpClient, RetryPolicy } from './http';
import { PlatformLookups } from './lookups';
import { Notifications } from './notifications';
import { EntityQueries, type PageChunk } from './queries';
import { Relations } from './relations';
import type { CallOptions } from './requester';
import { RpcClient } from './rpc';
import { RuleEngineClient } from './rule-engine';
import { Session } from './session';

/** Ids asked in one look-up of names (a page of them). */
const NAMES_PER_LOOKUP = 100;

export interface PlatformOptions {
  url: string;
  authMode: AuthMode;
  credentials: Credentials;
  /** Request timeout in ms. */
  timeoutMs?: number;
  tls?: https.AgentOptions;
  retry?: RetryPolicy;
  /** The largest answer read, in bytes (default 32 MB). */
  maxResponseBytes?: number;
  auth?: AuthOptions;
}

export class PlatformClient {
  readonly http: HttpClient;
  readonly auth: AuthManager;
  private readonly session: Session;
  private readonly queries: EntityQueries;
  private lookupsClient: PlatformLookups | undefined;
  private alarmActions: AlarmActions | undefined;
  private deviceDataClient: DeviceData | undefined;
  private rpcClient: RpcClient | undefined;
  private relationsClient: Relations | undefined;
  private apiCalls: ApiCalls | undefined;
  private ruleEngineClient: RuleEngineClient | undefined;
  private notificationsClient: Notifications | undefined;
  private readonly timeoutMs: number;
  private entityClient: EntityManagement | undefined;

  constructor(opts: PlatformOptions) {
    this.timeoutMs = opts.timeoutMs ?? 30000;
    this.http = new HttpClient({
      baseUrl: opts.url,
      timeoutMs: this.timeoutMs,
      tls: opts.tls,
      retry: opts.retry ?? DEFAULT_RETRY,
      maxResponseBytes: opts.maxResponseBytes,
      serviceName: 'ThingsBoard',
    });
    this.auth = new AuthManager(this.http, opts.authMode, opts.credentials, opts.auth);
    this.session = new Session(this.http, this.auth);
    this.queries = new EntityQueries(this.session);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The editor's look-ups: profile names, alarm types, the current user, the server version. */
  get lookups(): PlatformLookups {
    if (!this.lookupsClient) this.lookupsClient = new PlatformLookups(this.session);
    return this.lookupsClient;
  }

  /** The alarm actions (acknowledge, clear, assign, comment, raise, delete…) on this client. */
  get alarms(): AlarmActions {
    if (!this.alarmActions) this.alarmActions = new AlarmActions(this.session, this.queries, this.lookups);
    return this.alarmActions;
  }

  /** Time series and attributes of entities (save, latest, history, delete; attribute save, read, delete). */
  get deviceData(): DeviceData {
    if (!this.deviceDataClient) this.deviceDataClient = new DeviceData(this.session);
    return this.deviceDataClient;
  }

  /** Server-side RPC to devices (send at most once, persistent RPCs read, followed and cancelled). */
  get relations(): Relations {
    if (!this.relationsClient) this.relationsClient = new Relations(this.session);
    return this.relationsClient;
  }

  get rpc(): RpcClient {
    if (!this.rpcClient) this.rpcClient = new RpcClient(this.session, this.timeoutMs);
    return this.rpcClient;
  }

  /** Any REST call under /api/ (tb-api and the editor's try of it). */
  get api(): ApiCalls {
    if (!this.apiCalls) this.apiCalls = new ApiCalls(this.session);
    return this.apiCalls;
  }

  /** Devices, assets, customers and entity views: create or update by name, delete, assign, credentials. */
  get entities(): EntityManagement {
    if (!this.entityClient) this.entityClient = new EntityManagement(this.session, this.lookups);
    return this.entityClient;
  }

  /** The rule engine: a message into the rule chains, the answer of their "rest call reply" (at most once). */

  get ruleEngine(): RuleEngineClient {
    if (!this.ruleEngineClient)
      this.ruleEngineClient = new RuleEngineClient(this.session, this.lookups, this.timeoutMs);
    return this.ruleEngineClient;
  }

  /** The notification center: send, follow a request, targets and templates by name, the user's inbox. */
  get notifications(): Notifications {
    if (!this.notificationsClient) this.notificationsClient = new Notifications(this.session, this.lookups);
    return this.notificationsClient;
  }

  // The queries (queries.ts), on the client itself: the nodes, the editor endpoints and the live side call them.

  getAlarmInfo(id: string): Promise<AlarmData | null> {
    return this.queries.getAlarmInfo(id);
  }

  findEntityData(query: EntityDataQuery, opts?: CallOptions): Promise<PageData<EntityData>> {
    return this.queries.findEntityData(query, opts);
  }

  /**
   * The names of entities of one type by id (the entity-list look-up, a page of ids at a time): id → name, for those
   * the server found and named. The editor's name look-up and tb-telemetry's chart series read names through it.
   */
  async entityNames(
    entityType: LookupEntityType,
    ids: readonly string[],
    opts?: CallOptions,
  ): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < ids.length; i += NAMES_PER_LOOKUP) {
      const page = await this.queries.findEntityData(
        entityNamesQuery(entityType, ids.slice(i, i + NAMES_PER_LOOKUP)),
        opts,
      );
      for (const r of entityNamesOfRows(page.data)) if (r.name !== '') found.set(r.id.id, r.name);
    }
    return found;
  }

  countEntities(query: EntityCountQuery, opts?: CallOptions): Promise<number> {
    return this.queries.countEntities(query, opts);
  }

  findAlarmData(query: AlarmDataQuery, opts?: CallOptions): Promise<PageData<AlarmData>> {
    return this.queries.findAlarmData(query, opts);
  }

  countAlarms(query: AlarmCountQuery, opts?: CallOptions): Promise<number> {
    return this.queries.countAlarms(query, opts);
  }

  pages<T extends EntityData | AlarmData>(
    kind: 'entity' | 'alarm',
    query: EntityDataQuery | AlarmDataQuery,
    maxItems: number,
    opts?: CallOptions,
  ): AsyncGenerator<PageChunk<T>> {
    return this.queries.pages<T>(kind, query, maxItems, opts);
  }

  findKeys(query: EntityDataQuery, options: KeysOptions, opts?: CallOptions): Promise<KeysResult> {
    return this.queries.findKeys(query, options, opts);
  }

  /** What the WebSocket's authCmd needs (a fresh token, or the API key). */
  wsAuth(): Promise<WsAuth> {
    return this.auth.wsAuth();
  }

  close(): void {
    this.session.close();
  }
}
