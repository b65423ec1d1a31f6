/**
 * tb-connection: the config node that owns everything about one ThingsBoard server.
 * Wiring only: the HTTP client, token lifecycle and (later) the shared WebSocket live in src/platform and
 * src/live.
 */
import type https from 'node:https';
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { DEFAULT_EDITOR_OPTIONS } from '../../admin/editor-api';
import { registerEditorEndpoints, type EditorConnection } from '../../admin/routes';
import { AnalyticsClient } from '../../analytics/client';
import { TbConfigError, TbError } from '../../errors';
import { LiveHub } from '../../live/hub';
import { setting, TbConnectionNode, TbCredentials } from '../../node-red/connection';
import { errorStatus } from '../../node-red/status';
import { AuthMode } from '../../platform/auth';
import { PlatformClient } from '../../platform/client';
import { DEFAULT_MAX_RESPONSE_MB } from '../../platform/http';

interface TbConnectionDef extends NodeDef {
  url: string;
  authMode: string;
  tls?: string;
  timeout?: string | number;
  /** Largest WebSocket message the server accepts, in KiB (ThingsBoard's default is 32). */
  wsMessageLimit?: string | number;
  /** Retries of a request that failed for a reason worth another try (429, 502/503/504, refused connection). */
  retries?: string | number;
  /** At most this many seconds of waiting between the tries of one request. */
  retryBudget?: string | number;
  /** The largest answer read, in MB; a larger one is dropped while it is read. */
  maxResponseMB?: string | number;
  analyticsUrl?: string;
  analyticsAuth?: string;
  reportConcurrency?: string | number;
  reportTimeout?: string | number;
}

interface TlsConfigNode extends Node {
  addTLSOptions(opts: https.AgentOptions): https.AgentOptions;
}

const AUTH_MODES: readonly string[] = ['password', 'apiKey', 'token'];

