/**
 * The analytics (Trendz) service of the simulator, as Trendz's REST API documentation and ThingsBoard's
 * `TrendzProxyController` have it (README.md in this folder): login, refresh,
 * `publicApi/buildReport` computing real tables from the dataset, the service's small report queue (429 when
 * full), fault injection, a request log, and `/__sim/analytics/…` control routes.
 *
 * It is a request handler, not a server: `handle(req, res)` answers (and returns true) for paths under the base
 * path (default `/apiTrendz/`) and under `/__sim/analytics`, and returns false for anything else.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dataset, SimEntity } from '../dataset';
import { Faults, RequestLog, type Fault, type FaultSpec } from '../hooks';
import type { UserAccount } from '../seed';
import { AnalyticsAuth, AuthError, type TokenPair } from './auth';
import { AnalyticsControl, type AnalyticsControlTarget } from './control';
import {
  isUuid,
  ViewRegistry,
  builtinViews,
  type AnalyticsCaller,
  type Cell,
  type Row,
  type TelemetryViewSpec,
  type TimeRange,
  type View,
  type ViewContext,
  type ViewSpec,
} from './views';

export interface AnalyticsOptions {
  /** path prefix of the service (default '/apiTrendz/', the ThingsBoard 4.x proxy path) */
  basePath?: string;
  /** access-token lifetime, seconds (default 9000 = 2.5 h) */
  tokenLifetimeSec?: number;
  /** refresh-token lifetime, seconds (default 604800) */
  refreshLifetimeSec?: number;
  /** whether `publicApi/auth/token` exists (default true; false = that path answers 404) */
  refresh?: boolean;
  /** status for a missing, invalid or expired token on buildReport (default 401) */
  authErrorStatus?: 401 | 403;
  /** reports waiting for a worker (default 10, SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY) */
  queueCapacity?: number;
  /** reports computed at once (default 10, SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE) */
  concurrency?: number;
  /** time one report takes to compute, ms (default 0) */
  reportDelayMs?: number;
  /** `Retry-After` seconds on a queue-full 429 (default: no header) */
  retryAfterSec?: number | null;
  /** measures and timestamps as numeric strings (the older documented form; default false) */
  numericStrings?: boolean;
  /** HS512 secret of the analytics tokens (default: a fixed development secret, not the platform's) */
  jwtSecret?: string;
  /** request log ring size (default 1000) */
  requestLogSize?: number;
  /** start with the built-in views (default true) */
  builtinViews?: boolean;
}

export interface AnalyticsServiceConfig extends AnalyticsOptions {
  /** the simulator's dataset (the tables are computed from it) */
  data: Dataset;
  /** the accounts that may log in (the simulator's `seed.users`) */
  users: readonly UserAccount[] | (() => readonly UserAccount[]);
  /** the clock (token expiry, error timestamps); default Date.now */
  now?: () => number;
}

export interface AnalyticsStats {
  /** buildReport requests received and not yet answered (or abandoned by the client) */
  inFlight: number;
  /** reports holding a worker */
  running: number;
  /** reports in the queue */
  waiting: number;
  /** highest `inFlight` seen */
  maxConcurrentSeen: number;
  maxRunningSeen: number;
  maxWaitingSeen: number;
  /** reports accepted into the queue or a worker */
  admitted: number;
  /** 429 answers because the queue was full */
  rejected: number;
  /** reports answered with a table */
  completed: number;
  /** reports whose computation threw (500) */
  failed: number;
}

/**
 * Report events: 'queued' (waits for a worker), 'started' (got a worker), 'done' (answered, `status` 200 or 500),
 * 'rejected' (429, queue full), 'aborted' (the client closed the connection before the answer).
 */
export type ReportEventName = 'queued' | 'started' | 'done' | 'rejected' | 'aborted';

export interface ReportEvent {
  /** '' for 'aborted' */
  viewConfigId: string;
  /** 'rejected': the HTTP status (429) */
  status?: number;
}

const DEFAULT_SECRET = 'trendz-simulator-development-secret-not-for-production-use-9876543210';
const MAX_BODY = 1024 * 1024;
const JSON_CT = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

