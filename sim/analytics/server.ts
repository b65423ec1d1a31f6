/** The analytics service on its own HTTP server (tests), and the helper that mounts it on an existing one. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Dataset, type DatasetOptions } from '../dataset';
import { seedDataset, type UserAccount } from '../seed';
import { AnalyticsService, type AnalyticsOptions } from './service';

export interface AnalyticsServerOptions extends AnalyticsOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** default 0 (a free port) */
  port?: number;
  /** a dataset to compute from; default: a fresh seeded one (`datasetOptions`) */
  data?: Dataset;
  /** the accounts (required with `data`; default: the seed's users) */
  users?: readonly UserAccount[] | (() => readonly UserAccount[]);
  /** options of the fresh dataset */
  datasetOptions?: DatasetOptions;
  /** the clock; default Date.now */
  now?: () => number;
}

export interface AnalyticsServer {
  readonly service: AnalyticsService;
  readonly data: Dataset;
  readonly httpServer: Server;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** url + base path, e.g. http://127.0.0.1:PORT/apiTrendz/ (what a client calls analyticsUrl) */
  readonly baseUrl: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Starts the analytics service alone on a server; other paths answer a Spring-style 404. */
export async function startAnalyticsServer(opts: AnalyticsServerOptions = {}): Promise<AnalyticsServer> {
  const now = opts.now ?? Date.now;
  let data = opts.data;
  let users = opts.users;
  if (!data) {
    data = new Dataset(now, opts.datasetOptions);
    const seed = seedDataset(data, opts.datasetOptions ?? {});
    users = users ?? seed.users;
  }
  if (!users) throw new Error('startAnalyticsServer: `users` is required together with `data`');
  const service = new AnalyticsService({ ...opts, data, users, now });
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (service.handle(req, res)) return;
    req.resume();
    const body = JSON.stringify({
      timestamp: new Date(now()).toISOString().replace('Z', '+00:00'),
      status: 404,
      error: 'Not Found',
      path: (req.url ?? '/').split('?')[0],
    });
    res.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.setNoDelay(true);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  let stopped = false;
  return {
    service,
    data,
    httpServer: server,
    url,
    baseUrl: url + service.basePath,
    port: addr.port,
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      service.shutdown();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
    },
  };
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Mounts the service on an existing node:http server: its paths go to the service, everything else to the
 * server's previous 'request' listeners. Returns a function that undoes it.
 */
export function attachAnalytics(server: Server, service: AnalyticsService): () => void {
  const previous = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const dispatch: RequestListener = (req, res) => {
    if (service.handle(req, res)) return;
    for (const l of previous) l.call(server, req, res);
  };
  server.on('request', dispatch);
  return () => {
    server.off('request', dispatch);
    for (const l of previous) server.on('request', l);
  };
}
