/**
 * The agent: a child process of the benchmarks' orchestrator that hosts Node-RED (embedded, with this repository,
 * the reference node and the harness nodes loaded through `nodesDir`) and the raw clients, and runs the
 * measurements the orchestrator asks for over IPC. It exits when asked, or when the IPC channel closes (the
 * orchestrator died).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedded } from '../../scripts/embedded';
import { ctx, hooks } from './context';
import { deploy } from './deploy';
import { TASKS } from './tasks';

interface Command {
  id: number;
  cmd: string;
  args?: Record<string, unknown>;
}

/** The repository (set by the orchestrator: the agent may run from a transpiled copy in bench/.build). */
const REPO_ROOT = process.env.TB_BENCH_REPO_ROOT ?? path.resolve(__dirname, '../..');

let embedded: Embedded | undefined;
let userDir: string | undefined;

function installStatusHook(): void {
  // Every node's status calls, in-process, without a status node in the flow (no extra message traffic).
  // The Node class of the Node-RED that runs (TB_TEST_NODE_RED may choose another one than the devDependency).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { nodeRedMain } = require('../../scripts/embedded') as typeof import('../../scripts/embedded');
  const nodeModule = require.resolve('@node-red/runtime/lib/nodes/Node', { paths: [path.dirname(nodeRedMain())] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const NodeCtor = require(nodeModule) as { prototype: { status(s: unknown): void; id: string } };
  const original = NodeCtor.prototype.status;
  NodeCtor.prototype.status = function (this: { id: string }, s: unknown) {
    const f = hooks.status;
    if (f && s && typeof s === 'object') f(this.id, s as { fill?: string });
    return original.call(this, s);
  };
}

export function memory(): {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  peakRss: number;
} {
  const m = process.memoryUsage();
  let peakRss = NaN;
  try {
    const s = fs.readFileSync('/proc/self/status', 'utf8');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(s);
    if (hwm) peakRss = Number(hwm[1]) * 1024;
  } catch {
    peakRss = process.resourceUsage().maxRSS * 1024;
  }
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    peakRss,
  };
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

async function handle(c: Command): Promise<unknown> {
  const a = c.args ?? {};
  switch (c.cmd) {
    case 'init':
      ctx.simUrl = String(a.simUrl);
      return { pid: process.pid };
    case 'start': {
      ctx.simUrl = String(a.simUrl);
      installStatusHook();
      userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-'));
      // Loaded here, not at the top: an agent for a raw client must not carry Node-RED in its memory.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { startNodeRed } = require('../../scripts/embedded') as typeof import('../../scripts/embedded');
      embedded = await startNodeRed({
        userDir,
        port: 0,
        logLevel: (process.env.BENCH_LOG as 'warn' | undefined) ?? 'error',
        settings: {
          nodesDir: [
            REPO_ROOT,
            path.join(REPO_ROOT, 'bench/reference-node'),
            path.join(REPO_ROOT, 'bench/harness-nodes'),
          ],
          ...(a.settings as Record<string, unknown>),
        },
      });
      ctx.nrUrl = embedded.url;
      ctx.RED = embedded.RED;
      return { url: embedded.url, pid: process.pid };
    }
    case 'deploy':
      await deploy(a.flows as unknown[]);
      return { ok: true };
    case 'memory':
      if (a.gc) gc();
      if (a.resetPeak) {
        try {
          fs.writeFileSync('/proc/self/clear_refs', '5');
        } catch {
          /* not Linux: peak stays the process maximum */
        }
      }
      return memory();
    case 'task': {
      const t = TASKS[String(a.name)];
      if (!t) throw new Error(`unknown task ${String(a.name)}`);
      return t((a.args ?? {}) as Record<string, unknown>);
    }
    case 'exit':
      setImmediate(() => void shutdown(0));
      return { ok: true };
    default:
      throw new Error(`unknown command ${c.cmd}`);
  }
}

let shuttingDown = false;
async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  const hard = setTimeout(() => process.exit(code), 10000);
  hard.unref();
  try {
    if (embedded) await embedded.stop();
  } catch {
    /* best effort */
  }
  if (userDir) fs.rmSync(userDir, { recursive: true, force: true });
  process.exit(code);
}

process.on('message', (c: Command) => {
  handle(c).then(
    (result) => process.send?.({ id: c.id, ok: true, result }),
    (err: unknown) =>
      process.send?.({ id: c.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
process.on('disconnect', () => void shutdown(1));
