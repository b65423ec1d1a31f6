/**
 * One action per entity, at most `concurrency` at a time, results in input order. A worker pool: `concurrency`
 * loops take the next entity when they are free, so 1,000 entities never mean 1,000 requests (or sockets, or
 * pending promises) at once; only the result list grows. Nothing in here knows about Node-RED.
 */
import { TbError } from '../errors';
import type { EntityId } from '../query/types';

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
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      if (stop?.stopped) {
        out[i] = { ok: false, error: new TbError('TB_CLOSED', 'The node was stopped (redeploy or shutdown) before this entity was handled') };
      } else {
        try {
          out[i] = { ok: true, value: await work(items[i], i) };
        } catch (error) {
          out[i] = { ok: false, error };
        }
      }
      onSettled?.(i, out[i]);
    }
  };
  const n = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  const workers: Array<Promise<void>> = [];
  for (let w = 0; w < n; w++) workers.push(worker());
  await Promise.all(workers);
  return out;
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
  const e = errorEntry(first ? first.error : undefined);
  const i = first ? outcomes.indexOf(first) : 0;
  const code = (first && first.error instanceof TbError ? first.error.code : 'TB_HTTP_ERROR') as TbError['code'];
  const n = outcomes.length;
  const who = entities[i] ? `${entities[i].entityType} ${entities[i].id}` : 'the first entity';
  return new TbError(code, `${n === 1 ? 'The entity' : `All ${n} entities`} failed; ${n === 1 ? '' : `the first, ${who}: `}${e.message}`);
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
