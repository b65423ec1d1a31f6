/**
 * The simulator in its own process, for the benchmarks (so that what the contenders are measured on is the client's
 * cost) and for tests that need a server busy on another core:
 * `tsx sim/cli.ts --port 0 …`, read the one `{"url": …}` line, stop it with SIGTERM afterwards.
 * Its stdin is a pipe, so it also exits if this process dies.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

export const REPO_ROOT = path.resolve(__dirname, '..');

/** The simulator's control API (`/__sim/…`, JSON both ways), from wherever its URL is known. */
export interface SimControl {
  /** Any method; the body (if any) is sent as JSON. Rejects with the status and the start of the answer. */
  call<T = unknown>(method: string, p: string, body?: unknown): Promise<T>;
  /** GET a /__sim path (JSON). */
  get<T = unknown>(p: string): Promise<T>;
  /** POST a /__sim path (JSON). */
  post<T = unknown>(p: string, body?: unknown): Promise<T>;
  /** CPU time (ms, user+system) the simulator has used so far. */
  cpuMs(): Promise<number>;
}

export interface SimProcess extends SimControl {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The control API of the simulator at `url` (in this process or another: the bench agents use it too). */
export function simControl(url: string): SimControl {
  const call = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + p, {
      method,
      headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`simulator ${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    call,
    get: (p) => call('GET', p),
    post: (p, body) => call('POST', p, body ?? {}),
    cpuMs: async () => {
      const h = await call<{ cpuUsage: { user: number; system: number } }>('GET', '/__sim/health');
      return (h.cpuUsage.user + h.cpuUsage.system) / 1000;
    },
  };
}

export async function startSim(args: string[], timeoutMs = 60000): Promise<SimProcess> {
  // TB_BENCH_SIM_CLI: another simulator entry (same CLI contract), e.g. to try the suite against a work in progress.
  const cli = process.env.TB_BENCH_SIM_CLI ?? path.join(REPO_ROOT, 'sim/cli.ts');
  // Under `tsx bench/run.ts`, process.execArgv carries tsx's loader; otherwise (e.g. imported by a test runner) add it.
  const loader = process.execArgv.some((a) => a.includes('tsx')) ? process.execArgv : ['--import', 'tsx'];
  // SIM_CORES="0" (as for taskset -c): the simulator on those cores only (bench/lib/agent's BENCH_PIN sets it)
  const argv = [...loader, cli, '--port', '0', ...args];
  const cores = process.env.SIM_CORES;
  const child: ChildProcess = spawn(
    cores ? 'taskset' : process.execPath,
    cores ? ['-c', cores, process.execPath, ...argv] : argv,
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the simulator did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { url: string }).url);
      } catch {
        reject(new Error(`unexpected first line from the simulator: ${line}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulator exited with code ${code} before printing its URL (args: ${args.join(' ')})`));
    });
  });
  child.stdout!.resume();
  return {
    ...simControl(url),
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
