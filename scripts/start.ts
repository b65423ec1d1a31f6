/**
 * `npm start`: the demo. Starts Node-RED (embedded, with this package loaded from the working copy) in a
 * git-ignored `.demo/` user directory and deploys every flow in examples/, each on its own tab, with one
 * shared connection (the CSV example writes its file into `.demo/`). Ctrl-C stops everything.
 *
 * By default the connection points at the ThingsBoard simulator, started here with demo data that keeps
 * changing. With TB_URL set, no simulator starts and the connection points at that server instead.
 *
 * Options (environment):
 *   PORT                 Node-RED port (default 1880; 0 = any free port)
 *   SIM_PORT             simulator port (default 0 = any)
 *   TB_URL               a real ThingsBoard server, e.g. https://thingsboard.example.com
 *   TB_USERNAME, TB_PASSWORD   sign in with a username and password, or
 *   TB_API_KEY           sign in with an API key (ThingsBoard 4.3+; 4.4+ for the live nodes)
 *   TB_ANALYTICS_URL     optional Trendz analytics URL (e.g. http://host:8888/apiTrendz/)
 *   TB_ANALYTICS_USERNAME, TB_ANALYTICS_PASSWORD   optional own analytics sign-in (needed with an API key)
 * A port that is taken (most often 1880, by a Node-RED already running) or not a port number ends the demo with
 * one line naming the variable that chooses another, and a non-zero exit code.
 *
 * Credentials only ever go to Node-RED's credentials store (the deployed connection's `credentials`); they are
 * never printed. For a real server that store is encrypted with a secret generated once in `.demo/.secret`
 * (the simulator demo keeps its fake credentials in plain text, `credentialSecret: false`).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dashboardDir, HTTP_NODE_ROOT, REPO_ROOT, startNodeRed } from './embedded';

type FlowNode = Record<string, unknown> & { id: string; type: string; z?: string };

const DEMO_CONNECTION = 'tb-demo-connection';
export const SIMULATOR_CREDENTIALS = { username: 'tenant@thingsboard.org', password: 'tenant' } as const;

/** Where the demo connection points, and how the deployed flows are stored. */
export interface DemoServer {
  /** The tb-connection node to deploy (with its `credentials`, which go to the credentials store). */
  connection: FlowNode;
  /** True for TB_URL (a real server), false for the simulator. */
  real: boolean;
  /** What to print: the URL without any user info, and how the connection signs in (never the credentials). */
  description: string;
}

/** A problem with the TB_* variables: printed as is, without a stack. */
export class DemoConfigError extends Error {}

const COMMON = { timeout: 30, reportConcurrency: 2, reportTimeout: 300, version: 1 };

/** The variables that choose the demo's two ports. */
export type PortVariable = 'PORT' | 'SIM_PORT';

const PORT_OF: Record<PortVariable, string> = { PORT: "Node-RED's port", SIM_PORT: "the simulator's port" };

/** PORT or SIM_PORT as a port number (0 = any free port), `fallback` when not set. */
export function demoPort(env: Record<string, string | undefined>, name: PortVariable, fallback: number): number {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535)
    throw new DemoConfigError(`${name} must be a port number from 0 to 65535 (0 = any free port), not "${v}"`);
  return n;
}

/**
 * A listen error as the line to print: a port in use says which variable picks another. Anything else is not a
 * start-up problem of the user's making and stays as it is (undefined).
 */
