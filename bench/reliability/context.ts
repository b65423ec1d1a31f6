/**
 * What the reliability probes share: the simulator (its own process, driven through `/__sim`), Node-RED embedded
 * in this process (so that handles, heap and every node's status can be read directly), deploys through the
 * admin API, the harness hooks (every message reaching a `bench-sink` node, every status call), bounded waits.
 */
import path from 'node:path';
import { nodeRedMain, type Embedded } from '../../scripts/embedded';
import type { SimProcess } from '../../sim/process';
import { hooks } from '../agent/context';

export type Rec = Record<string, unknown>;
export type Msg = Rec & { _msgid?: string };
export type NodeStatusCall = { fill?: string; shape?: string; text?: string };
export type FlowNode = Rec & { id: string; type: string };

export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };

export interface Check {
  what: string;
  expected: string;
  measured: string;
  pass: boolean;
}

export interface ProbeResult {
  key: string;
  title: string;
  /** Markdown body: what was done, then the tables. */
  markdown: string;
  checks: Check[];
}

export interface ProbeOptions {
  quick: boolean;
  /** redeploys of each kind */
  redeploys: number;
  /** seconds of each soak run */
  soakSeconds: number;
  /** minutes of the hour of faults (one fault a minute) */
  hourMinutes: number;
  /** fuzzed messages per node type */
  fuzz: number;
  /** updates of the flood */
  flood: number;
  seed: number;
}

export interface RunContext {
  sim: SimProcess;
  nr: Embedded;
  opts: ProbeOptions;
  log(line: string): void;
}

/** A probe: runs against the context, returns its figures and checks. */
export type Probe = (c: RunContext) => Promise<ProbeResult>;

// ---- harness hooks -------------------------------------------------------------------------------------------

type SinkListener = (sinkId: string, msg: Msg) => void;
type StatusListener = (nodeId: string, s: NodeStatusCall) => void;
const sinkListeners = new Set<SinkListener>();
const statusListeners = new Set<StatusListener>();

hooks.sink = (id, msg) => {
  for (const l of sinkListeners) l(id, msg as Msg);
};

/** Calls `f` for every message that reaches a bench-sink node, until the returned function is called. */
export function onSink(f: SinkListener): () => void {
  sinkListeners.add(f);
  return () => sinkListeners.delete(f);
}

/** Calls `f` for every node.status(…) call in the runtime, until the returned function is called. */
export function onStatus(f: StatusListener): () => void {
  statusListeners.add(f);
  return () => statusListeners.delete(f);
}

let statusHookInstalled = false;
/** Wraps Node.prototype.status of the runtime in use (once), as the benchmark agent does: no status nodes needed. */
export function installStatusHook(): void {
  if (statusHookInstalled) return;
  statusHookInstalled = true;
  const nodeModule = require.resolve('@node-red/runtime/lib/nodes/Node', { paths: [path.dirname(nodeRedMain())] });
  // The runtime's Node class has no published type; only status() and id are used.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const NodeCtor = require(nodeModule) as { prototype: { status(s: unknown): void; id: string } };
  const original = NodeCtor.prototype.status;
  NodeCtor.prototype.status = function (this: { id: string }, s: unknown) {
    if (s && typeof s === 'object') for (const l of statusListeners) l(this.id, s as NodeStatusCall);
    return original.call(this, s);
  };
}

/** Records the statuses of some nodes (all nodes when `ids` is omitted) from now on. */
export class StatusLog {
  readonly byNode = new Map<string, NodeStatusCall[]>();
  private readonly off: () => void;
  constructor(ids?: string[]) {
    const want = ids ? new Set(ids) : undefined;
    this.off = onStatus((id, s) => {
      if (want && !want.has(id)) return;
      let l = this.byNode.get(id);
      if (!l) this.byNode.set(id, (l = []));
      l.push({ fill: s.fill, shape: s.shape, text: s.text });
    });
  }
  of(id: string): NodeStatusCall[] {
    return this.byNode.get(id) ?? [];
  }
  stop(): void {
    this.off();
  }
}

// ---- simulator -------------------------------------------------------------------------------------------------

export async function simCount(c: RunContext, prefix: string): Promise<number> {
  return (await c.sim.get<{ count: number }>(`/__sim/requests/count?prefix=${encodeURIComponent(prefix)}`)).count;
}

export interface WsConnections {
  open: number;
  authenticated: number;
  total: number;
}

export function wsConnections(c: RunContext): Promise<WsConnections> {
  return c.sim.get<WsConnections>('/__sim/ws/connections');
}

/** The id of a simulator device by name. */
export async function deviceId(c: RunContext, name: string): Promise<string> {
  const list = await c.sim.get<Array<{ id: { id: string } }>>(
    `/__sim/entities?type=DEVICE&name=${encodeURIComponent(name)}`,
  );
  if (!list.length) throw new Error(`no device "${name}" in the simulator`);
  return list[0].id.id;
}

// ---- flows and deploys -------------------------------------------------------------------------------------------

/**
 * A tb-connection to the simulator (credentials are added by `tabFlow`). Its name must not equal a node id: the
 * runtime takes a config node's property equal to a config node id as a dependency (its own: "circular").
 */
export function connection(c: RunContext, id: string, extra: Rec = {}): FlowNode {
  return {
    id,
    type: 'tb-connection',
    name: `simulator (${id})`,
    url: c.sim.url,
    authMode: 'password',
    timeout: 10,
    ...extra,
  };
}

