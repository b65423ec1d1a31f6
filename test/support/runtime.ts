/**
 * Test support for node tests: the real Node-RED runtime (node-red-node-test-helper) with our node
 * modules, against the simulator over loopback. Waits are on events, never on sleeps; their guards run on the real
 * timers, also while a test drives the code under test with fake ones.
 */
import assert from 'node:assert/strict';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Node, NodeMessage } from 'node-red';
import helper from 'node-red-node-test-helper';
import { nodeRedMain } from '../../scripts/embedded';
import type { SimOptions, Simulator } from '../../sim';
import { clearTokenCache } from '../../src/platform/token-cache';
import { startSimulator, useFixture, type Lifecycle } from './simulator';
import { realTimers } from './wait';

type TestFlows = Parameters<typeof helper.load>[1];

// TB_TEST_NODE_RED=<path to another node-red package's lib/red.js (or red.js)> runs the node tests on another
// Node-RED version (e.g. the oldest supported, 3.1); by default the devDependency (4.1.x).
const NODE_RED_MAIN = nodeRedMain();
helper.init(NODE_RED_MAIN);

export { helper };

// Tokens survive redeploys (src/platform/token-cache.ts); each test starts without any, as after a restart.
beforeEach(() => clearTokenCache());

export type Msg = NodeMessage & Record<string, unknown>;

/** Node-RED's `RED._` is the identity function in tests: status texts are the catalog keys. */
export const STATUS_NS = 'node-red-contrib-thingsboard-query/tb-connection:tb-connection.status.';
export const key = (k: string): string => STATUS_NS + k;

export function connectionNode(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'c1', type: 'tb-connection', name: 'sim', url, authMode: 'password', timeout: 10, ...extra };
}

export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };

export type Rec = Record<string, unknown>;

export interface RuntimeLifecycle extends Lifecycle<Simulator> {
  /** Runtime settings for the block's flows (tunables such as tbConnectionRetryInitialMs); cleared after. */
  settings?: Rec;
  /** Node-RED's HTTP server, for flows whose nodes need it (the examples' http nodes). */
  server?: boolean;
}

/**
 * `useSimulator()` for tests of our nodes in the runtime: with the block's runtime settings and, when asked,
 * Node-RED's HTTP server, both set up before the simulator starts and undone before it stops; the flows are
 * unloaded after each test (after `cleanup`).
 */
export function useRuntime(options: SimOptions = {}, life: RuntimeLifecycle = {}): Simulator {
  const { settings, server, cleanup, ...rest } = life;
  return useFixture(
    async () => {
      // the helper's type knows only the core settings; ours are passed through to RED.settings
      if (settings) helper.settings(settings as Parameters<typeof helper.settings>[0]);
      if (server) await new Promise<void>((resolve) => helper.startServer(() => resolve()));
      return startSimulator(options);
    },
    async (sim) => {
      if (server) await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
      if (settings) helper.settings({});
      await sim.stop();
    },
    {
      ...rest,
      cleanup: async (sim) => {
        await cleanup?.(sim);
        await helper.unload();
      },
    },
  );
}

