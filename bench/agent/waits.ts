/**
 * Agent task of scenario 7 (tb-wait-until): start N waits on N entities (one message each into the node), wait until
 * the server holds their subscriptions, measure the heap, then have the simulator write one `sentAt` value to each
 * entity and time every message that leaves the node on "met" against the value that met it.
 */
import { summarize } from '../lib/stats';
import { ctx, deadline, hooks, sim } from './context';

const wall = (): number => performance.timeOrigin + performance.now();

/** heapUsed after a full GC (the agents run with --expose-gc). */
function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Subscriptions the simulator holds (the cmdIds of every session). */
async function serverSubscriptions(): Promise<number> {
  const sessions = await sim().call<Array<{ cmdIds: unknown[] }>>('GET', '/__sim/ws/sessions');
  return sessions.reduce((n, s) => n + s.cmdIds.length, 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WaitsRun {
  waits: number;
  startMs: number;
  heapPerWaitKb: number;
  serverSubsWaiting: number;
  serverSubsAfter: number;
  met: number;
  /** simulator write (the `sentAt` it wrote) -> message on "met" */
  p50: number;
  p99: number;
  max: number;
  /** the update's frame reaching the client socket -> message on "met" (the node's own part) */
  socketP50: number;
  socketP99: number;
}

type Rec = Record<string, unknown>;

export async function waitsRun(a: {
  node: string;
  conn: string;
  sink: string;
  entityIds: string[];
  ratePerSec: number;
  timeoutMs: number;
}): Promise<WaitsRun> {
  const n = a.entityIds.length;
  const node = ctx.getNode(a.node);
  const heap0 = heapAfterGc();
  const t0 = performance.now();
  for (const id of a.entityIds) node.receive({ entity: { entityType: 'DEVICE', id } });
  // Every snapshot in: the first value of each entity is the baseline `changes` compares with.
  await deadline(
    (async () => {
      while ((await serverSubscriptions()) < n) await sleep(20);
    })(),
    a.timeoutMs,
    'the waits to subscribe',
  );
  await sleep(300);
  const startMs = performance.now() - t0;
  const serverSubsWaiting = await serverSubscriptions();
  const heap1 = heapAfterGc();
  const delays = new Float64Array(n);
  // When each frame reached the socket (before the hub reads it): parsed after the run, so the timing costs nothing.
  const hub = (ctx.RED.nodes.getNode(a.conn) as { live(): unknown }).live() as {
    ws?: {
      prependListener(e: string, f: (d: Buffer) => void): void;
      removeListener(e: string, f: (d: Buffer) => void): void;
    };
  };
  const frames: Array<[number, Buffer]> = [];
  const onFrame = (d: Buffer): void => void frames.push([wall(), d]);
  hub.ws?.prependListener('message', onFrame);
  const metAt = new Map<string, number>();
  let met = 0;
  let wake: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (wake = resolve));
  hooks.sink = (id, msg) => {
    if (id !== a.sink) return;
    const t = wall();
    const w = msg.waited as { value?: unknown; entity?: { id: string } } | undefined;
    if (met < n) delays[met] = t - Number(w?.value);
    if (w?.entity) metAt.set(w.entity.id, t);
    if (++met >= n) wake();
  };
  try {
    await sim().call('POST', '/__sim/ws/burst', {
      entityIds: a.entityIds,
      entities: n,
      updates: n,
      keysPerUpdate: 1,
      ratePerSec: a.ratePerSec,
    });
    await deadline(all, a.timeoutMs, `every wait met (${met}/${n})`);
  } finally {
    hooks.sink = () => undefined;
    hub.ws?.removeListener('message', onFrame);
  }
  await sleep(200);
  const arrived = new Map<string, number>();
  for (const [t, d] of frames) {
    const m = JSON.parse(d.toString()) as Rec;
    for (const u of (m.update as Array<{ entityId: { id: string } }> | null) ?? [])
      if (!arrived.has(u.entityId.id)) arrived.set(u.entityId.id, t);
  }
  const socket: number[] = [];
  for (const [id, t] of metAt) {
    const at = arrived.get(id);
    if (at !== undefined) socket.push(t - at);
  }
  const s = summarize(delays.subarray(0, Math.min(met, n)));
  const k = summarize(socket);
  return {
    waits: n,
    startMs,
    heapPerWaitKb: (heap1 - heap0) / n / 1024,
    serverSubsWaiting,
    serverSubsAfter: await serverSubscriptions(),
    met,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    socketP50: k.p50,
    socketP99: k.p99,
  };
}
