/**
 * Agent tasks for scenario 6 (acting on devices): one bulk attribute save to N devices through a Node-RED contender
 * (tb-attributes, one message with every entity) or a raw axios client (a pool of K workers), optionally sampling
 * the heap while it runs; and a long time-series history read page after page (tb-telemetry or raw axios).
 */
import { ctx, deadline, hooks, now, sim } from './context';
import { axiosFor } from './query-load';

const gcFn = (globalThis as { gc?: () => void }).gc;

/** heapUsed after a full GC (the agent runs with --expose-gc). */
function heapAfterGc(): number {
  if (!gcFn) throw new Error('the agent needs --expose-gc for heap samples');
  gcFn();
  gcFn();
  return process.memoryUsage().heapUsed;
}

/** Requests the simulator received under a path prefix (its request counter, not the bounded log). */
async function simRequests(prefix: string, method: string): Promise<number> {
  return (
    await sim().get<{ count: number }>(`/__sim/requests/count?prefix=${encodeURIComponent(prefix)}&method=${method}`)
  ).count;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/**
 * Heap while a bulk action runs: `base` = heapUsed after GC with the input list built (before the action), `peak` =
 * the largest of the samples taken (after GC) while it runs, `after` = after GC with the output (the result list)
 * still held. The samples are taken at fixed points (every ~5 % of the entities), so there are about 20 of them.
 */
export interface HeapSample {
  base: number;
  peak: number;
  after: number;
  samples: number;
}

export interface BulkRun {
  n: number;
  ok: number;
  failed: number;
  firstError?: string;
  elapsedMs: number;
  /** Client (agent process) CPU, ms. */
  cpuMs: number;
  simCpuMs: number;
  /** Attribute saves the simulator received during the run. */
  requests: number;
  heap?: HeapSample;
}

const ATTR_PREFIX = '/api/plugins/telemetry/DEVICE/';

export interface NodeBulkArgs {
  entry: string;
  sink: string;
  errSink: string;
  ids: string[];
  values: Record<string, unknown>;
  heap: boolean;
  timeoutMs: number;
}

/**
 * One message with `msg.entity` = N entity ids and `msg.payload` = the values into `entry`; done when the one
 * output message (its `payload` = the results, `failed` = how many failed) reaches the sink. With `heap`, every
 * status the entry node shows while it runs (its progress, every 5 % of the entities) takes a heap sample.
 */
export async function nodeBulk(a: NodeBulkArgs): Promise<BulkRun> {
  const entry = ctx.getNode(a.entry);
  const msg: Record<string, unknown> = {
    _benchI: 0,
    entity: a.ids.map((id) => ({ entityType: 'DEVICE', id })),
    payload: a.values,
  };
  const reqStart = await simRequests(ATTR_PREFIX, 'POST');
  const simStart = await sim().cpuMs();
  let heap: HeapSample | undefined;
  if (a.heap) heap = { base: heapAfterGc(), peak: 0, after: 0, samples: 0 };
  const cpuStart = process.cpuUsage();
  let start = 0;
  let out: { payload?: unknown; failed?: unknown; error?: { message?: string } } | undefined;
  let failedMsg: string | undefined;
  const done = new Promise<void>((resolve) => {
    if (heap) {
      const h = heap;
      hooks.status = (id, s) => {
        if (id !== a.entry || s.fill !== 'blue') return;
        h.peak = Math.max(h.peak, heapAfterGc());
        h.samples++;
      };
    }
    hooks.sink = (id, m) => {
      if (id !== a.sink && id !== a.errSink) return;
      out = m as typeof out;
      if (id === a.errSink) failedMsg = String(out?.error?.message);
      // The output message is still held here: the heap "after" includes the result list.
      if (heap) heap.after = heapAfterGc();
      resolve();
    };
    start = now();
    entry.receive(msg);
  });
  try {
    await deadline(done, a.timeoutMs, `bulk save through ${a.entry}`);
  } finally {
    hooks.sink = () => undefined;
    hooks.status = undefined;
  }
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  const results = Array.isArray(out?.payload)
    ? (out!.payload as Array<{ ok?: boolean; error?: { message?: string } }>)
    : [];
  const failedEntry = results.find((r) => !r.ok);
  const failed = typeof out?.failed === 'number' ? out.failed : a.ids.length;
  return {
    n: a.ids.length,
    ok: results.filter((r) => r.ok).length,
    failed,
    firstError: failedMsg ?? failedEntry?.error?.message,
    elapsedMs,
    cpuMs: cpu,
    simCpuMs: (await sim().cpuMs()) - simStart,
    requests: (await simRequests(ATTR_PREFIX, 'POST')) - reqStart,
    heap,
  };
}

export interface AxiosBulkArgs {
  token: string;
  ids: string[];
  values: Record<string, unknown>;
  scope: string;
  concurrency: number;
  variant: 'default' | 'noRedirect';
  heap: boolean;
  timeoutMs: number;
}

/**
 * The raw client: axios with a keep-alive agent, `concurrency` workers taking the next entity when free (the same
 * requests as ours: `POST …/DEVICE/{id}/attributes/{scope}` with the values), results in input order.
 */
export async function axiosBulk(a: AxiosBulkArgs): Promise<BulkRun> {
  const ax = axiosFor(a.variant, a.token);
  const entities = a.ids.map((id) => ({ entityType: 'DEVICE', id }));
  const reqStart = await simRequests(ATTR_PREFIX, 'POST');
  const simStart = await sim().cpuMs();
  const n = entities.length;
  const every = Math.max(1, Math.floor(n / 20));
  let heap: HeapSample | undefined;
  if (a.heap) heap = { base: heapAfterGc(), peak: 0, after: 0, samples: 0 };
  const cpuStart = process.cpuUsage();
  const start = now();
  const results: Array<{ entity: { entityType: string; id: string }; ok: boolean; error?: { message: string } }> =
    new Array(n);
  let next = 0;
  let settled = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const e = entities[i];
      try {
        await ax.post(`${ctx.simUrl}${ATTR_PREFIX}${e.id}/attributes/${a.scope}`, a.values);
        results[i] = { entity: e, ok: true };
      } catch (err) {
        results[i] = { entity: e, ok: false, error: { message: (err as Error).message } };
      }
      if (heap && ++settled % every === 0 && settled < n) {
        heap.peak = Math.max(heap.peak, heapAfterGc());
        heap.samples++;
      }
    }
  };
  await deadline(
    Promise.all(Array.from({ length: Math.max(1, Math.min(a.concurrency, n)) }, worker)),
    a.timeoutMs,
    'axios bulk save',
  );
  if (heap) heap.after = heapAfterGc();
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  const failed = results.filter((r) => !r.ok);
  return {
    n,
    ok: n - failed.length,
    failed: failed.length,
    firstError: failed[0]?.error?.message,
    elapsedMs,
    cpuMs: cpu,
    simCpuMs: (await sim().cpuMs()) - simStart,
    requests: (await simRequests(ATTR_PREFIX, 'POST')) - reqStart,
    heap,
  };
}