/**
 * A tab holding the given nodes, a Catch node for the whole tab wired to the sink "sink_err", and the config
 * nodes (every node of type tb-connection). `credentials` go on every connection (as the editor sends them when
 * they were typed).
 */
export function tabFlow(tab: string, nodes: FlowNode[], credentials?: Rec): FlowNode[] {
  let y = 60;
  const out: FlowNode[] = [{ id: tab, type: 'tab', label: tab }];
  for (const n of nodes) {
    if (n.type === 'tb-connection') out.push(credentials ? { ...n, credentials } : n);
    else out.push({ z: tab, x: 200, y: (y += 40), wires: [], ...n });
  }
  out.push({
    id: `${tab}_catch`,
    type: 'catch',
    z: tab,
    x: 100,
    y: 20,
    scope: null,
    uncaught: false,
    wires: [['sink_err']],
  });
  out.push({ id: 'sink_err', type: 'bench-sink', z: tab, x: 300, y: 20, wires: [] });
  return out;
}

export function sinkNode(id: string): FlowNode {
  return { id, type: 'bench-sink' };
}

type Started = { config?: { rev?: string } };

/**
 * Deploys through the admin API (`POST /flows`, API v2) and resolves once the runtime started that revision.
 * `type`: full (every node restarts) or nodes (only changed nodes and the users of changed config nodes).
 */
export async function deploy(
  c: RunContext,
  flows: FlowNode[],
  type: 'full' | 'nodes' = 'full',
  timeoutMs = 30000,
): Promise<void> {
  const events = c.nr.RED.events as unknown as {
    on(e: string, f: (ev: Started) => void): void;
    removeListener(e: string, f: (ev: Started) => void): void;
  };
  const startedRevs = new Set<string>();
  let wake: () => void = () => undefined;
  const onStarted = (ev: Started): void => {
    if (ev?.config?.rev) startedRevs.add(ev.config.rev);
    wake();
  };
  events.on('flows:started', onStarted);
  try {
    const res = await fetch(`${c.nr.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': type, 'Node-RED-API-Version': 'v2' },
      body: JSON.stringify({ flows }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`deploy failed: HTTP ${res.status} ${text.slice(0, 300)}`);
    const rev = (JSON.parse(text) as { rev: string }).rev;
    await deadline(
      new Promise<void>((resolve) => {
        wake = () => {
          if (startedRevs.has(rev)) resolve();
        };
        wake();
      }),
      timeoutMs,
      `deploy ${type} (flows:started)`,
    );
  } finally {
    events.removeListener('flows:started', onStarted);
  }
}

/** Deploys an empty workspace: every node of the previous probe is closed (and removed). */
export async function clearFlows(c: RunContext): Promise<void> {
  await deploy(c, [{ id: 'empty', type: 'tab', label: 'empty' }]);
}

/** A deployed node or config node, or null (the embedding API's type does not list getNode). */
export function getNode(c: RunContext, id: string): unknown {
  return (c.nr.RED.nodes as unknown as { getNode(id: string): unknown }).getNode(id);
}

/** A deployed node, to send a message into (`receive`) or read. */
export function runtimeNode(c: RunContext, id: string): { receive(msg: Rec): void } & Rec {
  const n = getNode(c, id) as ({ receive(msg: Rec): void } & Rec) | null;
  if (!n) throw new Error(`no node "${id}" in the deployed flow`);
  return n;
}

// ---- waits and process figures -------------------------------------------------------------------------------------

/** A promise that rejects after `ms` unless settled: every wait of the probes is bounded. */
export function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 10 ms; resolves true when it holds, false after `ms`. */
export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

export function gcAvailable(): boolean {
  return typeof (globalThis as { gc?: () => void }).gc === 'function';
}

/** heapUsed after a full GC (when the process runs with --expose-gc; otherwise as it is). */
export async function heapUsed(): Promise<number> {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    // Let closed sockets and timers finish first, then collect twice (weak references need a second pass).
    await sleep(50);
    g();
    await sleep(10);
    g();
  }
  return process.memoryUsage().heapUsed;
}

/** The process's active resources (sockets, timers, servers…) by type: what a leak would grow. */
export function activeResources(): { total: number; byType: Record<string, number> } {
  const info = (process as unknown as { getActiveResourcesInfo?: () => string[] }).getActiveResourcesInfo?.() ?? [];
  const byType: Record<string, number> = {};
  for (const t of info) byType[t] = (byType[t] ?? 0) + 1;
  return { total: info.length, byType };
}

export function resourcesText(r: { byType: Record<string, number> }): string {
  return Object.entries(r.byType)
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

export const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const secs = (ms: number): string => `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;

export function check(what: string, expected: string, measured: string | number, pass: boolean): Check {
  return { what, expected, measured: String(measured), pass };
}

/** A short, single-line form of an error message caught at a Catch node (for the tables). */
export function errorText(msg: Msg | undefined): string {
  const e = msg?.error as { message?: string; code?: string } | undefined;
  if (!e) return '';
  const text = String(e.message ?? '').replace(/\s+/g, ' ');
  return `${e.code ? `${e.code}: ` : ''}${text.length > 150 ? `${text.slice(0, 150)}…` : text}`;
}