export function portProblem(err: unknown, name: PortVariable, port: number): DemoConfigError | undefined {
  if ((err as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return undefined;
  const hint = name === 'PORT' ? ' (is Node-RED already running there?)' : '';
  return new DemoConfigError(
    `${PORT_OF[name]} ${port} is already in use${hint}: choose another with ${name}, e.g. \`${name}=${port + 1} npm ` +
      `start\`, or ${name}=0 for any free port`,
  );
}

/** Runs `listen`, turning a taken port into the line {@link portProblem} gives. */
async function onPort<T>(name: PortVariable, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    throw portProblem(err, name, port) ?? err;
  }
}

/** An http(s) URL without user info, path or query kept as given (for printing too). */
function serverUrl(name: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    throw new DemoConfigError(`${name} must be an http:// or https:// address, e.g. https://thingsboard.example.com`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new DemoConfigError(`${name} must be an http:// or https:// address (got ${u.protocol})`);
  if (u.username || u.password)
    throw new DemoConfigError(
      `${name} must not contain a user name or password: use TB_USERNAME and TB_PASSWORD, or TB_API_KEY`,
    );
  return value.trim().replace(/\/+$/, '');
}

/**
 * The demo connection for an environment: the simulator at `simUrl` when TB_URL is not set, otherwise the
 * server at TB_URL with TB_USERNAME + TB_PASSWORD or TB_API_KEY (and optionally TB_ANALYTICS_URL).
 * Throws a DemoConfigError when the variables do not make one way to sign in.
 */
export function demoServer(env: Record<string, string | undefined>, simUrl?: string): DemoServer {
  const set = (k: string): string | undefined => (env[k] !== undefined && env[k]!.trim() !== '' ? env[k] : undefined);
  if (!set('TB_URL')) {
    if (!simUrl) throw new Error('the simulator URL is needed when TB_URL is not set');
    return {
      real: false,
      description: `ThingsBoard simulator: ${simUrl} (${SIMULATOR_CREDENTIALS.username} / ${SIMULATOR_CREDENTIALS.password})`,
      connection: {
        id: DEMO_CONNECTION,
        type: 'tb-connection',
        name: 'Demo (simulator)',
        url: simUrl,
        authMode: 'password',
        analyticsUrl: `${simUrl}/apiTrendz/`,
        analyticsAuth: 'same',
        ...COMMON,
        credentials: { ...SIMULATOR_CREDENTIALS },
      },
    };
  }

  const url = serverUrl('TB_URL', set('TB_URL')!);
  const username = set('TB_USERNAME');
  const password = env.TB_PASSWORD; // a password may be anything but empty
  const apiKey = set('TB_API_KEY');
  if (apiKey && (username || password)) {
    throw new DemoConfigError(
      'TB_URL is set with both TB_API_KEY and TB_USERNAME/TB_PASSWORD: set only one way to sign in',
    );
  }
  if (!apiKey && !(username && password)) {
    throw new DemoConfigError(
      'TB_URL is set: also set TB_USERNAME and TB_PASSWORD, or TB_API_KEY (ThingsBoard 4.3 or newer)',
    );
  }
  const analyticsUrl = set('TB_ANALYTICS_URL') ? serverUrl('TB_ANALYTICS_URL', set('TB_ANALYTICS_URL')!) + '/' : '';
  const aUser = set('TB_ANALYTICS_USERNAME');
  const aPassword = env.TB_ANALYTICS_PASSWORD || undefined;
  if (!!aUser !== !!aPassword)
    throw new DemoConfigError('Set both TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD, or neither');
  if (aUser && !analyticsUrl)
    throw new DemoConfigError('TB_ANALYTICS_USERNAME/TB_ANALYTICS_PASSWORD need TB_ANALYTICS_URL');
  if (analyticsUrl && apiKey && !aUser) {
    throw new DemoConfigError(
      'TB_ANALYTICS_URL with TB_API_KEY: the analytics service signs in with a username and password: set ' +
        'TB_ANALYTICS_USERNAME and TB_ANALYTICS_PASSWORD',
    );
  }

  const credentials: Record<string, string> = apiKey ? { apiKey } : { username: username!, password: password! };
  if (aUser) Object.assign(credentials, { analyticsUsername: aUser, analyticsPassword: aPassword! });
  const host = new URL(url).host;
  return {
    real: true,
    description:
      `ThingsBoard server:    ${url} (signed in with ${apiKey ? 'an API key' : 'a username and password'})` +
      (analyticsUrl ? `\nAnalytics:             ${analyticsUrl}` : ''),
    connection: {
      id: DEMO_CONNECTION,
      type: 'tb-connection',
      name: `Demo (${host})`,
      url,
      authMode: apiKey ? 'apiKey' : 'password',
      analyticsUrl,
      analyticsAuth: aUser ? 'own' : 'same',
      ...COMMON,
      credentials,
    },
  };
}

/** Options of the demo flows. */
export interface DemoFlowOptions {
  /** Where the examples' file nodes write: a relative file name (the examples use those) is put in this directory. */
  fileDir?: string;
  /**
   * Whether Dashboard 2 is there to run the examples made of its widgets (default: whether it is installed). Without
   * it they are left out: their widgets would be unknown types, and Node-RED starts no flow while a type is missing.
   */
  dashboard?: boolean;
}

/** A node of Dashboard 2 (`@flowfuse/node-red-dashboard`): its types all start with `ui-`. */
export const isDashboardNode = (n: { type: string }): boolean => n.type.startsWith('ui-');

/**
 * The address of the dashboard the flows deploy (their Dashboard 2 base, and the page of the lowest order under it),
 * or undefined when they have none.
 */
export function dashboardUrl(flows: FlowNode[], nodeRedUrl: string): string | undefined {
  const base = flows.find((n) => n.type === 'ui-base');
  if (!base) return undefined;
  const pages = flows
    .filter((n) => n.type === 'ui-page' && n.ui === base.id && typeof n.path === 'string')
    .sort((a, b) => Number(a.order) - Number(b.order));
  const root = HTTP_NODE_ROOT.replace(/\/+$/, '');
  return `${nodeRedUrl}${root}${String(base.path)}${pages.length ? String(pages[0].path) : ''}`;
}

/** An inject node that repeats (an interval or a cron time). */
export const repeats = (n: Record<string, unknown>): boolean =>
  n.type === 'inject' && [n.repeat, n.crontab].some((v) => v !== undefined && v !== null && String(v).trim() !== '');

/**
 * All examples as one deployable flow: each on its own tab (the example's tab node), every ThingsBoard node on the
 * one demo `connection`. Their injects stay as in the examples: a repeating one waits for its first interval and the
 * others for their button, so a deploy sends nothing to the debug sidebar (three injects fire at deploy, in their
 * examples too: one sets the flow variable its flow reads, one starts the alarm watch its tab shows, one draws the
 * dashboard's day).
 */
export function demoFlows(connection: FlowNode, options: DemoFlowOptions = {}): FlowNode[] {
  const dir = path.join(REPO_ROOT, 'examples');
  const dashboard = options.dashboard ?? dashboardDir() !== undefined;
  const out: FlowNode[] = [connection];
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  for (const file of files) {
    const nodes = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as FlowNode[];
    if (!dashboard && nodes.some(isDashboardNode)) continue;
    const connIds = new Set(nodes.filter((n) => n.type === 'tb-connection').map((n) => n.id));
    const live = downstreamOfLive(nodes);
    for (const n of nodes) {
      if (n.type === 'tb-connection') continue;
      const copy: FlowNode = { ...n };
      // The demo's live flows run all at once (telemetry every 3 s on every tab): their debug nodes show the last
      // message under the node instead of in the sidebar, which stays free for the user's own messages.
      if (copy.type === 'debug' && live.has(copy.id))
        Object.assign(copy, { tosidebar: false, tostatus: true, statusType: 'auto', statusVal: '' });
      if (typeof copy.connection === 'string' && connIds.has(copy.connection)) copy.connection = connection.id;
      if (
        copy.type === 'file' &&
        options.fileDir &&
        typeof copy.filename === 'string' &&
        copy.filename &&
        !path.isAbsolute(copy.filename)
      ) {
        copy.filename = path.join(options.fileDir, copy.filename);
      }
      out.push(copy);
    }
  }
  return out;
}

/**
 * The debug sidebar's filter the demo starts with: the messages of the tab being looked at ("current flow"), so that
 * the examples running on the other tabs, on their timers, do not bury the user's own messages.
 */
export const DEMO_DEBUG_FILTER = 'filterCurrent';

/**
 * Sets the debug sidebar's filter to {@link DEMO_DEBUG_FILTER} in the editor's user settings (the runtime keeps them
 * in the user directory, and the editor reads them when it opens), unless the user chose one already: a choice made in
 * the sidebar stays from one start to the next. Returns whether it was set.
 */
export async function quietDebugSidebar(editorUrl: string): Promise<boolean> {
  const url = `${editorUrl}/settings/user`;
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`reading the editor's user settings failed: HTTP ${res.status}`);
  const current = (await res.json()) as { debug?: { filter?: unknown } };
  if (current.debug?.filter !== undefined) return false;
  const set = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ debug: { filter: DEMO_DEBUG_FILTER } }),
  });
  if (!set.ok) throw new Error(`setting the debug sidebar's filter failed: HTTP ${set.status}`);
  return true;
}