const FAULT_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  401: 'Token has expired',
  403: 'Access is denied',
  404: 'Not found',
  429: 'Too many requests',
  500: 'Report computation failed',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** a Spring default error body (`{timestamp,status,error,path}`) instead of `{status,message}` */
    readonly spring = false,
  ) {
    super(message);
  }
}

/** Faults whose string paths not starting with '/' are relative to the service's base path. */
export class AnalyticsFaults extends Faults {
  constructor(private readonly base: string) {
    super();
  }
  override add(spec: FaultSpec): number {
    const path = typeof spec.path === 'string' && !spec.path.startsWith('/') ? this.base + spec.path : spec.path;
    return super.add({ ...spec, path });
  }
}

interface Job {
  view: View;
  range: TimeRange;
  filters: Record<string, string[]>;
  caller: AnalyticsCaller;
  extraDelayMs: number;
  res: ServerResponse;
  log: (status: number) => void;
}

export declare interface AnalyticsService {
  on(event: ReportEventName, listener: (ev: ReportEvent) => void): this;
  once(event: ReportEventName, listener: (ev: ReportEvent) => void): this;
  off(event: ReportEventName, listener: (ev: ReportEvent) => void): this;
}

export class AnalyticsService extends EventEmitter implements AnalyticsControlTarget {
  readonly basePath: string;
  readonly data: Dataset;
  readonly auth: AnalyticsAuth;
  readonly views: ViewRegistry;
  /** fault injection for analytics paths (`path` relative to the base unless it starts with '/') */
  readonly faults: AnalyticsFaults;
  /** every analytics request by "METHOD path" (full path), and the last `requestLogSize` ones */
  readonly requests: RequestLog;

  private readonly clock: () => number;
  private readonly control: AnalyticsControl;
  private refreshEnabled: boolean;
  private authStatus: 401 | 403;
  private capacity: number;
  private workers: number;
  private delayMs: number;
  private retryAfter: number | null;
  private numeric: boolean;
  private paused = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly queue: Job[] = [];
  private readonly held: Job[] = [];
  private st: AnalyticsStats = AnalyticsService.zeroStats();

  constructor(cfg: AnalyticsServiceConfig) {
    super();
    this.setMaxListeners(0);
    let base = cfg.basePath ?? '/apiTrendz/';
    if (!base.startsWith('/')) base = `/${base}`;
    if (!base.endsWith('/')) base = `${base}/`;
    this.basePath = base;
    this.data = cfg.data;
    this.clock = cfg.now ?? Date.now;
    this.auth = new AnalyticsAuth({
      users: cfg.users,
      now: () => this.clock(),
      secret: Buffer.from(cfg.jwtSecret ?? DEFAULT_SECRET),
      tokenLifetimeSec: cfg.tokenLifetimeSec ?? 9000,
      refreshLifetimeSec: cfg.refreshLifetimeSec ?? 604800,
    });
    this.views = new ViewRegistry(cfg.builtinViews === false ? [] : builtinViews());
    this.faults = new AnalyticsFaults(base);
    this.requests = new RequestLog(cfg.requestLogSize ?? 1000);
    this.refreshEnabled = cfg.refresh ?? true;
    this.authStatus = cfg.authErrorStatus ?? 401;
    this.capacity = Math.max(0, cfg.queueCapacity ?? 10);
    this.workers = Math.max(1, cfg.concurrency ?? 10);
    this.delayMs = Math.max(0, cfg.reportDelayMs ?? 0);
    this.retryAfter = cfg.retryAfterSec ?? null;
    this.numeric = cfg.numericStrings ?? false;
    this.control = new AnalyticsControl(this);
  }

  private static zeroStats(): AnalyticsStats {
    return {
      inFlight: 0,
      running: 0,
      waiting: 0,
      maxConcurrentSeen: 0,
      maxRunningSeen: 0,
      maxWaitingSeen: 0,
      admitted: 0,
      rejected: 0,
      completed: 0,
      failed: 0,
    };
  }

  // --- hooks -----------------------------------------------------------------------------------------------------

  now(): number {
    return this.clock();
  }

