/**
 * `/__sim/ws/…`: the WebSocket hooks over HTTP for a simulator in another process (no authentication; JSON in and
 * out; errors `400 {"error"}`). See README.md ("WebSocket test hooks").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ControlApi, type ControlTarget } from '../control';
import type { BurstOptions, BurstResult } from './burst';
import type { WsOptions } from './context';
import type { WsServer } from './server';

type Obj = Record<string, unknown>;

class BadRequest extends Error {}

function obj(v: unknown): Obj {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadRequest('a JSON object body is required');
  return v as Obj;
}

function optNumber(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadRequest(`${name} must be a number`);
  return v;
}

interface BurstRecord {
  id: number;
  status: 'running' | 'done' | 'failed';
  result?: BurstResult;
  error?: string;
}

const OPTION_KEYS: readonly (keyof WsOptions)[] = [
  'authTimeoutMs',
  'pingIntervalMs',
  'pongTimeoutMs',
  'maxQueue',
  'dynamicRefreshMs',
  'maxAlarmQueriesPerRefresh',
  'maxEntitiesPerDataSubscription',
  'maxEntitiesPerAlarmSubscription',
  'updatesRateLimit',
  'apiKeyAuth',
  'maxSessionsPerTenant',
  'commandLogSize',
];

export const WS_CONTROL_PREFIX = '/__sim/ws';

export class WsControl {
  private bursts = new Map<number, BurstRecord>();
  private burstSeq = 0;

  constructor(private readonly ws: WsServer) {}

  /** True when the path belongs to the WebSocket hooks. */
  static owns(path: string): boolean {
    return path === WS_CONTROL_PREFIX || path.startsWith(`${WS_CONTROL_PREFIX}/`);
  }

  /** For a plain node:http listener: true (and answered) when the request is a `/__sim/ws` call. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    if (!WsControl.owns(path)) return false;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      this.handleRequest(
        (req.method ?? 'GET').toUpperCase(),
        path,
        qi < 0 ? '' : url.slice(qi + 1),
        Buffer.concat(chunks),
        res,
      ),
    );
    return true;
  }

  /** Answers a `/__sim/ws` request whose body was read already. */
  handleRequest(method: string, path: string, query: string, body: Buffer, res: ServerResponse): void {
    const reply = (status: number, out: unknown): void => {
      const s = JSON.stringify(out);
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
      res.end(s);
    };
    try {
      const text = body.toString('utf8');
      const json: unknown = text ? JSON.parse(text) : undefined;
      const seg = path
        .slice(WS_CONTROL_PREFIX.length)
        .split('/')
        .filter((x) => x !== '');
      const out = this.dispatch(method, seg, new URLSearchParams(query), json);
      if (out instanceof Promise) {
        out.then(
          (v) => reply(200, v),
          (e: unknown) => reply(400, { error: e instanceof Error ? e.message : String(e) }),
        );
      } else if (out === undefined) {
        reply(404, { error: `no such control endpoint: ${method} ${path}` });
      } else {
        reply(200, out);
      }
    } catch (e) {
      reply(400, { error: e instanceof Error ? e.message : String(e) });
    }
  }

  private dispatch(method: string, seg: string[], q: URLSearchParams, body: unknown): unknown {
    const ws = this.ws;
    const route = `${method} /${seg.join('/')}`;
    switch (route) {
      case 'GET /':
      case 'GET /stats':
        return ws.stats();
      case 'GET /connections':
        return ws.connections();
      case 'GET /sessions':
        return ws.sessionList();
      case 'POST /drop': {
        const o = obj(body);
        return { closed: ws.dropAll(optNumber(o.code, 'code'), typeof o.reason === 'string' ? o.reason : '') };
      }
      case 'POST /refuse-auth': {
        const o = obj(body);
        ws.refuseAuth(o.on !== false, typeof o.reason === 'string' ? o.reason : undefined);
        return { ok: true };
      }
      case 'POST /session-limit': {
        const o = obj(body);
        ws.sessionLimit(o.limit === null || o.limit === undefined ? null : Number(o.limit));
        return { ok: true };
      }
      case 'POST /pause':
        ws.pauseFrames(obj(body).on !== false);
        return { ok: true };
      case 'POST /delay':
        ws.delayMs(optNumber(obj(body).ms, 'ms') ?? 0);
        return { ok: true };
      case 'POST /raw': {
        const o = obj(body);
        if (typeof o.text !== 'string') throw new BadRequest('text must be a string');
        return { sessions: ws.sendRaw(o.text) };
      }
      case 'GET /commands': {
        const limit = q.get('limit');
        return ws.commandsReceived(limit === null ? undefined : Number(limit));
      }
      case 'GET /messages':
        return { sent: ws.messagesSent() };
      case 'POST /reset':
        ws.resetStats();
        return { ok: true };
      case 'POST /rate-limit': {
        const o = obj(body);
        ws.rateLimit(typeof o.limit === 'string' ? o.limit : null);
        return { ok: true };
      }
      case 'POST /fail-history':
        ws.failHistoryFetch(optNumber(obj(body).times, 'times') ?? 1);
        return { ok: true };
      case 'GET /options':
        return ws.configure({});
      case 'POST /options': {
        const o = obj(body);
        const patch: Record<string, unknown> = {};
        for (const k of OPTION_KEYS) if (k in o) patch[k] = o[k];
        return ws.configure(patch as Partial<WsOptions>);
      }
      case 'POST /burst': {
        const o = obj(body);
        const spec: BurstOptions = {
          entities: optNumber(o.entities, 'entities') ?? 1,
          updates: optNumber(o.updates, 'updates') ?? 0,
          keysPerUpdate: optNumber(o.keysPerUpdate, 'keysPerUpdate'),
          ratePerSec: optNumber(o.ratePerSec, 'ratePerSec'),
          namePrefix: typeof o.namePrefix === 'string' ? o.namePrefix : undefined,
          entityIds: Array.isArray(o.entityIds) ? o.entityIds.map(String) : undefined,
          stallTimeoutMs: optNumber(o.stallTimeoutMs, 'stallTimeoutMs'),
          batch: optNumber(o.batch, 'batch'),
        };
        const id = ++this.burstSeq;
        const rec: BurstRecord = { id, status: 'running' };
        this.bursts.set(id, rec);
        while (this.bursts.size > 100) this.bursts.delete(this.bursts.keys().next().value as number);
        const p = ws.pushTelemetryBurst(spec).then(
          (r) => {
            rec.status = 'done';
            rec.result = r;
            return { id, ...r };
          },
          (e: unknown) => {
            rec.status = 'failed';
            rec.error = e instanceof Error ? e.message : String(e);
            throw e;
          },
        );
        if (o.wait === false) {
          p.catch(() => undefined);
          return { id, status: 'running' };
        }
        return p;
      }
      case 'GET /bursts':
        return [...this.bursts.values()];
      default:
        break;
    }
    if (method === 'GET' && seg.length === 2 && seg[0] === 'burst') {
      const rec = this.bursts.get(Number(seg[1]));
      if (!rec) throw new BadRequest(`no burst ${seg[1]}`);
      return rec;
    }
    return undefined;
  }
}

/** The simulator's `/__sim` control API with the `/__sim/ws/…` routes in front. */
export class ControlWithWs extends ControlApi {
  constructor(
    sim: ControlTarget,
    private readonly wsControl: () => WsControl,
  ) {
    super(sim);
  }

  override handle(method: string, path: string, query: string, body: Buffer, res: ServerResponse): void {
    if (WsControl.owns(path)) this.wsControl().handleRequest(method, path, query, body, res);
    else super.handle(method, path, query, body, res);
  }
}
