/**
 * One WebSocket session: authentication state, command dispatch, the outbound queue (limit, rate limit, the
 * delay/pause hooks, socket backpressure) and its subscriptions by cmdId.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { Caller } from '../types';
import { wsAuthApiKey, wsAuthJwt, WsAuthError } from './auth';
import { RestartSession, type SubHost, type Sub, type WsContext } from './context';
import { legacyError, PARSE_ERROR, tooManyUpdates } from './messages';
import { parseEnvelope, type AuthCmd, type Envelope, type WsCmd } from './parse';
import { AlarmDataSub } from './subs/alarm-data';
import { AlarmCountSub, AlarmStatusSub, EntityCountSub } from './subs/counts';
import { EntityDataSub } from './subs/entity-data';
import { NotificationsCountSub, NotificationsSub } from './subs/notifications';

/** What a session needs from the server (hooks, counters, options). */
export interface SessionHub {
  readonly ctx: WsContext;
  readonly paused: boolean;
  readonly outboundDelayMs: number;
  apiKeyAuth(): boolean;
  /** refuse the next authentications (hook): the reason, or null */
  refusal(): string | null;
  authDeps: Parameters<typeof wsAuthJwt>[0];
  /** checks the session limits for a newly established session; returns a close reason or null */
  admit(s: WsSession): string | null;
  logCommand(session: number, raw: Record<string, unknown>, cmd: WsCmd): void;
  /** a command fault hook matching this command: the close code and reason to answer with, or null */
  commandFault(raw: Record<string, unknown>): { code: number; reason: string } | null;
  countSent(): void;
  countDroppedWhilePaused(): void;
  onSessionClosed(s: WsSession): void;
  /** a session's pending count went below the low-water mark (for the burst hook) */
  onDrain(s: WsSession): void;
}

/** A token bucket per "capacity:seconds" pair (bucket4j greedy refill). */
export class RateLimiter {
  private readonly buckets: { capacity: number; perMs: number; tokens: number; at: number }[];

  constructor(spec: string) {
    this.buckets = spec
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map((p) => {
        const [c, s] = p.split(':').map(Number);
        if (!(c > 0) || !(s > 0)) throw new Error(`bad rate limit "${p}" (expected capacity:seconds)`);
        return { capacity: c, perMs: c / (s * 1000), tokens: c, at: Date.now() };
      });
  }

  tryConsume(): boolean {
    const now = Date.now();
    for (const b of this.buckets) {
      b.tokens = Math.min(b.capacity, b.tokens + (now - b.at) * b.perMs);
      b.at = now;
    }
    if (this.buckets.some((b) => b.tokens < 1)) return false;
    for (const b of this.buckets) b.tokens -= 1;
    return true;
  }
}

const LOW_WATER_DIVISOR = 4;

/** Cuts a close reason to the 123 bytes a close frame allows. */
function reasonText(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}

export class WsSession implements SubHost {
  private static seq = 0;
  readonly id = ++WsSession.seq;
  /** null until authenticated */
  caller_: Caller | null = null;
  closed = false;
  /** wall-clock ms of the last pong (or of the connect) */
  lastPong = Date.now();
  readonly connectedAt = Date.now();
  private readonly subs = new Map<number, Sub>();
  private held: { msg: string; due: number }[] = [];
  private heldHead = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private corked = false;
  private congestedAtCork = false;
  private authTimer: NodeJS.Timeout | null = null;
  private readonly inbox: { data: Buffer; binary: boolean }[] = [];
  private rate: RateLimiter | null = null;
  private overRate = false;
  readonly ctx: WsContext;

  constructor(
    private readonly hub: SessionHub,
    readonly ws: WebSocket,
    readonly path: string,
  ) {
    this.ctx = hub.ctx;
    const spec = hub.ctx.opts.updatesRateLimit;
    this.rate = spec ? new RateLimiter(spec) : null;
    ws.on('message', (data: Buffer, isBinary: boolean) => this.onFrame(data, isBinary));
    ws.on('pong', () => {
      this.lastPong = Date.now();
    });
    ws.on('ping', (data: Buffer) => {
      if (!this.hub.paused && !this.closed) ws.pong(data);
    });
    ws.on('close', () => this.cleanup());
    ws.on('error', () => {
      /* e.g. a frame over maxPayload: ws closes the socket with 1009 itself */
    });
  }