/** The live node types: they send on their own, as the server's updates come (a trigger, as its conditions turn). */
const LIVE_TYPES = new Set(['tb-subscribe', 'tb-alarm-status', 'tb-trigger']);

/** The ids of the nodes a live node's messages reach, through any wires. */
export function downstreamOfLive(nodes: FlowNode[]): Set<string> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const seen = new Set<string>();
  const todo = nodes.filter((n) => LIVE_TYPES.has(n.type)).map((n) => n.id);
  while (todo.length) {
    const n = byId.get(todo.pop()!);
    for (const port of (n?.wires as string[][] | undefined) ?? []) {
      for (const id of port) {
        if (seen.has(id)) continue;
        seen.add(id);
        todo.push(id);
      }
    }
  }
  return seen;
}

/**
 * The secret that encrypts the credentials of a real server in `.demo/`: generated once, kept in
 * `.demo/.secret` (readable by the owner only).
 */
export function demoSecret(userDir: string): string {
  const file = path.join(userDir, '.secret');
  try {
    const s = fs.readFileSync(file, 'utf8').trim();
    if (s) return s;
  } catch {
    /* not there yet */
  }
  const s = crypto.randomBytes(32).toString('hex');
  fs.writeFileSync(file, `${s}\n`, { mode: 0o600 });
  return s;
}

