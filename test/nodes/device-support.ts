/**
 * Shared by the runtime tests of tb-telemetry, tb-attributes and tb-rpc: what comes out of a flow (the "out"
 * helper's messages and the errors a Catch node got, in order), and the simulator's requests in flight.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import type { Simulator } from '../../sim';
import { assertCode, helper, inject, type Msg } from '../support/runtime';

export type Rec = Record<string, unknown>;
export type Outcome = { out?: Msg; error?: Rec; msg?: Msg };

/** Records the messages reaching "out" and "caught" in order; `next()` takes them one by one. */
export class Results {
  private readonly queue: Outcome[] = [];
  private waiting: ((r: Outcome) => void) | undefined;

  constructor() {
    (helper.getNode('out') as unknown as Node).on('input', (m: Msg) => this.push({ out: m }));
    (helper.getNode('caught') as unknown as Node).on('input', (m: Msg) => this.push({ error: m.error as Rec, msg: m }));
  }

  private push(r: Outcome): void {
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w(r);
    } else this.queue.push(r);
  }

  next(ms = 8000): Promise<Outcome> {
    const r = this.queue.shift();
    if (r) return Promise.resolve(r);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error('timed out waiting for an output or an error'));
      }, ms);
      this.waiting = (x) => {
        clearTimeout(t);
        resolve(x);
      };
    });
  }

  /** Nothing came out (yet). */
  get pending(): number {
    return this.queue.length;
  }

  async ok(nodeId: string, msg: Msg, ms?: number): Promise<Msg> {
    inject(nodeId, msg);
    const r = await this.next(ms);
    assert.ok(r.out, `expected an output, got the error ${JSON.stringify(r.error)}`);
    return r.out!;
  }

  /** Expects an error with this code (and message pattern) at Catch; returns the error and the message caught. */
  async fails(nodeId: string, msg: Msg, code: string, re?: RegExp, ms?: number): Promise<{ error: Rec; msg: Msg }> {
    inject(nodeId, msg);
    const r = await this.next(ms);
    assert.ok(r.error, `expected an error, got ${JSON.stringify(r.out?.payload)}`);
    assertCode(r.error!, code);
    const text = r.error!.message as string;
    assert.ok(text && !/\[object Object\]/.test(text), `a readable message: ${text}`);
    if (re) assert.match(text, re);
    return { error: r.error!, msg: r.msg! };
  }
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

/** Resolves once `pred` holds (checked every 10 ms), or rejects after `ms`. */
export async function waitFor(pred: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A pause in real time (only to show that nothing happens during it). */
export function quiet(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
