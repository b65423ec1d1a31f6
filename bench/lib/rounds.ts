/**
 * Alternating rounds: every contender once per round, the order rotated each round; round 0 is the warm-up
 * (discarded). In --quick mode (a smoke run) there is no warm-up round.
 */
import type { RunOptions } from './common';
import { median, rotate } from './stats';

export interface Contender<R> {
  key: string;
  label: string;
  run: (round: number) => Promise<R>;
}

export function selected<R>(contenders: Array<Contender<R>>, opts: RunOptions): Array<Contender<R>> {
  if (!opts.only || opts.only.length === 0) return contenders;
  // A key is "<contender>" or "<contender>@<size>" / "<contender>/<set-up>" / "<contender>+<variant>".
  return contenders.filter((c) => opts.only!.some((o) => c.key === o || c.key.split(/[@/+]/)[0] === o));
}

export async function runRounds<R>(
  contenders: Array<Contender<R>>,
  opts: RunOptions,
  describe: (r: R) => string,
): Promise<Map<string, R[]>> {
  const out = new Map<string, R[]>();
  for (const c of contenders) out.set(c.key, []);
  for (let round = opts.quick ? 1 : 0; round <= opts.rounds; round++) {
    for (const c of rotate(contenders, round)) {
      const r = await c.run(round);
      opts.log(`    ${round === 0 ? 'warm-up' : `round ${round}`}  ${c.label.padEnd(34)} ${describe(r)}`);
      if (round > 0) out.get(c.key)!.push(r);
    }
  }
  return out;
}

/** Median of a numeric field over the measured rounds. */
export function med<R>(rs: R[] | undefined, f: (r: R) => number): number {
  return rs && rs.length ? median(rs.map(f)) : NaN;
}
