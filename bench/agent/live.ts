/**
 * Agent tasks for the WebSocket scenarios (2 and 3): deploy a live flow and wait until it is subscribed,
 * the raw `ws` client, telemetry bursts from the simulator (POST /__sim/ws/burst) counted at the sink,
 * connection drops (POST /__sim/ws/drop) and the time until everything is subscribed again.
 *
 * Delay = arrival at the sink (wall clock, performance.timeOrigin + performance.now()) minus the `sentAt`
 * value the simulator wrote into the update just before sending it (same machine, same clock).
 */
import WebSocket from 'ws';
import { summarize } from '../lib/stats';
import { ctx, deadline, hooks, now, sim } from './context';
import { deploy } from './deploy';

const wall = (): number => performance.timeOrigin + performance.now();

type Rec = Record<string, unknown>;

/** The `sentAt` value of an update, whatever the contender's payload shape (flat, decoded, raw `latest`). */
export function sentAtOf(payload: unknown): number {
  const p = payload as Rec | undefined;
  if (!p || typeof p !== 'object') return NaN;
  if (p.sentAt !== undefined) return Number(p.sentAt);
  const ts = (p.TIME_SERIES ?? (p.latest as Rec | undefined)?.TIME_SERIES) as Rec | undefined;
  const e = ts?.sentAt as { value?: unknown } | undefined;
  return e ? Number(e.value) : NaN;
}

function isGreen(s: { fill?: string } | undefined): boolean {
  return !!s && s.fill === 'green';
}

// ---- deploy and wait ----------------------------------------------------------------------------------------

export interface SubscribeResult {
  /** deploy request -> flows started */
  deployMs: number;
  /** deploy request -> `snapshots` snapshot messages at the sink (and every `statusIds` node green) */
  subscribedMs: number;
  snapshots: number;
}

/**
 * Deploys `flows` and waits until `snapshots` snapshot messages reached `sink` (and, with `statusIds`, until each
 * of those nodes shows a green status). The sink hook is armed before the deploy, so nothing is missed.
 */
export async function deployAndWait(a: {
  flows: unknown[];
  sink: string;
  snapshots: number;
  statusIds?: string[];
  timeoutMs: number;
}): Promise<SubscribeResult> {
  let snaps = 0;
  const green = new Set<string>();
  const want = new Set(a.statusIds ?? []);
  let wake: () => void = () => undefined;
  const done = (): boolean => snaps >= a.snapshots && green.size >= want.size;
  hooks.sink = (id, msg) => {
    if (id === a.sink && msg.event === 'snapshot') {
      snaps++;
      if (done()) wake();
    }
  };
  if (want.size) {
    hooks.status = (id, s) => {
      if (want.has(id) && isGreen(s)) {
        green.add(id);
        if (done()) wake();
      }
    };
  }
  const t0 = now();
  try {
    const waiting = new Promise<void>((resolve) => {
      wake = resolve;
    });
    await deploy(a.flows);
    const deployMs = now() - t0;
    if (!done())
      await deadline(
        waiting,
        a.timeoutMs,
        `subscriptions (${snaps}/${a.snapshots} snapshots, ${green.size}/${want.size} green)`,
      );
    return { deployMs, subscribedMs: now() - t0, snapshots: snaps };
  } finally {
    hooks.sink = () => undefined;
    hooks.status = undefined;
  }
}

// ---- the raw ws client ------------------------------------------------------------------------------------

interface RawClient {
  ws: WebSocket;
  closing: boolean;
  opens: number;
}
let raw: RawClient | undefined;

/**
 * The raw client: one `ws` socket, the authCmd and the commands (10 per frame, as the ThingsBoard UI), each frame
 * parsed, each entity of an `update` array handed to the sink hook as `{event: 'update', payload: latest}`, each
 * `data` page as a snapshot. With `reconnect`, it reconnects at once after a close and subscribes again.
 */
export async function rawOpen(a: {
  token: string;
  cmds: Rec[];
  snapshots: number;
  reconnect?: boolean;
  timeoutMs: number;
}): Promise<{ openMs: number }> {
  await rawClose();
  const url = ctx.simUrl.replace(/^http/, 'ws') + '/api/ws';
  const client: RawClient = { ws: undefined as unknown as WebSocket, closing: false, opens: 0 };
  raw = client;
  const frames: string[] = [];
  for (let i = 0; i < a.cmds.length || i === 0; i += 10) {
    const cmds = a.cmds.slice(i, i + 10);
    frames.push(JSON.stringify(i === 0 ? { authCmd: { cmdId: 0, token: a.token }, cmds } : { cmds }));
  }
  const connect = (): void => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    client.ws = ws;
    ws.on('open', () => {
      client.opens++;
      for (const f of frames) ws.send(f);
    });
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as {
        cmdId?: number;
        data?: { data?: unknown[] } | null;
        update?: Array<{ entityId: { id: string }; latest: unknown }> | null;
      };
      const sink = hooks.sink;
      if (m.update) for (const e of m.update) sink('raw', { event: 'update', topic: e.entityId.id, payload: e.latest });
      else if (m.data && m.data.data) sink('raw', { event: 'snapshot', topic: String(m.cmdId), payload: m.data.data });
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (!client.closing && a.reconnect && raw === client) connect();
    });
  };
  let snaps = 0;
  const t0 = now();
  const ready = new Promise<void>((resolve) => {
    hooks.sink = (id, msg) => {
      if (id === 'raw' && msg.event === 'snapshot' && ++snaps >= a.snapshots) resolve();
    };
  });
  connect();
  try {
    await deadline(ready, a.timeoutMs, `raw ws subscriptions (${snaps}/${a.snapshots})`);
  } finally {
    hooks.sink = () => undefined;
  }
  return { openMs: now() - t0 };
}

