/**
 * tb-rpc's per-message work: the method (TypedInput, by default msg.method, else msg.topic), the params (msg.payload,
 * fixed JSON or none: the Params setting, checked at deploy), the request of each message (checked before anything
 * is sent), one device's send and, for a persistent RPC with `waitFor: final`, the following to its final state,
 * the cancel of a persistent RPC (`msg.action = "cancel"`), and what each puts on the message.
 */
import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbConfigError, TbError } from '../../errors';
import { withProps, type DeviceAction, type Props } from '../../families/device-action';
import { setting } from '../../node-red/connection';
import { type SendFn } from '../../node-red/input';
import { actionFailureStatus, status } from '../../node-red/status';
import { TypedValue } from '../../node-red/typed-value';
import { Gate } from '../../platform/bulk';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import type { Followed, Poke } from '../../platform/rpc';
import { DEFAULT_FOLLOW, failureReason, replyOf, type FollowTiming, type RpcRequest } from '../../protocol/rpc';
import type { EntityId } from '../../protocol/types';
import type { OptionReader } from '../../settings/options';
import {
  AUTO_METHOD_TEXT,
  looksLikeTimestamp,
  methodFromMessage,
  paramsOf,
  prepareAction,
  prepareCancelId,
  prepareMethod,
  prepareParamsSetting,
  prepareRpcRequest,
  type ParamsSetting,
} from './logic';
import { METHOD_SOURCES, type RpcSettings } from './settings';

/** The polling of persistent RPCs, from the settings (tbConnectionRpcPoll…), defaults 1 s → 10 s. */
export function followTiming(RED: NodeAPI): FollowTiming {
  return {
    initialMs: setting(RED, 'tbConnectionRpcPollInitialMs', DEFAULT_FOLLOW.initialMs) || DEFAULT_FOLLOW.initialMs,
    maxMs: setting(RED, 'tbConnectionRpcPollMaxMs', DEFAULT_FOLLOW.maxMs) || DEFAULT_FOLLOW.maxMs,
    graceMs: setting(RED, 'tbConnectionRpcExpiryGraceMs', DEFAULT_FOLLOW.graceMs),
  };
}

/** The method and params settings, and the request of each message. */
export class RpcInputs {
  readonly method: TypedValue;
  /** The Params setting, or undefined when it is wrong (then `paramsProblem` says why). */
  private readonly params: ParamsSetting | undefined;
  readonly paramsProblem: TbConfigError | undefined;
  private warnedTimestamp = false;

  constructor(
    RED: NodeAPI,
    private readonly node: Node,
    config: Pick<RpcSettings, 'method' | 'methodType' | 'paramsFrom' | 'params'>,
  ) {
    this.method = new TypedValue(RED, node, {
      name: 'method',
      value: config.method,
      type: config.methodType,
      types: METHOD_SOURCES,
      auto: (msg) => methodFromMessage(msg as { method?: unknown; topic?: unknown }),
      check: (v, field) => prepareMethod({ value: v, field }),
      sameName: 'method',
    });
    try {
      this.params = prepareParamsSetting(config.paramsFrom, config.params);
    } catch (err) {
      // A setting of the node: shown at deploy, and every message is refused with it (nothing sent).
      this.paramsProblem = new TbConfigError((err as Error).message);
    }
  }

  /** Where the method is read by default, for the help and messages. */
  static readonly AUTO = AUTO_METHOD_TEXT;

  async request(msg: NodeMessageInFlow, now: number, options: OptionReader): Promise<RpcRequest> {
    if (this.paramsProblem) throw this.paramsProblem;
    const r = this.method.resolve(msg);
    const s = r instanceof Promise ? await r : r;
    const method = prepareMethod(s);
    const params = paramsOf(this.params as ParamsSetting, msg.payload);
    const req = prepareRpcRequest(method, params.value, options, now, params.field);
    if (params.field === 'msg.payload') this.warnTimestamp(msg.payload, now);
    return req;
  }

  /**
   * An inject's default payload (a timestamp) sent as the params: most likely not what the command wants, and it
   * would go unnoticed (msg.rpc.params shows it afterwards). Said once per deploy; the command is still sent.
   */
  private warnTimestamp(payload: unknown, now: number): void {
    if (this.warnedTimestamp || !looksLikeTimestamp(payload, now)) return;
    this.warnedTimestamp = true;
    this.node.warn(
      `msg.payload is ${String(payload)}, which looks like a timestamp (an inject node's default payload), and was ` +
        'sent as the command\'s params. If the command takes no params or fixed ones, set Params in the node to "no ' +
        'params" or "fixed JSON"; said once',
    );
  }
}

/** The followers of one node, by RPC id: a cancel pokes its follower so that it sees the deletion at once. */
export class Followers {
  private readonly pokes = new Map<string, Poke>();
  private open = 0;

  constructor(
    private readonly RED: NodeAPI,
    private readonly action: DeviceAction,
    private readonly timing: FollowTiming,
  ) {}

  poke(id: string): void {
    this.pokes.get(id)?.now?.();
  }

  /**
   * `msg.action = "cancel"`: deletes the persistent RPC `msg.rpc.id` and outputs `msg.rpc = {id, status: "DELETED"}`;
   * a follower of that RPC in this node looks at once (and ends its message as deleted). `client` gives the
   * connection's client (it throws the reason when there is none). Throws before anything is sent on bad input.
   */
  async cancel(msg: NodeMessageInFlow & { rpc?: unknown }, send: SendFn, client: () => PlatformClient): Promise<void> {
    const activity = this.action.activity;
    let id: string;
    let c: PlatformClient;
    try {
      id = prepareCancelId(msg.rpc);
      c = client();
    } catch (err) {
      activity.immediate(actionFailureStatus(this.RED, err));
      throw err;
    }
    activity.start();
    try {
      await c.rpc.cancel(id, this.action.call);
    } catch (err) {
      activity.end(actionFailureStatus(this.RED, err));
      throw err;
    }
    this.poke(id);
    msg.rpc = { id, status: 'DELETED' };
    msg.payload = { id, status: 'DELETED' };
    send(msg);
    activity.end(status(this.RED, 'green', 'dot', 'rpcCancelled'));
  }