  /** A copy of the counters. */
  get stats(): AnalyticsStats {
    return { ...this.st, running: this.st.running, waiting: this.queue.length };
  }
  get inFlight(): number {
    return this.st.inFlight;
  }
  get maxConcurrentSeen(): number {
    return this.st.maxConcurrentSeen;
  }
  /** Resets the maxima and totals (the current inFlight/running/waiting stay). */
  resetStats(): void {
    const { inFlight, running } = this.st;
    this.st = { ...AnalyticsService.zeroStats(), inFlight, running, waiting: this.queue.length };
  }

  get settings(): Required<
    Pick<
      AnalyticsOptions,
      | 'refresh'
      | 'authErrorStatus'
      | 'queueCapacity'
      | 'concurrency'
      | 'reportDelayMs'
      | 'numericStrings'
      | 'tokenLifetimeSec'
    >
  > & {
    retryAfterSec: number | null;
    basePath: string;
    paused: boolean;
  } {
    return {
      basePath: this.basePath,
      refresh: this.refreshEnabled,
      authErrorStatus: this.authStatus,
      queueCapacity: this.capacity,
      concurrency: this.workers,
      reportDelayMs: this.delayMs,
      retryAfterSec: this.retryAfter,
      numericStrings: this.numeric,
      tokenLifetimeSec: this.auth.tokenLifetimeSec,
      paused: this.paused,
    };
  }

  setRefreshEnabled(on: boolean): void {
    this.refreshEnabled = on;
  }
  setAuthErrorStatus(status: 401 | 403): void {
    this.authStatus = status;
  }
  setReportDelay(ms: number): void {
    this.delayMs = Math.max(0, ms);
  }
  setRetryAfter(sec: number | null): void {
    this.retryAfter = sec;
  }
  setNumericStrings(on: boolean): void {
    this.numeric = on;
  }
  /** Changes the queue size and the worker count (waiting reports start at once if workers were added). */
  setQueue(opts: { queueCapacity?: number; concurrency?: number }): void {
    if (opts.queueCapacity !== undefined) this.capacity = Math.max(0, opts.queueCapacity);
    if (opts.concurrency !== undefined) this.workers = Math.max(1, opts.concurrency);
    this.pump();
  }
  setTokenLifetime(sec: number): void {
    this.auth.setTokenLifetime(sec);
  }
  setRefreshTokenLifetime(sec: number): void {
    this.auth.setRefreshLifetime(sec);
  }
  /** Every access token issued so far is rejected (401, or 403 in that mode); logins and refreshes work. */
  expireAllTokens(): void {
    this.auth.expireAllTokens();
  }
  /** Every refresh token issued so far is rejected by `publicApi/auth/token` (401). */
  revokeRefreshTokens(): void {
    this.auth.revokeRefreshTokens();
  }
  /** A token pair without HTTP. */
  tokensFor(email: string): TokenPair {
    return this.auth.tokensFor(email);
  }
  /** Reports that finish computing are held (keeping their worker) until `resumeReports()`. */
  pauseReports(): void {
    this.paused = true;
  }
  resumeReports(): void {
    this.paused = false;
    for (const job of this.held.splice(0)) this.complete(job);
  }
  /** Registers (or replaces) a view; returns its id. */
  addView(spec: ViewSpec | TelemetryViewSpec): string {
    return this.views.add(spec);
  }
  removeView(id: string): boolean {
    return this.views.remove(id);
  }
  /** Shorthand for `faults.add(spec)`. */
  addFault(spec: FaultSpec): number {
    return this.faults.add(spec);
  }
  /** Requests whose path starts with the prefix (relative to the base path unless it starts with '/') or matches. */
  countRequests(match: string | RegExp, method?: string): number {
    const m = typeof match === 'string' && !match.startsWith('/') ? this.basePath + match : match;
    return this.requests.count(m, method);
  }
  resetRequests(): void {
    this.requests.reset();
  }

  /** Cancels timers and drops queued reports (the simulator's stop). Counters are kept. */
  shutdown(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.held.length = 0;
    this.st.running = 0;
    this.st.waiting = 0;
    this.paused = false;
  }

