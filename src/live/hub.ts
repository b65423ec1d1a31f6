/**
 * The shared WebSocket of one connection (ThingsBoard `/api/ws`).
 *
 * - Opened lazily when the first subscription registers, closed when the last one leaves (and on close()).
 * - First message: `authCmd` with the current token (no "Bearer " prefix) or API key, together with the first
 *   batch of commands. The server sends no acknowledgement; bad credentials close with 1007.
 * - Commands carry a `cmdId` allocated per socket; updates are routed back by `cmdId`, validation and parse
 *   errors by `subscriptionId`. Commands queued in the same tick go out together (batch limit and a size
 *   bound well under the server's 32 KiB frame limit).
 * - Reconnects after any close with capped exponential backoff and jitter (longer after a 1008 policy
 *   close), fetching a valid token first; every live subscription is then sent again with a fresh cmdId, and
 *   anything arriving for an old cmdId is dropped.
 * - Keep-alive: `ws` answers the server's pings; our own ping with a deadline detects a dead peer.
 *
 * The hub knows the envelope, not the meaning of updates: that belongs to the subscription kinds.
 */
import type https from 'node:https';
import WebSocket from 'ws';
import { TbError } from '../errors';
import { backoffDelay, BackoffOptions } from '../platform/backoff';
import type { WsAuth } from '../platform/auth';

/** A server message routed to a subscription (one JSON object of the v2 update shapes). */
export type WsMessage = Record<string, unknown>;

/** A command without its cmdId; the hub adds it. */
export type WsCommand = { type: string } & Record<string, unknown>;

export type LiveState = 'connecting' | 'subscribed' | 'disconnected' | 'refused' | 'closed';

export interface StateInfo {
  /** Why the socket is down (close code and reason, or the error). */
  reason?: string;
  /** For 'disconnected': ms until the next attempt. */
  retryInMs?: number;
  /** The error behind a 'refused' state. */
  error?: TbError;
}

/** What a subscription kind implements. */
export interface Subscriber {
  /** The command to send, built fresh for each (re)subscribe. */
  command(): WsCommand;
  /** A message for this subscription's cmdId. */
  onMessage(msg: WsMessage): void;
  /** An error the server reported for this subscription (by cmdId or subscriptionId). */
  onError(err: TbError, fatal: boolean): void;
  /** Connection state changes; 'subscribed' once the server answered this subscription. */
  onState(state: LiveState, info?: StateInfo): void;
  /** Called just before the command is sent again after a reconnect. */
  onResubscribe?(): void;
  /** The unsubscribe command type, e.g. ENTITY_DATA_UNSUBSCRIBE. */
  readonly unsubscribeType: string;
}

export interface LiveHubOptions {
  /** Platform base URL (http[s]://host:port); the socket goes to ws[s]://host:port/api/ws. */
  url: string;
  /** Credentials for the authCmd; called before every (re)connect so the token is always fresh. */
  auth: () => Promise<WsAuth>;
  tls?: https.AgentOptions;
  backoff?: BackoffOptions;
  /** Minimum wait after a 1008 (policy violation / session limit) close. */
  policyBackoffMs?: number;
  /** Minimum wait after the server refused our credentials (1007, or a refused login). */
  authBackoffMs?: number;
  /** Our own ping interval; the socket is dropped when no pong comes back before the next one. */
  pingIntervalMs?: number;
  /** How long connect + upgrade may take. */
  handshakeTimeoutMs?: number;
  /** Max commands per message (the reference UI sends 10). */
  batchSize?: number;
  /** Called with hub-level problems (malformed frames, unroutable errors) for the config node to log. */
  log?: (level: 'warn' | 'debug', text: string) => void;
  /** The server closed with 1007 (credentials rejected): the token should be dropped before the next try. */
  onAuthRejected?: () => void;
}

interface Entry {
  sub: Subscriber;
  /** Current cmdId, 0 while not sent on the current socket. */
  cmdId: number;
  /** True once the server answered on the current socket. */
  answered: boolean;
  /** Its command is still in the queue, not yet sent. */
  queued: boolean;
}

const MAX_FRAME_BYTES = 30000; // the server closes frames over 32768 bytes with 1009

