/**
 * Runs the simulator in its own process:
 *
 *   npx tsx sim/cli.ts --port 0 [--host 127.0.0.1] [--extra-devices N] [--token-lifetime S]
 *        [--refresh-lifetime S] [--version 4.3.1.3] [--latency MS] [--clock base|<epoch ms>]
 *        [--rpc-time-scale X] [--history-limit N]
 *
 * Prints one JSON line `{"url":"http://127.0.0.1:PORT"}` on stdout once listening, then nothing else.
 * Exits cleanly on SIGTERM / SIGINT, and when its stdin (a pipe or socket) closes, so a parent that dies
 * does not leave it running.
 */
import { fstatSync } from 'node:fs';
import { BASE_TIME, Simulator, type SimOptions } from './index';

function parseArgs(argv: string[]): { opts: SimOptions; watchStdin: boolean } {
  const opts: SimOptions = {};
  let watchStdin = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--port':
        opts.port = Number(next());
        break;
      case '--host':
        opts.host = next();
        break;
      case '--extra-devices':
        opts.dataset = { ...(opts.dataset ?? {}), extraDevices: Number(next()) };
        break;
      case '--token-lifetime':
        opts.tokenLifetimeSec = Number(next());
        break;
      case '--refresh-lifetime':
        opts.refreshLifetimeSec = Number(next());
        break;
      case '--version':
        opts.version = next();
        break;
      case '--rpc-time-scale':
        opts.rpcTimeScale = Number(next());
        break;
      case '--history-limit': {
        const n = Number(next());
        if (!Number.isInteger(n) || n < 1)
          throw new Error('--history-limit takes a whole number of points (at least 1)');
        opts.dataset = { ...(opts.dataset ?? {}), historyLimit: n };
        break;
      }
      case '--latency':
        opts.latencyMs = Number(next());
        break;
      case '--clock': {
        const v = next();
        const fixed = v === 'base' ? BASE_TIME : Number(v);
        if (!Number.isFinite(fixed)) throw new Error('--clock takes "base" or epoch milliseconds');
        opts.now = () => fixed;
        break;
      }
      case '--no-stdin-watch':
        watchStdin = false;
        break;
      default:
        throw new Error(`unknown option ${a}`);
    }
  }
  return { opts, watchStdin };
}

async function main(): Promise<void> {
  const { opts, watchStdin } = parseArgs(process.argv.slice(2));
  const sim = new Simulator(opts);
  const url = await sim.start();
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    sim.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (watchStdin) {
    let pipe = false;
    try {
      const st = fstatSync(0);
      pipe = st.isFIFO() || st.isSocket();
    } catch {
      // not a pipe (stdin closed or unknown): keep running
    }
    if (pipe) {
      process.stdin.on('end', stop);
      process.stdin.on('close', stop);
      process.stdin.on('error', stop);
      process.stdin.resume();
    }
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
