/**
 * Agent tasks for scenario 9 (entities in bulk): rows of create-or-update through a deployed tb-entity, as one
 * message holding the list or as one message per row (each waited for before the next), and the same rows through
 * the package's platform client called directly (no Node-RED) with the same concurrency; optionally sampling the
 * heap while the one-message run goes.
 */
import path from 'node:path';
import { ctx, deadline, hooks, now, sim } from './context';

const gcFn = (globalThis as { gc?: () => void }).gc;

function heapAfterGc(): number {
  if (!gcFn) throw new Error('the agent needs --expose-gc for heap samples');
  gcFn();
  gcFn();
  return process.memoryUsage().heapUsed;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Requests the simulator received under /api/ (its request counter). */
async function simRequests(): Promise<number> {
  return (await sim().get<{ count: number }>(`/__sim/requests/count?prefix=${encodeURIComponent('/api/')}`)).count;
}

export interface EntityHeap {
  base: number;
  peak: number;
  after: number;
  samples: number;
}

export interface EntityRun {
  n: number;
  /** Rows created (the names are new in every run). */
  created: number;
  failed: number;
  firstError?: string;
  elapsedMs: number;
  cpuMs: number;
  simCpuMs: number;
  /** REST requests the simulator received during the run. */
  requests: number;
  heap?: EntityHeap;
}

export interface EntityRowsArgs {
  /** Names are `${prefix}-${i}`: new in every run, so every row is a create. */
  prefix: string;
  n: number;
  profile: string;
  timeoutMs: number;
}

export interface NodeEntityArgs extends EntityRowsArgs {
  entry: string;
  sink: string;
  errSink: string;
  /** One message with the list (true) or one message per row, each waited for (false). */
  bulk: boolean;
  heap: boolean;
}

function rows(a: EntityRowsArgs): Array<Record<string, unknown>> {
  return Array.from({ length: a.n }, (_, i) => ({ name: `${a.prefix}-${i}`, profile: a.profile, label: `Row ${i}` }));
}

type Result = { ok?: boolean; action?: string; error?: { message?: string } };

/**
 * Create-or-update rows through the deployed tb-entity `entry`: as one message with the list (its output: one
 * result per row), or one message per row (each one's output, or its error at Catch, before the next goes). With
 * `heap` (one message only), each progress status of the node takes a heap sample.
 */
export async function nodeEntities(a: NodeEntityArgs): Promise<EntityRun> {
  const entry = ctx.getNode(a.entry);
  const list = rows(a);
  const reqStart = await simRequests();
  const simStart = await sim().cpuMs();
  let heap: EntityHeap | undefined;
  if (a.heap) heap = { base: heapAfterGc(), peak: 0, after: 0, samples: 0 };
  const cpuStart = process.cpuUsage();
  const results: Result[] = [];
  let start = 0;
  try {
    if (a.bulk) {
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
          if (id === a.sink && Array.isArray(m.payload)) results.push(...(m.payload as Result[]));
          else if (id === a.errSink)
            results.push({ ok: false, error: { message: String((m.error as { message?: string })?.message) } });
          else return;
          if (heap) heap.after = heapAfterGc();
          resolve();
        };
        start = now();
        entry.receive({ payload: list });
      });
      await deadline(done, a.timeoutMs, `${a.n} rows in one message through ${a.entry}`);
    } else {
      const end = Date.now() + a.timeoutMs;
      start = now();
      for (const row of list) {
        const one = new Promise<void>((resolve) => {
          hooks.sink = (id, m) => {
            if (id === a.sink) results.push({ ok: true, action: String(m.action) });
            else if (id === a.errSink)
              results.push({ ok: false, error: { message: String((m.error as { message?: string })?.message) } });
            else return;
            resolve();
          };
          entry.receive({ payload: row });
        });
        await deadline(one, Math.max(1, end - Date.now()), `row ${row.name} through ${a.entry}`);
      }
    }
  } finally {
    hooks.sink = () => undefined;
    hooks.status = undefined;
  }
  const elapsedMs = now() - start;
  return summary(a.n, results, elapsedMs, cpuMs(cpuStart), simStart, reqStart, heap);
}

async function summary(
  n: number,
  results: Result[],
  elapsedMs: number,
  cpu: number,
  simStart: number,
  reqStart: number,
  heap: EntityHeap | undefined,
): Promise<EntityRun> {
  const bad = results.find((r) => !r.ok);
  return {
    n,
    created: results.filter((r) => r.ok && r.action === 'created').length,
    failed: n - results.filter((r) => r.ok).length,
    firstError: bad?.error?.message,
    elapsedMs,
    cpuMs: cpu,
    simCpuMs: (await sim().cpuMs()) - simStart,
    requests: (await simRequests()) - reqStart,
    heap,
  };
}

export interface ClientEntityArgs extends EntityRowsArgs {
  username: string;
  password: string;
  concurrency: number;
}

/**
 * The baseline: the package's own platform client (dist/, the code under the node) called directly, without
 * Node-RED, over the same rows with `concurrency` workers: what the node costs on top of the client.
 */
export async function clientEntities(a: ClientEntityArgs): Promise<EntityRun> {
  const root = process.env.TB_BENCH_REPO_ROOT ?? path.resolve(__dirname, '../../../../..');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PlatformClient } = require(
    path.join(root, 'dist/platform/client.js'),
  ) as typeof import('../../src/platform/client');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { readSpec } = require(
    path.join(root, 'dist/protocol/entities.js'),
  ) as typeof import('../../src/protocol/entities');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { forEachBulk } = require(path.join(root, 'dist/platform/bulk.js')) as typeof import('../../src/platform/bulk');
  const client = new PlatformClient({
    url: ctx.simUrl,
    authMode: 'password',
    credentials: { username: a.username, password: a.password },
    timeoutMs: 60000,
  });
  try {
    // Logged in before the clock starts, as the deployed connection is.
    await client.auth.header();
    const specs = rows(a).map((r, i) => readSpec(r, 'DEVICE', `rows[${i}]`));
    const reqStart = await simRequests();
    const simStart = await sim().cpuMs();
    const cpuStart = process.cpuUsage();
    const results: Result[] = new Array(specs.length);
    // The profile names read once for the list, as the node does for the rows of one message.
    const profiles = new Map();
    const start = now();
    await deadline(
      forEachBulk(
        specs,
        a.concurrency,
        (spec) => client.entities.save(spec, 'upsert', undefined, profiles),
        undefined,
        (i, o) => {
          results[i] = o.ok
            ? { ok: true, action: o.value.action }
            : { ok: false, error: { message: (o.error as Error).message } };
        },
      ),
      a.timeoutMs,
      'platform client bulk',
    );
    const elapsedMs = now() - start;
    return summary(a.n, results, elapsedMs, cpuMs(cpuStart), simStart, reqStart, undefined);
  } finally {
    client.close();
  }
}
