/**
 * Starts Node-RED embedded (express + RED.init), with this repository loaded as a module through
 * `nodesDir`, on 127.0.0.1 and a port of your choice (0 = any free port). Used by `npm start` (the demo),
 * the browser tests and the benchmarks.
 */
import http from 'node:http';
import path from 'node:path';
import express from 'express';

// node-red has no bundled types for its embedding API beyond @types/node-red.
import RED from 'node-red';

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
  RED: typeof RED;
}

export const REPO_ROOT = path.resolve(__dirname, '..');

export async function startNodeRed(o: EmbeddedOptions): Promise<Embedded> {
  const app = express();
  const server = http.createServer(app);
  const settings = {
    userDir: o.userDir,
    flowFile: o.flowFile ?? 'flows.json',
    nodesDir: [REPO_ROOT],
    httpAdminRoot: '/',
    httpNodeRoot: '/api-node',
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
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
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