async function main(): Promise<void> {
  const userDir = path.join(REPO_ROOT, '.demo');
  fs.mkdirSync(userDir, { recursive: true });
  const real = !!(process.env.TB_URL && process.env.TB_URL.trim());
  let sim: import('../sim').Simulator | undefined;
  let stopActivity: () => void = () => undefined;
  let warmRooms: readonly string[] = [];
  let server: DemoServer;
  // checked before anything starts
  const port = demoPort(process.env, 'PORT', 1880);
  const simPort = demoPort(process.env, 'SIM_PORT', 0);
  if (real) {
    server = demoServer(process.env);
  } else {
    const { Simulator } = await import('../sim');
    const { startDemoActivity, WARM_ROOMS } = await import('./demo-activity');
    warmRooms = WARM_ROOMS;
    const simulator = new Simulator({ port: simPort });
    sim = simulator;
    const simUrl = await onPort('SIM_PORT', simPort, () => simulator.start());
    stopActivity = startDemoActivity(simulator);
    server = demoServer(process.env, simUrl);
  }
  const nr = await onPort('PORT', port, () =>
    startNodeRed({
      userDir,
      port,
      logLevel: 'info',
      // A real server's credentials are encrypted, in their own flow file; the simulator's fake ones are stored
      // in plain text (credentialSecret false, demo only).
      flowFile: server.real ? 'flows-server.json' : 'flows.json',
      credentialSecret: server.real ? demoSecret(userDir) : false,
    }),
  );
  const flows = demoFlows(server.connection, { fileDir: userDir });
  const res = await fetch(`${nr.url}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  if (!res.ok) throw new Error(`deploying the demo flows failed: HTTP ${res.status} ${await res.text()}`);
  await quietDebugSidebar(nr.url);
  const dashboard = dashboardUrl(flows, nr.url);
  process.stdout.write(
    `\n${server.description}\nNode-RED editor:       ${nr.url}/\n` +
      (dashboard ? `Dashboard:             ${dashboard}\n` : '') +
      (server.real
        ? 'Every example flow is deployed on its own tab against that server (they only read from it). Press Ctrl-C ' +
          'to stop.\n\n'
        : [
            'Every example flow is deployed on its own tab, and waits for its inject button or its schedule.',
            'The simulator changes telemetry every 3 s: each thermostat warms toward its target (its shared attribute',
            `targetTemperature, 17 °C at first), and ${warmRooms.join(', ')} are warm by themselves,`,
            'above 25 °C. It raises, acknowledges and clears an alarm every 15 s. The debug sidebar shows the messages',
            'of the tab you look at (its filter: current flow). Press Ctrl-C to stop.',
            '',
            '',
          ].join('\n')),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    stopActivity();
    await nr.stop().catch(() => undefined);
    await sim?.stop().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(
      err instanceof DemoConfigError ? `npm start: ${err.message}\n` : `${(err as Error).stack ?? err}\n`,
    );
    process.exit(1);
  });
}