export interface HistoryRun {
  elapsedMs: number;
  /** Points in the output (ours flat: rows of one key = points). */
  points: number;
  /** History requests the simulator received. */
  requests: number;
  errors: number;
  firstError?: string;
  truncated: boolean;
  cpuMs: number;
  simCpuMs: number;
}

const HISTORY_PATH = (id: string): string => `/api/plugins/telemetry/DEVICE/${id}/values/timeseries`;

/** Points in a history output: flat rows, or the raw `{key: [{ts, value}]}`. */
function pointsOf(payload: unknown): number {
  if (Array.isArray(payload)) return payload.length;
  let n = 0;
  if (payload && typeof payload === 'object')
    for (const v of Object.values(payload)) if (Array.isArray(v)) n += v.length;
  return n;
}

/** One message (`msg` as given) into `entry`; done when the output reaches the sink. */
export async function nodeHistory(a: {
  entry: string;
  sink: string;
  errSink: string;
  msg: Record<string, unknown>;
  deviceId: string;
  timeoutMs: number;
}): Promise<HistoryRun> {
  const entry = ctx.getNode(a.entry);
  const path = HISTORY_PATH(a.deviceId);
  const reqStart = await simRequests(path, 'GET');
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  let start = 0;
  let points = 0;
  let errors = 0;
  let truncated = false;
  let firstError: string | undefined;
  const done = new Promise<void>((resolve) => {
    hooks.sink = (id, m) => {
      if (id === a.errSink) {
        errors++;
        firstError = String((m.error as { message?: string } | undefined)?.message);
        resolve();
      } else if (id === a.sink) {
        points = pointsOf(m.payload);
        truncated = m.truncated === true;
        resolve();
      }
    };
    start = now();
    entry.receive({ _benchI: 0, ...a.msg });
  });
  try {
    await deadline(done, a.timeoutMs, `history through ${a.entry}`);
  } finally {
    hooks.sink = () => undefined;
  }
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  return {
    elapsedMs,
    points,
    requests: (await simRequests(path, 'GET')) - reqStart,
    errors,
    firstError,
    truncated,
    cpuMs: cpu,
    simCpuMs: (await sim().cpuMs()) - simStart,
  };
}

/**
 * The raw client over the whole range: `GET …/values/timeseries?keys&startTs&endTs&limit&orderBy=ASC` page after
 * page (the next page starts just after the last point), every point kept in one array.
 */
export async function axiosHistory(a: {
  token: string;
  deviceId: string;
  key: string;
  startTs: number;
  endTs: number;
  pageSize: number;
  timeoutMs: number;
}): Promise<HistoryRun> {
  const ax = axiosFor('default', a.token);
  const path = HISTORY_PATH(a.deviceId);
  const reqStart = await simRequests(path, 'GET');
  const simStart = await sim().cpuMs();
  const cpuStart = process.cpuUsage();
  const start = now();
  const all: Array<{ ts: number; value: unknown }> = [];
  const run = async (): Promise<void> => {
    let from = a.startTs;
    for (;;) {
      const res = await ax.get(ctx.simUrl + path, {
        params: {
          keys: a.key,
          startTs: from,
          endTs: a.endTs,
          limit: a.pageSize,
          orderBy: 'ASC',
          useStrictDataTypes: true,
        },
      });
      const page = ((res.data as Record<string, Array<{ ts: number; value: unknown }>>)[a.key] ?? []) as Array<{
        ts: number;
        value: unknown;
      }>;
      for (const p of page) all.push(p);
      if (page.length < a.pageSize) break;
      from = page[page.length - 1].ts + 1;
    }
  };
  await deadline(run(), a.timeoutMs, 'axios history');
  const elapsedMs = now() - start;
  const cpu = cpuMs(cpuStart);
  return {
    elapsedMs,
    points: all.length,
    requests: (await simRequests(path, 'GET')) - reqStart,
    errors: 0,
    truncated: false,
    cpuMs: cpu,
    simCpuMs: (await sim().cpuMs()) - simStart,
  };
}