  /**
   * One device's RPC: the send, then (persistent, waitFor final) the following; the message properties it gives,
   * or an error carrying msg.rpc. `gate` bounds the requests of a bulk.
   */
  async work(
    client: PlatformClient,
    e: EntityId,
    req: RpcRequest,
    call: CallOptions,
    gate: Gate | undefined,
    single: boolean,
  ): Promise<Props> {
    const send = () => client.rpc.send(e, req, call);
    const sent = await (gate ? gate.run(send) : send());
    const rpc = rpcFields(req);
    if (sent.kind === 'reply') return { payload: sent.reply, rpc: { ...rpc, status: 'SUCCESSFUL' } };
    if (sent.kind === 'sent') return noReply({ ...rpc, status: 'SENT' });
    const id = sent.rpcId;
    if (req.waitFor === 'accepted') return noReply({ id, ...rpc, status: 'QUEUED' });

    const poke: Poke = {};
    this.pokes.set(id, poke);
    this.open++;
    this.showFollowing(single, 'QUEUED');
    let end: Followed;
    try {
      end = await client.rpc.follow(id, req.mode, req.body.expirationTime, {
        ...call,
        timing: this.timing,
        signal: this.action.abort.signal,
        poke,
        gate: gate ? (fn) => gate.run(fn) : undefined,
        onState: (s) => this.showFollowing(single, s),
      });
    } finally {
      this.pokes.delete(id);
      this.open--;
    }
    return outcome(e, req, id, end);
  }

  private showFollowing(single: boolean, state: string): void {
    if (this.action.stop.stopped) return;
    this.action.activity.show(
      single
        ? status(this.RED, 'blue', 'ring', 'rpcState', { status: state })
        : status(this.RED, 'blue', 'ring', 'rpcFollowing', { count: this.open }),
    );
  }
}

/**
 * An RPC that ended without a reply to pass on (one-way, or queued): what was done goes in msg.payload too, where a
 * debug node looks first (its own object: a later node that sets msg.payload's fields leaves msg.rpc as it was).
 */
function noReply(rpc: Record<string, unknown>): Props {
  return { payload: { ...rpc }, rpc };
}

/** What msg.rpc says of every RPC sent: its method, and the params sent (absent when none were). */
function rpcFields(req: RpcRequest): { method: string; params?: unknown } {
  return req.body.params === undefined ? { method: req.method } : { method: req.method, params: req.body.params };
}

/** The final state of a followed RPC as message properties, or as an error carrying them. */
function outcome(e: EntityId, req: RpcRequest, id: string, end: Followed): Props {
  const who = `${e.entityType} ${e.id}`;
  const method = req.method;
  const rpc = { id, ...rpcFields(req) };
  const st = end.rpc.status;
  const what = `The persistent RPC ${id} ("${method}") to ${who}`;
  switch (end.outcome) {
    case 'done':
      if (req.mode === 'oneway') return noReply({ ...rpc, status: st === 'SUCCESSFUL' ? 'SUCCESSFUL' : 'DELIVERED' });
      return { payload: replyOf(end.rpc.response), rpc: { ...rpc, status: 'SUCCESSFUL' } };
    case 'failed':
      throw withProps(new TbError('TB_RPC_FAILED', `${what} ended FAILED: ${failureReason(end.rpc.response)}`), {
        rpc: { ...rpc, status: 'FAILED', response: end.rpc.response ?? null },
      });
    case 'expired': {
      const at =
        typeof req.body.expirationTime === 'number'
          ? new Date(end.rpc.expirationTime ?? req.body.expirationTime).toISOString()
          : 'its expiration';
      const text = end.expiredLocally
        ? `${what} was still ${st} at its expiration (${at}): it will not run any more, counted as EXPIRED`
        : `${what} ended EXPIRED: it did not complete before its expiration (${at}); the device stayed offline, or ` +
          'did not answer';
      throw withProps(new TbError('TB_RPC_EXPIRED', text), { rpc: { ...rpc, status: 'EXPIRED' } });
    }
    default:
      throw withProps(new TbError('TB_NOT_FOUND', `${what} was deleted (cancelled) before it reached a final state`), {
        rpc: { ...rpc, status: 'DELETED' },
      });
  }
}

/** "cancel" or "send"; a bad msg.action is undefined here (it is refused with the other checks of a send). */
export function actionOf(msg: { action?: unknown }): 'send' | 'cancel' | undefined {
  try {
    return prepareAction(msg.action);
  } catch {
    return undefined;
  }
}

/** Green: what happened ("replied", "sent", "queued", "delivered"). */
export function rpcStatus(RED: NodeAPI, props: Props): NodeStatus {
  const rpc = props.rpc as { status?: string } | undefined;
  switch (rpc?.status) {
    case 'SENT':
      return status(RED, 'green', 'dot', 'rpcSent');
    case 'QUEUED':
      return status(RED, 'green', 'ring', 'rpcQueued');
    case 'DELIVERED':
      return status(RED, 'green', 'dot', 'rpcDelivered');
    default:
      return status(RED, 'green', 'dot', 'rpcReplied');
  }
}