  // --- HTTP ------------------------------------------------------------------------------------------------------

  /** True when the path belongs to this service (base path or `/__sim/analytics`). */
  owns(path: string): boolean {
    return path.startsWith(this.basePath) || path === this.basePath.slice(0, -1) || isControlPath(path);
  }

  /** Answers a request under the base path or `/__sim/analytics`; returns false (untouched) for other paths. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const query = qi < 0 ? '' : url.slice(qi + 1);
    if (!this.owns(path)) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    if (isControlPath(path)) {
      readBody(req, res, (body) => {
        if (body !== null) this.control.handle(method, path, query, body, res);
      });
      return true;
    }
    const arrival = this.clock();
    const started = Date.now();
    this.requests.arrive(method, path);
    const isReport = path === `${this.basePath}publicApi/buildReport`;
    let logged = false;
    // called once per request, when it is answered (or with 0 when the client went away first)
    const log = (status: number): void => {
      if (logged) return;
      logged = true;
      if (isReport) this.st.inFlight--;
      this.requests.record({ method, path, query, status, time: arrival, durationMs: Date.now() - started });
    };
    if (isReport) {
      this.st.inFlight++;
      if (this.st.inFlight > this.st.maxConcurrentSeen) this.st.maxConcurrentSeen = this.st.inFlight;
      res.on('close', () => {
        if (logged) return;
        log(0);
        this.emit('aborted', { viewConfigId: '' });
      });
    }
    const fault = this.faults.take(method, path);
    readBody(req, res, (body) => {
      if (body === null) return log(413);
      const delay = fault?.delayMs ?? 0;
      if (
        fault &&
        (fault.status !== undefined || fault.body !== undefined || fault.malformed || fault.dropConnection)
      ) {
        this.after(delay, () => log(this.sendFault(fault, req, res)));
        return;
      }
      // a delay-only fault on buildReport makes that report slow (it holds its worker); elsewhere it delays
      this.after(isReport ? 0 : delay, () => {
        try {
          this.route(method, path, req, body, res, log, isReport ? delay : 0);
        } catch (e) {
          log(this.sendError(res, path, e));
        }
      });
    });
    return true;
  }

  private after(ms: number, fn: () => void): void {
    if (ms <= 0) {
      fn();
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private route(
    method: string,
    path: string,
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    log: (s: number) => void,
    extraDelayMs: number,
  ): void {
    if (path.includes('//')) {
      // Spring Security's StrictHttpFirewall
      throw new HttpError(
        400,
        'The request was rejected because the URL contained a potentially malicious String "//"',
      );
    }
    const rel = path.slice(this.basePath.length);
    const exists =
      rel === 'publicApi/auth/login' ||
      rel === 'publicApi/buildReport' ||
      (rel === 'publicApi/auth/token' && this.refreshEnabled);
    if (!exists) throw new HttpError(404, 'Not Found', {}, true);
    if (method !== 'POST') throw new HttpError(405, 'Method Not Allowed', { Allow: 'POST' }, true);
    if (rel === 'publicApi/auth/login' || rel === 'publicApi/auth/token') {
      requireJson(req);
      const json = parseBody(body);
      let pair: TokenPair;
      try {
        pair = rel === 'publicApi/auth/login' ? this.auth.login(json) : this.auth.refresh(json);
      } catch (e) {
        if (e instanceof AuthError) throw new HttpError(401, e.message);
        throw e;
      }
      log(this.send(res, 200, pair));
      return;
    }
    // buildReport: authentication (Spring Security filter) first, then the media type, then the body
    let caller: AnalyticsCaller;
    try {
      caller = this.auth.authenticate(header(req.headers['x-authorization']), header(req.headers.authorization));
    } catch (e) {
      if (e instanceof AuthError) throw new HttpError(this.authStatus, e.message);
      throw e;
    }
    requireJson(req);
    const json = parseBody(body);
    const { view, range, filters } = this.validate(json);
    this.admit({ view, range, filters, caller, extraDelayMs, res, log });
  }

  private validate(json: unknown): { view: View; range: TimeRange; filters: Record<string, string[]> } {
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new HttpError(400, 'Request body must be a JSON object');
    const b = json as Record<string, unknown>;
    const idRaw = b.viewConfigId;
    if (idRaw === undefined || idRaw === null || idRaw === '') throw new HttpError(400, 'viewConfigId is required');
    const id = String(idRaw).trim();
    const view = isUuid(id) ? this.views.get(id) : undefined;
    if (!view) throw new HttpError(400, `View config not found: ${id}`);
    const start = optionalTs(b.rangeStartTs, 'rangeStartTs') ?? view.defaultRange.startTs;
    const end = optionalTs(b.rangeEndTs, 'rangeEndTs') ?? view.defaultRange.endTs;
    if (start >= end)
      throw new HttpError(400, `Invalid range: rangeStartTs (${start}) must be before rangeEndTs (${end})`);
    const filters: Record<string, string[]> = { ...view.defaultFilters };
    const f = b.filters;
    if (f !== undefined && f !== null) {
      if (typeof f !== 'object' || Array.isArray(f))
        throw new HttpError(400, 'filters must be an object of filter name -> array of values');
      for (const [name, values] of Object.entries(f as Record<string, unknown>)) {
        if (!view.filters.includes(name)) {
          throw new HttpError(
            400,
            `Unknown filter "${name}" for view ${view.name}; its filters: ${view.filters.join(', ') || 'none'}`,
          );
        }
        if (!Array.isArray(values)) throw new HttpError(400, `filter "${name}" must be an array of values`);
        filters[name] = values.map((v) => {
          if (typeof v === 'string') return v;
          if (typeof v === 'number' || typeof v === 'boolean') return String(v);
          throw new HttpError(400, `filter "${name}" values must be strings`);
        });
      }
    }
    for (const k of Object.keys(filters)) if (filters[k].length === 0) delete filters[k];
    return { view, range: { startTs: start, endTs: end }, filters };
  }

  // --- the report queue ----------------------------------------------------------------------------------------

  private admit(job: Job): void {
    const ev: ReportEvent = { viewConfigId: job.view.id };
    if (this.st.running < this.workers) {
      this.st.admitted++;
      this.start(job);
      return;
    }
    if (this.queue.length < this.capacity) {
      this.st.admitted++;
      this.queue.push(job);
      this.st.waiting = this.queue.length;
      if (this.queue.length > this.st.maxWaitingSeen) this.st.maxWaitingSeen = this.queue.length;
      this.emit('queued', ev);
      return;
    }
    this.st.rejected++;
    const headers: Record<string, string> = this.retryAfter !== null ? { 'Retry-After': String(this.retryAfter) } : {};
    job.log(
      this.send(
        job.res,
        429,
        { status: 429, message: 'Too many requests: the report queue is full, try again later' },
        headers,
      ),
    );
    this.emit('rejected', { ...ev, status: 429 });
  }

  private start(job: Job): void {
    this.st.running++;
    if (this.st.running > this.st.maxRunningSeen) this.st.maxRunningSeen = this.st.running;
    this.emit('started', { viewConfigId: job.view.id });
    this.after(this.delayMs + (job.view.delayMs ?? 0) + job.extraDelayMs, () => this.complete(job));
  }

  private complete(job: Job): void {
    if (this.paused) {
      this.held.push(job);
      return;
    }
    let status: number;
    try {
      const rows = job.view.compute(this.context(job));
      status = this.send(job.res, 200, {
        columnLabels: [...job.view.columns],
        dataTable: this.format(job.view.columns, rows),
      });
      this.st.completed++;
    } catch (e) {
      this.st.failed++;
      status = this.send(job.res, 500, {
        status: 500,
        message: `Report computation failed: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
    job.log(status);
    this.st.running = Math.max(0, this.st.running - 1);
    this.emit('done', { viewConfigId: job.view.id, status });
    this.pump();
  }

  private pump(): void {
    while (this.st.running < this.workers && this.queue.length > 0) {
      const next = this.queue.shift() as Job;
      this.st.waiting = this.queue.length;
      this.start(next);
    }
  }

  private context(job: Job): ViewContext {
    const c = job.caller;
    const filters = job.filters;
    return {
      data: this.data,
      range: job.range,
      filters,
      caller: c,
      visible: (e: SimEntity) =>
        c.authority === 'CUSTOMER_USER' ? e.customerId === c.customerId : e.tenantId === c.tenantId,
      allows: (name: string, value: string | null | undefined) => {
        const allowed = filters[name];
        return allowed === undefined || (value !== null && value !== undefined && allowed.includes(value));
      },
    };
  }

  /** Rows with the columns in order; numbers become numeric strings in numericStrings mode. */
  private format(columns: string[], rows: Row[]): Record<string, Cell>[] {
    return rows.map((r) => {
      const out: Record<string, Cell> = {};
      for (const c of columns) {
        const v = r[c] ?? null;
        out[c] = this.numeric && typeof v === 'number' ? String(v) : v;
      }
      return out;
    });
  }

