/**
 * tb-alarm-status: live "does this entity have an active alarm?" (ALARM_STATUS) for one or more originators, over the
 * connection's shared WebSocket. Wiring: the node's settings, the entities it watches, and its status.
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { TbInputError } from '../../errors';
import { NodeSink } from '../../families/live-node';
import { AlarmStatusSubscription } from '../../live/subscriptions';
import { lookupConnection, noConnectionError } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { errorStatus, setupProblem, status } from '../../node-red/status';
import type { EntityId } from '../../protocol/types';
import { jsonText, prepareAlarmStatusOptions, prepareEntityId } from '../../protocol/validate';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ALARM_STATUS } from './settings';

export default function (RED: NodeAPI): void {
  function TbAlarmStatus(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const { values: s, problems } = nodeSettings(node, TB_ALARM_STATUS, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, s.connection);
    const watched = new Map<string, { sub: AlarmStatusSubscription; sink: NodeSink; active?: boolean }>();
    /** Of the watched entities: how many answered so far, and how many have an active alarm. */
    let known = 0;
    let active = 0;
    /** The node's one status, shared by the sinks of all its entities. */
    const memo: { shown?: NodeStatus } = {};
    const count = (v: boolean | undefined, sign: 1 | -1): void => {
      if (v !== undefined) known += sign;
      if (v === true) active += sign;
    };
    /** A problem of the node's settings, found at deploy: every message is refused with it. */
    let settingsProblem: Error | undefined = problems[0];
    let lists: { typeList: string[]; severityList: string[] } | undefined;
    try {
      if (!settingsProblem) lists = prepareAlarmStatusOptions({ typeList: s.typeList, severityList: s.severityList });
    } catch (err) {
      settingsProblem = err as Error;
    }
    if (settingsProblem) setupProblem(RED, node, settingsProblem);

    /**
     * One entity: "alarm active" / "no alarm". Several: "alarm on 2 of 5" / "no alarm on all 5". Until every
     * answer is in (and nothing is active yet): "watching 5 entities".
     */
    const overall = (): NodeStatus => {
      const total = watched.size;
      if (total === 1 && known === 1)
        return active ? status(RED, 'yellow', 'dot', 'alarmActive') : status(RED, 'green', 'dot', 'noAlarm');
      if (active > 0) return status(RED, 'yellow', 'dot', 'alarmOnSome', { count: active, total });
      if (known === total && total > 0) return status(RED, 'green', 'dot', 'noAlarmOnAll', { count: total });
      return total === 1
        ? status(RED, 'green', 'dot', 'watchingEntity')
        : status(RED, 'green', 'dot', 'watchingEntities', { count: total });
    };

    function watch(originator: EntityId): void {
      if (!conn) throw noConnectionError();
      if (settingsProblem || !lists) throw settingsProblem;
      const hub = conn.live();
      const key = `${originator.entityType}:${originator.id}`;
      if (watched.has(key)) return; // already watched: its value is sent on change
      const entry: { sub: AlarmStatusSubscription; sink: NodeSink; active?: boolean } = {} as never;
      entry.sink = new NodeSink(
        RED,
        node,
        originator.id,
        (ev) => {
          if (ev && ev.event === 'alarmStatus') {
            count(entry.active, -1);
            entry.active = ev.active;
            count(entry.active, 1);
          }
          return overall();
        },
        undefined,
        memo,
      );
      entry.sub = new AlarmStatusSubscription(entry.sink, originator, lists.typeList, lists.severityList);
      hub.subscribe(entry.sub); // throws, registering nothing, when the command is too large for one message
      watched.set(key, entry);
    }

    function unwatch(originator: EntityId | undefined): void {
      if (!conn) return;
      for (const [key, entry] of watched) {
        if (originator && key !== `${originator.entityType}:${originator.id}`) continue;
        entry.sink.active = false;
        conn.live().unsubscribe(entry.sub);
        count(entry.active, -1);
        watched.delete(key);
      }
    }

    function originatorOf(payload: unknown, field: string): EntityId {
      if (typeof payload === 'string')
        return prepareEntityId({ entityType: s.originatorType, id: payload.trim() }, field);
      return prepareEntityId(payload, field);
    }

    if (conn) conn.register(node);
    if (!settingsProblem && conn && s.originatorId.trim()) {
      try {
        watch(originatorOf(s.originatorId, 'originatorId'));
      } catch (err) {
        setupProblem(RED, node, err);
      }
    } else if (!settingsProblem) {
      node.status(status(RED, 'grey', 'ring', 'idle'));
    }

    onInput(node, async (msg) => {
      try {
        if (msg.action === 'unsubscribe') {
          unwatch(
            msg.payload === undefined || msg.payload === null || msg.payload === ''
              ? undefined
              : originatorOf(msg.payload, 'msg.payload'),
          );
          memo.shown = watched.size ? overall() : undefined;
          node.status(memo.shown ?? status(RED, 'grey', 'ring', 'unsubscribed'));
          return;
        }
        if (msg.action !== undefined && msg.action !== 'subscribe') {
          throw new TbInputError(
            'msg.action',
            `msg.action must be "subscribe" or "unsubscribe" (got ${jsonText(msg.action)})`,
          );
        }
        if (msg.payload === undefined || msg.payload === null || msg.payload === '') {
          throw new TbInputError(
            'msg.payload',
            'msg.payload must be the entity to watch: { "entityType": "DEVICE", "id": "<uuid>" } or a UUID string',
          );
        }
        watch(originatorOf(msg.payload, 'msg.payload'));
      } catch (err) {
        memo.shown = undefined; // the next answer shows the watching status again
        node.status(errorStatus(RED, err));
        throw err;
      }
    });

    onClose(node, conn, () => unwatch(undefined));
  }
  RED.nodes.registerType('tb-alarm-status', TbAlarmStatus);
}
