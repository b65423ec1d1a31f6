/**
 * Server-side RPC: `POST /api/rpc/{oneway,twoway}/{deviceId}` (v2) and `/api/plugins/rpc/…`
 * (v1), persistent RPCs and their management, and the simulated devices that receive them. Modelled on
 * `C/AbstractRpcController.java` (request parsing, answers), `ACT/DeviceActorMessageProcessor.java` (the device
 * actor: pending map, expiry, persistent statuses), `RPC/DefaultTbCoreDeviceRpcService.java` (the core's backup
 * timeout at expiry + 1 s) and the 30 s `spring.mvc.async.request-timeout` (`YML:939`).
 *
 * Every wait runs on `RpcTimers`: deterministic (due time, then creation order), bounded, and either real
 * (wall clock, optionally scaled) or manual (`advance(ms)`), so tests never wait the server's real windows.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { validateAccess, type AccessContext } from './access';
import { javaUuid } from './alarm-actions';
import type { Dataset, SimEntity } from './dataset';
import { ApiError, badRequest, forbidden, general } from './errors';
import { fromJs, jacksonText, JRaw, parseJackson, toJs, writeJava, type GNode, type JOut } from './json';
import { pageLink, validatePageLink, toPage } from './lookups';
import type { RouteAnswer } from './telemetry';
import type { Caller, EntityId, PageData } from './types';
import type { JsonValue } from './values';

// ---------------------------------------------------------------------------------------------------------------
// Timers

interface Task {
  readonly id: number;
  due: number;
  fn: () => void;
  handle?: NodeJS.Timeout;
  done: boolean;
}

export type TimerMode = 'real' | 'manual';

/**
 * The scheduler of every RPC wait. A delay <= 0 runs synchronously. `real`: a wall-clock timeout of `delay *
 * scale` ms. `manual`: nothing fires until `advance(ms)`, which runs what falls due in order (including tasks
 * scheduled meanwhile). `shutdown()` cancels everything (on `sim.stop()`).
 */
export class RpcTimers {
  private seq = 0;
  /** manual mode: virtual time elapsed */
  private virtual = 0;
  private readonly manualQueue: Task[] = [];
  private readonly realTasks = new Set<Task>();

  constructor(
    public mode: TimerMode = 'real',
    public scale = 1,
  ) {}

  schedule(delayMs: number, fn: () => void): Task {
    const task: Task = { id: ++this.seq, due: 0, fn, done: false };
    if (delayMs <= 0) {
      task.done = true;
      fn();
      return task;
    }
    if (this.mode === 'manual') {
      task.due = this.virtual + delayMs;
      // keep (due, id) order
      let i = this.manualQueue.length;
      while (i > 0 && this.manualQueue[i - 1].due > task.due) i--;
      this.manualQueue.splice(i, 0, task);
    } else {
      task.due = Date.now() + delayMs * this.scale;
      task.handle = setTimeout(
        () => {
          this.realTasks.delete(task);
          if (task.done) return;
          task.done = true;
          task.fn();
        },
        Math.max(0, Math.round(delayMs * this.scale)),
      );
      this.realTasks.add(task);
    }
    return task;
  }

  cancel(task: Task | undefined): void {
    if (!task || task.done) return;
    task.done = true;
    if (task.handle) {
      clearTimeout(task.handle);
      this.realTasks.delete(task);
    } else {
      const i = this.manualQueue.indexOf(task);
      if (i >= 0) this.manualQueue.splice(i, 1);
    }
  }

  /** Manual mode: moves virtual time by `ms`, running every task due meanwhile in order; returns how many ran. */
  advance(ms: number): number {
    const target = this.virtual + Math.max(0, ms);
    let ran = 0;
    while (this.manualQueue.length > 0 && this.manualQueue[0].due <= target) {
      const t = this.manualQueue.shift() as Task;
      this.virtual = t.due;
      if (t.done) continue;
      t.done = true;
      ran++;
      t.fn();
    }
    this.virtual = target;
    return ran;
  }

  pending(): number {
    return this.manualQueue.filter((t) => !t.done).length + this.realTasks.size;
  }

