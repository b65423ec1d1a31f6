/**
 * The `/__sim/…` control API: the in-process hooks over HTTP, for benchmarks and the demo running the
 * simulator in another process. No authentication. JSON in, JSON out; errors are `400 {"error": "…"}`.
 */
import type { ServerResponse } from 'node:http';
import { commentInfoJson } from './alarm-actions';
import type { AuthService } from './auth';
import type { AddEntitySpec, CreateAlarmSpec, Dataset, KeyScope, SimEntity } from './dataset';
import type { EntityBehaviour, EntityService } from './entities';
import type { FaultSpec, Faults, RequestLog } from './hooks';
import type { NotificationCenter } from './notifications';
import { DEVICE_MODES, type DeviceBehaviour, type DeviceMode, type RpcService } from './rpc';
import { CHAIN_MODES, type ChainBehaviour, type ChainMode, type RuleEngineService } from './rule-engine';
import type { TelemetryApi } from './telemetry';
import type { AttributeScope, EntityRef, EntityType } from './types';
import { DoubleValue, LongValue, type JsonValue, type KvInput } from './values';

export interface ControlTarget {
  readonly data: Dataset;
  readonly faults: Faults;
  readonly requests: RequestLog;
  readonly auth: AuthService;
  readonly rpc: RpcService;
  readonly ruleEngine: RuleEngineService;
  readonly entities: EntityService;
  readonly telemetry: TelemetryApi;
  readonly notifications: NotificationCenter;
  readonly url: string;
  readonly version: string;
  now(): number;
  expireAllTokens(): void;
  revokeRefreshTokens(): void;
  setTokenLifetime(sec: number): void;
  setRefreshTokenLifetime(sec: number): void;
  setLatency(ms: number): void;
  setVersion(version: string): void;
  setNow(now: (() => number) | null): void;
}

class ControlError extends Error {}

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ControlError('a JSON object body is required');
  return v as Obj;
}

function ref(v: unknown): EntityRef {
  if (typeof v === 'string') return v;
  const o = obj(v);
  if (typeof o.id !== 'string' || typeof o.entityType !== 'string')
    throw new ControlError('entityId must be a UUID or {entityType,id}');
  return { entityType: o.entityType, id: o.id };
}

/** JSON values; `{"$double": 23}` / `{"$long": 5}` force the stored type (JSON cannot tell 23.0 from 23). */
function values(v: unknown): Record<string, KvInput> {
  const o = obj(v);
  const out: Record<string, KvInput> = {};
  for (const [k, x] of Object.entries(o)) {
    if (typeof x === 'object' && x !== null && !Array.isArray(x)) {
      const w = x as Obj;
      if (typeof w.$double === 'number') {
        out[k] = new DoubleValue(w.$double);
        continue;
      }
      if (typeof w.$long === 'number') {
        out[k] = new LongValue(w.$long);
        continue;
      }
    }
    if (x === null || x === undefined) throw new ControlError(`value of ${k} must not be null`);
    out[k] = x as KvInput;
  }
  return out;
}

function entityJson(e: SimEntity): Obj {
  return {
    id: { entityType: e.entityType, id: e.id },
    name: e.name,
    type: e.type,
    label: e.label,
    customerId: e.customerId,
    tenantId: e.tenantId,
    createdTime: e.createdTime,
  };
}

/** One change made later (POST /__sim/schedule), checked when it is posted. */
type Step = { afterMs: number; run: () => void };

export class ControlApi {
  /** A user by e-mail or id (the notification hooks). */
  private user(who: string): { userId: string; email: string } {
    const u = this.sim.auth.users.find((x) => x.email === who || x.userId === who);
    if (!u) throw new ControlError(`no user "${who}" (give an e-mail or a user id)`);
    return u;
  }

  /** A user's inbox (`?user=`), or the center's targets, templates, requests and outbox. */
  private notifications(who: string | null): unknown {
    const n = this.sim.notifications;
    if (who !== null) {
      const u = this.user(who);
      return [...n.notifications.values()]
        .filter((x) => x.recipientId === u.userId)
        .sort((a, b) => b.createdTime - a.createdTime)
        .map((x) => n.notificationJson(x));
    }
    return {
      targets: [...n.targets.values()].map((t) => n.targetJson(t)),
      templates: [...n.templates.values()].map((t) => n.templateJson(t)),
      requests: [...n.requests.values()].map((r) => n.requestJson(r, true)),
      outbox: n.outbox,
      channels: n.channels,
    };
  }

