/**
 * The analytics (Trendz) client of one connection: its own login and token lifecycle
 * (`publicApi/auth/login`; refresh with `publicApi/auth/token` when the server has it, otherwise a new login
 * shortly before expiry; re-authenticate once on 401/403), and `publicApi/buildReport` with the server's
 * small queue in mind: requests are queued per connection with a configurable concurrency, and 429 answers
 * (queue full) are retried after Retry-After or a capped exponential backoff, up to a number of attempts and
 * a total wait.
 */
import type https from 'node:https';
import { TbApiError, TbError } from '../errors';
import { AuthManager } from '../platform/auth';
import { HttpClient, RetryPolicy } from '../platform/http';
import { Session } from '../platform/session';
import type { ReportRequest, ReportTable } from './report';

export interface AnalyticsOptions {
  /** e.g. http://host:8888/apiTrendz/ or <platform url>/apiTrendz/ */
  url: string;
  username?: string;
  password?: string;
  /** Per-request timeout (ms); reports can be slow. */
  timeoutMs?: number;
  /** Reports running at once on this connection. */
  concurrency?: number;
  tls?: https.AgentOptions;
  /** The largest answer read, in bytes (default 32 MB). */
  maxResponseBytes?: number;
}

export interface ReportCallOptions {
  /** 429 policy for this report. */
  retry: RetryPolicy;
  /** Called before each 429 retry ("queued, retry n"). */
  onRetry?: (attempt: number, delayMs: number) => void;
  /** Called when the report waits in our own queue (concurrency limit) and when it starts. */
  onQueue?: (state: 'waiting' | 'running') => void;
}

/** Trendz access tokens live 2.5 h. */
const TOKEN_LIFETIME_MS = 9000 * 1000;

export class AnalyticsClient {
  readonly http: HttpClient;
  private readonly session: Session;
  private readonly concurrency: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Highest number of reports that ran at once (for tests and benchmarks). */
  maxRunning = 0;

  constructor(opts: AnalyticsOptions) {
    this.http = new HttpClient({
      baseUrl: opts.url,
      timeoutMs: opts.timeoutMs ?? 300000,
      tls: opts.tls,
      serviceName: 'the analytics service',
      maxResponseBytes: opts.maxResponseBytes,
      retry: { retries: 0, initialMs: 1000, maxMs: 30000, jitter: 0.2 },
    });
    const auth = new AuthManager(
      this.http,
      'password',
      { username: opts.username, password: opts.password },
      {
        loginPath: '/publicApi/auth/login',
        refreshPath: '/publicApi/auth/token',
        serviceName: 'The analytics service',
        isExpired: (err: TbApiError) => err.status === 401 || err.status === 403,
        defaultLifetimeMs: TOKEN_LIFETIME_MS,
        refreshMarginMs: 60000,
      },
    );
    this.session = new Session(this.http, auth, [401, 403]);
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 2));
  }

  get auth(): AuthManager {
    return this.session.auth;
  }

  /** Builds one view report (POST publicApi/buildReport), waiting for a free slot first. */
  async buildReport(req: ReportRequest, opts: ReportCallOptions): Promise<ReportTable> {
    await this.acquire(opts.onQueue);
    try {
      let body: unknown;
      try {
        body = await this.session.request('POST', '/publicApi/buildReport', req, {
          retry: opts.retry,
          onRetry: opts.onRetry,
        });
      } catch (err) {
        throw explain(err, req.viewConfigId);
      }
      const t = body as ReportTable | undefined;
      if (!t || typeof t !== 'object' || !Array.isArray(t.columnLabels) || !Array.isArray(t.dataTable)) {
        throw new TbError(
          'TB_BAD_RESPONSE',
          `The analytics service answered the report for view ${req.viewConfigId} without columnLabels and dataTable`,
        );
      }
      return t;
    } finally {
      this.release();
    }
  }

  private acquire(onQueue?: (state: 'waiting' | 'running') => void): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      if (this.running > this.maxRunning) this.maxRunning = this.running;
      return Promise.resolve();
    }
    onQueue?.('waiting');
    return new Promise((resolve) => {
      this.waiting.push(() => {
        this.running++;
        if (this.running > this.maxRunning) this.maxRunning = this.running;
        onQueue?.('running');
        resolve();
      });
    });
  }

  private release(): void {
    this.running--;
    const next = this.waiting.shift();
    if (next) next();
  }

  close(): void {
    this.session.close();
    // Reports still waiting for a slot are released; they fail at once on the closed client.
    for (const next of this.waiting.splice(0)) next();
  }
}

/** Puts the view into the error text and gives the status-specific errors their meaning. */
function explain(err: unknown, viewConfigId: string): unknown {
  if (!(err instanceof TbApiError)) return err;
  const server = err.serverMessage ? `: ${err.serverMessage}` : '';
  if (err.status === 400) {
    return new TbApiError(
      'TB_BAD_REQUEST',
      400,
      err.errorCode,
      err.serverMessage,
      `The analytics service rejected the report for view ${viewConfigId} (HTTP 400${server}); check the view id and ` +
        'the filter names',
    );
  }
  if (err.code === 'TB_UNAVAILABLE') {
    return new TbApiError(
      'TB_UNAVAILABLE',
      err.status,
      err.errorCode,
      err.serverMessage,
      `The analytics service was unavailable for the report of view ${viewConfigId}: ${err.message}`,
    );
  }
  if (err.status >= 500) {
    return new TbApiError(
      'TB_REPORT_FAILED',
      err.status,
      err.errorCode,
      err.serverMessage,
      `The analytics service failed to build the report for view ${viewConfigId} (HTTP ${err.status}${server})`,
    );
  }
  if (err.status === 429) {
    return new TbApiError(
      'TB_RATE_LIMITED',
      429,
      err.errorCode,
      err.serverMessage,
      "The analytics service's report queue stayed full for " +
        `view ${viewConfigId}${err.message.includes('gave up') ? err.message.slice(err.message.indexOf(' (gave up')) : ''}`,
    );
  }
  return err;
}
