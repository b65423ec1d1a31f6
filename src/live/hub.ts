/**
 * The shared WebSocket of one connection (ThingsBoard `/api/ws`).
 *
 * - Opened lazily when the first subscription registers, closed when the last one leaves (and on close()).
 * - First message: `authCmd` with the current token (no "Bearer " prefix) or API key, together with the first
 *   batch of commands. The server sends no acknowledgement; bad credentials close with 1007.
 * - Commands carry a `cmdId` allocated per socket; updates are routed back by `cmdId`, validation and parse
 *   errors by `subscriptionId`. Commands queued in the same tick go out together, in frames no larger than
 *   the server's limit for one incoming message (32 KiB by default, a connection setting).
 * - One bad subscription cannot take the socket down for the others:
 *   - a command that cannot fit in one message is refused before anything is sent (`subscribe` throws a
 *     TbInputError naming the size and the limit);
 *   - when the server closes the session within `suspectWindowMs` of receiving commands it had not answered
 *     (1009 message too big on a server with a lower limit, 1011/1012 when it fails on a command, ...), those
 *     commands become suspects: after the reconnect each suspect is sent alone, one at a time. A suspect that
 *     was alone in flight when the server closed the session again is blocked: it is never sent again, its
 *     subscriber gets a fatal error, and every other subscription keeps running. Subscriptions the server had
 *     answered are not suspects and see no state change from these closes (no flapping); reconnects caused
 *     by commands follow the normal capped backoff, counted apart from the per-socket reset.
 * - Reconnects after any close with capped exponential backoff and jitter (longer after a 1008 policy
 *   close), fetching a valid token first; every live subscription is then sent again with a fresh cmdId, and
 *   anything arriving for an old cmdId is dropped.
 * - Keep-alive: `ws` answers the server's pings; our own ping with a deadline detects a dead peer.
 *
 * The hub knows the envelope, not the meaning of updates: that belongs to the subscription kinds.
 */
import type https from 'node:https';
import WebSocket from 'ws';
import { TbError, TbInputError } from '../errors';
import type { WsAuth } from '../platform/auth';
import { backoffDelay, BackoffOptions } from '../platform/backoff';
import { readLatestUpdate } from './frame';

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
  /**
   * The largest message the server accepts (bytes; ThingsBoard's `server.ws.max_text_message_buffer_size`,
   * 32768 by default, over which it closes the session with 1009).
   */
  maxMessageBytes?: number;
  /** A close this soon after sending commands the server had not answered makes them suspects (ms). */
  suspectWindowMs?: number;
  /** Command-caused reconnects count towards their backoff until the socket has run this long without one (ms). */
  suspectResetMs?: number;
  /**
   * Frames read from the socket in one turn of the event loop before reading pauses until the next turn
   * (default {@link FRAMES_PER_TURN}; 0 never pauses).
   */
  framesPerTurn?: number;
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
  /** When its command last went out on the current socket (ms). */
  sentAt: number;
  /** Server closes that followed this command before it was answered. */
  strikes: number;
  /** A suspect: sent alone, one at a time, after the next (re)connect. */
  isolate: boolean;
  /** Never sent again; the error its subscriber got. */
  blocked?: TbError;
}

/** A command ready to send: its cmdId and its JSON text. */
interface Queued {
  cmdId: number;
  json: string;
  bytes: number;
}

/** `{"cmds":[` + `]}` around the commands of one message. */
const ENVELOPE_BYTES = 11;
/**
 * How many frames are handled in one turn of the event loop before reading pauses until the next turn. In a burst
 * the socket holds thousands of frames, and Node hands over up to 32 reads of 64 KB in one go: read all at once,
 * 5,600 frames were parsed and their messages queued before the runtime delivered any (it delivers in the next
 * turn). The process was busy with one burst for tens of ms, and every queued message was still alive when the
 * young generation was collected, so each collection copied megabytes, and cost more the further the node fell
 * behind. Paused, the rest waits in the kernel's buffer (TCP holds the server back, as for any slow reader), and a
 * turn handles at most this many frames and one socket read: the frames of a read already taken are still handled.
 * Frames are counted since reading last paused, not per turn (which has no cheap marker): at a low rate, reading
 * pauses for one turn after every 64 frames, with nothing waiting, which costs a pause and a resume.
 * Measured by the live benchmark at 1,000 entities (bench/RESULTS.md).
 */
export const FRAMES_PER_TURN = 64;