export async function rawClose(): Promise<void> {
  const c = raw;
  raw = undefined;
  if (!c) return;
  c.closing = true;
  await new Promise<void>((resolve) => {
    if (c.ws.readyState === WebSocket.CLOSED) return resolve();
    const t = setTimeout(resolve, 2000);
    c.ws.once('close', () => {
      clearTimeout(t);
      resolve();
    });
    c.ws.terminate();
  });
}

// ---- bursts -------------------------------------------------------------------------------------------------

export interface BurstRun {
  updates: number;
  received: number;
  /** first update's sentAt -> last arrival */
  elapsedMs: number;
  perSec: number;
  delayP50: number;
  delayP99: number;
  delayMax: number;
  cpuMs: number;
  simCpuMs: number;
  sim: {
    durationMs: number;
    updatesPerSec: number;
    stalls: number;
    stallMs: number;
    messagesSent: number;
    aborted: boolean;
  };
}

/**
 * Asks the simulator for a telemetry burst and counts the updates arriving at `sink` ('raw' for the raw client)
 * until all have arrived.
 */
export async function burst(a: {
  sink: string;
  entities: number;
  updates: number;
  keysPerUpdate: number;
  ratePerSec?: number;
  timeoutMs: number;
}): Promise<BurstRun> {
  const delays = new Float64Array(a.updates);
  let received = 0;
  let firstSent = Infinity;
  let last = 0;
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  let wake: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    wake = resolve;
  });
  hooks.sink = (id, msg) => {
    if (id !== a.sink || msg.event !== 'update') return;
    const t = wall();
    const sent = sentAtOf(msg.payload);
    if (received < a.updates) delays[received] = t - sent;
    received++;
    if (sent < firstSent) firstSent = sent;
    last = t;
    if (received >= a.updates) wake();
  };
  try {
    const pushed = sim().call<BurstRun['sim']>('POST', '/__sim/ws/burst', {
      entities: a.entities,
      updates: a.updates,
      keysPerUpdate: a.keysPerUpdate,
      ...(a.ratePerSec ? { ratePerSec: a.ratePerSec } : {}),
    });
    pushed.catch(() => undefined);
    await deadline(all, a.timeoutMs, `burst of ${a.updates} updates (received ${received})`);
    const simResult = await deadline(pushed, 10000, 'burst result');
    const cpu = process.cpuUsage(cpuStart);
    const elapsedMs = last - firstSent;
    const s = summarize(delays.subarray(0, Math.min(received, a.updates)));
    return {
      updates: a.updates,
      received,
      elapsedMs,
      perSec: (received / elapsedMs) * 1000,
      delayP50: s.p50,
      delayP99: s.p99,
      delayMax: s.max,
      cpuMs: (cpu.user + cpu.system) / 1000,
      simCpuMs: (await sim().cpuMs()) - simStart,
      sim: simResult,
    };
  } finally {
    hooks.sink = () => undefined;
  }
}

// ---- drops and resubscription -------------------------------------------------------------------------------

/**
 * Drops every WebSocket session on the simulator (abruptly: the client sees 1006) and measures the time until
 * everything is subscribed again: every `statusIds` node has shown a non-green status and then a green one, and/or
 * `snapshots` new snapshot messages reached `sink`.
 */
export async function dropAndWait(a: {
  sink?: string;
  snapshots?: number;
  statusIds?: string[];
  timeoutMs: number;
}): Promise<{ resubscribedMs: number; dropped: number }> {
  const want = new Set(a.statusIds ?? []);
  const wentDown = new Set<string>();
  const back = new Set<string>();
  let snaps = 0;
  const need = a.snapshots ?? 0;
  let wake: () => void = () => undefined;
  const done = (): boolean => back.size >= want.size && snaps >= need;
  const all = new Promise<void>((resolve) => {
    wake = resolve;
  });
  hooks.status = (id, s) => {
    if (!want.has(id)) return;
    if (!isGreen(s)) wentDown.add(id);
    else if (wentDown.has(id)) {
      back.add(id);
      if (done()) wake();
    }
  };
  hooks.sink = (id, msg) => {
    if (id === a.sink && msg.event === 'snapshot') {
      snaps++;
      if (done()) wake();
    }
  };
  try {
    const t0 = now();
    const r = await sim().call<{ closed: number }>('POST', '/__sim/ws/drop', {});
    await deadline(
      all,
      a.timeoutMs,
      `resubscription (${back.size}/${want.size} green again, ${snaps}/${need} snapshots)`,
    );
    return { resubscribedMs: now() - t0, dropped: r.closed };
  } finally {
    hooks.sink = () => undefined;
    hooks.status = undefined;
  }
}

/** Counters of the connection's shared WebSocket (LiveHub.stats), if the node has one. */
export async function hubStats(a: { conn: string }): Promise<Rec | undefined> {
  const conn = ctx.RED.nodes.getNode(a.conn) as { live?: () => { stats: Rec; size: number } } | null;
  if (!conn || typeof conn.live !== 'function') return undefined;
  const hub = conn.live();
  return { ...hub.stats, subscriptions: hub.size };
}

export async function simWs(a: { path: string; method?: string; body?: unknown }): Promise<unknown> {
  return sim().call(a.method ?? 'GET', `/__sim/ws${a.path}`, a.body);
}