  // --- responses -------------------------------------------------------------------------------------------------

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
    if (res.headersSent || res.destroyed) return status;
    const buf = Buffer.from(JSON.stringify(body), 'utf8');
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': buf.length });
    res.end(buf);
    return status;
  }

  private sendText(
    res: ServerResponse,
    status: number,
    text: string,
    contentType: string,
    headers: Record<string, string>,
  ): number {
    if (res.headersSent || res.destroyed) return status;
    const buf = Buffer.from(text, 'utf8');
    res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': buf.length });
    res.end(buf);
    return status;
  }

  private sendError(res: ServerResponse, path: string, e: unknown): number {
    if (e instanceof HttpError) {
      if (e.spring) {
        const ts = new Date(this.clock()).toISOString().replace('Z', '+00:00');
        return this.send(res, e.status, { timestamp: ts, status: e.status, error: e.message, path }, e.headers);
      }
      return this.send(res, e.status, { status: e.status, message: e.message }, e.headers);
    }
    return this.send(res, 500, { status: 500, message: e instanceof Error ? e.message : String(e) });
  }

  private sendFault(f: Fault, req: IncomingMessage, res: ServerResponse): number {
    const headers: Record<string, string> = { ...(f.headers ?? {}) };
    if (f.retryAfter !== undefined) headers['Retry-After'] = String(f.retryAfter);
    if (f.dropConnection) {
      req.socket.destroy();
      return 0;
    }
    const status = f.status ?? (f.malformed ? 200 : 500);
    if (f.malformed)
      return this.sendText(
        res,
        status,
        '{"columnLabels":["Date","Building","energy"],"dataTable":[{"Date":',
        'application/json',
        headers,
      );
    const body = f.body === undefined ? { status, message: FAULT_MESSAGES[status] ?? `HTTP ${status}` } : f.body;
    if (typeof body === 'string') return this.sendText(res, status, body, 'text/plain;charset=UTF-8', headers);
    return this.send(res, status, body, headers);
  }
}

