/**
 * `/__sim/analytics/…`: the analytics hooks over HTTP (no authentication; JSON in and out; errors
 * `400 {"error"}`), for benchmarks and the demo running the simulator in another process.
 */
import type { ServerResponse } from 'node:http';
import type { Faults, FaultSpec, RequestLog } from '../hooks';
import type { ViewRegistry } from './views';

type Obj = Record<string, unknown>;

class ControlError extends Error {}

function obj(v: unknown): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ControlError('a JSON object body is required');
  return v as Obj;
}

/** What the control routes read and set: the analytics service implements it. */
export interface AnalyticsControlTarget {
  /** the counters, answered as they are */
  readonly stats: object;
  /** the current settings, answered as they are */
  readonly settings: object;
  readonly views: ViewRegistry;
  readonly faults: Faults;
  readonly requests: RequestLog;
  resetStats(): void;
  setRefreshEnabled(on: boolean): void;
  setAuthErrorStatus(status: 401 | 403): void;
  setReportDelay(ms: number): void;
  setRetryAfter(sec: number | null): void;
  setNumericStrings(on: boolean): void;
  setTokenLifetime(sec: number): void;
  setRefreshTokenLifetime(sec: number): void;
  setQueue(opts: { queueCapacity?: number; concurrency?: number }): void;
  countRequests(match: string | RegExp, method?: string): number;
  resetRequests(): void;
  expireAllTokens(): void;
  revokeRefreshTokens(): void;
  pauseReports(): void;
  resumeReports(): void;
}

export class AnalyticsControl {
  constructor(private readonly svc: AnalyticsControlTarget) {}

  handle(method: string, path: string, query: string, body: Buffer, res: ServerResponse): void {
    let status = 200;
    let out: unknown;
    try {
      const json: unknown = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      out = this.dispatch(method, path.slice('/__sim/analytics'.length) || '/', new URLSearchParams(query), json);
    } catch (e) {
      status = 400;
      out = { error: e instanceof Error ? e.message : String(e) };
    }
    if (out === undefined) {
      status = 404;
      out = { error: `no such control endpoint: ${method} ${path}` };
    }
    const s = JSON.stringify(out);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
    res.end(s);
  }

  private dispatch(method: string, p: string, q: URLSearchParams, body: unknown): unknown {
    const svc = this.svc;
    const seg = p.split('/').filter((x) => x !== '');
    const route = `${method} /${seg.join('/')}`;
    switch (route) {
      case 'GET /':
      case 'GET /stats':
        return { ...svc.stats, settings: svc.settings };
      case 'POST /stats/reset':
        svc.resetStats();
        return { ok: true };
      case 'GET /settings':
        return svc.settings;
      case 'POST /settings': {
        const o = obj(body);
        if (typeof o.refresh === 'boolean') svc.setRefreshEnabled(o.refresh);
        if (o.authErrorStatus === 401 || o.authErrorStatus === 403) svc.setAuthErrorStatus(o.authErrorStatus);
        if (typeof o.reportDelayMs === 'number') svc.setReportDelay(o.reportDelayMs);
        if (typeof o.retryAfterSec === 'number' || o.retryAfterSec === null) svc.setRetryAfter(o.retryAfterSec);
        if (typeof o.numericStrings === 'boolean') svc.setNumericStrings(o.numericStrings);
        if (typeof o.tokenLifetimeSec === 'number') svc.setTokenLifetime(o.tokenLifetimeSec);
        if (typeof o.refreshLifetimeSec === 'number') svc.setRefreshTokenLifetime(o.refreshLifetimeSec);
        svc.setQueue({
          queueCapacity: typeof o.queueCapacity === 'number' ? o.queueCapacity : undefined,
          concurrency: typeof o.concurrency === 'number' ? o.concurrency : undefined,
        });
        return svc.settings;
      }
      case 'GET /views':
        return svc.views.list().map((v) => ({
          id: v.id,
          name: v.name,
          columns: v.columns,
          filters: v.filters,
          defaultFilters: v.defaultFilters,
          defaultRange: v.defaultRange,
        }));
      case 'GET /requests': {
        const limit = Number(q.get('limit') ?? 100);
        return { total: svc.requests.total, counts: svc.requests.countsByPath(), entries: svc.requests.entries(limit) };
      }
      case 'GET /requests/count': {
        const regex = q.get('regex');
        const match = regex !== null ? new RegExp(regex) : (q.get('prefix') ?? '/');
        return { count: svc.countRequests(match, q.get('method') ?? undefined) };
      }
      case 'POST /requests/reset':
        svc.resetRequests();
        return { ok: true };
      case 'GET /faults':
        return svc.faults.list().map((f) => ({
          ...f,
          path: f.path instanceof RegExp ? { regex: f.path.source } : f.path,
          remaining: Number.isFinite(f.remaining) ? f.remaining : null,
        }));
      case 'POST /faults': {
        const o = obj(body);
        const spec: FaultSpec = { ...(o as FaultSpec) };
        if (typeof o.pathRegex === 'string') spec.path = new RegExp(o.pathRegex);
        if (o.times === null) spec.times = Infinity;
        return { id: svc.faults.add(spec) };
      }
      case 'DELETE /faults':
        svc.faults.clear();
        return { ok: true };
      case 'POST /tokens/expire':
        svc.expireAllTokens();
        return { ok: true };
      case 'POST /tokens/revoke-refresh':
        svc.revokeRefreshTokens();
        return { ok: true };
      case 'POST /reports/pause':
        svc.pauseReports();
        return { ok: true };
      case 'POST /reports/resume':
        svc.resumeReports();
        return { ok: true };
      default:
        break;
    }
    if (seg[0] === 'faults' && seg.length === 2 && method === 'DELETE')
      return { removed: svc.faults.remove(Number(seg[1])) };
    return undefined;
  }
}