export class LiveHub {
  private readonly opts: LiveHubOptions;
  private readonly wsUrl: string;
  private readonly backoff: BackoffOptions;
  private ws: WebSocket | undefined;
  private open = false;
  private closing = false;
  private attempts = 0;
  /** 1007 closes in a row: the first may be a token that just expired, a second one means refused. */
  private authRejects = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private flushScheduled = false;
  private connecting = false;
  private alive = true;
  private nextCmdId = 1;
  /** Every registered subscription. */
  private readonly entries = new Map<Subscriber, Entry>();
  /** cmdId -> entry for the current socket. */
  private readonly byCmdId = new Map<number, Entry>();
  /** Commands waiting for the next flush. */
  private queue: Array<Record<string, unknown>> = [];
  private lastState: LiveState = 'closed';
  private stateInfo: StateInfo | undefined;
  /** Counters for tests and benchmarks. */
  readonly stats = { sockets: 0, messages: 0, dropped: 0, malformed: 0, sent: 0, pings: 0 };
  /** How the current socket authenticated (decides what a 1007 means). */
  private authKind: 'token' | 'apiKey' = 'token';

  constructor(opts: LiveHubOptions) {
    this.opts = opts;
    this.backoff = opts.backoff ?? { initialMs: 1000, maxMs: 60000, jitter: 0.2 };
    this.wsUrl = opts.url.replace(/\/+$/, '').replace(/^http/i, 'ws') + '/api/ws';
  }

  get state(): LiveState {
    return this.lastState;
  }

  get info(): StateInfo | undefined {
    return this.stateInfo;
  }

  /** Registers a subscription; it is sent at once if the socket is open, else when it opens. */
  subscribe(sub: Subscriber): void {
    if (this.closing || this.entries.has(sub)) return;
    const entry: Entry = { sub, cmdId: 0, answered: false, queued: false };
    this.entries.set(sub, entry);
    if (this.open) {
      this.enqueue(entry);
      sub.onState('connecting');
    } else {
      sub.onState(this.lastState === 'refused' ? 'refused' : this.lastState === 'disconnected' ? 'disconnected' : 'connecting', this.stateInfo);
      this.ensureSocket();
    }
  }

  /** Stops a subscription (sends the unsubscribe command); closes the socket when none is left. */
  unsubscribe(sub: Subscriber): void {
    const entry = this.entries.get(sub);
    if (!entry) return;
    this.entries.delete(sub);
    if (entry.cmdId) {
      const cmdId = entry.cmdId;
      this.byCmdId.delete(cmdId);
      // Never sent: drop the command, there is nothing to undo on the server. Sent: unsubscribe.
      if (entry.queued) this.queue = this.queue.filter((c) => c.cmdId !== cmdId);
      else if (this.open) this.queue.push({ type: sub.unsubscribeType, cmdId });
    }
    if (this.entries.size === 0) {
      this.flushNow();
      this.shutdownSocket(1000, 'no subscriptions');
    } else {
      this.scheduleFlush();
    }
  }

