/**
 * Shared by the runtime tests of tb-telemetry, tb-attributes and tb-rpc: the set-up of the telemetry and attribute
 * tests, the simulator's requests in flight, and waits.
 */
import { BASE_TIME, HOUR, type Simulator } from '../../sim';
import { flowsOn, lastStatus, useRuntime, type Rec } from '../support/runtime';
export { waitFor } from '../support/wait';

export type { Rec };

/**
 * The set-up of the tb-telemetry and tb-attributes tests: the simulator at BASE_TIME + 1 h (request log and
 * telemetry counters reset before each test, faults and latency cleared after), fast retries plus `settings`,
 * flows of `nodes` with their results, and the look-ups the tests share. `probe()` adds a device of its own,
 * named `<probeName> <n>`.
 */
export function useTelemetryTests(
  nodes: Parameters<typeof flowsOn>[1],
  opts: { settings?: Rec; probeName: string; probeType: string },
) {
  const sim = useRuntime(
    { now: () => BASE_TIME + HOUR },
    {
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20, ...opts.settings },
      reset: (s) => {
        s.resetRequests();
        s.telemetry.resetCounters();
      },
      cleanup: (s) => {
        s.faults.clear();
        s.setLatency(0);
      },
    },
  );
  let probes = 0;
  return {
    sim,
    ...flowsOn(sim, nodes),
    dev: (name: string) => sim.data.mustFindByName('DEVICE', name),
    /** A fresh device of its own. */
    probe: (extra: Rec = {}) =>
      sim.data.addEntity({
        entityType: 'DEVICE',
        name: `${opts.probeName} ${++probes}`,
        type: opts.probeType,
        ...extra,
      }),
    last: lastStatus,
    sent: () => sim.countRequests('/api/plugins/telemetry'),
  };
}

/** Counts the simulator's HTTP requests in flight under a path prefix, and the most at once. */
export class InFlight {
  now = 0;
  peak = 0;
  private readonly listener: (req: { url?: string }, res: { on(ev: string, fn: () => void): void }) => void;

  constructor(
    private readonly sim: Simulator,
    prefix: string,
  ) {
    this.listener = (req, res) => {
      if (!(req.url ?? '').startsWith(prefix)) return;
      this.now++;
      this.peak = Math.max(this.peak, this.now);
      res.on('close', () => this.now--);
    };
    sim.httpServer!.on('request', this.listener as never);
  }

  stop(): void {
    this.sim.httpServer!.off('request', this.listener as never);
  }
}
