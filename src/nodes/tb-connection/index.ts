/**
 * tb-connection: the config node that owns everything about one ThingsBoard server. Wiring only: it reads its
 * settings by their declaration (settings.ts) and builds from them the HTTP client and its sign-in, the shared live
 * connection and the analytics client, which the nodes that use it share.
 */
import type https from 'node:https';
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { DEFAULT_EDITOR_OPTIONS } from '../../admin/editor-api';
import { registerEditorEndpoints, type EditorConnection } from '../../admin/routes';
import { AnalyticsClient } from '../../analytics/client';
import { TbConfigError, TbError } from '../../errors';
import { LiveHub } from '../../live/hub';
import { setting, TbConnectionNode, TbCredentials } from '../../node-red/connection';
import { nodeSettings } from '../../node-red/settings';
import { errorStatus } from '../../node-red/status';
import { PlatformClient } from '../../platform/client';
import { MIGRATIONS } from './migrations';
import { TB_CONNECTION } from './settings';

/** The retries of a connection that leaves them empty and of a settings.js that does not set them. */
const DEFAULT_RETRIES = TB_CONNECTION.settings.retries.default as number;

interface TlsConfigNode extends Node {
  addTLSOptions(opts: https.AgentOptions): https.AgentOptions;
}

export default function (RED: NodeAPI): void {
  registerEditorEndpoints(RED, (id) => editorConnection(RED, id));
  function TbConnection(this: TbConnectionNode, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.users = {};
    node.platform = undefined;
    node.configError = undefined;
    let refusal: TbError | undefined;
    let hub: LiveHub | undefined;
    let analytics: AnalyticsClient | undefined;
    let tls: https.AgentOptions | undefined;

    const { values, problems } = nodeSettings(node, TB_CONNECTION, MIGRATIONS, config);
    const creds: TbCredentials = node.credentials || {};
    const url = values.url.trim();
    const maxResponseBytes = Math.floor(values.maxResponseMB * 1024 * 1024);
    try {
      if (!/^https?:\/\/[^\s/]+/i.test(url)) {
        throw new TbConfigError(
          `url must be the http(s) address of the ThingsBoard platform, e.g. http://localhost:8080 (got "${url}")`,
        );
      }
      // A setting the dialog would refuse (such as an authMode that is none of password, apiKey, token).
      if (problems.length) throw problems[0];
      if (values.tls) {
        const tlsNode = RED.nodes.getNode(values.tls) as TlsConfigNode | null;
        if (tlsNode) tls = tlsNode.addTLSOptions({});
      }
      node.platform = new PlatformClient({
        url,
        authMode: values.authMode,
        credentials: { username: creds.username, password: creds.password, apiKey: creds.apiKey, token: creds.token },
        timeoutMs: values.timeout as number,
        tls,
        retry: {
          // Left empty (a connection saved before it had retries): settings.js, else the setting's default.
          retries: values.retries ?? setting(RED, 'tbConnectionRetryCount', DEFAULT_RETRIES),
          initialMs: setting(RED, 'tbConnectionRetryInitialMs', 1000),
          maxMs: setting(RED, 'tbConnectionRetryMaxMs', 30000),
          jitter: 0.2,
          maxTotalMs: values.retryBudget as number,
        },
        maxResponseBytes,
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
          maxMessageBytes: Math.floor(values.wsMessageLimit * 1024),
          suspectWindowMs: setting(RED, 'tbConnectionSuspectWindowMs', 3000),
          log: (level, text) => (level === 'warn' ? node.warn(text) : node.debug(text)),
        });
      }
      return hub;
    };
    node.analytics = (): AnalyticsClient => {
      if (analytics) return analytics;
      const aUrl = values.analyticsUrl.trim();
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
      const own = values.analyticsAuth === 'own';
      const username = own ? creds.analyticsUsername : creds.username;
      const password = own ? creds.analyticsPassword : creds.password;
      if (!username || !password) {
        throw new TbConfigError(
          own
            ? 'The connection needs the analytics username and password (analytics authentication "own")'
            : 'The analytics service needs a username and password: set them on the connection, or choose separate ' +
                'analytics credentials',
        );
      }
      analytics = new AnalyticsClient({
        url: aUrl,
        username,
        password,
        timeoutMs: values.reportTimeout as number,
        maxResponseBytes,
        // A whole number from 1 to 10 (its default when the saved one is not).
        concurrency: values.reportConcurrency as number,
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
    credentials: TB_CONNECTION.credentials,
  });
}

/** A deployed tb-connection as the editor endpoints need it (the admin endpoints know no node type: they ask this). */
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
