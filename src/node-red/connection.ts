/**
 * The shape of the tb-connection config node as the flow nodes see it, and the settings it reads.
 * The config node owns one PlatformClient (one keep-alive HTTP client and one token manager) per server,
 * and keeps a `users` map of the nodes that use it: the runtime then routes the config node's own status
 * and errors to those nodes' tabs, and the config node fans its connection state out to them. A flow node looks
 * its connection up here, and learns why it has no usable one.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import type { AnalyticsClient } from '../analytics/client';
import { TbConfigError, type TbError } from '../errors';
import type { LiveHub } from '../live/hub';
import type { PlatformClient } from '../platform/client';
import { status } from './status';

export interface TbCredentials {
  username?: string;
  password?: string;
  apiKey?: string;
  token?: string;
  analyticsUsername?: string;
  analyticsPassword?: string;
}

export interface TbConnectionNode extends Node<TbCredentials> {
  /** Undefined when the configuration is unusable; then `configError` says why. */
  platform: PlatformClient | undefined;
  configError: TbError | undefined;
  users: Record<string, Node>;
  /** A flow node starts using the connection. */
  register(user: Node): void;
  /** A flow node stops using it (from its close handler). */
  deregister(user: Node): void;
  /** The shared WebSocket of this connection (created on first use; throws the config error if unusable). */
  live(): LiveHub;
  /** The analytics client (created on first use; throws a config error when no analytics URL is set). */
  analytics(): AnalyticsClient;
  /** The status a new or idle user should show for the connection's state, if any (e.g. auth refused). */
  connectionStatus(): NodeStatus | undefined;
}

/** Reads a numeric tunable `tbConnection…` from the Node-RED settings, with a default. */
export function setting(RED: NodeAPI, name: string, fallback: number): number {
  const v = (RED.settings as unknown as Record<string, unknown>)[name];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
}

/**
 * Looks up the connection config node. Returns undefined (after a red-dot status and one log line) when the
 * node has none, so that the caller can reject each message with `done(err)` instead of throwing.
 */
export function lookupConnection(RED: NodeAPI, node: Node, id: string | undefined): TbConnectionNode | undefined {
  const conn = id ? (RED.nodes.getNode(id) as TbConnectionNode | null) : null;
  if (!conn) {
    node.status(status(RED, 'red', 'dot', 'noConnection'));
    node.error(noConnectionError().message);
    return undefined;
  }
  return conn;
}

export function noConnectionError(): TbConfigError {
  return new TbConfigError(
    'No ThingsBoard connection is selected (or it is disabled): open the node and choose a connection',
  );
}

/** The connection's platform client, or the error that says why there is none. */
export function usableClient(conn: TbConnectionNode | undefined): PlatformClient {
  if (!conn) throw noConnectionError();
  if (conn.configError) throw conn.configError;
  if (!conn.platform) throw noConnectionError();
  return conn.platform;
}
