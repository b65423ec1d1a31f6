/**
 * A small WebSocket client for the simulator's own tests: collects every message, waits on messages and close
 * events (never on timers), and "probes" the session to prove that nothing else arrived in between.
 */
import WebSocket from 'ws';
import { NOW, type Clock } from './testkit';
import { Simulator, type SimOptions } from './index';

// test code inspects arbitrary JSON shapes
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = any;

export interface Closed {
  code: number;
  reason: string;
}

const PROBE_BASE = 900_000;

export class TestWs {
  readonly messages: Msg[] = [];
  readonly raw: string[] = [];
  /** index of the first message not consumed by next() */
  cursor = 0;
  readonly closed: Promise<Closed>;
  isClosed = false;
  private waiters: (() => void)[] = [];
  private probeSeq = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      this.raw.push(text);
      let m: Msg;
      try {
        m = JSON.parse(text);
      } catch {
        m = { $raw: text };
      }
      this.messages.push(m);
      this.wake();
    });
    this.closed = new Promise<Closed>((resolve) => {
      ws.on('close', (code: number, reason: Buffer) => {
        this.isClosed = true;
        resolve({ code, reason: reason.toString('utf8') });
        this.wake();
      });
    });
    ws.on('error', () => {
      /* surfaced through close */
    });
  }

  /** Connects to `ws://…/api/ws` (or another path) and waits for the upgrade. */
  static async open(baseUrl: string, path = '/api/ws', opts: WebSocket.ClientOptions = {}): Promise<TestWs> {
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, { perMessageDeflate: false, ...opts });
    const c = new TestWs(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
    return c;
  }

  /** Opens a session and authenticates with `authCmd` (cmds may ride along). */
  static async auth(baseUrl: string, token: string, cmds?: unknown[]): Promise<TestWs> {
    const c = await TestWs.open(baseUrl);
    c.send({ authCmd: { cmdId: 0, token }, ...(cmds ? { cmds } : {}) });
    return c;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private changed(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  /** Sends `{"cmds":[…]}`. */
  cmds(...cmds: unknown[]): void {
    this.send({ cmds });
  }

  /** The next message after the cursor that satisfies `pred` (messages skipped on the way stay readable). */
  async next(pred: (m: Msg) => boolean = () => true, what = 'a message'): Promise<Msg> {
    for (;;) {
      for (let i = this.cursor; i < this.messages.length; i++) {
        if (pred(this.messages[i])) {
          this.cursor = i + 1;
          return this.messages[i];
        }
      }
      if (this.isClosed)
        throw new Error(
          `connection closed while waiting for ${what}; got ${JSON.stringify(this.messages.slice(this.cursor))}`,
        );
      await this.changed();
    }
  }

  /** The next message for a cmdId (any shape). */
  forCmd(cmdId: number): Promise<Msg> {
    return this.next((m) => m.cmdId === cmdId || m.subscriptionId === cmdId, `cmdId ${cmdId}`);
  }

  /** Waits until at least `n` messages have arrived in total. */
  async count(n: number): Promise<void> {
    while (this.messages.length < n) {
      if (this.isClosed) throw new Error(`closed with ${this.messages.length} of ${n} messages`);
      await this.changed();
    }
  }

  /**
   * Round trip through the server: sends a query-only ENTITY_DATA with a fresh cmdId and waits for its reply.
   * Messages are ordered per socket, so everything caused before the probe has arrived when it returns; the
   * return value is every message since the cursor except the probe's own (and the cursor moves past them).
   */
  async probe(): Promise<Msg[]> {
    const cmdId = PROBE_BASE + ++this.probeSeq;
    const start = this.cursor;
    this.cmds({
      type: 'ENTITY_DATA',
      cmdId,
      query: {
        entityFilter: { type: 'entityType', entityType: 'TENANT' },
        pageLink: { page: 0, pageSize: 1 },
        entityFields: [],
        latestValues: [],
      },
    });
    await this.next((m) => m.cmdId === cmdId, `probe ${cmdId}`);
    const between = this.messages.slice(start).filter((m) => !(m.cmdId >= PROBE_BASE));
    this.cursor = this.messages.length;
    return between;
  }

  close(): void {
    if (!this.isClosed) this.ws.close();
  }

  terminate(): void {
    this.ws.terminate();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// setup helpers for the ws*.test.ts files

export interface WsCtx {
  sim: Simulator;
  url: string;
  clock: Clock;
  /** a fresh access token for a built-in user (default the tenant admin) */
  token(email?: string): string;
  /** opens and authenticates a session (tenant admin unless `email`), cmds riding along */
  connect(cmds?: unknown[], email?: string): Promise<TestWs>;
  clients: TestWs[];
  stop(): Promise<void>;
}

export async function wsSetup(opts: SimOptions = {}): Promise<WsCtx> {
  const clock: Clock = { now: NOW };
  const sim = new Simulator({ now: () => clock.now, ...opts });
  const url = await sim.start();
  const clients: TestWs[] = [];
  const token = (email = 'tenant@thingsboard.org'): string => sim.tokensFor(email).token;
  return {
    sim,
    url,
    clock,
    token,
    clients,
    async connect(cmds?: unknown[], email?: string): Promise<TestWs> {
      const c = await TestWs.auth(url, token(email), cmds);
      clients.push(c);
      return c;
    },
    async stop(): Promise<void> {
      for (const c of clients) c.terminate();
      await sim.stop();
    },
  };
}

export const field = (key: string): { type: string; key: string } => ({ type: 'ENTITY_FIELD', key });
export const tsKey = (key: string): { type: string; key: string } => ({ type: 'TIME_SERIES', key });

/** An ENTITY_DATA query by name prefix, sorted by name, with `latest` keys. */
export function nameQuery(
  prefix: string,
  latest: unknown[] = [tsKey('temperature')],
  pageLink: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: prefix },
    pageLink: { page: 0, pageSize: 100, sortOrder: { key: field('name'), direction: 'ASC' }, ...pageLink },
    entityFields: [field('name')],
    latestValues: latest,
    keyFilters: [],
  };
}
