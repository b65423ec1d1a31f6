/**
 * Starts Node-RED embedded (express + RED.init), with this repository loaded as a module through
 * `nodesDir`, on 127.0.0.1 and a port of your choice (0 = any free port). Used by `npm start` (the demo),
 * the browser tests and the benchmarks. FlowFuse's Dashboard 2 (a devDependency, never one of the package) is loaded
 * beside it when it is installed, so that the dashboard example runs in the demo.
 *
 * TB_TEST_NODE_RED=<path to another node-red package's lib/red.js (or red.js)> runs it on that Node-RED
 * instead of the devDependency, as the node tests do.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import express from 'express';

// node-red has no bundled types for its embedding API beyond @types/node-red.
type NodeRed = typeof import('node-red');

/**
 * The main module (lib/red.js) of the node-red package that holds `file` (its lib/red.js, its CLI red.js or
 * any file inside it), or of the devDependency when `file` is not given.
 */
export function nodeRedMain(file: string | undefined = process.env.TB_TEST_NODE_RED): string {
  if (!file) return require.resolve('node-red');
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    const pkgFile = path.join(dir, 'package.json');
    if (fs.existsSync(pkgFile)) {
      const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { name?: string; main?: string };
      if (pkg.name === 'node-red') return path.join(dir, pkg.main ?? 'lib/red.js');
    }
    if (path.dirname(dir) === dir) throw new Error(`TB_TEST_NODE_RED=${file} is not inside a node-red package`);
  }
}

/** The Node-RED runtime to embed (loaded on first use, so that importing this file costs nothing). */
export function loadNodeRed(): NodeRed {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(nodeRedMain()) as NodeRed;
}

export interface EmbeddedOptions {
  userDir: string;
  port?: number;
  host?: string;
  flowFile?: string;
  /** Extra runtime settings (e.g. tbConnection... tunables). */
  settings?: Record<string, unknown>;
  logLevel?: 'off' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  credentialSecret?: string | false;
}

export interface Embedded {
  url: string;
  port: number;
  stop(): Promise<void>;
  RED: NodeRed;
}

export const REPO_ROOT = path.resolve(__dirname, '..');

/** Where the runtime serves the flows' own routes (http in, Dashboard 2): its root, as a plain Node-RED does. */
export const HTTP_NODE_ROOT = '/';

/**
 * The directory of Dashboard 2 (`@flowfuse/node-red-dashboard`) when it is installed, as in a dev checkout; undefined
 * without it. Named in `nodesDir`, it loads on any Node-RED (TB_TEST_NODE_RED too), not only on one whose own
 * node_modules hold it.
 */
export function dashboardDir(): string | undefined {
  try {
    return path.dirname(require.resolve('@flowfuse/node-red-dashboard/package.json', { paths: [REPO_ROOT] }));
  } catch {
    return undefined;
  }
}

export async function startNodeRed(o: EmbeddedOptions): Promise<Embedded> {
  const RED = loadNodeRed();
  const dashboard = dashboardDir();
  const app = express();
  const server = http.createServer(app);
  const settings = {
    userDir: o.userDir,
    flowFile: o.flowFile ?? 'flows.json',
    nodesDir: dashboard ? [REPO_ROOT, dashboard] : [REPO_ROOT],
    httpAdminRoot: '/',
    httpNodeRoot: HTTP_NODE_ROOT,
    uiHost: o.host ?? '127.0.0.1',
    credentialSecret: o.credentialSecret ?? 'embedded-test-secret',
    logging: { console: { level: o.logLevel ?? 'warn', metrics: false, audit: false } },
    editorTheme: { tours: false, projects: { enabled: false } },
    externalModules: { palette: { allowInstall: false } },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    ...(o.settings ?? {}),
  };
  // The embedding API's settings type is narrower than what the runtime accepts.
  RED.init(server, settings as unknown as Parameters<typeof RED.init>[1]);
  app.use(settings.httpAdminRoot, RED.httpAdmin);
  app.use(settings.httpNodeRoot, RED.httpNode);
  // A port in use is an error the caller can report (npm start names PORT), not an uncaught 'error' event.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  await RED.start();
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}`,
    port,
    RED,
    stop: async () => {
      await RED.stop();
      await new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}
