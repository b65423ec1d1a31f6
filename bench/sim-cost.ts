/**
 * What one live update costs the simulator: the burst of scenario 2 (POST /__sim/ws/burst, 2 keys per write,
 * round-robin over N bench devices) with one raw client subscribed, which only counts the frames. The simulator is
 * every live contender's ceiling at 1,000 devices on a machine of two cores (bench/RESULTS.md), so what
 * it spends per write at 1 and at 1,000 devices is worth watching by itself.
 *
 *   npx tsx bench/sim-cost.ts [--entities 1,1000] [--updates 50000] [--rounds 20]
 *
 * The simulator runs in its own process, as in the scenarios: each burst prints its CPU per update (its process's
 * CPU time, so the garbage collector's threads included) and the rate the client saw; the first 5 rounds are a
 * warm-up, then the median, lowest and highest of the rest.
 *
 * With `--in-process --feed K` the simulator and the client run in this process instead, one burst of K updates
 * after a warm-up (`--warm`, default 5,000), printing nothing: bench/sim-cost-cg.sh runs it twice under valgrind's
 * cachegrind and prints the instructions and level-1 data misses per update (repeatable on a loaded machine).
 */
import WebSocket from 'ws';
import { startSimulator } from '../sim/index';
import { startSim } from '../sim/process';
import { burstQuery, cliArg, login } from './lib/common';
import { entityDataCmd } from './lib/live-flows';
import { median } from './lib/stats';

/** A raw client subscribed to `n` devices that counts update frames; `until(k)` resolves at the k-th since. */
async function counter(
  url: string,
  token: string,
  n: number,
): Promise<{ until(k: number): Promise<void>; close(): void }> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/api/ws', { perMessageDeflate: false });
  let got = 0;
  let want = Infinity;
  let wake = (): void => undefined;
  let snapshot = (): void => undefined;
  const subscribed = new Promise<void>((resolve) => (snapshot = resolve));
  ws.on('message', (d: Buffer) => {
    // updates carry "data":null; the one frame without it is the page
    if (d.indexOf('"data":null') < 0) snapshot();
    else if (++got >= want) wake();
  });
  ws.on('open', () =>
    ws.send(JSON.stringify({ authCmd: { cmdId: 0, token }, cmds: [entityDataCmd(1, burstQuery(n))] })),
  );
  await subscribed;
  return {
    until(k: number): Promise<void> {
      got = 0;
      want = k;
      return new Promise<void>((resolve) => (wake = resolve));
    },
    close: () => ws.terminate(),
  };
}

const SIM_ARGS = { devices: 1000, historyLimit: 100 }; // as scenario 2

async function inProcess(n: number, warm: number, feed: number): Promise<void> {
  const sim = await startSimulator({
    dataset: { extraDevices: SIM_ARGS.devices, historyLimit: SIM_ARGS.historyLimit },
  });
  const client = await counter(sim.url, await login(sim.url), n);
  for (const k of [warm, feed]) {
    const arrived = client.until(k);
    await sim.ws.pushTelemetryBurst({ entities: n, updates: k, keysPerUpdate: 2 });
    await arrived;
  }
  client.close();
  await sim.stop();
}

async function outOfProcess(sizes: number[], updates: number, rounds: number): Promise<void> {
  const sim = await startSim([
    '--extra-devices',
    String(SIM_ARGS.devices),
    '--history-limit',
    String(SIM_ARGS.historyLimit),
  ]);
  try {
    const token = await login(sim.url);
    for (const n of sizes) {
      const client = await counter(sim.url, token, n);
      const cost: number[] = [];
      const rate: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const cpu0 = await sim.cpuMs();
        const t0 = performance.now();
        const arrived = client.until(updates);
        await sim.post('/__sim/ws/burst', { entities: n, updates, keysPerUpdate: 2 });
        await arrived;
        const ms = performance.now() - t0;
        const us = (((await sim.cpuMs()) - cpu0) * 1000) / updates;
        const perSec = (updates * 1000) / ms;
        console.log(
          `  @${n} round ${r + 1}: simulator ${us.toFixed(2)} µs of CPU per update, ${Math.round(perSec)} updates/s ` +
            'at the client',
        );
        if (r >= 5) {
          cost.push(us);
          rate.push(perSec);
        }
      }
      client.close();
      if (cost.length > 0) {
        console.log(
          `@${n} devices: simulator ${median(cost).toFixed(2)} µs of CPU per update ` +
            `(${Math.min(...cost).toFixed(2)}–${Math.max(...cost).toFixed(2)}), ${Math.round(median(rate))} ` +
            `updates/s, median of ${cost.length} rounds`,
        );
      }
    }
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const sizes = cliArg('entities', '1,1000').split(',').map(Number);
  if (process.argv.includes('--in-process'))
    await inProcess(sizes[0], Number(cliArg('warm', '5000')), Number(cliArg('feed', '25000')));
  else await outOfProcess(sizes, Number(cliArg('updates', '50000')), Number(cliArg('rounds', '20')));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