/** A flow on tab "t": the given nodes plus a catch node wired to helper "caught". */
export function flow(...nodes: Array<Record<string, unknown>>): TestFlows {
  return [
    { id: 't', type: 'tab', label: 'test' },
    // The runtime treats a node on a tab without x/y as a config node: give every flow node a position.
    ...nodes.map((n) =>
      n.type === 'tb-connection' || n.type === 'tls-config' ? n : { z: 't', x: 100, y: 100, wires: [], ...n },
    ),
    { id: 'catch', type: 'catch', z: 't', x: 100, y: 200, scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper', z: 't', x: 300, y: 200, wires: [] },
    { id: 'out', type: 'helper', z: 't', x: 300, y: 100, wires: [] },
  ] as unknown as TestFlows;
}

/** Resolves with the next `n` messages that reach a helper node (rejects after `ms`). */
export function messages(id: string, n: number, ms = 8000): Promise<Msg[]> {
  const node = helper.getNode(id) as unknown as Node;
  return new Promise((resolve, reject) => {
    const got: Msg[] = [];
    const timer = realTimers.setTimeout(() => {
      node.removeListener('input', onInput);
      reject(new Error(`timed out waiting for ${n} message(s) at "${id}" (got ${got.length})`));
    }, ms);
    function onInput(msg: Msg) {
      got.push(msg);
      if (got.length === n) {
        realTimers.clearTimeout(timer);
        node.removeListener('input', onInput);
        resolve(got);
      }
    }
    node.on('input', onInput);
  });
}

export async function message(id: string, ms?: number): Promise<Msg> {
  return (await messages(id, 1, ms))[0];
}

/** Resolves when node `id` sets a status matching `pred` (the helper re-emits each call as call:status). */
export function statusWhere(
  id: string,
  pred: (s: { fill?: string; shape?: string; text?: string }) => boolean,
  ms = 8000,
): Promise<{ fill?: string; shape?: string; text?: string }> {
  const node = helper.getNode(id) as unknown as EventEmitter;
  return new Promise((resolve, reject) => {
    const timer = realTimers.setTimeout(() => {
      node.removeListener('call:status', on);
      reject(new Error(`timed out waiting for a status on "${id}"`));
    }, ms);
    function on(call: { args: Array<{ fill?: string; shape?: string; text?: string }> }) {
      const s = call.args[0];
      if (s && pred(s)) {
        realTimers.clearTimeout(timer);
        node.removeListener('call:status', on);
        resolve(s);
      }
    }
    node.on('call:status', on);
  });
}

/** The last status node `id` set. */
export function lastStatus(id: string): { fill?: string; shape?: string; text?: string } | undefined {
  const all = statuses(id);
  return all[all.length - 1];
}

/** Sends a message into node `id`. */
export function inject(id: string, msg: Msg): void {
  (helper.getNode(id) as unknown as Node).receive(msg);
}

type SpiedCall<A> = { thisValue: unknown; args: A[] };

/**
 * The calls of one spied Node method made by node `id` (the helper's spies sit on Node.prototype: every node's calls).
 */
function callsOf<A>(id: string, method: 'status' | 'error' | 'warn' | 'send'): A[][] {
  const n = helper.getNode(id) as unknown as Record<string, { getCalls?(): Array<SpiedCall<A>> }>;
  // Our nodes put their own error() in front of the runtime's (src/node-red/input.ts): the spy is further down.
  let spy = n[method];
  for (let p = Object.getPrototypeOf(n); !spy.getCalls && p; p = Object.getPrototypeOf(p)) spy = p[method];
  return spy.getCalls!()
    .filter((c) => c.thisValue === n)
    .map((c) => c.args);
}

/** Every status set on node `id` so far (from the helper's spy). */
export function statuses(id: string): Array<{ fill?: string; shape?: string; text?: string }> {
  return callsOf<{ fill?: string; shape?: string; text?: string }>(id, 'status').map((a) => a[0]);
}

/** Every message node `id` sent so far (e.g. what a Catch node caught before a test could listen). */
export function sentBy(id: string): Msg[] {
  return callsOf<Msg>(id, 'send').map((a) => a[0]);
}

/** Every node.error(…) of node `id` so far: the first argument of each (an Error or a text). */
export function errorsLogged(id: string): unknown[] {
  return callsOf<unknown>(id, 'error').map((a) => a[0]);
}

/** Every node.warn(…) text of node `id` so far. */
export function warningsOf(id: string): string[] {
  return callsOf<unknown>(id, 'warn').map((a) => String(a[0]));
}

/** Records every message that reaches a helper node; `until` waits for one matching a predicate. */
export class Collector {
  readonly all: Msg[] = [];
  private waiters: Array<{ pred: (m: Msg) => boolean; resolve: (m: Msg) => void; from: number }> = [];

  constructor(id: string) {
    const node = helper.getNode(id) as unknown as Node;
    node.on('input', (msg: Msg) => {
      this.all.push(msg);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(msg)) return true;
        w.resolve(msg);
        return false;
      });
    });
  }

  /** The next message (from now on, or already received when `past` is true) that matches. */
  until(pred: (m: Msg) => boolean, ms = 8000, past = false): Promise<Msg> {
    if (past) {
      const hit = this.all.find(pred);
      if (hit) return Promise.resolve(hit);
    }
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: (m: Msg) => (realTimers.clearTimeout(t), resolve(m)), from: this.all.length };
      const t = realTimers.setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(
          new Error(
            `timed out waiting for a matching message (got ${this.all.length}: ${this.all
              .map((m) => m.event ?? m.payload)
              .slice(-5)
              .join(', ')})`,
          ),
        );
      }, ms);
      this.waiters.push(w);
    });
  }

  /** Messages received since index `from`. */
  since(from: number): Msg[] {
    return this.all.slice(from);
  }
}

export type Outcome = { out?: Msg; error?: Rec; msg?: Msg };

/**
 * Records the messages reaching the "out" and "caught" helper nodes in order; `next()` takes them one by one.
 * One listener per helper node for a whole test (a listener that removes itself while the runtime delivers a
 * message to several breaks the delivery); `listen()` attaches it to the nodes of the flows just loaded.
 */
export class Results {
  private queue: Outcome[] = [];
  private waiting: ((r: Outcome) => void) | undefined;

