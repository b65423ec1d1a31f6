/**
 * The orchestrator's handle on an agent: a child process (the agent) that hosts Node-RED with this
 * package, the reference node and the harness nodes, and runs the raw clients. Every measurement runs inside
 * the agent; this side only sends commands over IPC and collects the results.
 */
import { ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../sim/process';

// Per orchestrator process, so that two runs at once (a smoke test and a manual run) do not collide.
const BUILD_DIR = path.join(REPO_ROOT, 'bench/.build', `run-${process.pid}`);
let compiled: string | undefined;

/**
 * The agent runs as plain JavaScript under plain `node` (not tsx: its loader adds ~40 MB of RSS and is no
 * part of a Node-RED installation). Its sources (`sources` below) are transpiled once per run into
 * bench/.build/run-<pid>/ with the TypeScript compiler already in devDependencies.
 */
function compileAgent(): string {
  if (compiled) return compiled;
  const sources = [
    ...['bench/agent', 'bench/lib'].flatMap((d) =>
      fs
        .readdirSync(path.join(REPO_ROOT, d))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(d, f)),
    ),
    'scripts/embedded.ts',
    'sim/process.ts', // simControl: the agents call the simulator's /__sim API
  ];
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  process.once('exit', () => fs.rmSync(BUILD_DIR, { recursive: true, force: true }));
  for (const rel of sources) {
    const out = ts.transpileModule(fs.readFileSync(path.join(REPO_ROOT, rel), 'utf8'), {
      fileName: rel,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        sourceMap: false,
      },
    });
    const dest = path.join(BUILD_DIR, rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, out.outputText);
  }
  compiled = path.join(BUILD_DIR, 'bench/agent/main.js');
  return compiled;
}

export interface AgentOptions {
  /** Write a V8 CPU profile of the agent into this directory (node --cpu-prof). */
  cpuProfDir?: string;
  /** Extra Node-RED runtime settings. */
  settings?: Record<string, unknown>;
  /** Start Node-RED in the agent (default true). */
  nodeRed?: boolean;
  /** Per-command time limit (ms). */
  commandTimeoutMs?: number;
}

export interface Agent {
  pid: number;
  nrUrl: string;
  call<T = unknown>(cmd: string, args?: unknown, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

/**
 * BENCH_PIN="0:1": the simulator on the cores before the colon, every contender's process on those after it (as
 * `taskset -c` reads them), so that neither waits for the other's core. Sets SIM_CORES for sim/process.ts; returns
 * the contenders' cores, or undefined when not pinned.
 */
export function pinFromEnv(): string | undefined {
  const spec = process.env.BENCH_PIN;
  if (!spec) return undefined;
  const [sim, agent] = spec.split(':');
  if (!sim || !agent) throw new Error(`BENCH_PIN=${spec}: expected "<simulator cores>:<contender cores>", e.g. 0:1`);
  process.env.SIM_CORES = sim;
  return agent;
}

export async function startAgent(simUrl: string, o: AgentOptions = {}): Promise<Agent> {
  const execArgv = ['--expose-gc'];
  // BENCH_AGENT_FLAGS="--trace-gc": V8 flags for the agent processes only (NODE_OPTIONS refuses most of them)
  if (process.env.BENCH_AGENT_FLAGS) execArgv.push(...process.env.BENCH_AGENT_FLAGS.split(/\s+/).filter(Boolean));
  if (o.cpuProfDir) {
    fs.mkdirSync(o.cpuProfDir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`);
  }
  // BENCH_PIN="0:1" (simulator cores : contender cores, as for taskset -c): each side on its own cores, so that
  // the contenders do not share a core with the simulator (see bench/README.md)
  const cores = pinFromEnv();
  const child: ChildProcess = fork(compileAgent(), [], {
    cwd: REPO_ROOT,
    // fork runs execPath with execArgv before the module: here taskset, which runs node on those cores
    ...(cores ? { execPath: 'taskset', execArgv: ['-c', cores, process.execPath, ...execArgv] } : { execArgv }),
    env: { ...process.env, TB_BENCH_REPO_ROOT: REPO_ROOT },
    stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  let exited: Error | undefined;
  child.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) p.resolve(m.result);
    else p.reject(new Error(m.error));
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`the agent exited (code ${code}, signal ${signal})`);
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(exited);
    }
    pending.clear();
  });
  const call = <T>(cmd: string, args?: unknown, timeoutMs = o.commandTimeoutMs ?? 300000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (exited) return reject(exited);
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`agent command "${cmd}" took longer than ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      child.send({ id, cmd, args });
    });
  let nrUrl = '';
  if (o.nodeRed !== false) {
    try {
      nrUrl = (await call<{ url: string }>('start', { simUrl, settings: o.settings ?? {} }, 120000)).url;
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
  } else {
    await call('init', { simUrl }, 60000);
  }
  return {
    pid: child.pid!,
    nrUrl,
    call,
    stop: async () => {
      if (exited) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const t = setTimeout(() => child.kill('SIGKILL'), 20000);
      // "exit" stops Node-RED and exits normally (so that --cpu-prof writes its profile).
      call('exit', undefined, 20000).catch(() => undefined);
      await done;
      clearTimeout(t);
    },
  };
}

/**
 * One agent per contender, started on first use and kept for the whole scenario: contenders never share a
 * process, so one contender's garbage, JIT state (V8's inline caches in Node's own http/ws code are shared by
 * everything in a process) or sockets cannot slow another down, and a profile (--profile) is one contender's
 * alone (bench/profiles/<run>/s<N>/<contender>/).
 */
export class AgentPool {
  private readonly agents = new Map<string, Promise<Agent>>();

  constructor(
    private readonly simUrl: string,
    private readonly profileDir: string | undefined,
  ) {}

  get(key: string, o: Omit<AgentOptions, 'cpuProfDir'> = {}): Promise<Agent> {
    let a = this.agents.get(key);
    if (!a) {
      a = startAgent(this.simUrl, {
        ...o,
        cpuProfDir: this.profileDir ? `${this.profileDir}/${key.replace(/[^\w.-]+/g, '_')}` : undefined,
      });
      this.agents.set(key, a);
    }
    return a;
  }

  /** Starts these agents side by side (start-up is mostly module loading: two cores make it twice as fast). */
  async prestart(entries: Array<[string, Omit<AgentOptions, 'cpuProfDir'>?]>): Promise<void> {
    await Promise.all(entries.map(([key, o]) => this.get(key, o ?? {})));
  }

  async stopAll(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(
      all.map((p) =>
        p.then(
          (a) => a.stop(),
          () => undefined,
        ),
      ),
    );
  }
}