  shutdown(): void {
    for (const t of this.realTasks) {
      t.done = true;
      clearTimeout(t.handle);
    }
    this.realTasks.clear();
    for (const t of this.manualQueue) t.done = true;
    this.manualQueue.length = 0;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Devices

export type DeviceMode = 'answer' | 'silent' | 'offline' | 'nonJson' | 'error' | 'empty' | 'noAck' | 'unrouted';
export const DEVICE_MODES: readonly DeviceMode[] = [
  'answer',
  'silent',
  'offline',
  'nonJson',
  'error',
  'empty',
  'noAck',
  'unrouted',
];

/** What a delivered RPC looked like to the device. */
export interface RpcCall {
  rpcId: string;
  deviceId: string;
  method: string;
  /** the params as the device receives them (parsed JSON; null when absent) */
  params: unknown;
  oneway: boolean;
  persistent: boolean;
  /** simulator clock at the first delivery */
  deliveredAt: number;
  /** transmissions (retries after delivery timeouts add to it) */
  attempts: number;
}

export interface DeviceBehaviour {
  mode: DeviceMode;
  /** 'answer': the reply as a JSON value (default: `{"method", "params"}` echoed), or a function of the call */
  reply?: JsonValue | ((call: RpcCall) => unknown);
  /** 'nonJson': the raw reply (default `ok`); 'error': the error text (default `Device error`) */
  text?: string;
  /** delivery → reply (default 0) */
  replyDelayMs?: number;
  /** SENT → DELIVERED (default 0) */
  ackDelayMs?: number;
  /** 1 (default): SENT, then DELIVERED on the ack; 0: DELIVERED at once */
  qos?: 0 | 1;
  /** 'noAck': the transport's delivery timeout (default 10000) */
  ackTimeoutMs?: number;
}

export type RpcStatus = 'QUEUED' | 'SENT' | 'DELIVERED' | 'SUCCESSFUL' | 'TIMEOUT' | 'EXPIRED' | 'FAILED' | 'DELETED';

export interface RpcOptions {
  timers?: TimerMode;
  timeScale?: number;
  /** server.rest.server_side_rpc.min_timeout (5000) */
  minTimeoutMs?: number;
  /** server.rest.server_side_rpc.default_timeout (10000) */
  defaultTimeoutMs?: number;
  /** spring.mvc.async.request-timeout (30000) */
  asyncRequestTimeoutMs?: number;
  /** actors.rpc.max_retries (5) */
  maxRetries?: number;
  /** the behaviour of devices without one (default `{mode: 'answer'}`) */
  defaultDevice?: DeviceBehaviour;
}

export interface RpcContext extends AccessContext {
  data: Dataset;
  now(): number;
  versionAtLeast(v: string): boolean;
}

/** A stored (persistent) RPC. */
interface RpcRecord {
  id: string;
  createdTime: number;
  tenantId: string;
  deviceId: string;
  expirationTime: number;
  oneway: boolean;
  method: string;
  /** JSON text or null */
  params: string | null;
  retries: number | null;
  status: RpcStatus;
  response: GNode | null;
  /** JSON text or null */
  additionalInfo: string | null;
}

interface HttpWait {
  answered: boolean;
  resolve: (a: RouteAnswer) => void;
  tasks: Task[];
  timeoutStatus: number;
  noConnectionStatus: number;
  rpcId: string;
}

/** An RPC in the device actor's pending map (`toDeviceRpcPendingMap`). */
interface Pending {
  id: string;
  deviceId: string;
  oneway: boolean;
  persisted: boolean;
  method: string;
  params: string | null;
  expirationTime: number;
  retries: number | null;
  sent: boolean;
  delivered: boolean;
  retriesUsed: number;
  call?: RpcCall;
  expiry?: Task;
  deviceTasks: Task[];
  wait?: HttpWait;
}

const NPE_METHOD =
  'Cannot invoke "com.fasterxml.jackson.databind.JsonNode.asText()" because the return value of ' +
  '"com.fasterxml.jackson.databind.JsonNode.get(String)" is null';
const FINAL: ReadonlySet<RpcStatus> = new Set(['SUCCESSFUL', 'FAILED', 'EXPIRED', 'DELIVERED']);
const MAX_STORED = 10_000;
const CALL_LOG = 1000;

function get(n: GNode, k: string): GNode | undefined {
  return n.t === 'obj' ? n.m.get(k) : undefined;
}

/** `JsonNode#asText`. */
function asText(n: GNode): string {
  switch (n.t) {
    case 'str':
      return n.v;
    case 'num':
      return jacksonText(n);
    case 'bool':
      return String(n.v);
    case 'null':
      return 'null';
    default:
      return '';
  }
}

/** `JsonNode#asLong` (0 when not convertible). */
function asLong(n: GNode): number {
  switch (n.t) {
    case 'num':
      return Math.trunc(Number(n.raw));
    case 'str': {
      const v = Number(n.v.trim());
      return n.v.trim() !== '' && Number.isFinite(v) ? Math.trunc(v) : 0;
    }
    case 'bool':
      return n.v ? 1 : 0;
    default:
      return 0;
  }
}

/** `JsonNode#asBoolean`. */
function asBoolean(n: GNode): boolean {
  if (n.t === 'bool') return n.v;
  if (n.t === 'num') return Number(n.raw) !== 0;
  if (n.t === 'str') return n.v.trim() === 'true';
  return false;
}

function deviceRef(ref: string | EntityId): string {
  return typeof ref === 'string' ? ref : ref.id;
}

export class RpcService {
  readonly timers: RpcTimers;
  /**
   * 'request' ({rpcId, deviceId, method, oneway, persistent, expirationTime}), 'delivered' (RpcCall), 'status' ({rpcId,
   * status}), 'answered' ({rpcId, status})
   */
  readonly events = new EventEmitter();
  private readonly behaviours = new Map<string, DeviceBehaviour>();
  private readonly seeded = new Map<string, DeviceBehaviour>();
  private rpcSeq = 0;
  private readonly records = new Map<string, RpcRecord>();
  private readonly pending = new Map<string, Pending[]>();
  private readonly callLog = new Map<string, RpcCall[]>();
  private readonly deliveredBy = new Map<string, number>();
  private readonly requestsBy = new Map<string, number>();
  private readonly opts: Required<Omit<RpcOptions, 'timers' | 'timeScale'>>;

  constructor(
    private readonly ctx: RpcContext,
    opts: RpcOptions = {},
  ) {
    this.events.setMaxListeners(0);
    this.timers = new RpcTimers(opts.timers ?? 'real', opts.timeScale ?? 1);
    this.opts = {
      minTimeoutMs: opts.minTimeoutMs ?? 5000,
      defaultTimeoutMs: opts.defaultTimeoutMs ?? 10_000,
      asyncRequestTimeoutMs: opts.asyncRequestTimeoutMs ?? 30_000,
      maxRetries: opts.maxRetries ?? 5,
      defaultDevice: opts.defaultDevice ?? { mode: 'answer' },
    };
  }

  // --- test hooks ------------------------------------------------------------------------------------------------

  /** Sets how a device behaves; a device that comes online gets its pending RPCs delivered. */
  setDevice(ref: string | EntityId, behaviour: DeviceBehaviour): void {
    if (!DEVICE_MODES.includes(behaviour.mode)) throw new Error(`Unknown device mode ${String(behaviour.mode)}`);
    const id = deviceRef(ref);
    const wasOnline = this.online(this.device(id));
    this.behaviours.set(id, { ...behaviour });
    if (!wasOnline && this.online(behaviour)) this.deliverPending(id);
  }

  /** The behaviour of a device (the default one when none was set). */
  device(ref: string | EntityId): DeviceBehaviour {
    return this.behaviours.get(deviceRef(ref)) ?? this.opts.defaultDevice;
  }

  /** A behaviour that `resetDevices()` restores (the seed's offline "Spare Sensor"). */
  seedDevice(ref: string | EntityId, behaviour: DeviceBehaviour): void {
    this.seeded.set(deviceRef(ref), { ...behaviour });
    this.setDevice(ref, behaviour);
  }

  /** Every device back to its seeded behaviour ("Spare Sensor" offline, the others the default). */
  resetDevices(): void {
    this.behaviours.clear();
    for (const [id, b] of this.seeded) this.behaviours.set(id, { ...b });
  }

  /** Devices with a behaviour of their own. */
  devices(): { deviceId: string; behaviour: DeviceBehaviour }[] {
    return [...this.behaviours].map(([deviceId, behaviour]) => ({ deviceId, behaviour: { ...behaviour } }));
  }

  setTimers(opts: { mode?: TimerMode; scale?: number }): void {
    if (opts.mode) this.timers.mode = opts.mode;
    if (opts.scale !== undefined) this.timers.scale = Math.max(0, opts.scale);
  }
  advance(ms: number): number {
    return this.timers.advance(ms);
  }
  pendingTimers(): number {
    return this.timers.pending();
  }

  /** RPCs delivered to a device (or to all); a retransmission counts once. */
  deliveredCount(ref?: string | EntityId): number {
    if (ref === undefined) return [...this.deliveredBy.values()].reduce((a, b) => a + b, 0);
    return this.deliveredBy.get(deviceRef(ref)) ?? 0;
  }
  /** RPC requests that passed the access check (per device or all). */
  requestCount(ref?: string | EntityId): number {
    if (ref === undefined) return [...this.requestsBy.values()].reduce((a, b) => a + b, 0);
    return this.requestsBy.get(deviceRef(ref)) ?? 0;
  }
  /** The delivered calls (last 1000 per device), oldest first. */
  calls(ref?: string | EntityId): RpcCall[] {
    const lists = ref === undefined ? [...this.callLog.values()] : [this.callLog.get(deviceRef(ref)) ?? []];
    return lists
      .flat()
      .map((c) => ({ ...c }))
      .sort((a, b) => a.deliveredAt - b.deliveredAt);
  }
  resetCounters(): void {
    this.callLog.clear();
    this.deliveredBy.clear();
    this.requestsBy.clear();
  }
  /** The stored `Rpc` JSON of a persistent RPC (undefined when unknown or deleted). */
  get(rpcId: string): Record<string, unknown> | undefined {
    const r = this.records.get(rpcId);
    return r ? (JSON.parse(writeJava(this.rpcJson(r))) as Record<string, unknown>) : undefined;
  }

  shutdown(): void {
    this.timers.shutdown();
  }

  // --- HTTP ------------------------------------------------------------------------------------------------------

  /**
   * `AbstractRpcController#handleDeviceRPCRequest`. v2 answers 504 for both a timeout and no active
   * connection, v1 408 and 409.
   */
  send(
    caller: Caller,
    deviceIdStr: string,
    body: Buffer,
    oneway: boolean,
    v1: boolean,
  ): RouteAnswer | Promise<RouteAnswer> {
    const deviceId = javaUuid(deviceIdStr, this.ctx.versionAtLeast('4.4'));
    if (body.length === 0) throw general('Required request body is missing');
    let root: GNode;
    try {
      root = parseJackson(body.toString('utf8'));
    } catch {
      throw badRequest('Invalid request body');
    }
    const methodNode = get(root, 'method');
    if (methodNode === undefined) throw general(NPE_METHOD); // the controller's NullPointerException: 500, not 400
    const method = asText(methodNode);
    const paramsNode = get(root, 'params');
    const params = paramsNode === undefined ? null : jacksonText(paramsNode);
    const now = this.ctx.now();
    const timeoutNode = get(root, 'timeout');
    const timeout = timeoutNode !== undefined ? asLong(timeoutNode) : this.opts.defaultTimeoutMs;
    const expNode = this.ctx.versionAtLeast('3.4') ? get(root, 'expirationTime') : undefined;
    const expirationTime = expNode !== undefined ? asLong(expNode) : now + Math.max(this.opts.minTimeoutMs, timeout);
    const uuidNode = get(root, 'requestUUID');
    let rpcId: string;
    if (uuidNode !== undefined) {
      try {
        rpcId = javaUuid(asText(uuidNode), false);
      } catch {
        throw badRequest('Invalid request body');
      }
    } else {
      rpcId = this.nextRpcId();
    }
    const persistentNode = this.ctx.versionAtLeast('3.3') ? get(root, 'persistent') : undefined;
    const persisted = persistentNode !== undefined && asBoolean(persistentNode);
    const infoNode = get(root, 'additionalInfo');
    const additionalInfo = infoNode === undefined ? null : jacksonText(infoNode);
    const retriesNode = this.ctx.versionAtLeast('3.4') ? get(root, 'retries') : undefined;
    const retries = retriesNode !== undefined ? asLong(retriesNode) : null;

    // RPC_CALL on the device: 403 / 404 bare strings (C/AbstractRpcController.java:100-110)
    const device = validateAccess(this.ctx, caller, 'RPC_CALL', { entityType: 'DEVICE', id: deviceId }) as SimEntity;
    this.requestsBy.set(device.id, (this.requestsBy.get(device.id) ?? 0) + 1);
    this.events.emit('request', { rpcId, deviceId: device.id, method, oneway, persistent: persisted, expirationTime });

    return new Promise<RouteAnswer>((resolve) => {
      const wait: HttpWait = {
        answered: false,
        resolve,
        tasks: [],
        rpcId,
        timeoutStatus: v1 ? 408 : 504,
        noConnectionStatus: v1 ? 409 : 504,
      };
      // the async cap: 500 JSON "Request timeout" (C/BaseController.java:464-465)
      wait.tasks.push(
        this.timers.schedule(this.opts.asyncRequestTimeoutMs, () => {
          this.answer(wait, {
            status: 500,
            json: writeJava({ status: 500, message: 'Request timeout', errorCode: 2, timestamp: this.ctx.now() }),
          });
        }),
      );
      const p: Pending = {
        id: rpcId,
        deviceId: device.id,
        oneway,
        persisted,
        method,
        params,
        expirationTime,
        retries,
        sent: false,
        delivered: false,
        retriesUsed: 0,
        deviceTasks: [],
        wait,
      };
      // the core's own timeout: expiry + 1 s, RpcError.TIMEOUT (RPC/DefaultTbCoreDeviceRpcService.java:200-210)
      wait.tasks.push(
        this.timers.schedule(Math.max(0, expirationTime - now) + 1000, () =>
          this.answer(wait, { status: wait.timeoutStatus }),
        ),
      );
      const behaviour = this.device(device.id);
      if (behaviour.mode === 'unrouted') return; // the rule chain never hands it to the device actor
      this.actorReceive(p, behaviour, additionalInfo, now);
    });
  }

  /** `GET /api/rpc/persistent/{rpcId}` (`C/RpcV2Controller.java:157-167`): READ on the RPC. */
  getPersistent(caller: Caller, rpcIdStr: string): RouteAnswer {
    const r = this.checkRpc(caller, rpcIdStr);
    return { status: 200, json: writeJava(this.rpcJson(r)) };
  }

  /** `DELETE /api/rpc/persistent/{rpcId}` (`:224-253`): TENANT_ADMIN (the route's authorities), the row goes. */
  deletePersistent(caller: Caller, rpcIdStr: string): RouteAnswer {
    const r = this.checkRpc(caller, rpcIdStr);
    this.records.delete(r.id);
    if (r.status === 'QUEUED' || r.status === 'SENT' || r.status === 'DELIVERED') {
      const list = this.pending.get(r.deviceId) ?? [];
      const p = list.find((x) => x.id === r.id);
      if (p) this.drop(p);
    }
    this.events.emit('status', { rpcId: r.id, status: 'DELETED' });
    return { status: 200 };
  }

  /** `GET /api/rpc/persistent/device/{deviceId}` (`:169-222`). */
  listPersistent(caller: Caller, deviceIdStr: string, q: URLSearchParams): RouteAnswer {
    const link = pageLink(q);
    if (deviceIdStr.trim() === '') throw badRequest("Parameter 'DeviceId' can't be empty!");
    const rpcStatus = q.get('rpcStatus');
    const statuses: RpcStatus[] = [
      'QUEUED',
      'SENT',
      'DELIVERED',
      'SUCCESSFUL',
      'TIMEOUT',
      'EXPIRED',
      'FAILED',
      'DELETED',
    ];
    if (rpcStatus !== null && rpcStatus !== '' && !statuses.includes(rpcStatus as RpcStatus)) {
      throw badRequest(
        "Method parameter 'rpcStatus': Failed to convert value of type 'java.lang.String' to required type " +
          "'org.thingsboard.server.common.data.rpc.RpcStatus'; Failed to convert from type [java.lang.String] to " +
          'type [@org.springframework.web.bind.annotation.RequestParam ' +
          `org.thingsboard.server.common.data.rpc.RpcStatus] for value [${rpcStatus}]`,
      );
    }
    // ResponseStatusException(400) caught by BaseController's handler: 500 (RpcControllerTest.java:181-188)
    if (rpcStatus === 'DELETED') throw general('400 BAD_REQUEST "RpcStatus: DELETED"');
    const deviceId = javaUuid(deviceIdStr, this.ctx.versionAtLeast('4.4'));
    validatePageLink(link);
    validateAccess(this.ctx, caller, 'RPC_CALL', { entityType: 'DEVICE', id: deviceId });
    let rows = [...this.records.values()].filter(
      (r) => r.deviceId === deviceId && (rpcStatus === null || rpcStatus === '' || r.status === rpcStatus),
    );
    if (link.sort) {
      const prop = link.sort.property;
      const key = (r: RpcRecord): string | number =>
        prop === 'expirationTime'
          ? r.expirationTime
          : prop === 'request'
            ? writeJava(this.requestJson(r))
            : prop === 'response'
              ? r.response
                ? jacksonText(r.response)
                : ''
              : r.createdTime;
      if (!['createdTime', 'expirationTime', 'request', 'response'].includes(prop))
        throw new ApiError(500, 46, 'Database error');
      const dir = link.sort.direction === 'DESC' ? -1 : 1;
      rows = rows.sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
    }
    const page: PageData<JOut> = toPage(
      rows.map((r) => this.rpcJson(r)),
      link,
    );
    return { status: 200, json: writeJava(page as unknown as JOut) };
  }

  /** Deterministic RPC ids (their own counter: RPCs do not shift the ids of entities added later). */
  private nextRpcId(): string {
    this.rpcSeq++;
    const h = createHash('md5').update(`tb-sim-rpc:${this.rpcSeq}`).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  // --- the device actor ------------------------------------------------------------------------------------------

  private online(b: DeviceBehaviour): boolean {
    return b.mode !== 'offline' && b.mode !== 'unrouted';
  }

  /** `DeviceActorMessageProcessor#processRpcRequest` (`ACT/…:189-247`). */
  private actorReceive(p: Pending, behaviour: DeviceBehaviour, additionalInfo: string | null, now: number): void {
    const timeout = p.expirationTime - now;
    if (timeout <= 0) {
      // dropped; a persistent one is stored EXPIRED and no rpcId is returned
      if (p.persisted) this.store(p, 'EXPIRED', additionalInfo, now);
      return;
    }
    if (p.persisted) this.store(p, 'QUEUED', additionalInfo, now);
    const sent = this.online(behaviour);
    this.pendingOf(p.deviceId).push(p);
    // a persistent RPC is answered {"rpcId"} right after the actor stored it; a device reply never reaches that
    // HTTP caller (ACT/…:205-206,236-240). Answered before the hand-over, which may complete synchronously here.
    if (p.persisted && p.wait) {
      this.answer(p.wait, { status: 200, json: JSON.stringify({ rpcId: p.id }) });
      p.wait = undefined;
    }
    if (sent) this.transmit(p, behaviour);
    if (!p.persisted && p.oneway && sent) {
      // a lightweight one-way is acknowledged once handed to the transport and never registered as pending
      if (p.wait) this.answer(p.wait, { status: 200 });
      this.removePending(p);
      return;
    }
    if (this.isPending(p)) p.expiry = this.timers.schedule(timeout, () => this.expire(p));
  }

  /** A device that subscribes gets the pending RPCs (`sendPendingRequests` / `processPendingRpc`). */
  private deliverPending(deviceId: string): void {
    const b = this.device(deviceId);
    for (const p of [...this.pendingOf(deviceId)]) {
      if (p.sent) continue;
      if (p.oneway && !p.persisted) {
        if (p.wait) this.answer(p.wait, { status: 200 });
        this.removePending(p);
      }
      this.transmit(p, b);
    }
  }

  /** `sendToTransport` plus what the simulated transport and device do with it. */
  private transmit(p: Pending, b: DeviceBehaviour): void {
    const now = this.ctx.now();
    p.sent = true;
    if (!p.call) {
      let params: unknown = null;
      if (p.params !== null) {
        try {
          params = toJs(parseJackson(p.params));
        } catch {
          params = p.params;
        }
      }
      p.call = {
        rpcId: p.id,
        deviceId: p.deviceId,
        method: p.method,
        params,
        oneway: p.oneway,
        persistent: p.persisted,
        deliveredAt: now,
        attempts: 0,
      };
      this.deliveredBy.set(p.deviceId, (this.deliveredBy.get(p.deviceId) ?? 0) + 1);
      let log = this.callLog.get(p.deviceId);
      if (!log) {
        log = [];
        this.callLog.set(p.deviceId, log);
      }
      log.push(p.call);
      if (log.length > CALL_LOG) log.splice(0, log.length - CALL_LOG);
    }
    p.call.attempts++;
    const call = p.call;
    this.events.emit('delivered', { ...call });
    if (b.mode === 'noAck') {
      if (p.persisted) this.setStatus(p.id, 'SENT');
      p.deviceTasks.push(this.timers.schedule(b.ackTimeoutMs ?? 10_000, () => this.transportTimeout(p, b)));
      return;
    }
    if ((b.qos ?? 1) === 1) {
      if (p.persisted) this.setStatus(p.id, 'SENT');
      p.deviceTasks.push(this.timers.schedule(b.ackDelayMs ?? 0, () => this.onDelivered(p, b)));
    } else {
      this.onDelivered(p, b);
    }
  }

  /** `processRpcResponseStatus(DELIVERED)` (`ACT/…:693-705`). */
  private onDelivered(p: Pending, b: DeviceBehaviour): void {
    if (!this.isPending(p)) return;
    if (p.persisted) this.setStatus(p.id, 'DELIVERED');
    if (p.oneway) {
      this.removePending(p);
      this.timers.cancel(p.expiry);
      return;
    }
    p.delivered = true;
    if (b.mode === 'silent') return;
    p.deviceTasks.push(this.timers.schedule(b.replyDelayMs ?? 0, () => this.onReply(p, b)));
  }

  /** `processRpcResponses` (`ACT/…:642-680`) and `AbstractRpcController#reply` (`C/…:118-146`). */
  private onReply(p: Pending, b: DeviceBehaviour): void {
    if (!this.isPending(p)) return; // stale
    this.removePending(p);
    this.timers.cancel(p.expiry);
    let payload: string;
    let hasError = false;
    switch (b.mode) {
      case 'nonJson':
        payload = b.text ?? 'ok';
        break;
      case 'error':
        payload = b.text ?? 'Device error';
        hasError = true;
        break;
      case 'empty':
        payload = '';
        break;
      default: {
        const call = p.call as RpcCall;
        const r = typeof b.reply === 'function' ? (b.reply as (c: RpcCall) => unknown)({ ...call }) : b.reply;
        payload = r === undefined ? JSON.stringify({ method: call.method, params: call.params }) : JSON.stringify(r);
        break;
      }
    }
    let node: GNode | null = null;
    let parsed = false;
    if (payload !== '') {
      try {
        node = parseJackson(payload);
        parsed = true;
      } catch {
        node = null;
      }
    }
    if (p.persisted) {
      const response: GNode | null = payload === '' ? null : parsed ? node : fromJs({ error: payload });
      const r = this.records.get(p.id);
      if (r) r.response = response;
      this.setStatus(p.id, hasError ? 'FAILED' : 'SUCCESSFUL');
    }
    if (p.wait) {
      if (payload === '') this.answer(p.wait, { status: 200 });
      else if (parsed && node) this.answer(p.wait, { status: 200, json: jacksonText(node) });
      else this.answer(p.wait, { status: 406 });
    }
  }

  /** `processRpcResponseStatus(TIMEOUT)` (`ACT/…:708-730`): retries, then FAILED and out of the pending map. */
  private transportTimeout(p: Pending, b: DeviceBehaviour): void {
    if (!this.isPending(p)) return;
    const max = Math.min(p.retries ?? this.opts.maxRetries, this.opts.maxRetries);
    if (max <= p.retriesUsed) {
      this.removePending(p);
      this.timers.cancel(p.expiry);
      if (p.persisted) {
        const r = this.records.get(p.id);
        if (r)
          r.response = fromJs({
            error: `There was a Timeout and all retry attempts have been exhausted. Retry attempts set: ${max}`,
          });
        this.setStatus(p.id, 'FAILED');
      }
      return; // the HTTP caller of a two-way RPC gets the core's TIMEOUT at expiry + 1 s
    }
    p.retriesUsed++;
    if (p.persisted) this.setStatus(p.id, 'TIMEOUT');
    // the transport retransmits
    if (p.call) p.call.attempts++;
    p.deviceTasks.push(this.timers.schedule(b.ackTimeoutMs ?? 10_000, () => this.transportTimeout(p, b)));
  }

  /** `processServerSideRpcTimeout` (`ACT/…:346-357`). */
  private expire(p: Pending): void {
    if (!this.isPending(p)) return;
    this.removePending(p);
    for (const t of p.deviceTasks) this.timers.cancel(t);
    if (p.persisted) this.setStatus(p.id, 'EXPIRED');
    if (p.wait) this.answer(p.wait, { status: p.sent ? p.wait.timeoutStatus : p.wait.noConnectionStatus });
  }

  // --- bookkeeping -----------------------------------------------------------------------------------------------

  private pendingOf(deviceId: string): Pending[] {
    let l = this.pending.get(deviceId);
    if (!l) {
      l = [];
      this.pending.set(deviceId, l);
    }
    return l;
  }

  private isPending(p: Pending): boolean {
    return (this.pending.get(p.deviceId) ?? []).includes(p);
  }

  private removePending(p: Pending): void {
    const l = this.pending.get(p.deviceId);
    if (!l) return;
    const i = l.indexOf(p);
    if (i >= 0) l.splice(i, 1);
    if (l.length === 0) this.pending.delete(p.deviceId);
  }

  private drop(p: Pending): void {
    this.removePending(p);
    this.timers.cancel(p.expiry);
    for (const t of p.deviceTasks) this.timers.cancel(t);
  }

  private answer(wait: HttpWait, a: RouteAnswer): void {
    if (wait.answered) return;
    wait.answered = true;
    for (const t of wait.tasks) this.timers.cancel(t);
    this.events.emit('answered', { rpcId: wait.rpcId, status: a.status });
    wait.resolve(a);
  }

  private store(p: Pending, status: RpcStatus, additionalInfo: string | null, now: number): void {
    const device = this.ctx.data.get(p.deviceId);
    this.records.set(p.id, {
      id: p.id,
      createdTime: now,
      tenantId: device?.tenantId ?? this.ctx.data.tenantId,
      deviceId: p.deviceId,
      expirationTime: p.expirationTime,
      oneway: p.oneway,
      method: p.method,
      params: p.params,
      retries: p.retries,
      status,
      response: null,
      additionalInfo,
    });
    this.events.emit('status', { rpcId: p.id, status });
    if (this.records.size > MAX_STORED) {
      for (const [id, r] of this.records) {
        if (this.records.size <= MAX_STORED) break;
        if (FINAL.has(r.status)) this.records.delete(id);
      }
    }
  }

  private setStatus(rpcId: string, status: RpcStatus): void {
    const r = this.records.get(rpcId);
    if (!r) return;
    r.status = status;
    this.events.emit('status', { rpcId, status });
  }

  private checkRpc(caller: Caller, rpcIdStr: string): RpcRecord {
    if (rpcIdStr.trim() === '') throw badRequest("Parameter 'RpcId' can't be empty!");
    const id = javaUuid(rpcIdStr, this.ctx.versionAtLeast('4.4'));
    const r = this.records.get(id);
    // checkRpcId → checkEntityId: JSON errors (C/BaseController.java:667-683)
    if (!r || r.tenantId !== caller.tenantId) throw new ApiError(404, 32, `Rpc with id [${id}] is not found`);
    if (caller.authority === 'SYS_ADMIN') throw forbidden();
    return r;
  }

  private requestJson(r: RpcRecord): JOut {
    return {
      id: r.id,
      tenantId: { entityType: 'TENANT', id: r.tenantId },
      deviceId: { entityType: 'DEVICE', id: r.deviceId },
      oneway: r.oneway,
      expirationTime: r.expirationTime,
      body: { method: r.method, params: r.params },
      persisted: true,
      retries: r.retries,
    };
  }

  /** The `Rpc` JSON (`CD/rpc/Rpc.java:33-46`); `request.body.params` is a JSON string. */
  private rpcJson(r: RpcRecord): JOut {
    let info: JOut = null;
    if (r.additionalInfo !== null) {
      try {
        info = new JRaw(jacksonText(parseJackson(r.additionalInfo)));
      } catch {
        info = r.additionalInfo;
      }
    }
    return {
      id: { entityType: 'RPC', id: r.id },
      createdTime: r.createdTime,
      tenantId: { entityType: 'TENANT', id: r.tenantId },
      deviceId: { entityType: 'DEVICE', id: r.deviceId },
      expirationTime: r.expirationTime,
      request: this.requestJson(r),
      response: r.response ? new JRaw(jacksonText(r.response)) : null,
      status: r.status,
      additionalInfo: info,
    };
  }
}
