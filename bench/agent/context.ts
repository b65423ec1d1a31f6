/**
 * State shared by the agent's tasks: the Node-RED runtime, the simulator URL, the harness hooks.
 *
 * The harness nodes call `globalThis.__tbBench.sink(nodeId, msg)` for every message
 * that reaches a `bench-sink` node; the agent also sees every node's status changes through a wrapper on
 * Node.prototype.status. Measuring happens here, in the same process, with the same overhead for every
 * contender: one `receive()` into the first node of the contender, one hop from its last node to a sink.
 */
import type { NodeMessage } from 'node-red';
import { simControl, type SimControl } from '../../sim/process';

export type SinkFn = (nodeId: string, msg: NodeMessage & Record<string, unknown>) => void;
export type StatusFn = (nodeId: string, status: { fill?: string; shape?: string; text?: string }) => void;

export interface BenchHooks {
  sink: SinkFn;
  status: StatusFn | undefined;
}

const noop: SinkFn = () => undefined;

export const hooks: BenchHooks = { sink: noop, status: undefined };
(globalThis as unknown as { __tbBench: BenchHooks }).__tbBench = hooks;

export function resetHooks(): void {
  hooks.sink = noop;
  hooks.status = undefined;
}

export interface RuntimeNode {
  id: string;
  type: string;
  receive(msg: Record<string, unknown>): void;
  status(s: unknown): void;
  [k: string]: unknown;
}

export interface AgentContext {
  simUrl: string;
  nrUrl: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  RED: any;
  getNode(id: string): RuntimeNode;
}

export const ctx: AgentContext = {
  simUrl: '',
  nrUrl: '',
  RED: undefined,
  getNode(id: string): RuntimeNode {
    const n = ctx.RED?.nodes.getNode(id) as RuntimeNode | null;
    if (!n) throw new Error(`no node "${id}" in the deployed flow`);
    return n;
  },
};

/** The simulator's control API (`/__sim/…`); its URL is known once the agent is set up. */
export const sim = (): SimControl => simControl(ctx.simUrl);

export const now = (): number => performance.now();

/** A promise that rejects after `ms` unless settled: every wait in the suite is bounded. */
export function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    }),
  ]);
}