  /** Changes scheduled by POST /__sim/schedule and not made yet (their timers do not keep the process alive). */
  private readonly scheduled = new Set<NodeJS.Timeout>();

  constructor(private readonly sim: ControlTarget) {}

  /**
   * `{steps: [{afterMs, telemetry: {entityId, values, ts?}} | {afterMs, attributes: {entityId, scope, values, ts?}} |
   * {afterMs, alarm: {id, action: 'ack' | 'clear'}}]}`: data and alarm states that change over time (a room warming
   * up, a device back online, an alarm acknowledged after a while), for the demo and for clients that wait. Every
   * step is checked first: one bad step schedules nothing.
   */
  private schedule(body: unknown): { scheduled: number } {
    const list = obj(body).steps;
    if (!Array.isArray(list) || list.length === 0) throw new ControlError('steps must be a non-empty array');
    const d = this.sim.data;
    const steps: Step[] = list.map((raw, i) => {
      const o = obj(raw);
      const afterMs = Number(o.afterMs ?? 0);
      if (!Number.isFinite(afterMs) || afterMs < 0)
        throw new ControlError(`steps[${i}].afterMs must be a number of ms >= 0`);
      const ts = (x: Obj) => (typeof x.ts === 'number' ? x.ts : undefined);
      if (o.telemetry !== undefined) {
        const t = obj(o.telemetry);
        const id = ref(t.entityId);
        const v = values(t.values);
        return { afterMs, run: () => d.setTelemetry(id, v, ts(t)) };
      }
      if (o.attributes !== undefined) {
        const t = obj(o.attributes);
        const id = ref(t.entityId);
        const v = values(t.values);
        const scope = String(t.scope) as AttributeScope;
        return { afterMs, run: () => d.setAttributes(id, scope, v, ts(t)) };
      }
      if (o.alarm !== undefined) {
        const a = obj(o.alarm);
        const id = String(a.id);
        if (!d.getAlarm(id)) throw new ControlError(`steps[${i}].alarm.id: unknown alarm ${id}`);
        if (a.action !== 'ack' && a.action !== 'clear')
          throw new ControlError(`steps[${i}].alarm.action must be 'ack' or 'clear'`);
        return { afterMs, run: () => (a.action === 'ack' ? d.ackAlarm(id) : d.clearAlarm(id)) };
      }
      throw new ControlError(`steps[${i}] must hold telemetry, attributes or alarm`);
    });
    for (const step of steps) {
      const t: NodeJS.Timeout = setTimeout(() => {
        this.scheduled.delete(t);
        try {
          step.run();
        } catch {
          /* the entity or alarm went away meanwhile: nothing to change */
        }
      }, step.afterMs);
      t.unref();
      this.scheduled.add(t);
    }
    return { scheduled: steps.length };
  }

