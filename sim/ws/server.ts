/**
 * The WebSocket API of the simulator (`/api/ws`): attaches to the simulator's node:http server through the
 * `upgrade` event, owns the sessions and the keepalive timer, and exposes the test hooks (`sim.ws.*`).
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AuthService } from '../auth';
import { versionAtLeast } from '../auth';
import type { Dataset } from '../dataset';
import type { NotificationCenter } from '../notifications';
import type { AlarmQueryEngine } from '../query/alarms';
import type { EntityQueryEngine } from '../query/entities';
import { pushTelemetryBurst, type BurstOptions, type BurstResult } from './burst';
import { DEFAULT_WS_OPTIONS, type WsContext, type WsOptions } from './context';
import type { WsCmd } from './parse';
import { LiveRouter } from './router';
import { WsSession, type SessionHub } from './session';

export interface WsServerDeps {
  data: Dataset;
  entityQuery: EntityQueryEngine;
  alarmQuery: AlarmQueryEngine;
  auth: AuthService;
  secret: Buffer;
  now(): number;
  version(): string;
  notifications: NotificationCenter;
}

export interface WsCommandLogEntry {
  /** session number (1, 2, …, per process) */
  session: number;
  /** the command's `type` as sent */
  type: string;
  cmdId: number;
  /** wall-clock ms when it was handled */
  time: number;
  /** the command object as received */
  cmd: Record<string, unknown>;
}

/** A fault installed by closeOnCommand. */
export interface CommandFault {
  readonly match: (cmd: Record<string, unknown>) => boolean;
  readonly code: number;
  readonly reason: string;
  remaining: number;
  hits: number;
  remove(): void;
}

export interface WsConnections {
  /** sessions currently open (pending authentication included) */
  open: number;
  /** open and authenticated */
  authenticated: number;
  /** WebSocket upgrades accepted since the simulator was created */
  total: number;
}

export interface WsSessionInfo {
  id: number;
  path: string;
  authenticated: boolean;
  userId: string | null;
  cmdIds: number[];
  /** outbound messages not yet written to the kernel */
  pending: number;
  /** incoming frames held by pauseFrames */
  held: number;
  connectedAt: number;
}

const LEGACY_PATHS = ['/api/ws/plugins/telemetry', '/api/ws/plugins/notifications'];

export class WsServer implements SessionHub {
  readonly ctx: WsContext;
  readonly opts: WsOptions;
  readonly router: LiveRouter;
  readonly authDeps: SessionHub['authDeps'];
  /** 'refresh', 'held', 'session' (see WsEventName) */
  readonly events = new EventEmitter();
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<WsSession>();
  private server: Server | null = null;
  private keepaliveTimer: NodeJS.Timeout | null = null;
  private accepted = 0;
  private sent = 0;
  private droppedWhilePaused = 0;
  private readonly log: WsCommandLogEntry[] = [];
  private refuse: string | null = null;
  private commandFaults: CommandFault[] = [];
  private paused_ = false;
  private delay = 0;
  private historyFailures = 0;
  private drainWaiters: { exclude: ReadonlySet<number> | undefined; wake: () => void }[] = [];