  get caller(): Caller {
    return this.caller_ as Caller;
  }
  get authenticated(): boolean {
    return this.caller_ !== null;
  }
  get heldIncoming(): number {
    return this.inbox.length;
  }
  get subscriptionCount(): number {
    return this.subs.size;
  }

  /** Starts the auth timeout of a session that must send an authCmd. */
  awaitAuth(): void {
    const ms = this.hub.ctx.opts.authTimeoutMs;
    this.authTimer = setTimeout(() => {
      if (!this.caller_) this.close(1008);
    }, ms);
    this.authTimer.unref();
  }

  /** `?token=` authentication at connect time: failures close 1011. */
  authWithQueryToken(token: string): void {
    try {
      const refused = this.hub.refusal();
      if (refused !== null) throw new WsAuthError(refused);
      this.establish(wsAuthJwt(this.hub.authDeps, token));
    } catch (e) {
      this.close(1011, e instanceof Error ? e.message : String(e));
    }
  }

  private establish(caller: Caller): void {
    if (this.authTimer) clearTimeout(this.authTimer);
    this.authTimer = null;
    this.caller_ = caller;
    const limit = this.hub.admit(this);
    if (limit !== null) this.close(1008, limit);
  }

  private authenticate(a: AuthCmd): Caller {
    const refused = this.hub.refusal();
    if (refused !== null) throw new WsAuthError(refused);
    if (a.apiKey !== null && a.apiKey !== '') return wsAuthApiKey(this.hub.authDeps, a.apiKey);
    return wsAuthJwt(this.hub.authDeps, a.token ?? '');
  }

  // -------------------------------------------------------------------------------------------------------------
  // incoming

  private onFrame(data: Buffer, binary: boolean): void {
    if (this.closed) return;
    if (this.hub.paused) {
      this.inbox.push({ data, binary });
      this.ctx.emit('held', { session: this.id });
      return;
    }
    this.processSafely(data, binary);
  }

  private processSafely(data: Buffer, binary: boolean): void {
    try {
      this.process(data, binary);
    } catch (e) {
      // a simulator bug must not take the test process down: the server would answer 1011 SERVER_ERROR
      this.close(1011, e instanceof Error ? e.message : String(e));
    }
  }

  /** Processes frames held while the hooks paused the server. */
  resume(): void {
    while (this.inbox.length > 0 && !this.closed && !this.hub.paused) {
      const f = this.inbox.shift() as { data: Buffer; binary: boolean };
      this.processSafely(f.data, f.binary);
    }
    this.scheduleFlush();
  }

  private process(data: Buffer, binary: boolean): void {
    if (binary) {
      this.close(1003, 'Binary messages not supported');
      return;
    }
    const text = data.toString('utf8');
    let env: Envelope;
    if (!this.caller_) {
      try {
        env = parseEnvelope(text, this.hub.apiKeyAuth());
      } catch (e) {
        this.close(1007, e instanceof Error ? e.message : String(e));
        return;
      }
      if (!env.authCmd) {
        this.close(1008, 'Auth cmd is missing');
        return;
      }
      let caller: Caller;
      try {
        caller = this.authenticate(env.authCmd);
      } catch (e) {
        this.close(1007, e instanceof Error ? e.message : String(e));
        return;
      }
      this.establish(caller);
      if (this.closed) return;
    } else {
      try {
        env = parseEnvelope(text, this.hub.apiKeyAuth());
      } catch {
        this.send(PARSE_ERROR, 1);
        return;
      }
      // a later authCmd is ignored (the session keeps its identity)
    }
    this.handleCommands(env);
  }

  private handleCommands(env: Envelope): void {
    for (let i = 0; i < env.cmds.length; i++) {
      if (this.closed) return;
      const cmd = env.cmds[i];
      this.hub.logCommand(this.id, env.raw[i] ?? {}, cmd);
      const fault = this.hub.commandFault(env.raw[i] ?? {});
      if (fault) {
        // a server failing on this command (e.g. 1011 SERVER_ERROR from an exception in its handler)
        this.close(fault.code, fault.reason);
        return;
      }
      try {
        this.dispatch(cmd);
      } catch (e) {
        if (e instanceof RestartSession) {
          this.close(1012);
          return;
        }
        this.send(legacyError(cmd.cmdId, 1, e instanceof Error ? e.message : String(e)), cmd.cmdId);
      }
    }
  }

