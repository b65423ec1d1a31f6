/**
 * The status a node shows, in words: the vocabulary of status texts (they live in the tb-connection catalog, read by
 * every node of the module), the status of an error, and a problem with a node's own settings found at deploy.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { TbApiError, TbError } from '../errors';
import { catalogKey } from '../settings/declare';

/** Runtime strings live in the tb-connection catalog; every node of the module reads them from there. */
const STATUS_NS = catalogKey('tb-connection', 'tb-connection.status.');

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
  | 'ruleUncertain'
  | 'serverTooOld'
  | 'waiting'
  | 'waitMet'
  | 'waitTimedOut'
  | 'waitCancelled'
  | 'triggerTrue'
  | 'apiJson'
  | 'apiText'
  | 'apiFileBytes'
  | 'apiFileKB'
  | 'apiFileMB'
  | 'apiEmpty'
  | 'notifySent'
  | 'notifyPartly'
  | 'notifyPending'
  | 'markedRead'
  | 'allMarkedRead'
  | 'unread'
  | 'relationCreated'
  | 'relationExisted'
  | 'relationDeleted'
  | 'relationMissing'
  | 'related'
  | 'oneRelated'
  | 'noRelated';

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
    case 'TB_RULE_NO_REPLY':
      return status(RED, 'red', 'ring', 'rpcNoReply');
    case 'TB_RULE_BAD_REPLY':
      return status(RED, 'red', 'ring', 'rpcBadReply');
    case 'TB_RULE_UNCERTAIN':
      return status(RED, 'red', 'ring', 'ruleUncertain');
    case 'TB_SERVER_TOO_OLD':
      return status(RED, 'red', 'dot', 'serverTooOld');
    default:
      if (err instanceof TbApiError) return status(RED, 'red', 'ring', 'httpError', { status: err.status });
      return status(RED, 'red', 'ring', 'error');
  }
}

/**
 * Red, with the reason an action failed on what it names: "not found", "not permitted" (a ring, or a dot where it is
 * the login's to fix), or the usual error texts.
 */
export function actionFailureStatus(RED: NodeAPI, err: unknown, permission: NodeStatus['shape'] = 'ring'): NodeStatus {
  if (err instanceof TbError && err.code === 'TB_NOT_FOUND') return status(RED, 'red', 'ring', 'notFound');
  if (err instanceof TbError && err.code === 'TB_PERMISSION') return status(RED, 'red', permission, 'notPermitted');
  return errorStatus(RED, err);
}

/** A problem with the node's own settings, found at deploy: a red dot and one log line (never a throw). */
export function setupProblem(RED: NodeAPI, node: Node, err: unknown): void {
  node.status({ ...errorStatus(RED, err), shape: 'dot' });
  node.error((err as Error).message);
}

/**
 * A node's status worked out at most once per turn of the event loop, however many changes ask for it, and set only
 * when it differs from the one shown: a fleet's updates would otherwise set it once each.
 */
export class TurnStatus {
  private scheduled = false;
  private shown = '';

  /** `compute`: the status now, or undefined to leave the one shown (a closed node, nothing to say). */
  constructor(
    private readonly node: Node,
    private readonly compute: () => NodeStatus | undefined,
  ) {}

  /** Asks for the status again: it is worked out once, at the end of this turn. */
  update(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const s = this.compute();
      if (!s) return;
      const key = `${s.fill}|${s.shape}|${s.text}`;
      if (key === this.shown) return;
      this.shown = key;
      this.node.status(s);
    });
  }

  /** Shows `s` at once (an error) in place of the worked-out status, which the next update sets again. */
  showNow(s: NodeStatus): void {
    this.shown = '';
    this.node.status(s);
  }
}
