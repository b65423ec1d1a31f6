/**
 * `sim.ws.pushTelemetryBurst` / `POST /__sim/ws/burst`: writes telemetry for the WebSocket benchmarks.
 *
 * `updates` telemetry writes (one `setTelemetry` each, so one dataset event and at most one message per
 * subscription) go round-robin over the first `entities` target devices. Each write carries `keysPerUpdate` keys:
 * - `sentAt`: a DOUBLE, the wall-clock time in ms (sub-ms fraction) taken just before the write. The live update
 *   prints it the Java way ("1.7672256001234E12"); `Number(value)` reads it back. Receive time minus sentAt is the
 *   end-to-end delay of that value (simulator + socket + client);
 * - `seq`: a LONG, 1…updates within this burst (order and loss checks);
 * - `v3`, `v4`, …: LONGs equal to seq (payload width).
 * The point's ts is the simulator clock, bumped so it increases per device (never dropped as stale).
 *
 * Flow control: before writing, the burst checks the pending outbound messages of every session (held by hooks or
 * buffered by the socket). At or above half of wsMaxQueue it waits until all are below a quarter, so the
 * simulator produces "as fast as the sockets drain" with bounded memory and never trips the 1008 queue limit
 * itself. A session that does not drain for `stallTimeoutMs` is no longer waited for during this burst (its
 * client is stuck: it soon hits the limit and is closed 1008, as on the real server). With `ratePerSec` the writes
 * are also paced on a drift-free schedule.
 */
import { performance } from 'node:perf_hooks';
import type { Dataset, SimEntity } from '../dataset';
import { BENCH_DEVICE_TYPE } from '../dataset';
import { dbl, long, type KvInput } from '../values';

export interface BurstOptions {
  /** how many devices receive the updates (the first N targets) */
  entities: number;
  /** total telemetry writes */
  updates: number;
  /** keys per write (default 1): sentAt, seq, v3, v4, … */
  keysPerUpdate?: number;
  /** pace at this many writes per second (default: as fast as the sockets drain) */
  ratePerSec?: number;
  /** target devices whose name starts with this (default: bench devices when there are any, else every device) */
  namePrefix?: string;
  /** explicit target device ids (instead of namePrefix) */
  entityIds?: string[];
  /** write anyway after a session has not drained for this long (default 30000) */
  stallTimeoutMs?: number;
  /** writes between two yields to the event loop (default 200) */
  batch?: number;
}

export interface BurstResult {
  entities: number;
  updates: number;
  keysPerUpdate: number;
  keys: string[];
  /** ids of the target devices, in round-robin order */
  entityIds: string[];
  /** wall-clock ms (with fraction) */
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  updatesPerSec: number;
  /** WebSocket messages sent by the simulator during the burst (all sessions) */
  messagesSent: number;
  /** times the burst waited for sockets to drain, and for how long in total */
  stalls: number;
  stallMs: number;
  /** true when the simulator stopped during the burst */
  aborted: boolean;
}

/** What the burst needs from the WebSocket server. */
export interface BurstHost {
  maxPending(exclude?: ReadonlySet<number>): number;
  highWater(): number;
  waitForDrain(timeoutMs: number, exclude?: ReadonlySet<number>): Promise<boolean>;
  /** sessions at or above the low-water mark */
  congestedSessions(): number[];
  messagesSent(): number;
  readonly attached: boolean;
  /** the simulator clock */
  now(): number;
}

function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

export function burstKeys(n: number): string[] {
  const keys = ['sentAt', 'seq'];
  for (let i = 3; i <= n; i++) keys.push(`v${i}`);
  return keys.slice(0, Math.max(1, n));
}

function targets(ds: Dataset, o: BurstOptions): SimEntity[] {
  const want = Math.max(1, Math.floor(o.entities));
  const out: SimEntity[] = [];
  if (o.entityIds && o.entityIds.length > 0) {
    for (const id of o.entityIds) {
      const e = ds.get(id);
      if (!e) throw new Error(`burst: unknown entity ${id}`);
      out.push(e);
      if (out.length >= want) break;
    }
  } else {
    const prefix = o.namePrefix;
    const benchOnly = prefix === undefined && ds.benchDeviceCount > 0;
    for (const e of ds.entitiesOfType('DEVICE')) {
      if (benchOnly ? e.type !== BENCH_DEVICE_TYPE : prefix !== undefined && !e.name.startsWith(prefix)) continue;
      out.push(e);
      if (out.length >= want) break;
    }
  }
  if (out.length < want) throw new Error(`burst: only ${out.length} target devices, ${want} requested`);
  return out;
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function pushTelemetryBurst(host: BurstHost, ds: Dataset, o: BurstOptions): Promise<BurstResult> {
  const updates = Math.max(0, Math.floor(o.updates));
  const keys = burstKeys(Math.max(1, Math.floor(o.keysPerUpdate ?? 1)));
  const list = targets(ds, o);
  const stallTimeout = o.stallTimeoutMs ?? 30_000;
  const batch = Math.max(1, Math.floor(o.batch ?? 200));
  const rate = o.ratePerSec && o.ratePerSec > 0 ? o.ratePerSec : 0;
  const lastTs = new Map<string, number>();
  const sent0 = host.messagesSent();
  let stalls = 0;
  let stallMs = 0;
  let aborted = false;
  const startedAt = wallNow();
  const t0 = performance.now();

  const write = (i: number): void => {
    const e = list[i % list.length];
    const prev = lastTs.get(e.id) ?? ds.getLatest(e, 'sentAt')?.ts ?? 0;
    const simNow = host.now();
    const ts = simNow > prev ? simNow : prev + 1;
    lastTs.set(e.id, ts);
    const seq = i + 1;
    const values: Record<string, KvInput> = {};
    for (const k of keys) values[k] = k === 'sentAt' ? 0 : long(seq);
    values.sentAt = dbl(wallNow());
    ds.setTelemetry(e, values, ts);
  };

  // check the sockets every 8 writes (every write when the queue limit is small)
  const stride = host.highWater() >= 64 ? 7 : 0;
  const stuck = new Set<number>();
  let i = 0;
  let sinceYield = 0;
  while (i < updates) {
    if (!host.attached) {
      aborted = true;
      break;
    }
    if (rate > 0) {
      const due = t0 + (i * 1000) / rate;
      const ahead = due - performance.now();
      if (ahead >= 1) {
        await sleep(Math.floor(ahead));
        sinceYield = 0;
        continue;
      }
    }
    if ((i & stride) === 0 && host.maxPending(stuck) >= host.highWater()) {
      stalls++;
      const s = performance.now();
      // a session that does not drain in time is not waited for again (it will hit the queue limit)
      if (!(await host.waitForDrain(stallTimeout, stuck))) for (const id of host.congestedSessions()) stuck.add(id);
      stallMs += performance.now() - s;
      sinceYield = 0;
      if (!host.attached) {
        aborted = true;
        break;
      }
    }
    write(i);
    i++;
    if (++sinceYield >= batch) {
      sinceYield = 0;
      await tick();
    }
  }
  const finishedAt = wallNow();
  const durationMs = finishedAt - startedAt;
  return {
    entities: list.length,
    updates: i,
    keysPerUpdate: keys.length,
    keys,
    entityIds: list.map((e) => e.id),
    startedAt,
    finishedAt,
    durationMs,
    updatesPerSec: durationMs > 0 ? (i * 1000) / durationMs : i,
    messagesSent: host.messagesSent() - sent0,
    stalls,
    stallMs,
    aborted,
  };
}