  private badRequest(cmdId: number, msg: string): void {
    this.send(legacyError(cmdId, 2, msg), cmdId);
  }

  private replace<T extends Sub>(cmdId: number, cls: new (host: SubHost, cmdId: number) => T): T {
    const cur = this.subs.get(cmdId);
    if (cur instanceof cls) return cur;
    if (cur) cur.stop();
    const sub = new cls(this, cmdId);
    this.subs.set(cmdId, sub);
    return sub;
  }

  private dispatch(cmd: WsCmd): void {
    const id = cmd.cmdId;
    switch (cmd.type) {
      case 'ENTITY_DATA': {
        if (id < 0) return this.badRequest(id, 'Cmd id is negative value!');
        const any = cmd.latestCmd || cmd.tsCmd || cmd.historyCmd || cmd.aggHistoryCmd || cmd.aggTsCmd;
        if (!cmd.query && !any) return this.badRequest(id, 'Query is empty!');
        this.replace(id, EntityDataSub).handle(cmd);
        return;
      }
      case 'ENTITY_COUNT': {
        if (id < 0) return this.badRequest(id, 'Cmd id is negative value!');
        if (!cmd.query) return this.badRequest(id, 'Query is empty!');
        if (this.subs.has(id)) return; // "Received duplicate command"
        const sub = new EntityCountSub(this, id);
        this.subs.set(id, sub);
        sub.handle(cmd);
        return;
      }
      case 'ALARM_DATA': {
        if (id < 0) return this.badRequest(id, 'Cmd id is negative value!');
        if (!cmd.query) return this.badRequest(id, 'Query is empty!');
        this.replace(id, AlarmDataSub).handle(cmd);
        return;
      }
      case 'ALARM_COUNT': {
        if (id < 0) return this.badRequest(id, 'Cmd id is negative value!');
        if (this.subs.has(id)) return;
        const sub = new AlarmCountSub(this, id);
        this.subs.set(id, sub);
        sub.handle(cmd);
        return;
      }
      case 'ALARM_STATUS': {
        if (id < 0) return this.badRequest(id, 'Cmd id is negative value!');
        if (this.subs.has(id)) return;
        const sub = new AlarmStatusSub(this, id);
        this.subs.set(id, sub);
        sub.handle(cmd);
        return;
      }
      case 'NOTIFICATIONS': {
        // a new subscription under the same cmdId replaces the old one (TbLocalSubscriptionService.addSubscription)
        this.subs.get(id)?.stop();
        const sub = new NotificationsSub(this, id, this.ctx.notifications);
        this.subs.set(id, sub);
        sub.handle(cmd);
        return;
      }
      case 'NOTIFICATIONS_COUNT': {
        this.subs.get(id)?.stop();
        const sub = new NotificationsCountSub(this, id, this.ctx.notifications);
        this.subs.set(id, sub);
        sub.handle(cmd);
        return;
      }
      case 'MARK_NOTIFICATIONS_AS_READ':
        // no direct reply: the subscriptions see the change (ids that are not UUIDs fail the handler)
        for (const n of cmd.notifications) this.ctx.notifications.markRead(this.caller, n);
        return;
      case 'MARK_ALL_NOTIFICATIONS_AS_READ':
        this.ctx.notifications.markAllRead(this.caller, new URLSearchParams('deliveryMethod=WEB'));
        return;
      case 'UNSUPPORTED':
        this.send(legacyError(id, 1, `${cmd.wsType} commands are not simulated`), id);
        return;
      default: {
        // every *_UNSUBSCRIBE cancels whatever holds the cmdId; no reply
        const sub = this.subs.get(id);
        if (sub) {
          sub.stop();
          this.subs.delete(id);
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // outgoing

  /**
   * Messages not yet handed to the kernel: held by the hooks, or buffered by the socket (ws send callbacks not yet
   * called while the socket is congested). Data corked for the current tick only counts when the socket was
   * already congested before.
   */
  pending(): number {
    const congested = this.corked ? this.congestedAtCork : this.ws.bufferedAmount > 0;
    return this.held.length - this.heldHead + (congested ? this.inFlight : 0);
  }

  send(msg: string, subscriptionId: number): void {
    if (this.closed) return;
    if (this.rate) {
      if (!this.rate.tryConsume()) {
        if (!this.overRate) {
          this.overRate = true;
          this.enqueue(tooManyUpdates(subscriptionId));
        }
        return;
      }
      this.overRate = false;
    }
    this.enqueue(msg);
  }

  /** Sends text as is (the sendRaw hook): no rate limit. */
  sendRaw(text: string): void {
    if (!this.closed) this.enqueue(text);
  }

  private enqueue(msg: string): void {
    const hub = this.hub;
    if (this.pending() >= hub.ctx.opts.maxQueue) {
      if (hub.paused) {
        hub.countDroppedWhilePaused();
        return;
      }
      this.close(1008, 'Max pending updates limit reached!');
      return;
    }
    if (hub.paused || hub.outboundDelayMs > 0 || this.heldHead < this.held.length) {
      this.held.push({ msg, due: Date.now() + hub.outboundDelayMs });
      this.scheduleFlush();
      return;
    }
    this.write(msg);
  }

  private readonly onSent = (): void => {
    this.inFlight--;
    if (this.inFlight < this.hub.ctx.opts.maxQueue / LOW_WATER_DIVISOR) this.hub.onDrain(this);
  };

  private write(msg: string): void {
    this.hub.countSent();
    this.inFlight++;
    if (!this.corked) {
      // every message of the current tick goes out in one writev (one syscall instead of one per message)
      const sock = this.socket();
      if (sock && !sock.destroyed) {
        this.congestedAtCork = this.ws.bufferedAmount > 0;
        sock.cork();
        this.corked = true;
        process.nextTick(this.uncork);
      }
    }
    this.ws.send(msg, this.onSent);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    const sock = this.socket();
    if (sock && !sock.destroyed) sock.uncork();
  };

  private socket(): Socket | undefined {
    return (this.ws as unknown as { _socket?: Socket })._socket;
  }

  /** Flushes held messages that are due (delay hook) unless paused. */
  scheduleFlush(): void {
    if (this.flushTimer || this.closed || this.hub.paused) return;
    if (this.heldHead >= this.held.length) return;
    const wait = Math.max(0, this.held[this.heldHead].due - Date.now());
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, wait);
    this.flushTimer.unref();
  }

  private flush(): void {
    const now = Date.now();
    while (this.heldHead < this.held.length && !this.closed && !this.hub.paused) {
      const h = this.held[this.heldHead];
      if (h.due > now) break;
      this.heldHead++;
      this.write(h.msg);
    }
    if (this.heldHead >= this.held.length) {
      this.held = [];
      this.heldHead = 0;
      this.hub.onDrain(this);
    } else if (this.heldHead > 1024) {
      this.held = this.held.slice(this.heldHead);
      this.heldHead = 0;
    }
    this.scheduleFlush();
  }

  /** The keepalive check: ping after pingIntervalMs without a pong, close 4500 after pongTimeoutMs. */
  keepalive(now: number, pingIntervalMs: number, pongTimeoutMs: number): void {
    if (this.closed) return;
    const idle = now - this.lastPong;
    if (idle >= pongTimeoutMs) this.close(4500);
    else if (idle >= pingIntervalMs) {
      try {
        this.ws.ping();
      } catch {
        /* closing */
      }
    }
  }

  /** Closes the session: with a code (close frame), or without (abrupt terminate: the client sees 1006). */
  close(code?: number, reason = ''): void {
    if (this.closed) return;
    this.cleanup();
    try {
      if (code === undefined) this.ws.terminate();
      else this.ws.close(code, reasonText(reason));
    } catch {
      this.ws.terminate();
    }
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.authTimer) clearTimeout(this.authTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.authTimer = null;
    this.flushTimer = null;
    for (const s of this.subs.values()) s.stop();
    this.subs.clear();
    this.held = [];
    this.heldHead = 0;
    this.inbox.length = 0;
    this.hub.onSessionClosed(this);
  }

  /** cmdIds in use (for tests). */
  cmdIds(): number[] {
    return [...this.subs.keys()];
  }
}