function positive(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : parseFloat(String(v ?? ''));
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** A whole number ≥ 0 from the dialog, else `fallback` (absent in flows made before the setting). */
function count(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : String(v ?? '').trim() === '' ? NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

function maxResponseBytes(config: TbConnectionDef): number {
  return Math.floor(positive(config.maxResponseMB, DEFAULT_MAX_RESPONSE_MB) * 1024 * 1024);
}

export default function (RED: NodeAPI): void {
  registerEditorEndpoints(RED, (id) => editorConnection(RED, id));
  function TbConnection(this: TbConnectionNode, config: TbConnectionDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.users = {};
    node.platform = undefined;
    node.configError = undefined;
    let refusal: TbError | undefined;
    let hub: LiveHub | undefined;
    let analytics: AnalyticsClient | undefined;
    let tls: https.AgentOptions | undefined;

    const creds: TbCredentials = node.credentials || {};
    const url = (config.url || '').trim();
    const authMode = (config.authMode || 'password') as AuthMode;
    try {
      if (!/^https?:\/\/[^\s/]+/i.test(url)) {
        throw new TbConfigError(
          `url must be the http(s) address of the ThingsBoard platform, e.g. http://localhost:8080 (got "${url}")`,
        );
      }
      if (!AUTH_MODES.includes(authMode)) {
        throw new TbConfigError(`authMode must be one of ${AUTH_MODES.join(', ')} (got "${String(config.authMode)}")`);
      }
      if (config.tls) {
        const tlsNode = RED.nodes.getNode(config.tls) as TlsConfigNode | null;
        if (tlsNode) tls = tlsNode.addTLSOptions({});
      }
      node.platform = new PlatformClient({
        url,
        authMode,
        credentials: { username: creds.username, password: creds.password, apiKey: creds.apiKey, token: creds.token },
        timeoutMs: positive(config.timeout, 30) * 1000,
        tls,
        retry: {
          // The connection's own setting; flows made before it fall back to settings.js, then to 3.
          retries: count(config.retries, setting(RED, 'tbConnectionRetryCount', 3)),
          initialMs: setting(RED, 'tbConnectionRetryInitialMs', 1000),
          maxMs: setting(RED, 'tbConnectionRetryMaxMs', 30000),
          jitter: 0.2,
          maxTotalMs: positive(config.retryBudget, 30) * 1000,
        },
        maxResponseBytes: maxResponseBytes(config),
        auth: {
          // A redeploy with the same address and credentials keeps the tokens (no new login).
          cache: { key: node.id, url },
          refusalCooldownMs: setting(RED, 'tbConnectionRefusalCooldownMs', 5000),
          onRefused: (err) => {
            refusal = err;
            const s = errorStatus(RED, err);
            for (const id in node.users) node.users[id].status(s);
          },
          onAccepted: () => {
            refusal = undefined;
          },
        },
      });
      node.platform.auth.checkConfig();
    } catch (err) {
      node.configError = err instanceof TbError ? err : new TbConfigError(String(err));
      node.error(node.configError.message);
    }

    node.register = (user: Node) => {
      node.users[user.id] = user;
      const s = node.connectionStatus();
      if (s) user.status(s);
    };
    node.deregister = (user: Node) => {
      delete node.users[user.id];
    };
    node.live = (): LiveHub => {
      if (node.configError) throw node.configError;
      const platform = node.platform as PlatformClient;
      if (!hub) {
        hub = new LiveHub({
          url,
          auth: () => platform.wsAuth(),
          onAuthRejected: () => platform.auth.invalidate(),
          tls,
          backoff: {
            initialMs: setting(RED, 'tbConnectionReconnectInitialMs', 1000),
            maxMs: setting(RED, 'tbConnectionReconnectMaxMs', 60000),
            jitter: 0.2,
          },
          policyBackoffMs: setting(RED, 'tbConnectionPolicyBackoffMs', 60000),
          authBackoffMs: setting(RED, 'tbConnectionAuthBackoffMs', 30000),
          pingIntervalMs: setting(RED, 'tbConnectionPingIntervalMs', 20000),
          handshakeTimeoutMs: setting(RED, 'tbConnectionHandshakeTimeoutMs', 15000),
          maxMessageBytes: Math.floor(positive(config.wsMessageLimit, 32) * 1024),
          suspectWindowMs: setting(RED, 'tbConnectionSuspectWindowMs', 3000),
          log: (level, text) => (level === 'warn' ? node.warn(text) : node.debug(text)),
        });
      }
      return hub;
    };
    node.analytics = (): AnalyticsClient => {
      if (analytics) return analytics;
      const aUrl = (config.analyticsUrl || '').trim();
      if (!aUrl) {
        throw new TbConfigError(
          'The connection has no analytics URL: open the connection and set it (e.g. http://host:8888/apiTrendz/ or <platform url>/apiTrendz/)',
        );
      }
      if (!/^https?:\/\/[^\s/]+/i.test(aUrl)) {
        throw new TbConfigError(
          `analyticsUrl must be an http(s) address such as http://host:8888/apiTrendz/ (got "${aUrl}")`,
        );
      }
      const own = config.analyticsAuth === 'own';
      const username = own ? creds.analyticsUsername : creds.username;
      const password = own ? creds.analyticsPassword : creds.password;
      if (!username || !password) {
        throw new TbConfigError(
          own
            ? 'The connection needs the analytics username and password (analytics authentication "own")'
            : 'The analytics service needs a username and password: set them on the connection, or choose separate analytics credentials',
        );
      }
      analytics = new AnalyticsClient({
        url: aUrl,
        username,
        password,
        timeoutMs: positive(config.reportTimeout, 300) * 1000,
        maxResponseBytes: maxResponseBytes(config),
        concurrency: Math.min(10, Math.max(1, Math.floor(positive(config.reportConcurrency, 2)))),
        tls,
      });
      return analytics;
    };
    node.connectionStatus = (): NodeStatus | undefined => {
      if (node.configError) return errorStatus(RED, node.configError);
      if (refusal) return errorStatus(RED, refusal);
      return undefined;
    };

    node.on('close', (removed: boolean, done: () => void) => {
      if (removed) node.platform?.auth.forgetCached();
      node.platform?.close();
      analytics?.close();
      analytics = undefined;
      const closing = hub ? hub.close(2000) : Promise.resolve();
      hub = undefined;
      closing.then(done, done);
    });
  }

  RED.nodes.registerType('tb-connection', TbConnection as unknown as Parameters<NodeAPI['nodes']['registerType']>[1], {
    credentials: {
      username: { type: 'text' },
      password: { type: 'password' },
      apiKey: { type: 'password' },
      token: { type: 'password' },
      analyticsUsername: { type: 'text' },
      analyticsPassword: { type: 'password' },
    },
  });
}

/** A deployed tb-connection as the editor endpoints need it (src/admin knows no node type: it asks this). */
function editorConnection(RED: NodeAPI, id: string): EditorConnection | undefined {
  const conn = RED.nodes.getNode(id) as TbConnectionNode | null;
  if (!conn || conn.type !== 'tb-connection') return undefined;
  const creds: TbCredentials = conn.credentials || {};
  return {
    platform: conn.platform,
    configError: conn.configError,
    secrets: [creds.password, creds.apiKey, creds.token, creds.analyticsPassword],
    options: {
      cacheMs: setting(RED, 'tbConnectionEditorCacheMs', DEFAULT_EDITOR_OPTIONS.cacheMs),
      cacheSize: setting(RED, 'tbConnectionEditorCacheSize', DEFAULT_EDITOR_OPTIONS.cacheSize),
    },
  };
}
