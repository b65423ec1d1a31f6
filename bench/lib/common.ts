/** What the scenarios share: options, results, the query, the flow building blocks, the login. */
export interface RunOptions {
  quick: boolean;
  /** Measured rounds (a warm-up round comes first and is discarded). */
  rounds: number;
  /** Write V8 CPU profiles of the Node-RED (agent) process here, and summarise them. */
  profileDir?: string;
  /** Only contenders whose key contains one of these strings (e.g. for profiling "ours"). */
  only?: string[];
  log: (line: string) => void;
}

export interface Target {
  what: string;
  goal: string;
  measured: string;
  pass: boolean | undefined; // undefined = could not be measured
}

export interface ScenarioResult {
  id: number;
  title: string;
  /** Markdown body (tables). */
  markdown: string;
  targets: Target[];
  notes: string[];
}

export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };

export async function login(simUrl: string): Promise<string> {
  const res = await fetch(`${simUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(TENANT),
  });
  if (!res.ok) throw new Error(`login failed: HTTP ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** The query of scenarios 1 and 4: bench devices, 2 entity fields, 4 latest values, sorted by name. */
export function benchQuery(pageSize: number): {
  entityFilter: unknown;
  entityFields: unknown[];
  latestValues: unknown[];
  pageLink: { page: number; pageSize: number; sortOrder: unknown };
} {
  return {
    entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
    entityFields: [
      { type: 'ENTITY_FIELD', key: 'name' },
      { type: 'ENTITY_FIELD', key: 'label' },
    ],
    latestValues: ['temperature', 'humidity', 'power', 'energy'].map((key) => ({ type: 'TIME_SERIES', key })),
    pageLink: { page: 0, pageSize, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
  };
}

/** The query of scenario 2 and bench/sim-cost.ts: the first bench devices by name, with the burst's two keys. */
export function burstQuery(pageSize: number): Record<string, unknown> & { latestValues: unknown[] } {
  return {
    entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    latestValues: [
      { type: 'TIME_SERIES', key: 'sentAt' },
      { type: 'TIME_SERIES', key: 'seq' },
    ],
    pageLink: { page: 0, pageSize, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
  };
}

/** The value after `--<name>` on the command line of a bench script, else `fallback`. */
export function cliArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

export type FlowNode = Record<string, unknown> & { id: string; type: string };

/** Wraps flow nodes on one tab, with a catch node to the error sink and the connection node. */
export function benchFlow(
  simUrl: string,
  nodes: FlowNode[],
  extra: { connection?: Record<string, unknown> } = {},
): FlowNode[] {
  let y = 40;
  return [
    { id: 'bench_tab', type: 'tab', label: 'bench' },
    {
      id: 'conn',
      type: 'tb-connection',
      name: 'sim',
      url: simUrl,
      authMode: 'password',
      timeout: 60,
      credentials: { username: TENANT.username, password: TENANT.password },
      ...(extra.connection ?? {}),
    },
    ...nodes.map((n) =>
      n.type === 'tb-connection' || n.type === 'websocket-client'
        ? n
        : { z: 'bench_tab', x: 200, y: (y += 20), wires: [], ...n },
    ),
    {
      id: 'catch_all',
      type: 'catch',
      z: 'bench_tab',
      x: 100,
      y: 10,
      scope: null,
      uncaught: false,
      wires: [['sink_err']],
    },
    { id: 'sink_err', type: 'bench-sink', z: 'bench_tab', x: 300, y: 10, wires: [] },
  ];
}

export function sink(id: string): FlowNode {
  return { id, type: 'bench-sink' };
}

export function functionNode(id: string, func: string, wires: string[][], outputs = wires.length): FlowNode {
  return {
    id,
    type: 'function',
    name: id,
    func,
    outputs,
    timeout: 0,
    noerr: 0,
    initialize: '',
    finalize: '',
    libs: [],
    wires,
  };
}

/** The core http request node as a user sets it up for a JSON API (keep-alive on: its best case). */
export function httpRequestNode(id: string, url: string, wires: string[][]): FlowNode {
  return {
    id,
    type: 'http request',
    name: id,
    method: 'POST',
    ret: 'obj',
    paytoqs: 'ignore',
    url,
    tls: '',
    persist: true,
    proxy: '',
    insecureHTTPParser: false,
    authType: '',
    senderr: false,
    headers: [],
    wires,
  };
}

/** "Medians of N round(s) after one warm-up round" (or without, in --quick mode). */
export function roundsText(opts: RunOptions, rounds: number): string {
  return `Medians of ${rounds} round(s)${opts.quick ? ' (--quick: no warm-up round)' : ' after one warm-up round'}.`;
}