  constructor(
    private readonly deps: WsServerDeps,
    opts: Partial<WsOptions> = {},
  ) {
    this.opts = { ...DEFAULT_WS_OPTIONS, ...stripUndefined(opts) };
    this.router = new LiveRouter(deps.data);
    this.authDeps = { auth: deps.auth, secret: deps.secret, now: deps.now };
    const self = this;
    this.ctx = {
      data: deps.data,
      entityQuery: deps.entityQuery,
      alarmQuery: deps.alarmQuery,
      router: this.router,
      notifications: deps.notifications,
      get opts() {
        return self.opts;
      },
      now: deps.now,
      emit: (event, payload) => {
        this.events.emit(event, payload);
      },
      takeHistoryFailure: () => {
        if (this.historyFailures <= 0) return false;
        this.historyFailures--;
        return true;
      },
    };
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.opts.maxMessageBytes,
      perMessageDeflate: false,
      autoPong: false,
      clientTracking: false,
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // lifecycle (driven by Simulator.start / stop)

  /** Attaches to a (new) HTTP server: called on every start. */
  attach(server: Server): void {
    this.server = server;
    server.on('upgrade', this.onUpgrade);
    this.restartKeepalive();
  }

  /** Closes every session abruptly and stops the timers (the data and the hooks' settings survive a restart). */
  detach(): void {
    if (this.server) this.server.off('upgrade', this.onUpgrade);
    this.server = null;
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = null;
    for (const s of [...this.sessions]) s.close();
    this.sessions.clear();
    this.releaseDrainWaiters();
  }

  private restartKeepalive(): void {
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = null;
    if (!this.server) return;
    const period = Math.max(1, Math.min(this.opts.pingIntervalMs, this.opts.pongTimeoutMs));
    this.keepaliveTimer = setInterval(() => {
      if (this.paused_) return;
      const now = Date.now();
      for (const s of [...this.sessions]) s.keepalive(now, this.opts.pingIntervalMs, this.opts.pongTimeoutMs);
    }, period);
    this.keepaliveTimer.unref();
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const query = qi < 0 ? '' : url.slice(qi + 1);
    if (path !== '/api/ws' && !path.startsWith('/api/ws/')) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => this.onConnection(ws, path, query));
  };

  private onConnection(ws: WebSocket, path: string, query: string): void {
    this.accepted++;
    const s = new WsSession(this, ws, path);
    this.sessions.add(s);
    this.events.emit('session', { session: s.id, event: 'open' });
    if (path !== '/api/ws') {
      if (LEGACY_PATHS.includes(path)) s.close(1003, `Legacy ${path} sessions are not simulated`);
      else s.close(1007, 'Unknown session type');
      return;
    }
    const token = this.queryToken(query);
    if (token !== null) s.authWithQueryToken(token);
    else s.awaitAuth();
  }

  /** HEAD parses `token` as a parameter; 4.3.x and older take everything after `token=`. */
  private queryToken(query: string): string | null {
    if (query === '') return null;
    if (versionAtLeast(this.deps.version(), '4.4')) return new URLSearchParams(query).get('token');
    const i = query.indexOf('token=');
    return i < 0 ? null : query.slice(i + 6);
  }

  // -------------------------------------------------------------------------------------------------------------
  // SessionHub

  get paused(): boolean {
    return this.paused_;
  }
  get outboundDelayMs(): number {
    return this.delay;
  }
  apiKeyAuth(): boolean {
    return this.opts.apiKeyAuth ?? versionAtLeast(this.deps.version(), '4.4');
  }
  refusal(): string | null {
    return this.refuse;
  }
  admit(s: WsSession): string | null {
    this.events.emit('session', { session: s.id, event: 'auth' });
    const limit = this.opts.maxSessionsPerTenant;
    if (limit <= 0) return null;
    let n = 0;
    for (const o of this.sessions)
      if (o !== s && !o.closed && o.authenticated && o.caller.tenantId === s.caller.tenantId) n++;
    return n >= limit ? 'Max tenant sessions limit reached!' : null;
  }
  commandFault(raw: Record<string, unknown>): { code: number; reason: string } | null {
    for (const f of this.commandFaults) {
      if (f.remaining <= 0 || !f.match(raw)) continue;
      f.remaining--;
      f.hits++;
      return { code: f.code, reason: f.reason };
    }
    return null;
  }
  logCommand(session: number, raw: Record<string, unknown>, cmd: WsCmd): void {
    this.log.push({
      session,
      type: typeof raw.type === 'string' ? raw.type : cmd.type,
      cmdId: cmd.cmdId,
      time: Date.now(),
      cmd: raw,
    });
    if (this.log.length > this.opts.commandLogSize) this.log.splice(0, this.log.length - this.opts.commandLogSize);
  }
  countSent(): void {
    this.sent++;
  }
  countDroppedWhilePaused(): void {
    this.droppedWhilePaused++;
  }
  onSessionClosed(s: WsSession): void {
    this.sessions.delete(s);
    this.events.emit('session', { session: s.id, event: 'close' });
    this.onDrain(s);
  }
  onDrain(_s: WsSession): void {
    if (this.drainWaiters.length === 0) return;
    const low = this.lowWater();
    const ready = this.drainWaiters.filter((w) => this.maxPending(w.exclude) < low);
    if (ready.length === 0) return;
    this.drainWaiters = this.drainWaiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.wake();
  }