  listen(): void {
    this.queue = [];
    this.waiting = undefined;
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
      const t = realTimers.setTimeout(() => {
        this.waiting = undefined;
        reject(new Error('timed out waiting for an output or an error'));
      }, ms);
      this.waiting = (x) => {
        realTimers.clearTimeout(t);
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

type NodeModules = Parameters<typeof helper.load>[0];

/**
 * Loading flows of `nodes` beside connection "c1" to the fixture's simulator (credentials: the tenant unless
 * given), with `results` listening to what comes out of each.
 */
export function flowsOn(
  sim: Simulator,
  nodes: NodeModules,
): { load(flowNodes: Rec[], creds?: Rec, conn?: Rec): Promise<void>; results: Results } {
  const results = new Results();
  return {
    results,
    /** Loads `flowNodes` on the connection c1 to the simulator (`conn`: more of c1's settings). */
    async load(flowNodes: Rec[], creds: Rec = TENANT, conn: Rec = {}): Promise<void> {
      await helper.load(nodes, flow(connectionNode(sim.url, conn), ...flowNodes), { c1: creds });
      results.listen();
    },
  };
}

export type ExampleNode = Rec & { id: string; type: string };

/**
 * An example of examples/ as a test flow: its nodes on tab "t", on the test's connection c1 to `url`, with helper
 * nodes for its debug nodes; `byName` finds a node by its name (asserting it is there).
 */
export function exampleFlow(
  file: string,
  url: string,
): { nodes: ExampleNode[]; byName: (name: string) => ExampleNode } {
  const nodes = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', '..', 'examples', file), 'utf8'),
  ) as ExampleNode[];
  const out: ExampleNode[] = [{ id: 't', type: 'tab', label: file }, connectionNode(url) as ExampleNode];
  for (const n of nodes) {
    if (n.type === 'tab' || n.type === 'tb-connection' || n.type === 'comment') continue; // its own tab: "t" here
    const copy: ExampleNode = { ...n, z: 't' };
    if (typeof copy.connection === 'string') copy.connection = 'c1';
    if (copy.type === 'debug') copy.type = 'helper';
    out.push(copy);
  }
  const byName = (name: string): ExampleNode => {
    const n = out.find((x) => x.name === name);
    assert.ok(n, `the example has a node named "${name}"`);
    return n;
  };
  return { nodes: out, byName };
}

/**
 * Loads an example (see exampleFlow) with our node modules and the core node files it uses; resolves with its byName.
 */
export async function loadExample(
  file: string,
  url: string,
  nodes: unknown[],
  coreFiles: string[],
): Promise<(name: string) => ExampleNode> {
  const { nodes: flowNodes, byName } = exampleFlow(file, url);
  // the node modules' and flows' exact types do not matter to helper.load
  await helper.load([...nodes, ...coreFiles.map(coreNode)] as never, flowNodes as never, { c1: TENANT });
  return byName;
}

/** Node-RED copies an error's own `code` into msg.error from 4.1 on; older runtimes pass only the message. */
const runtimeVersion = (
  JSON.parse(fs.readFileSync(path.join(path.dirname(NODE_RED_MAIN), '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const [major, minor] = runtimeVersion.split('.').map(Number);
export const RUNTIME_COPIES_CODE = major > 4 || (major === 4 && minor >= 1);

const CLASS_OF_CODE: Record<string, string> = {
  TB_INVALID_INPUT: 'TbInputError',
  TB_CONFIG: 'TbConfigError',
  TB_AUTH_FAILED: 'TbAuthError',
  TB_2FA_REQUIRED: 'TbAuthError',
  TB_TOKEN_EXPIRED: 'TbAuthError',
  TB_UNREACHABLE: 'TbNetworkError',
  TB_TIMEOUT: 'TbNetworkError',
};

/**
 * The error a Catch node received has this code: `msg.error.code` on Node-RED 4.1+, and on older runtimes
 * (which drop it) at least the error class that stands for it at the start of the message.
 */
export function assertCode(error: Record<string, unknown>, code: string, what?: string): void {
  if (RUNTIME_COPIES_CODE) {
    if (error.code !== code)
      throw new Error(
        `${what ? `${what}: ` : ''}expected code ${code}, got ${String(error.code)} (${String(error.message)})`,
      );
    return;
  }
  const cls = CLASS_OF_CODE[code] ?? 'Tb';
  if (!String(error.message).startsWith(cls))
    throw new Error(`${what ? `${what}: ` : ''}expected a ${cls} for ${code}, got ${String(error.message)}`);
}

/**
 * A core node module of the Node-RED under test (e.g. 'function/10-function.js'), for flows that need more than
 * the helper's catch / status / complete: resolved beside that runtime, so TB_TEST_NODE_RED tests its own nodes.
 */
export function coreNode(file: string): unknown {
  // The modules are CommonJS; their type does not matter to helper.load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(require.resolve(`@node-red/nodes/core/${file}`, { paths: [path.dirname(NODE_RED_MAIN)] }));
}
