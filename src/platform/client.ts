/**
 * The REST client of one ThingsBoard platform connection: entity and alarm queries, counts and key discovery.
 * It takes queries that src/query has already validated and made wire-ready, adds the auth header, retries a
 * request once after a 401 "token expired" (errorCode 11), and turns every failure into one of our errors.
 */
import https from 'node:https';
import { TbError } from '../errors';
import type {
  AlarmCountQuery,
  AlarmData,
  AlarmDataQuery,
  AvailableEntityKeys,
  AvailableEntityKeysV2,
  EntityCountQuery,
  EntityData,
  EntityDataQuery,
  PageData,
} from '../query/types';
import { fromKeysV1, fromKeysV2, KeysResult } from '../query/format';
import type { KeysOptions } from '../query/validate';
import { AuthManager, AuthMode, AuthOptions, Credentials, WsAuth } from './auth';
import { DEFAULT_RETRY, HttpClient, HttpMethod, RequestOptions, RetryPolicy } from './http';
import { Session } from './session';
import { AlarmActions } from './alarm-actions';
import { DeviceData } from './device-data';
import { RpcClient } from './rpc';

export interface PlatformOptions {
  url: string;
  authMode: AuthMode;
  credentials: Credentials;
  /** Request timeout in ms. */
  timeoutMs?: number;
  tls?: https.AgentOptions;
  retry?: RetryPolicy;
  auth?: AuthOptions;
}

export type CallOptions = Pick<RequestOptions, 'onRetry'>;

const PATH = {
  entityFind: '/api/entitiesQuery/find',
  entityCount: '/api/entitiesQuery/count',
  alarmFind: '/api/alarmsQuery/find',
  alarmCount: '/api/alarmsQuery/count',
  keysV1: '/api/entitiesQuery/find/keys',
  keysV2: '/api/v2/entitiesQuery/find/keys',
} as const;

const ATTRIBUTE_SCOPES = ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'] as const;

/** One page of a paged query, as yielded by `pages()`. */
export interface PageChunk<T> {
  items: T[];
  page: PageData<T>;
  /** Index of this page (pageLink.page of the request). */
  pageIndex: number;
  /** True when maxItems cut the result short. */
  truncated: boolean;
}

export class PlatformClient {
  readonly http: HttpClient;
  readonly auth: AuthManager;
  private readonly session: Session;
  /** Which key-discovery endpoint the server has; learnt on first use. */
  private keysApi: 'v2' | 'v1' | undefined;
  private alarmActions: AlarmActions | undefined;
  private deviceDataClient: DeviceData | undefined;
  private rpcClient: RpcClient | undefined;
  private readonly timeoutMs: number;

