/**
 * tb-subscribe: live entity data, entity count, alarm data or alarm count over the connection's shared
 * WebSocket. Wiring only: the socket is src/live/hub, the meaning of updates src/live/subscriptions.
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import type { ResultFormat } from '../query/format';
import { prepareAlarmCountQuery, prepareAlarmDataQuery, prepareEntityCountQuery, prepareEntityDataQuery } from '../query/validate';
import type { AlarmCountQuery, AlarmDataQuery, EntityCountQuery, EntityDataQuery } from '../query/types';
import type { Subscriber } from '../live/hub';
import {
  AlarmDataSubscription,
  CountSubscription,
  EntityDataSubscription,
  EntityHistoryFetch,
  HistoryOptions,
  LiveEvent,
  SeriesOptions,
} from '../live/subscriptions';
import { errorStatus, flag, intSetting, lookupConnection, noConnectionError, onClose, onInput, setupProblem, status } from './support/common';
import { NodeSink } from './support/live-node';
import { QuerySource, Prepare } from './support/query-source';
import { TbInputError } from '../errors';

type Kind = 'entityData' | 'entityCount' | 'alarmData' | 'alarmCount';
type AnyQuery = EntityDataQuery | EntityCountQuery | AlarmDataQuery | AlarmCountQuery;

interface SubscribeDef extends NodeDef {
  connection: string;
  kind: string;
  query: string;
  queryType: string;
  format?: string;
  tsKeys?: string;
  tsWindow?: string | number;
  tsWindowUnit?: string;
  tsLimit?: string | number;
  history?: boolean | string;
  historyKeys?: string;
  historyRange?: string | number;
  historyRangeUnit?: string;
  historyInterval?: string | number;
  historyLimit?: string | number;
  historyAgg?: string;
}

const KINDS: readonly string[] = ['entityData', 'entityCount', 'alarmData', 'alarmCount'];
const PREPARE: Record<Kind, Prepare<AnyQuery>> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};
const UNIT_MS: Record<string, number> = { minutes: 60000, hours: 3600000, days: 86400000 };
const AGGS: readonly string[] = ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'];

function keyList(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function span(n: unknown, unit: unknown, fallback: number): number {
  const v = typeof n === 'number' ? n : parseFloat(String(n ?? ''));
  return (Number.isFinite(v) && v > 0 ? v : fallback) * (UNIT_MS[String(unit)] ?? UNIT_MS.hours);
}

export default function (RED: NodeAPI): void {
  function TbSubscribe(this: Node, config: SubscribeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const kind: Kind = (KINDS.includes(config.kind) ? config.kind : 'entityData') as Kind;
    const format: ResultFormat = config.format === 'raw' ? 'raw' : 'flat';
    const series: SeriesOptions | undefined =
      kind === 'entityData' && keyList(config.tsKeys).length
        ? { keys: keyList(config.tsKeys), windowMs: span(config.tsWindow, config.tsWindowUnit, 1), limit: intSetting(config.tsLimit, 100) }
        : undefined;
    const history: HistoryOptions | undefined =
      kind === 'entityData' && flag(config.history) && keyList(config.historyKeys).length
        ? {
            keys: keyList(config.historyKeys),
            rangeMs: span(config.historyRange, config.historyRangeUnit, 24),
            intervalMs: Math.max(0, parseInt(String(config.historyInterval ?? 0), 10) || 0),
            limit: intSetting(config.historyLimit, 1000),
            agg: (AGGS.includes(String(config.historyAgg)) ? config.historyAgg : 'NONE') as HistoryOptions['agg'],
          }
        : undefined;

    const conn = lookupConnection(RED, node, config.connection);
    const source = new QuerySource<AnyQuery>(RED, node, config.query, config.queryType, PREPARE[kind]);
    let current: { subs: Subscriber[]; sink: NodeSink } | undefined;

    const subscribedStatus = (ev: LiveEvent | undefined): NodeStatus | undefined => {
      if (!ev) return status(RED, 'green', 'dot', 'subscribed');
      if (ev.event === 'snapshot') return status(RED, 'green', 'dot', 'subscribedCount', { count: ev.items.length });
      if (ev.event === 'count') return status(RED, 'green', 'dot', 'subscribedCount', { count: ev.count });
      return undefined;
    };

    function stop(): void {
      if (!current || !conn) return;
      current.sink.active = false;
      const hub = conn.live();
      for (const s of current.subs) hub.unsubscribe(s);
      current = undefined;
    }

    function start(query: AnyQuery): void {
      if (!conn) throw noConnectionError();
      const hub = conn.live(); // throws the connection's config error, if any
      stop();
      const sink = new NodeSink(RED, node, kind, subscribedStatus);
      const subs: Subscriber[] = [];
      if (kind === 'entityData') {
        subs.push(new EntityDataSubscription(sink, query as EntityDataQuery, format, series));
        if (history) {
          const fetch: EntityHistoryFetch = new EntityHistoryFetch(sink, query as EntityDataQuery, format, history, () => {
            setImmediate(() => hub.unsubscribe(fetch));
          });
          subs.push(fetch);
        }
      } else if (kind === 'alarmData') {
        const platform = conn.platform;
        subs.push(
          new AlarmDataSubscription(sink, query as AlarmDataQuery, format, (id) => (platform ? platform.getAlarmInfo(id) : Promise.resolve(null))),
        );
      } else {
        subs.push(new CountSubscription(sink, kind === 'entityCount' ? 'ENTITY_COUNT' : 'ALARM_COUNT', query as EntityCountQuery | AlarmCountQuery));
      }
      current = { subs, sink };
      for (const s of subs) hub.subscribe(s);
    }

    if (conn) conn.register(node);
    if (source.problem) {
      setupProblem(RED, node, source.problem);
    } else if (source.type === 'json' && conn) {
      try {
        start(source.resolve({}) as AnyQuery);
      } catch (err) {
        setupProblem(RED, node, err); // the connection's own configuration problem
      }
    } else {
      node.status(status(RED, 'grey', 'ring', 'idle'));
    }

    onInput(node, async (msg) => {
      try {
        if (msg.action === 'unsubscribe') {
          stop();
          node.status(status(RED, 'grey', 'ring', 'unsubscribed'));
          return;
        }
        if (msg.action !== undefined && msg.action !== 'subscribe') {
          throw new TbInputError('msg.action', `msg.action must be "subscribe" or "unsubscribe" (got ${JSON.stringify(msg.action)})`);
        }
        const q = source.resolve(msg);
        start(q instanceof Promise ? await q : q);
      } catch (err) {
        node.status(errorStatus(RED, err));
        throw err;
      }
    });

    onClose(node, conn, stop);
  }
  RED.nodes.registerType('tb-subscribe', TbSubscribe);
}
