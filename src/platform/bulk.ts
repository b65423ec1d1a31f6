/**
 * One action per entity, at most `concurrency` at a time, results in input order. A worker pool: `concurrency`
 * loops take the next entity when they are free, so 1,000 entities never mean 1,000 requests (or sockets, or
 * pending promises) at once; only the result list grows. Nothing in here knows about Node-RED.
 */
import { TbError } from '../errors';
import type { EntityId } from '../protocol/types';

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Stops taking new items once `stopped` is true (a redeploy); the ones in flight finish (or fail) on their own. */
export interface StopSignal {
  stopped: boolean;
}

export async function runBulk<I, R>(
  items: readonly I[],
  concurrency: number,
  work: (item: I, index: number) => Promise<R>,
  stop?: StopSignal,
  onSettled?: (index: number, outcome: Outcome<R>) => void,
): Promise<Array<Outcome<R>>> {
  const out: Array<Outcome<R>> = new Array(items.length);
  await forEachBulk(items, concurrency, work, stop, (i, outcome) => {
    out[i] = outcome;
    onSettled?.(i, outcome);
  });
  return out;
}

/**
 * runBulk without the list of outcomes: each outcome goes to `onSettled` as its item settles and is kept by nobody
 * else, so a caller that turns it into its own result at once holds one list, not two (the heap of a bulk action
 * stays its result list, whatever the number of items).
 */
export async function forEachBulk<I, R>(
  items: readonly I[],
  concurrency: number,
  work: (item: I, index: number) => Promise<R>,
  stop: StopSignal | undefined,
  onSettled: (index: number, outcome: Outcome<R>) => void,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      let outcome: Outcome<R>;
      if (stop?.stopped) {
        outcome = {
          ok: false,
          error: new TbError('TB_CLOSED', 'The node was stopped (redeploy or shutdown) before this entity was handled'),
        };
      } else {
        try {
          outcome = { ok: true, value: await work(items[i], i) };
        } catch (error) {
          outcome = { ok: false, error };
        }
      }
      onSettled(i, outcome);
    }
  };
  const n = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  const workers: Array<Promise<void>> = [];
  for (let w = 0; w < n; w++) workers.push(worker());
  await Promise.all(workers);
}

/** An error as a result entry carries it: its stable code and its message. */
export function errorEntry(err: unknown): { code: string; message: string } {
  if (err instanceof TbError) return { code: err.code, message: err.message };
  if (err instanceof Error) return { code: (err as { code?: string }).code ?? 'TB_ERROR', message: err.message };
  return { code: 'TB_ERROR', message: String(err) };
}

/**
 * The error of a bulk action where every entity failed: the first failure's code, and a message that says so and
 * gives the first failure's words.
 */
export function allFailedError(entities: readonly EntityId[], outcomes: ReadonlyArray<Outcome<unknown>>): TbError {
  const first = outcomes.find((o): o is { ok: false; error: unknown } => !o.ok);
  return bulkFailedError(
    entities,
    outcomes.length,
    first ? outcomes.indexOf(first) : 0,
    first ? first.error : undefined,
  );
}

/** allFailedError from the first failure alone: `count` entities, the first failed one at `index` with `error`. */
export function bulkFailedError(entities: readonly EntityId[], count: number, index: number, error: unknown): TbError {
  const e = errorEntry(error);
  const code = (error instanceof TbError ? error.code : 'TB_HTTP_ERROR') as TbError['code'];
  const n = count;
  const who = entities[index] ? `${entities[index].entityType} ${entities[index].id}` : 'the first entity';
  return new TbError(
    code,
    `${n === 1 ? 'The entity' : `All ${n} entities`} failed; ${n === 1 ? '' : `the first, ${who}: `}${e.message}`,
  );
}

/** At most `n` calls of `run` in flight; the others wait their turn in order. */
export class Gate {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly n: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= Math.max(1, this.n)) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      const next = this.queue.shift();
      if (next) next();
    }
  }
}
