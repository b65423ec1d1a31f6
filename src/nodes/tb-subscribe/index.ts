/**
 * tb-subscribe: live entity data, entity count, alarm data or alarm count over the connection's shared
 * WebSocket. Wiring only: the socket is src/live/hub, the meaning of updates src/live/subscriptions.
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { TbError, TbInputError } from '../../errors';
import { droppedEvents, NodeSink } from '../../families/live-node';
import { QuerySource, Prepare } from '../../families/query-source';
import type { Subscriber } from '../../live/hub';
import {
  AlarmDataSubscription,
  CountSubscription,
  EntityDataSubscription,
  EntityHistoryFetch,
  HistoryOptions,
  LiveEvent,
  SeriesOptions,
} from '../../live/subscriptions';
import { lookupConnection, noConnectionError } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { errorStatus, setupProblem, status } from '../../node-red/status';
import type { ResultFormat } from '../../protocol/format';
import type { AlarmCountQuery, AlarmDataQuery, EntityCountQuery, EntityDataQuery } from '../../protocol/types';
import {
  jsonText,
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../protocol/validate';
import { flag, intSetting } from '../../settings/read';

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
  /** Comma-separated events to send (entity data / alarm data); missing or empty = all. */
  events?: string | string[];
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
        ? {
            keys: keyList(config.tsKeys),
            windowMs: span(config.tsWindow, config.tsWindowUnit, 1),
            limit: intSetting(config.tsLimit, 100),
          }
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

    let drop: ReadonlySet<string> | undefined;
    let eventsProblem: TbError | undefined;
    try {
      drop = droppedEvents(kind, config.events);
    } catch (err) {
      eventsProblem = err as TbError;
    }

    const conn = lookupConnection(RED, node, config.connection);
    const source = new QuerySource<AnyQuery>(RED, node, config.query, config.queryType, PREPARE[kind], { live: true });
    const problem: TbError | undefined = eventsProblem ?? source.problem;
    let current: { subs: Subscriber[]; sink: NodeSink } | undefined;
    /** With values from the message: the resolved query now subscribed, as JSON (the same one again changes nothing). */
    let boundKey: string | undefined;

    /**
     * The status after an event (sent or not: the status follows them all), for the page being watched
     * (`table`) or a count; undefined = unchanged.
     */
    const statusAfter = (
      table: { readonly size: number } | undefined,
      ev: LiveEvent | undefined,
      shown: NodeStatus | undefined,
    ): NodeStatus | undefined => {
      if (!ev) return status(RED, 'green', 'dot', 'subscribed');
      if (ev.event === 'count') return status(RED, 'green', 'dot', 'liveCount', { count: ev.count });
      // A one-off history can come before the page; updates and series leave the number of items as it is
      // (they only bring the status back after another one, such as a bad message's, replaced it).
      if (!table || ev.event === 'history' || ((ev.event === 'update' || ev.event === 'timeseries') && shown))
        return undefined;
      const n = table.size;
      if (kind === 'alarmData') {
        if (n === 0) return status(RED, 'green', 'dot', 'noAlarmsYet');
        return n === 1 ? status(RED, 'green', 'dot', 'oneAlarm') : status(RED, 'green', 'dot', 'alarms', { count: n });
      }
      if (n === 0) return status(RED, 'green', 'dot', 'watchingNone');
      return n === 1
        ? status(RED, 'green', 'dot', 'watchingEntity')
        : status(RED, 'green', 'dot', 'watchingEntities', { count: n });
    };

    function stop(): void {
      boundKey = undefined;
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
      let table: { readonly size: number } | undefined;
      const sink: NodeSink = new NodeSink(RED, node, kind, (ev) => statusAfter(table, ev, sink.memo.shown), drop);
      const subs: Subscriber[] = [];
      if (kind === 'entityData') {
        const live = new EntityDataSubscription(sink, query as EntityDataQuery, format, series);
        table = live;
        subs.push(live);
        if (history) {
          const fetch: EntityHistoryFetch = new EntityHistoryFetch(
            sink,
            query as EntityDataQuery,
            format,
            history,
            () => {
              setImmediate(() => hub.unsubscribe(fetch));
            },
          );
          subs.push(fetch);
        }
      } else if (kind === 'alarmData') {
        const platform = conn.platform;
        const live = new AlarmDataSubscription(sink, query as AlarmDataQuery, format, (id) =>
          platform ? platform.getAlarmInfo(id) : Promise.resolve(null),
        );
        table = live;
        subs.push(live);
      } else {
        subs.push(
          new CountSubscription(
            sink,
            kind === 'entityCount' ? 'ENTITY_COUNT' : 'ALARM_COUNT',
            query as EntityCountQuery | AlarmCountQuery,
          ),
        );
      }
      // A command too large for one WebSocket message throws before anything is registered or sent.
      for (let i = 0; i < subs.length; i++) {
        try {
          hub.subscribe(subs[i]);
        } catch (err) {
          sink.active = false;
          for (let j = 0; j < i; j++) hub.unsubscribe(subs[j]);
          throw err;
        }
      }
      current = { subs, sink };
    }

    if (conn) conn.register(node);
    if (problem) {
      setupProblem(RED, node, problem);
    } else if (source.type === 'json' && !source.bound && conn) {
      try {
        start(source.resolve({}) as AnyQuery);
      } catch (err) {
        if (err instanceof TbInputError) {
          // The query cannot be sent (too large for one WebSocket message): a Catch node hears it.
          node.status({ ...errorStatus(RED, err), shape: 'dot' }); // the flow's own query: fix it, then deploy
          // After this tick: the runtime lists a flow's Catch nodes once every node of it has been created.
          const refused = err;
          setImmediate(() =>
            node.error(refused, { topic: kind, event: 'error', payload: refused.message, fatal: true }),
          );
        } else {
          setupProblem(RED, node, err); // the connection's own configuration problem
        }
      }
    } else {
      node.status(status(RED, 'grey', 'ring', 'idle'));
    }

    onInput(node, async (msg) => {
      try {
        if (problem) throw problem; // the node's own setting: every message is refused until it is fixed
        if (msg.action === 'unsubscribe') {
          stop();
          node.status(status(RED, 'grey', 'ring', 'unsubscribed'));
          return;
        }
        if (msg.action !== undefined && msg.action !== 'subscribe') {
          throw new TbInputError(
            'msg.action',
            `msg.action must be "subscribe" or "unsubscribe" (got ${jsonText(msg.action)})`,
          );
        }
        const r = source.resolve(msg);
        const q = r instanceof Promise ? await r : r;
        if (source.bound) {
          // A query with values from the message follows them: a new value replaces the subscription (the old one
          // is unsubscribed on the server, the new one starts with its snapshot); the same values change nothing.
          const key = JSON.stringify(q);
          if (current && key === boundKey) return;
          start(q);
          boundKey = key;
          return;
        }
        start(q);
      } catch (err) {
        if (current) current.sink.memo.shown = undefined; // a running subscription shows its status again on its next event
        node.status(err === problem ? { ...errorStatus(RED, err), shape: 'dot' } : errorStatus(RED, err));
        throw err;
      }
    });

    onClose(node, conn, stop);
  }
  RED.nodes.registerType('tb-subscribe', TbSubscribe);
}
