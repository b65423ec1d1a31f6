/**
 * Node-side helpers of the live nodes: a LiveSink that turns subscription events into messages, connection
 * states into status, and server errors into errors a Catch node receives.
 */
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import type { TbError } from '../../errors';
import type { LiveState, StateInfo } from '../../live/hub';
import type { LiveEvent, LiveSink } from '../../live/subscriptions';
import { errorStatus, status } from './common';

/** Turns one live event into the message the node sends (a new message each time). */
export function eventMessage(ev: LiveEvent, topic: string): NodeMessage {
  switch (ev.event) {
    case 'snapshot':
      return { topic, event: 'snapshot', payload: ev.items, page: ev.page };
    case 'update':
      return { topic: ev.id, event: 'update', payload: ev.item, changed: ev.changed };
    case 'count':
      return { topic, event: 'count', payload: ev.count };
    case 'history':
      return { topic, event: 'history', payload: ev.items };
    case 'alarmStatus':
      return { topic: ev.originator.id, payload: ev.active, originator: ev.originator };
    default:
      return { topic: ev.id, event: ev.event, payload: ev.item };
  }
}

/** Status for a connection state ('subscribed' is decided by the node, which knows its count). */
export function stateStatus(RED: NodeAPI, state: LiveState, info?: StateInfo): NodeStatus | undefined {
  switch (state) {
    case 'connecting':
      return status(RED, 'yellow', 'ring', 'connecting');
    case 'disconnected':
      return status(RED, 'red', 'ring', 'reconnecting', { s: Math.round((info?.retryInMs ?? 0) / 1000) });
    case 'refused':
      return info?.error ? { ...errorStatus(RED, info.error), shape: 'ring' } : status(RED, 'red', 'ring', 'refused');
    default:
      return undefined;
  }
}

/**
 * A sink for one node's subscription: sends event messages, keeps the status in step, and reports server
 * errors so that a Catch node gets them (node.error with a message).
 */
export class NodeSink implements LiveSink {
  /** False once the node dropped this subscription: late events are ignored. */
  active = true;
  private subscribedText: NodeStatus | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly topic: string,
    /** The status to show while subscribed, from the last event (e.g. "subscribed: 12"). */
    private readonly subscribedStatus: (ev: LiveEvent | undefined) => NodeStatus | undefined,
  ) {}

  event(ev: LiveEvent): void {
    if (!this.active) return;
    this.node.send(eventMessage(ev, this.topic));
    const s = this.subscribedStatus(ev);
    if (s && (s.text !== this.subscribedText?.text || s.fill !== this.subscribedText?.fill)) {
      this.subscribedText = s;
      this.node.status(s);
    }
  }

  state(state: LiveState, info?: StateInfo): void {
    if (!this.active) return;
    if (state === 'subscribed') {
      const s = this.subscribedText ?? this.subscribedStatus(undefined);
      if (s) this.node.status(s);
      return;
    }
    const s = stateStatus(this.RED, state, info);
    if (s) this.node.status(s);
  }

  error(err: TbError, fatal: boolean): void {
    if (!this.active) return;
    this.node.status(errorStatus(this.RED, err));
    this.subscribedText = undefined;
    const msg: NodeMessage = { topic: this.topic, event: 'error', payload: err.message, fatal };
    this.node.error(err, msg);
  }
}