/** Close codes that are not about a command: normal, going away, credentials, policy/limits, missed pongs. */
const NOT_COMMAND_CLOSES = new Set([1000, 1001, 1007, 1008, 4500]);

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
  private queue: Queued[] = [];
  /** Suspects waiting to be sent alone, and the one in flight. */
  private probes: Entry[] = [];
  private probing: Entry | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  /** Entries that see no state change while the socket comes back from a command-caused close. */
  private readonly quiet = new Set<Entry>();
  /** Command-caused closes in a row (their own backoff count), and when the last one happened. */
  private commandCloses = 0;
  private lastCommandClose = 0;
  private lastState: LiveState = 'closed';
  private stateInfo: StateInfo | undefined;
  /** Counters for tests and benchmarks. */
  readonly stats = {
    sockets: 0,
    messages: 0,
    quick: 0,
    dropped: 0,
    malformed: 0,
    sent: 0,
    pings: 0,
    blocked: 0,
    pauses: 0,
    bytes: 0,
  };
  private readonly framesPerTurn: number;
  /** Frames read since reading last paused (see {@link FRAMES_PER_TURN}). */
  private turnFrames = 0;
  /** The socket paused until the next turn (even one being closed meanwhile: its closing frame must be read). */
  private pausedWs: WebSocket | undefined;
  /** Reads on after a pause, in the next turn (one function for every pause: nothing made per burst). */
  private readonly resumeReading = (): void => {
    this.turnFrames = 0;
    const ws = this.pausedWs;
    this.pausedWs = undefined;
    if (ws && ws.isPaused) ws.resume();
  };
  /** How the current socket authenticated (decides what a 1007 means). */
  private authKind: 'token' | 'apiKey' = 'token';

  constructor(opts: LiveHubOptions) {
    this.opts = opts;
    this.backoff = opts.backoff ?? { initialMs: 1000, maxMs: 60000, jitter: 0.2 };
    this.wsUrl = opts.url.replace(/\/+$/, '').replace(/^http/i, 'ws') + '/api/ws';
    this.framesPerTurn = opts.framesPerTurn ?? FRAMES_PER_TURN;
  }

  get state(): LiveState {
    return this.lastState;
  }

  get info(): StateInfo | undefined {
    return this.stateInfo;
  }

  /** The largest message the server accepts, in bytes. */
  get maxMessageBytes(): number {
    return this.opts.maxMessageBytes ?? 32768;
  }

  /**
   * Registers a subscription; it is sent at once if the socket is open, else when it opens. Throws a
   * TbInputError, and registers nothing, when its command cannot fit in one message under the server's limit.
   */
  subscribe(sub: Subscriber): void {
    if (this.closing || this.entries.has(sub)) return;
    this.encode(sub.command(), 0); // throws when too large
    const entry: Entry = { sub, cmdId: 0, answered: false, queued: false, sentAt: 0, strikes: 0, isolate: false };
    this.entries.set(sub, entry);
    if (this.open) {
      this.enqueue(entry);
      sub.onState('connecting');
    } else {
      sub.onState(
        this.lastState === 'refused' ? 'refused' : this.lastState === 'disconnected' ? 'disconnected' : 'connecting',
        this.stateInfo,
      );
      this.ensureSocket();
    }
  }

  /** Stops a subscription (sends the unsubscribe command); closes the socket when none is left. */
  unsubscribe(sub: Subscriber): void {
    const entry = this.entries.get(sub);
    if (!entry) return;
    this.entries.delete(sub);
    this.quiet.delete(entry);
    this.probes = this.probes.filter((e) => e !== entry);
    if (this.probing === entry) this.nextProbe();
    if (entry.cmdId) {
      const cmdId = entry.cmdId;
      this.byCmdId.delete(cmdId);
      // Never sent: drop the command, there is nothing to undo on the server. Sent: unsubscribe.
      if (entry.queued) this.queue = this.queue.filter((c) => c.cmdId !== cmdId);
      else if (this.open) this.queue.push(this.encode({ type: sub.unsubscribeType }, cmdId));
    }
    if (!this.hasActive()) {
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
      if (this.open && entry.cmdId) this.queue.push(this.encode({ type: entry.sub.unsubscribeType }, entry.cmdId));
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
      if (this.closing || !this.hasActive()) return;
      this.quiet.clear(); // a real outage: every subscription shows it
      const e = err instanceof TbError ? err : new TbError('TB_UNREACHABLE', String((err as Error)?.message ?? err));
      const refused =
        e.code === 'TB_AUTH_FAILED' ||
        e.code === 'TB_2FA_REQUIRED' ||
        e.code === 'TB_TOKEN_EXPIRED' ||
        e.code === 'TB_CONFIG';
      this.scheduleReconnect(refused ? 'auth' : 'normal', e.message, refused ? e : undefined);
      return;
    }
    if (this.closing || !this.hasActive()) {
      this.connecting = false;
      return;
    }
    const ws = new WebSocket(this.wsUrl, {
      handshakeTimeout: this.opts.handshakeTimeoutMs ?? 15000,
      perMessageDeflate: false,
      // ThingsBoard writes its frames with Java's UTF-8 encoder, so they are valid: checking every byte of every
      // frame again costs CPU on each live update. Were a byte ever invalid, it decodes to U+FFFD instead of
      // closing the socket (1007); JSON.parse still judges the frame.
      skipUTF8Validation: true,
      ...(this.opts.tls ?? {}),
    });
    this.ws = ws;
    this.turnFrames = 0;
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
    this.probes = [];
    this.probing = undefined;
    // Fresh cmdIds for everything on this socket; stale ids from the old socket are never reused. Suspects
    // wait: they go out alone, one at a time, after the others.
    for (const entry of this.entries.values()) {
      entry.cmdId = 0;
      entry.answered = false;
      if (entry.blocked) continue;
      if (entry.isolate) {
        this.probes.push(entry);
        continue;
      }
      entry.sub.onResubscribe?.();
      this.enqueue(entry, false);
    }
    this.authKind = 'apiKey' in auth ? 'apiKey' : 'token';
    const authCmd = 'apiKey' in auth ? { cmdId: 0, apiKey: auth.apiKey } : { cmdId: 0, token: auth.token };
    this.flushNow(authCmd);
    this.startPing(ws);
    this.nextProbe();
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.open = false;
    this.stopPing();
    this.stopProbe();
    const why = `closed ${code}${reason ? `: ${reason}` : ''}`;
    const suspects = NOT_COMMAND_CLOSES.has(code) ? [] : this.suspects(Date.now());
    for (const entry of this.entries.values()) {
      entry.cmdId = 0;
      entry.answered = false;
    }
    this.byCmdId.clear();
    this.queue = [];
    this.probes = [];
    if (this.closing || this.entries.size === 0) {
      if (!this.closing) this.setState('closed');
      return;
    }
    if (suspects.length) {
      this.onCommandClose(suspects, code, why);
      return;
    }
    this.quiet.clear();
    if (!this.hasActive()) {
      this.setState('closed');
      return;
    }
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
            `ThingsBoard refused the WebSocket authentication with the API key (${why}). Live subscriptions with an ` +
              'API key need ThingsBoard 4.4 or later; with an older server use the "password" mode for live nodes',
          ),
        );
        return;
      }
      this.opts.onAuthRejected?.();
      if (++this.authRejects === 1) this.scheduleReconnect('normal', why);
      else
        this.scheduleReconnect(
          'auth',
          why,
          new TbError('TB_AUTH_FAILED', `ThingsBoard refused the WebSocket authentication (${why})`),
        );
    } else if (code === 1008) {
      this.scheduleReconnect('policy', why);
    } else {
      this.scheduleReconnect('normal', why);
    }
  }

  /** Schedules the next connect; returns the delay (ms). */
  private scheduleReconnect(kind: 'normal' | 'policy' | 'auth' | 'command', reason: string, error?: TbError): number {
    this.attempts++;
    let delay = backoffDelay(this.attempts, this.backoff);
    if (kind === 'policy') delay = Math.max(delay, this.opts.policyBackoffMs ?? 60000);
    if (kind === 'auth') delay = Math.max(delay, this.opts.authBackoffMs ?? 30000);
    // The socket authenticated and talked before this close (which resets `attempts`): count these apart.
    if (kind === 'command') delay = Math.max(delay, backoffDelay(this.commandCloses, this.backoff));
    if (error) this.setState('refused', { reason, error, retryInMs: delay });
    else this.setState('disconnected', { reason, retryInMs: delay });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closing && this.hasActive()) void this.connect();
    }, delay);
    return delay;
  }

  /** Subscriptions that still want to be sent (registered and not blocked). */
  private hasActive(): boolean {
    for (const entry of this.entries.values()) if (!entry.blocked) return true;
    return false;
  }

  /** Commands the server had not answered, sent within the suspect window before `now`. */
  private suspects(now: number): Entry[] {
    const within = this.opts.suspectWindowMs ?? 3000;
    const out: Entry[] = [];
    for (const entry of this.entries.values()) {
      if (entry.cmdId && !entry.queued && !entry.answered && !entry.blocked && now - entry.sentAt <= within)
        out.push(entry);
    }
    return out;
  }

  /**
   * The server closed the session right after commands it had not answered. A suspect alone in flight that
   * had already been one is blocked; the rest are sent alone after the reconnect. Subscriptions that were
   * answered (and are not suspects) are kept quiet: the reconnect is not theirs.
   */
  private onCommandClose(suspects: Entry[], code: number, why: string): void {
    const now = Date.now();
    if (now - this.lastCommandClose > (this.opts.suspectResetMs ?? 60000)) this.commandCloses = 0;
    this.commandCloses++;
    this.lastCommandClose = now;
    for (const entry of suspects) {
      entry.strikes++;
      entry.isolate = true;
      if (suspects.length === 1 && entry.strikes >= 2) this.block(entry, code, why);
    }
    // Nobody sees this reconnect: it takes no longer than the backoff, resubscribing reports only real changes,
    // and a culprit hears about it when it is blocked. A real outage on the way back clears `quiet`.
    this.quiet.clear();
    for (const entry of this.entries.values()) if (!entry.blocked) this.quiet.add(entry);
    if (!this.hasActive()) {
      this.setState('closed');
      return;
    }
    this.scheduleReconnect('command', why);
  }

  /** Stops sending a subscription's command for good and tells its subscriber why. */
  private block(entry: Entry, code: number, why: string): void {
    const kb = Math.ceil(this.encode(entry.sub.command(), 0, false).bytes / 1024);
    const hint =
      code === 1009
        ? `ThingsBoard refuses messages that large (the command is ${kb} KB): set the connection's "Live message ` +
          'limit" to the server\'s (server.ws.max_text_message_buffer_size, 32 KB by default) or make the query ' +
          'smaller, with a filter such as deviceType or a relation instead of a long entity list'
        : 'the server fails on this command: check the query, or the server log';
    const err = new TbError(
      'TB_SUBSCRIPTION',
      `ThingsBoard closed the WebSocket (${why}) ${entry.strikes} times right after this subscription's command, so ` +
        'it is no longer sent; the other subscriptions of the connection keep ' +
        `running. ${hint[0].toUpperCase()}${hint.slice(1)}`,
    );
    entry.blocked = err;
    entry.isolate = false;
    this.stats.blocked++;
    entry.sub.onError(err, true);
  }

  /** Sends the next suspect alone; it is cleared when answered, or when the window passes without a close. */
  private nextProbe(): void {
    this.stopProbe();
    const ws = this.ws;
    if (!ws || !this.open) return;
    let entry: Entry | undefined;
    while ((entry = this.probes.shift()) && (this.entries.get(entry.sub) !== entry || entry.blocked));
    if (!entry) return;
    this.probing = entry;
    entry.sub.onResubscribe?.();
    this.enqueue(entry, false);
    this.flushNow();
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      if (this.probing !== entry || ws !== this.ws) return;
      this.cleared(entry as Entry);
    }, this.opts.suspectWindowMs ?? 3000);
  }

  private stopProbe(): void {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.probing = undefined;
  }

  /** A suspect was answered (or outlived the window): it is sent normally from now on. */
  private cleared(entry: Entry): void {
    entry.isolate = false;
    entry.strikes = 0;
    if (this.probing === entry) this.nextProbe();
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
    this.stopProbe();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
  }

  private setState(state: LiveState, info?: StateInfo): void {
    this.lastState = state;
    this.stateInfo = info;
    if (state === 'subscribed') return; // per subscription, on its first answer
    // Blocked subscriptions keep their error; quiet ones are not concerned by a command-caused reconnect.
    for (const entry of this.entries.values())
      if (!entry.blocked && !this.quiet.has(entry)) entry.sub.onState(state, info);
  }

  // ---- sending ------------------------------------------------------------------------------------------

  private enqueue(entry: Entry, flush = true): void {
    let q: Queued;
    const cmdId = this.nextCmdId;
    try {
      q = this.encode(entry.sub.command(), cmdId);
    } catch (err) {
      // subscribe() checked it; a command that grew since is refused the same way.
      entry.blocked = err as TbError;
      this.stats.blocked++;
      entry.sub.onError(err as TbError, true);
      return;
    }
    this.nextCmdId++;
    if (this.nextCmdId > 2000000000) this.nextCmdId = 1;
    entry.cmdId = cmdId;
    entry.answered = false;
    entry.queued = true;
    this.byCmdId.set(cmdId, entry);
    this.queue.push(q);
    if (flush) this.scheduleFlush();
  }

  /**
   * A command as sent (with its cmdId) and its size. With `check`, throws a TbInputError when it cannot fit
   * in one message under the server's limit.
   */
  private encode(cmd: WsCommand | Record<string, unknown>, cmdId: number, check = true): Queued {
    const json = JSON.stringify({ ...cmd, cmdId });
    // UTF-8 bytes are never fewer than characters: count characters when that already fits.
    const limit = this.maxMessageBytes;
    const bytes = json.length * 3 + ENVELOPE_BYTES <= limit ? json.length : Buffer.byteLength(json);
    if (check && bytes + ENVELOPE_BYTES > limit) {
      const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;
      throw new TbInputError(
        'query',
        `The live query is ${kb(bytes + ENVELOPE_BYTES)}; ThingsBoard accepts ${kb(limit)} per WebSocket message ` +
          '(the connection\'s "Live message limit"), so it was not sent: use a filter such as deviceType or a ' +
          'relation instead of a long entity list',
      );
    }
    return { cmdId, json, bytes };
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || !this.open) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushNow();
    });
  }

  /**
   * Sends the queue in messages of at most batchSize commands, each within the server's message limit (the
   * authCmd rides with the first one, or goes alone when nothing fits beside it).
   */
  private flushNow(authCmd?: Record<string, unknown>): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const batch = this.opts.batchSize ?? 10;
    const limit = this.maxMessageBytes;
    const queue = this.queue;
    this.queue = [];
    const now = Date.now();
    let i = 0;
    let head = authCmd ? `"authCmd":${JSON.stringify(authCmd)},` : '';
    do {
      const cmds: string[] = [];
      let bytes = ENVELOPE_BYTES + head.length;
      while (i < queue.length && cmds.length < batch) {
        const q = queue[i];
        if (bytes + q.bytes + (cmds.length ? 1 : 0) > limit && (cmds.length > 0 || head)) break;
        cmds.push(q.json);
        bytes += q.bytes + (cmds.length > 1 ? 1 : 0);
        const sent = this.byCmdId.get(q.cmdId);
        if (sent && sent.cmdId === q.cmdId) {
          sent.queued = false;
          sent.sentAt = now;
        }
        i++;
      }
      if (cmds.length === 0 && !head) break;
      ws.send(`{${head}"cmds":[${cmds.join(',')}]}`);
      this.stats.sent++;
      head = '';
    } while (i < queue.length);
  }

  // ---- receiving ----------------------------------------------------------------------------------------

  private onFrame(ws: WebSocket, data: WebSocket.RawData, isBinary: boolean): void {
    if (ws !== this.ws) return;
    this.stats.bytes += (data as Buffer).length;
    if (++this.turnFrames === this.framesPerTurn) {
      ws.pause(); // until the next turn: see FRAMES_PER_TURN
      this.pausedWs = ws;
      setImmediate(this.resumeReading);
      this.stats.pauses++;
    }
    this.alive = true;
    // An entity's latest values, the frame that comes by the thousand, is read without JSON.parse (live/frame.ts:
    // the same object, for half the cost); any other frame is left to JSON.parse.
    let msg: WsMessage | undefined = isBinary || !Buffer.isBuffer(data) ? undefined : readLatestUpdate(data);
    if (msg !== undefined) this.stats.quick++;
    else {
      try {
        const parsed: unknown = JSON.parse(isBinary ? data.toString() : (data as Buffer).toString());
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        msg = parsed as WsMessage;
      } catch {
        this.stats.malformed++;
        this.opts.log?.('warn', 'Ignored a WebSocket frame that is not a JSON object');
        return;
      }
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
        if (!entry.answered) this.heard(entry);
        entry.sub.onError(subscriptionError(code, msg.errorMsg), true);
        return;
      }
      if (!entry.answered) {
        this.heard(entry);
        entry.sub.onState('subscribed');
      }
      entry.sub.onMessage(msg);
      return;
    }
    const sid = msg.subscriptionId;
    if (typeof sid === 'number') this.routeLegacyError(sid, msg);
    else this.stats.dropped++;
  }

  /** The server answered a command on this socket: it is no suspect, and its subscription is back. */
  private heard(entry: Entry): void {
    entry.answered = true;
    this.quiet.delete(entry);
    if (entry.isolate || entry.strikes) this.cleared(entry);
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
  return new TbError(
    'TB_SUBSCRIPTION',
    `ThingsBoard reported an error for the subscription (errorCode ${code}): ${text}`,
  );
}
