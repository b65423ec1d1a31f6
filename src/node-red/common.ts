/**
 * Plumbing shared by the node files: status texts, error-to-status mapping, the config-node lookup, and the
 * input-handler contract (exactly one send+done or done(err) per message; never an unhandled rejection).
 */
import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbApiError, TbConfigError, TbError } from '../errors';
import type { PlatformClient } from '../platform/client';
import type { TbConnectionNode } from './connection';

/** Runtime strings live in the tb-connection catalog; every node of the module reads them from there. */
const STATUS_NS = 'node-red-contrib-thingsboard-query/tb-connection:tb-connection.status.';

export type SendFn = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
export type DoneFn = (err?: Error) => void;

export type StatusKey =
  | 'requesting'
  | 'found'
  | 'noMatch'
  | 'truncated'
  | 'count'
  | 'keys'
  | 'noKeys'
  | 'oneKey'
  | 'invalidInput'
  | 'noConnection'
  | 'configError'
  | 'authFailed'
  | 'needsApiKey'
  | 'tokenExpired'
  | 'rateLimited'
  | 'retrying'
  | 'unreachable'
  | 'timeout'
  | 'answerTooLarge'
  | 'httpError'
  | 'error'
  | 'connecting'
  | 'subscribed'
  | 'watchingEntities'
  | 'watchingEntity'
  | 'watchingNone'
  | 'alarms'
  | 'oneAlarm'
  | 'noAlarmsYet'
  | 'liveCount'
  | 'disconnected'
  | 'refused'
  | 'reconnecting'
  | 'idle'
  | 'unsubscribed'
  | 'alarmActive'
  | 'noAlarm'
  | 'alarmOnSome'
  | 'noAlarmOnAll'
  | 'building'
  | 'queued'
  | 'rows'
  | 'noRows'
  | 'oneRow'
  | 'acknowledged'
  | 'cleared'
  | 'assigned'
  | 'unassigned'
  | 'commented'
  | 'alarmRaised'
  | 'alarmUpdated'
  | 'deleted'
  | 'alreadyAcknowledged'
  | 'alreadyCleared'
  | 'alreadyAssigned'
  | 'alreadyUnassigned'
  | 'alreadyDeleted'
  | 'notFound'
  | 'notPermitted'
  | 'saved'
  | 'values'
  | 'oneValue'
  | 'noValues'
  | 'onePoint'
  | 'noPoints'
  | 'points'
  | 'pointsCut'
  | 'bulkProgress'
  | 'bulkDone'
  | 'bulkPartial'
  | 'rpcSent'
  | 'rpcReplied'
  | 'rpcQueued'
  | 'rpcState'
  | 'rpcFollowing'
  | 'rpcDelivered'
  | 'rpcFailed'
  | 'rpcExpired'
  | 'rpcNoReply'
  | 'rpcBadReply'
  | 'rpcUncertain'
  | 'rpcCancelled'
  | 'waiting'
  | 'waitMet'
  | 'waitTimedOut'
  | 'waitCancelled';

/** Every variable a status text may hold, as markers that survive translation. */
const MARKERS: Record<string, string> = {
  count: '\u0001count\u0001',
  total: '\u0001total\u0001',
  status: '\u0001status\u0001',
  n: '\u0001n\u0001',
  s: '\u0001s\u0001',
  failed: '\u0001failed\u0001',
};
const MARKER_RE = /\u0001(\w+)\u0001/g;
/** Translated templates by key: i18next is far too slow to run for every message's status. */
const templates = new Map<string, string>();

export function text(RED: NodeAPI, key: StatusKey, vars?: Record<string, string | number>): string {
  let tpl = templates.get(key);
  if (tpl === undefined) {
    tpl = RED._(STATUS_NS + key, MARKERS);
    templates.set(key, tpl);
  }
  if (tpl.indexOf('\u0001') < 0) return tpl;
  return tpl.replace(MARKER_RE, (_m, name: string) => String(vars?.[name] ?? ''));
}

/** A green count in words: `many` with the number, `one` for 1, `none` for 0 (e.g. "12 rows", "1 row", "no rows"). */
export function countStatus(RED: NodeAPI, count: number, many: StatusKey, one: StatusKey, none: StatusKey): NodeStatus {
  return count === 0
    ? status(RED, 'green', 'dot', none)
    : count === 1
      ? status(RED, 'green', 'dot', one)
      : status(RED, 'green', 'dot', many, { count });
}

export function status(
  RED: NodeAPI,
  fill: NodeStatus['fill'],
  shape: NodeStatus['shape'],
  key: StatusKey,
  vars?: Record<string, string | number>,
): NodeStatus {
  return { fill, shape, text: text(RED, key, vars) };
}