  /** Unsubscribes everything and closes the socket; resolves within `timeoutMs`. */
  close(timeoutMs = 2000): Promise<void> {
    this.closing = true;
    this.clearTimers();
    const ws = this.ws;
    for (const entry of this.entries.values()) {
      if (this.open && entry.cmdId) this.queue.push({ type: entry.sub.unsubscribeType, cmdId: entry.cmdId });
    }
    this.flushNow();
    this.entries.clear();
    this.byCmdId.clear();
    this.setState('closed');
    if (!ws) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        ws.terminate();
        resolve();
      }, timeoutMs);
      ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      this.shutdownSocket(1000, 'closing');
    });
  }

  // ---- socket lifecycle -------------------------------------------------------------------------------

  private ensureSocket(): void {
    if (this.ws || this.connecting || this.reconnectTimer || this.closing) return;
    void this.connect();
  }

  private async connect(): Promise<void> {
    this.connecting = true;
    this.setState('connecting');
    let auth: WsAuth;
    try {
      auth = await this.opts.auth();
    } catch (err) {
      this.connecting = false;
      if (this.closing || this.entries.size === 0) return;
      const e = err instanceof TbError ? err : new TbError('TB_UNREACHABLE', String((err as Error)?.message ?? err));
      const refused = e.code === 'TB_AUTH_FAILED' || e.code === 'TB_2FA_REQUIRED' || e.code === 'TB_TOKEN_EXPIRED' || e.code === 'TB_CONFIG';
      this.scheduleReconnect(refused ? 'auth' : 'normal', e.message, refused ? e : undefined);
      return;
    }
    if (this.closing || this.entries.size === 0) {
      this.connecting = false;
      return;
    }
    const ws = new WebSocket(this.wsUrl, {
      handshakeTimeout: this.opts.handshakeTimeoutMs ?? 15000,
      perMessageDeflate: false,
      ...(this.opts.tls ?? {}),
    });
    this.ws = ws;
    this.stats.sockets++;
    this.connecting = false;
    ws.on('open', () => this.onOpen(ws, auth));
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => this.onFrame(ws, data, isBinary));
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('ping', () => {
      this.alive = true; // ws answers with a pong by itself
      this.stats.pings++;
    });
    ws.on('error', (err: Error) => {
      this.opts.log?.('debug', `WebSocket error: ${err.message}`);
    });
    ws.on('close', (code: number, reason: Buffer) => this.onClose(ws, code, reason.toString()));
  }

  private onOpen(ws: WebSocket, auth: WsAuth): void {
    if (ws !== this.ws) return;
    this.open = true;
    this.alive = true;
    this.byCmdId.clear();
    this.queue = [];
    // Fresh cmdIds for everything on this socket; stale ids from the old socket are never reused.
    for (const entry of this.entries.values()) {
      entry.cmdId = 0;
      entry.answered = false;
      entry.sub.onResubscribe?.();
      this.enqueue(entry, false);
    }
    this.authKind = 'apiKey' in auth ? 'apiKey' : 'token';
    const authCmd = 'apiKey' in auth ? { cmdId: 0, apiKey: auth.apiKey } : { cmdId: 0, token: auth.token };
    this.flushNow(authCmd);
    this.startPing(ws);
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.open = false;
    this.stopPing();
    for (const entry of this.entries.values()) {
      entry.cmdId = 0;
      entry.answered = false;
    }
    this.byCmdId.clear();
    this.queue = [];
    if (this.closing || this.entries.size === 0) {
      if (!this.closing) this.setState('closed');
      return;
    }
    const why = `closed ${code}${reason ? `: ${reason}` : ''}`;
    if (code === 1007) {
      // Credentials rejected. Once may be a token that expired on the server's clock: retry soon with a
      // fresh one. Twice in a row is a refusal: back off for long, do not hammer.
      if (this.authKind === 'apiKey') {
        // An API key does not get better by retrying; servers before 4.4 do not know authCmd.apiKey at all.
        this.scheduleReconnect(
          'auth',
          why,
          new TbError(
            'TB_AUTH_FAILED',
            `ThingsBoard refused the WebSocket authentication with the API key (${why}). Live subscriptions with an API key need ThingsBoard 4.4 or later; with an older server use the "password" mode for live nodes`,
          ),
        );
        return;
      }
      this.opts.onAuthRejected?.();
      if (++this.authRejects === 1) this.scheduleReconnect('normal', why);
      else this.scheduleReconnect('auth', why, new TbError('TB_AUTH_FAILED', `ThingsBoard refused the WebSocket authentication (${why})`));
    } else if (code === 1008) {
      this.scheduleReconnect('policy', why);
    } else {
      this.scheduleReconnect('normal', why);
    }
  }

  private scheduleReconnect(kind: 'normal' | 'policy' | 'auth', reason: string, error?: TbError): void {
    this.attempts++;
    let delay = backoffDelay(this.attempts, this.backoff);
    if (kind === 'policy') delay = Math.max(delay, this.opts.policyBackoffMs ?? 60000);
    if (kind === 'auth') delay = Math.max(delay, this.opts.authBackoffMs ?? 30000);
    if (error) this.setState('refused', { reason, error, retryInMs: delay });
    else this.setState('disconnected', { reason, retryInMs: delay });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closing && this.entries.size > 0) void this.connect();
    }, delay);
  }

  private shutdownSocket(code: number, reason: string): void {
    const ws = this.ws;
    this.stopPing();
    if (this.reconnectTimer) {
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = undefined;
    }
    if (!ws) return;
    this.open = false;
    if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    if (!this.closing) {
      // Forget it now: a later subscribe opens a new socket at once.
      this.ws = undefined;
      this.attempts = 0;
      this.setState('closed');
    }
  }

  private startPing(ws: WebSocket): void {
    const every = this.opts.pingIntervalMs ?? 20000;
    if (every <= 0) return;
    this.pingTimer = setInterval(() => {
      if (ws !== this.ws) return;
      if (!this.alive) {
        this.opts.log?.('debug', 'WebSocket peer did not answer our ping: reconnecting');
        ws.terminate();
        return;
      }
      this.alive = false;
      try {
        ws.ping();
      } catch {
        /* the close event follows */
      }
    }, every);
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  private clearTimers(): void {
    this.stopPing();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  private setState(state: LiveState, info?: StateInfo): void {
    this.lastState = state;
    this.stateInfo = info;
    if (state === 'subscribed') return; // per subscription, on its first answer
    for (const entry of this.entries.values()) entry.sub.onState(state, info);
  }

  // ---- sending ------------------------------------------------------------------------------------------

  private enqueue(entry: Entry, flush = true): void {
    const cmdId = this.nextCmdId++;
    if (this.nextCmdId > 2000000000) this.nextCmdId = 1;
    entry.cmdId = cmdId;
    entry.answered = false;
    entry.queued = true;
    this.byCmdId.set(cmdId, entry);
    this.queue.push({ ...entry.sub.command(), cmdId });
    if (flush) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || !this.open) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushNow();
    });
  }

  /** Sends the queue in messages of at most batchSize commands and ~30 KB each. */
  private flushNow(authCmd?: Record<string, unknown>): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const batch = this.opts.batchSize ?? 10;
    const queue = this.queue;
    this.queue = [];
    let i = 0;
    let first = authCmd;
    do {
      const cmds: string[] = [];
      let bytes = 0;
      while (i < queue.length && cmds.length < batch) {
        const json = JSON.stringify(queue[i]);
        if (cmds.length > 0 && bytes + json.length > MAX_FRAME_BYTES) break;
        cmds.push(json);
        bytes += json.length + 1;
        const sent = this.byCmdId.get(queue[i].cmdId as number);
        if (sent) sent.queued = false;
        i++;
      }
      if (cmds.length === 0 && !first) break;
      const head = first ? `"authCmd":${JSON.stringify(first)},` : '';
      ws.send(`{${head}"cmds":[${cmds.join(',')}]}`);
      this.stats.sent++;
      first = undefined;
    } while (i < queue.length);
  }

  // ---- receiving ----------------------------------------------------------------------------------------

  private onFrame(ws: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    if (ws !== this.ws) return;
    this.alive = true;
    let msg: WsMessage;
    try {
      const parsed: unknown = JSON.parse(isBinary ? data.toString() : (data as Buffer).toString());
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      msg = parsed as WsMessage;
    } catch {
      this.stats.malformed++;
      this.opts.log?.('warn', 'Ignored a WebSocket frame that is not a JSON object');
      return;
    }
    this.stats.messages++;
    if (this.attempts !== 0 || this.authRejects !== 0) {
      this.attempts = 0; // the server talks to us: auth worked, reset the backoff
      this.authRejects = 0;
    }
    const cmdId = msg.cmdId;
    if (typeof cmdId === 'number') {
      const entry = this.byCmdId.get(cmdId);
      if (!entry) {
        this.stats.dropped++; // a stale cmdId (from before a resubscribe): drop, never misroute
        return;
      }
      const code = msg.errorCode;
      if (typeof code === 'number' && code !== 0) {
        entry.sub.onError(subscriptionError(code, msg.errorMsg), true);
        return;
      }
      if (!entry.answered) {
        entry.answered = true;
        entry.sub.onState('subscribed');
      }
      entry.sub.onMessage(msg);
      return;
    }
    const sid = msg.subscriptionId;
    if (typeof sid === 'number') this.routeLegacyError(sid, msg);
    else this.stats.dropped++;
  }

  /** Errors in the legacy shape, keyed by subscriptionId (validation, parse and rate errors). */
  private routeLegacyError(sid: number, msg: WsMessage): void {
    const code = typeof msg.errorCode === 'number' ? msg.errorCode : 0;
    if (code === 0) {
      this.stats.dropped++;
      return;
    }
    const err = subscriptionError(code, msg.errorMsg);
    if (code === 34) {
      // "Too many updates!": the server drops updates for a while but keeps the subscription.
      const entry = this.byCmdId.get(sid);
      if (entry) entry.sub.onError(err, false);
      else this.opts.log?.('warn', err.message);
      return;
    }
    if (msg.errorMsg === 'Failed to parse the payload') {
      // Always reported as subscriptionId 1: every command not yet answered on this socket failed.
      let hit = false;
      for (const entry of this.entries.values()) {
        if (entry.cmdId && !entry.answered) {
          entry.sub.onError(err, true);
          hit = true;
        }
      }
      if (!hit) this.opts.log?.('warn', err.message);
      return;
    }
    const entry = this.byCmdId.get(sid);
    if (entry) entry.sub.onError(err, true);
    else this.opts.log?.('warn', err.message);
  }
}

function subscriptionError(code: number, message: unknown): TbError {
  const text = typeof message === 'string' && message ? message : 'unknown error';
  return new TbError('TB_SUBSCRIPTION', `ThingsBoard reported an error for the subscription (errorCode ${code}): ${text}`);
}