  private releaseDrainWaiters(): void {
    const w = this.drainWaiters;
    this.drainWaiters = [];
    for (const x of w) x.wake();
  }

  // -------------------------------------------------------------------------------------------------------------
  // backpressure (used by the burst hook)

  /** true while attached to a running HTTP server */
  get attached(): boolean {
    return this.server !== null;
  }
  /** the simulator clock */
  now(): number {
    return this.deps.now();
  }

  /** The largest number of pending outbound messages over all sessions (but the excluded ids). */
  maxPending(exclude?: ReadonlySet<number>): number {
    let m = 0;
    for (const s of this.sessions) {
      if (exclude?.has(s.id)) continue;
      const p = s.pending();
      if (p > m) m = p;
    }
    return m;
  }
  lowWater(): number {
    return Math.max(1, Math.floor(this.opts.maxQueue / 4));
  }
  highWater(): number {
    return Math.max(1, Math.floor(this.opts.maxQueue / 2));
  }
  /** Ids of the sessions at or above the low-water mark. */
  congestedSessions(): number[] {
    const low = this.lowWater();
    return [...this.sessions].filter((s) => s.pending() >= low).map((s) => s.id);
  }
  /**
   * Resolves when every session's pending count (but the excluded) is below the low-water mark, or after `timeoutMs`.
   */
  waitForDrain(timeoutMs: number, exclude?: ReadonlySet<number>): Promise<boolean> {
    if (this.maxPending(exclude) < this.lowWater()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let done = false;
      const t = setTimeout(() => {
        if (done) return;
        done = true;
        resolve(false);
      }, timeoutMs);
      this.drainWaiters.push({
        exclude,
        wake: () => {
          if (done) return;
          done = true;
          clearTimeout(t);
          resolve(true);
        },
      });
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // test hooks (sim.ws.*)

  /** Open sessions (pending included), authenticated ones, and upgrades accepted so far. */
  connections(): WsConnections {
    let authenticated = 0;
    for (const s of this.sessions) if (s.authenticated) authenticated++;
    return { open: this.sessions.size, authenticated, total: this.accepted };
  }

  /** Details of every open session. */
  sessionList(): WsSessionInfo[] {
    return [...this.sessions].map((s) => ({
      id: s.id,
      path: s.path,
      authenticated: s.authenticated,
      userId: s.authenticated ? s.caller.userId : null,
      cmdIds: s.cmdIds(),
      pending: s.pending(),
      held: s.heldIncoming,
      connectedAt: s.connectedAt,
    }));
  }

  /** Closes every session: without a code abruptly (TCP reset, the client sees 1006), else with that close code. */
  dropAll(code?: number, reason = ''): number {
    const list = [...this.sessions];
    for (const s of list) s.close(code, reason);
    return list.length;
  }

  /** While on, every authentication (authCmd: close 1007, `?token=`: close 1011) fails with `reason`. */
  refuseAuth(on: boolean, reason = 'Token is outdated'): void {
    this.refuse = on ? reason : null;
  }

  /**
   * Max authenticated sessions per tenant (null/0 = unlimited); more close with 1008 "Max tenant sessions limit
   * reached!".
   */
  sessionLimit(n: number | null): void {
    this.opts.maxSessionsPerTenant = n === null ? 0 : Math.max(0, Math.floor(n));
  }

  /**
   * Freezes the server: no frames are sent (they are held, up to wsMaxQueue per session, the rest dropped), pings
   * are not answered, incoming messages wait, and no keepalive runs. Off: everything held is processed and sent.
   */
  pauseFrames(on: boolean): void {
    this.paused_ = on;
    if (!on) {
      for (const s of this.sessions) {
        s.lastPong = Date.now();
        s.resume();
      }
    }
  }

  /** Delays every outgoing message by `ms` (order kept); 0 = off. */
  delayMs(ms: number): void {
    this.delay = Math.max(0, ms);
    if (this.delay === 0) for (const s of this.sessions) s.scheduleFlush();
  }

  /**
   * While active, a command for which `match(rawCommand)` is true closes its session with `code` (default 1011
   * SERVER_ERROR, as an exception in the server's handler does) before it is handled; the rest of its message
   * is not handled either. Returns the fault: `hits` counts the closes, `remove()` ends it.
   */
  closeOnCommand(spec: {
    match: (cmd: Record<string, unknown>) => boolean;
    code?: number;
    reason?: string;
    times?: number;
  }): CommandFault {
    const fault: CommandFault = {
      match: spec.match,
      code: spec.code ?? 1011,
      reason: spec.reason ?? '',
      remaining: spec.times ?? Infinity,
      hits: 0,
      remove: () => {
        this.commandFaults = this.commandFaults.filter((f) => f !== fault);
      },
    };
    this.commandFaults.push(fault);
    return fault;
  }

  /** Sends `text` as a text frame to every open session (malformed frames, unexpected shapes). */
  sendRaw(text: string): number {
    let n = 0;
    for (const s of this.sessions) {
      s.sendRaw(text);
      n++;
    }
    return n;
  }

  /** The last `limit` parsed commands (bounded by wsCommandLogSize), oldest first. */
  commandsReceived(limit?: number): WsCommandLogEntry[] {
    return limit === undefined ? [...this.log] : this.log.slice(Math.max(0, this.log.length - limit));
  }

  /** Messages sent to clients (including errors and raw frames) since the start or the last reset. */
  messagesSent(): number {
    return this.sent;
  }

  /** Clears the command log and the counters (messages sent, dropped while paused). */
  resetStats(): void {
    this.log.length = 0;
    this.sent = 0;
    this.droppedWhilePaused = 0;
  }

  stats(): {
    connections: WsConnections;
    messagesSent: number;
    droppedWhilePaused: number;
    commands: number;
    routerEvents: number;
    registrations: { kv: number; alarm: number };
  } {
    return {
      connections: this.connections(),
      messagesSent: this.sent,
      droppedWhilePaused: this.droppedWhilePaused,
      commands: this.log.length,
      routerEvents: this.router.events,
      registrations: this.router.size,
    };
  }

  /** Per-session update rate limit in the tenant-profile format ("10:1,300:60"); null = off. New sessions only. */
  rateLimit(spec: string | null): void {
    this.opts.updatesRateLimit = spec;
  }

  /** The next `n` history reads (tsCmd/historyCmd, per entity) fail with "Failed to fetch historical data!". */
  failHistoryFetch(n = 1): void {
    this.historyFailures = Math.max(0, n);
  }

  /** Changes options at run time (timers of existing subscriptions keep their period; keepalive restarts). */
  configure(patch: Partial<WsOptions>): WsOptions {
    Object.assign(this.opts, stripUndefined(patch));
    // ws reads maxPayload at each upgrade: a new limit applies to sessions opened from now on
    (this.wss.options as { maxPayload?: number }).maxPayload = this.opts.maxMessageBytes;
    this.restartKeepalive();
    return { ...this.opts };
  }

  /** Writes telemetry as fast as the sockets drain (or paced): see burst.ts and the README. */
  pushTelemetryBurst(opts: BurstOptions): Promise<BurstResult> {
    return pushTelemetryBurst(this, this.deps.data, opts);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