/** The status that shows an error: red dot for what needs the user to fix a setting, red ring otherwise. */
export function errorStatus(RED: NodeAPI, err: unknown): NodeStatus {
  const code = err instanceof TbError ? err.code : undefined;
  switch (code) {
    case 'TB_INVALID_INPUT':
      return status(RED, 'red', 'ring', 'invalidInput');
    case 'TB_CONFIG':
      return status(RED, 'red', 'dot', 'configError');
    case 'TB_AUTH_FAILED':
      return status(RED, 'red', 'dot', 'authFailed');
    case 'TB_2FA_REQUIRED':
      return status(RED, 'red', 'dot', 'needsApiKey');
    case 'TB_TOKEN_EXPIRED':
      return status(RED, 'red', 'dot', 'tokenExpired');
    case 'TB_RATE_LIMITED':
      return status(RED, 'red', 'ring', 'rateLimited');
    case 'TB_UNREACHABLE':
      return status(RED, 'red', 'ring', 'unreachable');
    case 'TB_TIMEOUT':
      return status(RED, 'red', 'ring', 'timeout');
    case 'TB_RESPONSE_TOO_LARGE':
      return status(RED, 'red', 'dot', 'answerTooLarge');
    case 'TB_RPC_NO_REPLY':
      return status(RED, 'red', 'ring', 'rpcNoReply');
    case 'TB_RPC_BAD_REPLY':
      return status(RED, 'red', 'ring', 'rpcBadReply');
    case 'TB_RPC_FAILED':
      return status(RED, 'red', 'ring', 'rpcFailed');
    case 'TB_RPC_EXPIRED':
      return status(RED, 'red', 'ring', 'rpcExpired');
    case 'TB_RPC_UNCERTAIN':
      return status(RED, 'red', 'ring', 'rpcUncertain');
    default:
      if (err instanceof TbApiError) return status(RED, 'red', 'ring', 'httpError', { status: err.status });
      return status(RED, 'red', 'ring', 'error');
  }
}

/** Makes sure what reaches done() is an Error (a Catch node gets `msg.error.message = err.toString()`). */
export function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : 'Unexpected error');
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

/**
 * Tracks requests in flight for one node: a blue dot while any is in flight, and the outcome of the last
 * one once none is left (so a burst of messages does not flood the editor with status events).
 */
export class Activity {
  private inflight = 0;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
  ) {}

  start(): void {
    if (this.inflight++ === 0) this.node.status(status(this.RED, 'blue', 'dot', 'requesting'));
  }

  /** Shows a status now (e.g. "retry 2 (429)") without ending the request. */
  show(s: NodeStatus): void {
    this.node.status(s);
  }

  end(outcome: NodeStatus): void {
    if (--this.inflight <= 0) {
      this.inflight = 0;
      this.node.status(outcome);
    }
  }

  /** An outcome that does not come from a request (bad input): shown at once. */
  immediate(outcome: NodeStatus): void {
    if (this.inflight === 0) this.node.status(outcome);
  }
}

/**
 * Attaches an async input handler with the Node-RED contract: the handler either resolves (it has called
 * send itself) and done() is called, or rejects and done(err) is called. Errors never escape.
 */
export function onInput(node: Node, handler: (msg: NodeMessageInFlow, send: SendFn) => Promise<void>): void {
  node.on('input', (msg, send, done) => {
    let p: Promise<void>;
    try {
      p = handler(msg, send);
    } catch (err) {
      done(asError(err));
      return;
    }
    p.then(
      () => done(),
      (err: unknown) => done(asError(err)),
    );
  });
}

/**
 * Runs one request of a node under its Activity: blue while in flight; on failure the error status, then
 * the error goes on to done(err). The operation sets the success status itself (activity.end).
 */
export async function tracked(RED: NodeAPI, activity: Activity, work: () => Promise<void>): Promise<void> {
  activity.start();
  try {
    await work();
  } catch (err) {
    activity.end(errorStatus(RED, err));
    throw err;
  }
}

/**
 * The close handler every flow node shares: `stop` drops what the node holds (subscriptions), then the node
 * leaves the connection's users and clears its status. Never throws (the runtime waits for done()).
 */
export function onClose(node: Node, conn: TbConnectionNode | undefined, stop?: () => void): void {
  node.on('close', (_removed: boolean, done: () => void) => {
    try {
      stop?.();
    } catch {
      /* the connection is unusable: nothing left to release */
    }
    conn?.deregister(node);
    node.status({});
    done();
  });
}

/** A checkbox setting ("true" in older flows). */
export function flag(v: unknown): boolean {
  return v === true || v === 'true';
}

/** A positive whole-number setting, or the fallback. */
export function intSetting(v: unknown, fallback: number): number {
  const n = typeof v === 'number' ? v : parseInt(String(v ?? ''), 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** A problem with the node's own settings, found at deploy: a red dot and one log line (never a throw). */
export function setupProblem(RED: NodeAPI, node: Node, err: unknown): void {
  node.status({ ...errorStatus(RED, err), shape: 'dot' });
  node.error((err as Error).message);
}