function isControlPath(path: string): boolean {
  return path === '/__sim/analytics' || path.startsWith('/__sim/analytics/');
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function requireJson(req: IncomingMessage): void {
  const ct = header(req.headers['content-type']);
  if (!ct || !JSON_CT.test(ct.trim())) {
    throw new HttpError(415, `Content-Type '${ct ?? 'application/octet-stream'}' is not supported`);
  }
}

function parseBody(body: Buffer): unknown {
  if (body.length === 0) throw new HttpError(400, 'Required request body is missing');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `Malformed JSON request: ${(e as Error).message}`);
  }
}

function optionalTs(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isSafeInteger(n))
    throw new HttpError(400, `${name} must be a time in milliseconds, got ${JSON.stringify(v)}`);
  return n;
}

/** Reads the body (at most 1 MiB: larger answers 413 and gives null). */
function readBody(req: IncomingMessage, res: ServerResponse, done: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let aborted = false;
  req.on('data', (c: Buffer) => {
    if (aborted) return;
    size += c.length;
    if (size > MAX_BODY) {
      aborted = true;
      if (!res.headersSent) {
        res.writeHead(413, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end(JSON.stringify({ status: 413, message: 'Request body is too large' }));
      }
      done(null);
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (!aborted) done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
  req.on('error', () => {
    aborted = true;
  });
}
