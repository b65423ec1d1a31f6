/**
 * Agent task of scenario 8 (tb-trigger): deploy a node that watches the N entities of a query, time until each has
 * been judged (its status counts them), its heap per entity, then a burst of updates from the simulator: the CPU of
 * the process per update, the heap once every entity holds, and the long timers alive then (the holds').
 */
import { ctx, deadline, hooks, now, sim } from './context';
import { deploy } from './deploy';

/** heapUsed after a full GC (the agents run with --expose-gc). */
function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Counts the timers of 5 minutes or more alive in the process (the holds are 10 min; the connection's and the
 * task's own timers are shorter): setTimeout and clearTimeout are wrapped until `restore`.
 */
function longTimers(): { alive(): number; restore(): void } {
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  const live = new Set<unknown>();
  const wrapped = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const h = set(
      (...a: unknown[]) => {
        live.delete(h);
        fn(...a);
      },
      ms,
      ...args,
    );
    if ((ms ?? 0) >= 300000) live.add(h);
    return h;
  }) as typeof setTimeout;
  globalThis.setTimeout = wrapped;
  globalThis.clearTimeout = ((h: NodeJS.Timeout | undefined) => {
    live.delete(h);
    clear(h);
  }) as typeof clearTimeout;
  return {
    alive: () => live.size,
    restore: () => {
      globalThis.setTimeout = set;
      globalThis.clearTimeout = clear;
    },
  };
}

export interface TriggerRun {
  entities: number;
  /** deploy request -> every entity judged (the node's status counts them all) */
  startMs: number;
  /** heapUsed after GC watching the entities, minus with an empty flow, ÷ entities */
  heapPerEntityKb: number;
  updates: number;
  /** the burst: first write -> the last update read by the node */
  burstMs: number;
  /** CPU (user + system) of the process during the burst ÷ updates */
  cpuPerUpdateUs: number;
  /** heap after GC once every entity holds (a deadline each), ÷ entities */
  heapHoldingPerEntityKb: number;
  /** timers of 5 minutes or more alive with every entity judged, none holding */
  timersIdle: number;
  /** the same with every entity holding (the holds are 10 min) */
  timersHolding: number;
  /** messages the node sent during the burst (a hold of 10 min: none) */
  sent: number;
}

/**
 * `flows` holds node `node` watching `n` entities; `ready(text)` says from its status that all are judged. The burst
 * writes `updates` values (sentAt and seq) round-robin over the entities, as fast as the socket drains.
 */
export async function triggerRun(a: {
  flows: unknown[];
  empty: unknown[];
  node: string;
  conn: string;
  n: number;
  updates: number;
  ready: string;
  timeoutMs: number;
}): Promise<TriggerRun> {
  await deploy(a.empty);
  // A value of `seq` at or below the threshold on every entity (1…n; the threshold is half the burst's, at least
  // n): none holds when the node starts, whatever an earlier run left.
  await sim().call('POST', '/__sim/ws/burst', { entities: a.n, updates: a.n, keysPerUpdate: 2 });
  await sleep(200);
  const heap0 = heapAfterGc();
  const timers = longTimers();
  const ready = new RegExp(a.ready);
  let wake: () => void = () => undefined;
  const judged = new Promise<void>((resolve) => (wake = resolve));
  hooks.status = (id, s) => {
    if (id === a.node && s && ready.test(String(s.text))) wake();
  };
  let sent = 0;
  hooks.sink = () => void sent++;
  try {
    const t0 = now();
    await deploy(a.flows);
    await deadline(judged, a.timeoutMs, 'every entity judged');
    const startMs = now() - t0;
    await sleep(300);
    const heap1 = heapAfterGc();
    const timersIdle = timers.alive();
    const hub = (ctx.RED.nodes.getNode(a.conn) as { live(): { stats: { messages: number } } }).live();
    const before = hub.stats.messages;
    sent = 0;
    const cpu0 = process.cpuUsage();
    const b0 = now();
    await sim().call('POST', '/__sim/ws/burst', { entities: a.n, updates: a.updates, keysPerUpdate: 2 });
    await deadline(
      (async () => {
        while (hub.stats.messages - before < a.updates) await sleep(5);
      })(),
      a.timeoutMs,
      'every update read',
    );
    const burstMs = now() - b0;
    const cpu = process.cpuUsage(cpu0);
    await sleep(300);
    const heap2 = heapAfterGc();
    const timersHolding = timers.alive();
    return {
      entities: a.n,
      startMs,
      heapPerEntityKb: (heap1 - heap0) / a.n / 1024,
      updates: a.updates,
      burstMs,
      cpuPerUpdateUs: (cpu.user + cpu.system) / a.updates,
      heapHoldingPerEntityKb: (heap2 - heap0) / a.n / 1024,
      timersIdle,
      timersHolding,
      sent,
    };
  } finally {
    timers.restore();
    hooks.status = undefined;
    hooks.sink = () => undefined;
    await deploy(a.empty);
  }
}