  handle(method: string, path: string, query: string, body: Buffer, res: ServerResponse): void {
    let status = 200;
    let out: unknown;
    try {
      const json: unknown = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      out = this.dispatch(method, path.slice('/__sim'.length) || '/', new URLSearchParams(query), json);
    } catch (e) {
      status = e instanceof ControlError || e instanceof SyntaxError || e instanceof Error ? 400 : 500;
      out = { error: e instanceof Error ? e.message : String(e) };
    }
    if (out === undefined) {
      status = status === 200 ? 404 : status;
      out = { error: `no such control endpoint: ${method} ${path}` };
    }
    const s = JSON.stringify(out);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(s) });
    res.end(s);
  }

  private dispatch(method: string, p: string, q: URLSearchParams, body: unknown): unknown {
    const sim = this.sim;
    const d = sim.data;
    const seg = p.split('/').filter((x) => x !== '');
    const route = `${method} /${seg.join('/')}`;
    switch (route) {
      case 'GET /':
      case 'GET /health':
        return {
          ok: true,
          url: sim.url,
          version: sim.version,
          now: sim.now(),
          dataVersion: d.version,
          cpuUsage: process.cpuUsage(),
          memory: process.memoryUsage().heapUsed,
        };
      case 'GET /requests': {
        const limit = Number(q.get('limit') ?? 100);
        return { total: sim.requests.total, counts: sim.requests.countsByPath(), entries: sim.requests.entries(limit) };
      }
      case 'GET /requests/count': {
        const regex = q.get('regex');
        const match = regex !== null ? new RegExp(regex) : (q.get('prefix') ?? '/');
        return { count: sim.requests.count(match, q.get('method') ?? undefined) };
      }
      case 'POST /requests/reset':
      case 'DELETE /requests':
        sim.requests.reset();
        return { ok: true };
      case 'GET /faults':
        return sim.faults.list().map((f) => ({
          ...f,
          path: f.path instanceof RegExp ? { regex: f.path.source } : f.path,
          remaining: Number.isFinite(f.remaining) ? f.remaining : null,
        }));
      case 'POST /faults': {
        const o = obj(body);
        const spec: FaultSpec = { ...(o as FaultSpec) };
        if (typeof o.pathRegex === 'string') spec.path = new RegExp(o.pathRegex);
        if (o.times === null) spec.times = Infinity;
        return { id: sim.faults.add(spec) };
      }
      case 'DELETE /faults':
        sim.faults.clear();
        return { ok: true };
      case 'POST /tokens/expire':
        sim.expireAllTokens();
        return { ok: true };
      case 'POST /tokens/revoke-refresh':
        sim.revokeRefreshTokens();
        return { ok: true };
      case 'POST /token-lifetime':
        sim.setTokenLifetime(Number(obj(body).seconds));
        return { ok: true };
      case 'POST /refresh-lifetime':
        sim.setRefreshTokenLifetime(Number(obj(body).seconds));
        return { ok: true };
      case 'POST /latency':
        sim.setLatency(Number(obj(body).ms));
        return { ok: true };
      case 'POST /version':
        sim.setVersion(String(obj(body).version));
        return { ok: true };
      case 'POST /clock': {
        const n = obj(body).now;
        if (n === null) sim.setNow(null);
        else if (typeof n === 'number') sim.setNow(() => n);
        else throw new ControlError('now must be a number or null');
        return { ok: true, now: sim.now() };
      }
      case 'GET /users':
        return {
          users: sim.auth.users.map((u) => ({
            email: u.email,
            password: u.password,
            authority: u.authority,
            userId: u.userId,
            customerId: u.customerId,
            enabled: u.enabled,
            mfa: u.mfa,
          })),
        };
      case 'GET /entities': {
        const type = (q.get('type') ?? 'DEVICE') as EntityType;
        const name = q.get('name');
        if (name !== null) {
          const e = d.findByName(type, name);
          return e ? [entityJson(e)] : [];
        }
        const limit = Number(q.get('limit') ?? 1000);
        const out: Obj[] = [];
        for (const e of d.entitiesOfType(type)) {
          if (out.length >= limit) break;
          out.push(entityJson(e));
        }
        return out;
      }
      case 'POST /entities':
        return entityJson(d.addEntity(obj(body) as unknown as AddEntitySpec));
      case 'POST /telemetry': {
        const o = obj(body);
        d.setTelemetry(ref(o.entityId), values(o.values), typeof o.ts === 'number' ? o.ts : undefined);
        return { ok: true };
      }
      case 'GET /telemetry': {
        // the stored history of one key, oldest first: [{ ts, value }]
        const id = q.get('entityId');
        const key = q.get('key');
        if (!id || !key) throw new ControlError('entityId and key are required');
        return d.history(id, key).map((p) => ({ ts: p.ts, value: p.value }));
      }
      case 'POST /attributes': {
        const o = obj(body);
        // `filler: { key, bytes }`: a text value of that many "x" (a huge answer, without a request that large)
        const filler = o.filler === undefined ? undefined : obj(o.filler);
        const vals = filler ? { [String(filler.key)]: 'x'.repeat(Number(filler.bytes)) } : values(o.values);
        d.setAttributes(
          ref(o.entityId),
          String(o.scope) as AttributeScope,
          vals,
          typeof o.ts === 'number' ? o.ts : undefined,
        );
        return { ok: true };
      }
      case 'POST /keys/delete': {
        const o = obj(body);
        d.deleteKey(
          ref(o.entityId),
          String(o.scope) as KeyScope,
          Array.isArray(o.keys) ? o.keys.map(String) : String(o.keys),
        );
        return { ok: true };
      }
      case 'POST /relations': {
        const o = obj(body);
        d.addRelation(ref(o.from), ref(o.to), String(o.type));
        return { ok: true };
      }
      case 'POST /relations/delete': {
        const o = obj(body);
        return { removed: d.removeRelation(ref(o.from), ref(o.to), String(o.type)) };
      }
      case 'GET /alarms':
        return d.alarms().map((a) => d.alarmInfo(a));
      case 'POST /schedule':
        return this.schedule(body);
      case 'GET /schedule':
        return { pending: this.scheduled.size };
      case 'DELETE /schedule': {
        const n = this.scheduled.size;
        for (const t of this.scheduled) clearTimeout(t);
        this.scheduled.clear();
        return { cancelled: n };
      }
      // --- simulated devices, RPC timers and counters ---
      case 'GET /rpc/devices':
        return sim.rpc.devices();
      case 'POST /rpc/device': {
        const o = obj(body);
        const id = ref(o.deviceId);
        if (!DEVICE_MODES.includes(o.mode as DeviceMode))
          throw new ControlError(`mode must be one of ${DEVICE_MODES.join(', ')}`);
        const b: DeviceBehaviour = { mode: o.mode as DeviceMode };
        if (o.reply !== undefined) b.reply = o.reply as JsonValue;
        if (typeof o.text === 'string') b.text = o.text;
        for (const k of ['replyDelayMs', 'ackDelayMs', 'ackTimeoutMs'] as const)
          if (typeof o[k] === 'number') b[k] = o[k] as number;
        if (o.qos === 0 || o.qos === 1) b.qos = o.qos;
        sim.rpc.setDevice(id, b);
        return { ok: true };
      }
      case 'POST /rpc/reset':
        sim.rpc.resetDevices();
        return { ok: true };
      case 'POST /rpc/reset-counters':
        sim.rpc.resetCounters();
        return { ok: true };
      case 'GET /rpc/calls': {
        const id = q.get('deviceId') ?? undefined;
        return { delivered: sim.rpc.deliveredCount(id), requests: sim.rpc.requestCount(id), calls: sim.rpc.calls(id) };
      }
      case 'POST /rpc/advance':
        return { ran: sim.rpc.advance(Number(obj(body).ms)), pending: sim.rpc.pendingTimers() };
      case 'POST /rpc/timers': {
        const o = obj(body);
        if (o.mode !== undefined && o.mode !== 'real' && o.mode !== 'manual')
          throw new ControlError("mode must be 'real' or 'manual'");
        sim.rpc.setTimers({
          mode: o.mode as 'real' | 'manual' | undefined,
          scale: typeof o.scale === 'number' ? o.scale : undefined,
        });
        return { ok: true, mode: sim.rpc.timers.mode, scale: sim.rpc.timers.scale };
      }
      // --- the rule engine: how the rule chains answer, the messages that reached them, timers ---
      case 'GET /rule-engine/chain':
        return sim.ruleEngine.behaviour();
      case 'POST /rule-engine/chain': {
        const o = obj(body);
        if (!CHAIN_MODES.includes(o.mode as ChainMode))
          throw new ControlError(`mode must be one of ${CHAIN_MODES.join(', ')}`);
        const b: ChainBehaviour = { mode: o.mode as ChainMode };
        if (o.reply !== undefined) b.reply = o.reply as JsonValue;
        if (typeof o.replyDelayMs === 'number') b.replyDelayMs = o.replyDelayMs;
        sim.ruleEngine.setChain(b);
        return { ok: true };
      }
      case 'POST /rule-engine/reset':
        sim.ruleEngine.resetChain();
        sim.ruleEngine.resetCounters();
        return { ok: true };
      case 'GET /rule-engine/calls':
        return { count: sim.ruleEngine.count(), calls: sim.ruleEngine.calls() };
      case 'POST /rule-engine/advance':
        return { ran: sim.ruleEngine.advance(Number(obj(body).ms)), pending: sim.ruleEngine.pendingTimers() };
      case 'POST /rule-engine/timers': {
        const o = obj(body);
        if (o.mode !== undefined && o.mode !== 'real' && o.mode !== 'manual')
          throw new ControlError("mode must be 'real' or 'manual'");
        sim.ruleEngine.setTimers({
          mode: o.mode as 'real' | 'manual' | undefined,
          scale: typeof o.scale === 'number' ? o.scale : undefined,
        });
        return { ok: true, mode: sim.ruleEngine.timers.mode, scale: sim.ruleEngine.timers.scale };
      }
      // --- entity management: the tenant's limits, concurrent writers, versions, credentials ---
      case 'GET /entities/behaviour':
        return sim.entities.behaviour();
      case 'POST /entities/behaviour': {
        const o = obj(body);
        const b: Partial<EntityBehaviour> = {};
        if (o.limits !== undefined) b.limits = obj(o.limits) as EntityBehaviour['limits'];
        if (typeof o.concurrentWrites === 'number') b.concurrentWrites = o.concurrentWrites;
        sim.entities.setBehaviour(b);
        return sim.entities.behaviour();
      }
      case 'POST /entities/reset':
        sim.entities.reset();
        return { ok: true };
      case 'POST /entities/touch':
        return { version: sim.entities.touch(String(obj(body).id)) };
      case 'GET /telemetry/stats':
        return sim.telemetry.stats(q.get('entityId') ?? undefined);
      case 'POST /telemetry/reset-counters':
        sim.telemetry.resetCounters();
        return { ok: true };
      case 'POST /alarms': {
        const o = obj(body);
        const spec = { ...o, originator: ref(o.originator) } as unknown as CreateAlarmSpec;
        return d.alarmInfo(d.createAlarm(spec));
      }
      case 'GET /notifications':
        return this.notifications(q.get('user'));
      case 'POST /notifications': {
        // a notification put into a user's inbox as a rule or the system would (live subscriptions see it)
        const o = obj(body);
        const user = this.user(String(o.recipient ?? ''));
        const n = sim.notifications.addNotification({
          recipientId: user.userId,
          subject: typeof o.subject === 'string' ? o.subject : null,
          text: String(o.text ?? ''),
          type: typeof o.type === 'string' ? o.type : undefined,
        });
        return sim.notifications.notificationJson(n);
      }
      case 'POST /notifications/hold':
        sim.notifications.hold(obj(body ?? {}).on !== false);
        return { held: sim.notifications.heldCount };
      case 'POST /notifications/release':
        return { released: sim.notifications.release() };
      case 'POST /notifications/channels': {
        const o = obj(body);
        const c: Record<string, boolean> = {};
        for (const k of ['mail', 'sms', 'slack', 'mobileApp'])
          if (o[k] !== undefined) {
            if (typeof o[k] !== 'boolean') throw new ControlError(`${k} must be true or false`);
            c[k] = o[k];
          }
        sim.notifications.configure(c);
        return { ...sim.notifications.channels, deliveryMethods: sim.notifications.deliveryMethods() };
      }
      default:
        break;
    }
    // parameterised paths
    if (seg[0] === 'rpc' && seg[1] === 'persistent' && seg.length === 3 && method === 'GET') {
      const r = sim.rpc.get(seg[2]);
      if (!r) throw new ControlError(`Unknown persistent RPC ${seg[2]}`);
      return r;
    }
    if (seg[0] === 'faults' && seg.length === 2 && method === 'DELETE')
      return { removed: sim.faults.remove(Number(seg[1])) };
    if (seg[0] === 'entities' && seg.length === 2 && method === 'DELETE') {
      d.removeEntity(seg[1]);
      return { ok: true };
    }
    if (seg[0] === 'alarms' && seg.length === 2 && method === 'DELETE') return { removed: d.deleteAlarm(seg[1]) };
    if (seg[0] === 'alarms' && seg.length === 3 && seg[2] === 'comments') {
      const id = seg[1];
      if (!d.getAlarm(id)) throw new ControlError(`Unknown alarm ${id}`);
      if (method === 'GET') return d.alarmComments(id).map((c) => commentInfoJson(d, c));
      if (method === 'POST') {
        const o = obj(body);
        const comment = o.comment !== undefined ? o.comment : { text: String(o.text ?? '') };
        const type = o.type === 'SYSTEM' ? 'SYSTEM' : 'OTHER';
        const userId = typeof o.userId === 'string' ? o.userId : null;
        return commentInfoJson(
          d,
          d.addAlarmComment(
            id,
            { type, userId, comment: comment as JsonValue },
            typeof o.ts === 'number' ? o.ts : undefined,
          ),
        );
      }
    }
    if (seg[0] === 'alarms' && seg.length === 3 && method === 'POST') {
      const id = seg[1];
      switch (seg[2]) {
        case 'ack':
          return d.alarmInfo(d.ackAlarm(id));
        case 'clear':
          return d.alarmInfo(d.clearAlarm(id));
        case 'assign':
          return d.alarmInfo(d.assignAlarm(id, String(obj(body).userId)));
        case 'unassign':
          return d.alarmInfo(d.unassignAlarm(id));
        default:
          break;
      }
    }
    return undefined;
  }
}