  constructor(opts: PlatformOptions) {
    this.timeoutMs = opts.timeoutMs ?? 30000;
    this.http = new HttpClient({
      baseUrl: opts.url,
      timeoutMs: this.timeoutMs,
      tls: opts.tls,
      retry: opts.retry ?? DEFAULT_RETRY,
      serviceName: 'ThingsBoard',
    });
    this.auth = new AuthManager(this.http, opts.authMode, opts.credentials, opts.auth);
    this.session = new Session(this.http, this.auth);
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** POST with auth; returns the parsed body of a 2xx answer or throws our error. */
  post(path: string, body: unknown, opts?: RequestOptions): Promise<unknown> {
    return this.request('POST', path, body, opts);
  }

  /** A request with auth; retried once with a fresh token after 401 "token expired" (errorCode 11). */
  request(method: HttpMethod, path: string, body: unknown, opts?: RequestOptions): Promise<unknown> {
    return this.session.request(method, path, body, opts);
  }

  /** The alarm actions of §11 (acknowledge, clear, assign, comment, raise, delete…) on this client. */
  get alarms(): AlarmActions {
    if (!this.alarmActions) this.alarmActions = new AlarmActions(this);
    return this.alarmActions;
  }

  /** Time series and attributes of entities (§13: save, latest, history, delete; attribute save, read, delete). */
  get deviceData(): DeviceData {
    if (!this.deviceDataClient) this.deviceDataClient = new DeviceData(this);
    return this.deviceDataClient;
  }

  /** Server-side RPC to devices (§13: send at most once, persistent RPCs read, followed and cancelled). */
  get rpc(): RpcClient {
    if (!this.rpcClient) this.rpcClient = new RpcClient(this, this.timeoutMs);
    return this.rpcClient;
  }

  /** One alarm by id (GET /api/alarm/info/{id}); null when it no longer exists. */
  async getAlarmInfo(id: string): Promise<AlarmData | null> {
    try {
      const body = await this.request('GET', `/api/alarm/info/${encodeURIComponent(id)}`, undefined);
      return checkObject<AlarmData>(body, '/api/alarm/info');
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  }

  async findEntityData(query: EntityDataQuery, opts?: CallOptions): Promise<PageData<EntityData>> {
    return checkPage<EntityData>(await this.post(PATH.entityFind, query, opts), PATH.entityFind);
  }

  async countEntities(query: EntityCountQuery, opts?: CallOptions): Promise<number> {
    return checkCount(await this.post(PATH.entityCount, query, opts), PATH.entityCount);
  }

  async findAlarmData(query: AlarmDataQuery, opts?: CallOptions): Promise<PageData<AlarmData>> {
    return checkPage<AlarmData>(await this.post(PATH.alarmFind, query, opts), PATH.alarmFind);
  }

  async countAlarms(query: AlarmCountQuery, opts?: CallOptions): Promise<number> {
    return checkCount(await this.post(PATH.alarmCount, query, opts), PATH.alarmCount);
  }

  /**
   * Pages through a find query from its pageLink.page on, yielding one chunk per page, and stops after
   * `maxItems` items (the last chunk is cut and marked truncated) or when the server says there is no more.
   * Only one page is held at a time.
   */
  async *pages<T extends EntityData | AlarmData>(
    kind: 'entity' | 'alarm',
    query: EntityDataQuery | AlarmDataQuery,
    maxItems: number,
    opts?: CallOptions,
  ): AsyncGenerator<PageChunk<T>> {
    const path = kind === 'entity' ? PATH.entityFind : PATH.alarmFind;
    let pageIndex = query.pageLink.page ?? 0;
    let fetched = 0;
    for (;;) {
      const q = { ...query, pageLink: { ...query.pageLink, page: pageIndex } };
      const page = checkPage<T>(await this.post(path, q, opts), path);
      let items = page.data;
      let truncated = false;
      if (fetched + items.length >= maxItems && (page.hasNext || fetched + items.length > maxItems)) {
        truncated = true;
        items = items.slice(0, maxItems - fetched);
      }
      fetched += items.length;
      yield { items, page, pageIndex, truncated };
      if (truncated || !page.hasNext || page.data.length === 0) return;
      pageIndex++;
    }
  }

  /**
   * Available time-series and attribute keys of the entities a query matches, in one shape whatever the
   * server version: the v2 endpoint (4.3.1.2+) when the server has it, otherwise the v1 endpoint, once per
   * attribute scope.
   */
  async findKeys(query: EntityDataQuery, options: KeysOptions, opts?: CallOptions): Promise<KeysResult> {
    if (this.keysApi !== 'v1') {
      try {
        const params: Record<string, string | boolean> = {
          includeTimeseries: options.includeTimeseries,
          includeAttributes: options.includeAttributes,
        };
        if (options.scopes.length) params.scopes = options.scopes.join(',');
        const body = await this.post(PATH.keysV2, query, { ...opts, params });
        this.keysApi = 'v2';
        return fromKeysV2(checkObject<AvailableEntityKeysV2>(body, PATH.keysV2));
      } catch (err) {
        if (this.keysApi === 'v2' || !isMissingEndpoint(err)) throw err;
        this.keysApi = 'v1';
      }
    }
    return this.findKeysV1(query, options, opts);
  }

  private async findKeysV1(query: EntityDataQuery, options: KeysOptions, opts?: CallOptions): Promise<KeysResult> {
    const calls: Array<Promise<{ scope: (typeof ATTRIBUTE_SCOPES)[number] | null; resp: AvailableEntityKeys }>> = [];
    const call = (scope: (typeof ATTRIBUTE_SCOPES)[number] | null, timeseries: boolean, attributes: boolean) => {
      const params: Record<string, string | boolean> = { timeseries, attributes };
      if (scope) params.scope = scope;
      calls.push(
        this.post(PATH.keysV1, query, { ...opts, params }).then((b) => ({ scope, resp: checkObject<AvailableEntityKeys>(b, PATH.keysV1) })),
      );
    };
    if (options.includeTimeseries) call(null, true, false);
    if (options.includeAttributes) {
      for (const scope of options.scopes.length ? options.scopes : ATTRIBUTE_SCOPES) call(scope, false, true);
    }
    const results = await Promise.all(calls);
    return fromKeysV1(results);
  }

  /** What the WebSocket's authCmd needs (a fresh token, or the API key). */
  wsAuth(): Promise<WsAuth> {
    return this.auth.wsAuth();
  }

  close(): void {
    this.session.close();
  }
}

function isMissingEndpoint(err: unknown): boolean {
  const e = err as { status?: number; errorCode?: number };
  return (e.status === 404 && e.errorCode !== 32) || e.status === 405;
}

function checkPage<T>(body: unknown, path: string): PageData<T> {
  const p = body as PageData<T> | undefined;
  if (!p || typeof p !== 'object' || !Array.isArray(p.data)) {
    throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} without a page of data`);
  }
  return p;
}

function checkCount(body: unknown, path: string): number {
  if (typeof body !== 'number') throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with something that is not a number`);
  return body;
}

function checkObject<T>(body: unknown, path: string): T {
  if (!body || typeof body !== 'object') throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with something that is not an object`);
  return body as T;
}
