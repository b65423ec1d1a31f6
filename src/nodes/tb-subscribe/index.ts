/**
 * tb-subscribe: live entity data, entity count, alarm data or alarm count, or the current user's notifications, over
 * the connection's shared WebSocket. Wiring: the node's settings, the subscriptions it starts, replaces and stops,
 * and its status.
 */
import type { Node, NodeAPI, NodeDef, NodeStatus } from 'node-red';
import { TbError, TbInputError } from '../../errors';
import { chartShape, NodeSink, tableShape, type EventShape } from '../../families/live-node';
import { Prepare, QuerySource } from '../../families/query-source';
import type { Subscriber } from '../../live/hub';
import {
  AlarmDataSubscription,
  CountSubscription,
  EntityDataSubscription,
  EntityHistoryFetch,
  HistoryOptions,
  LiveEvent,
  NotificationsSubscription,
  SeriesOptions,
} from '../../live/subscriptions';
import { lookupConnection, noConnectionError } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
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
import { label } from './label';
import { droppedEvents, formatProblem, keyList, watchesSeveral } from './logic';
import { MIGRATIONS } from './migrations';
import { TB_SUBSCRIBE, type QueryKind } from './settings';

type AnyQuery = EntityDataQuery | EntityCountQuery | AlarmDataQuery | AlarmCountQuery;

const PREPARE: Record<QueryKind, Prepare<AnyQuery>> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

/** The settings read only while the series are on (entity data with series keys), and only while the history is. */
const SERIES_SETTINGS: readonly string[] = ['tsWindow', 'tsLimit'];
const HISTORY_SETTINGS: readonly string[] = ['historyRange', 'historyInterval', 'historyLimit', 'historyAgg'];
/** The settings of a query (the notifications kind has none), and the one of the notifications kind. */
const QUERY_SETTINGS: readonly string[] = ['query', 'queryType'];
const NOTIFICATION_SETTINGS: readonly string[] = ['notificationLimit'];

export default function (RED: NodeAPI): void {
  function TbSubscribe(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const { values: s, problemOf } = nodeSettings(node, TB_SUBSCRIBE, MIGRATIONS, config, { RED, label });
    const kind = s.kind;
    const notifications = kind === 'notifications';
    // A chart's points are made of the flat rows, a table's rows of the alarms as the server sends them.
    const format: ResultFormat = s.format === 'chart' ? 'flat' : s.format === 'table' ? 'raw' : s.format;
    const tsKeys = keyList(s.tsKeys);
    const historyKeys = keyList(s.historyKeys);
    const seriesOn = kind === 'entityData' && tsKeys.length > 0;
    const historyOn = kind === 'entityData' && s.history && historyKeys.length > 0;
    const series: SeriesOptions | undefined = seriesOn
      ? { keys: tsKeys, windowMs: s.tsWindow as number, limit: s.tsLimit as number }
      : undefined;
    const history: HistoryOptions | undefined = historyOn
      ? {
          keys: historyKeys,
          rangeMs: s.historyRange as number,
          intervalMs: s.historyInterval ?? 0,
          limit: s.historyLimit as number,
          agg: s.historyAgg,
        }
      : undefined;

    /**
     * The first problem of a setting the node reads: the series' settings count only while the series are on, the
     * history's only while it is on (the dialog, too, checks them only then).
     */
    const settingsProblem = (): TbError | undefined => {
      for (const name of Object.keys(TB_SUBSCRIBE.settings) as Array<keyof typeof TB_SUBSCRIBE.settings>) {
        if (SERIES_SETTINGS.includes(name) ? !seriesOn : HISTORY_SETTINGS.includes(name) ? !historyOn : false) continue;
        if (
          QUERY_SETTINGS.includes(name) ? notifications : NOTIFICATION_SETTINGS.includes(name) ? !notifications : false
        )
          continue;
        if (problemOf[name]) return problemOf[name];
      }
      return undefined;
    };

    let drop: ReadonlySet<string> | undefined;
    let eventsProblem: TbError | undefined;
    try {
      drop = droppedEvents(kind, s.events);
    } catch (err) {
      eventsProblem = err as TbError;
    }

    const conn = lookupConnection(RED, node, s.connection);
    const source = new QuerySource<AnyQuery>(
      RED,
      node,
      notifications ? '' : String(s.query),
      notifications ? 'json' : s.queryType,
      PREPARE[notifications ? 'entityData' : kind],
      { live: true },
    );
    const problem: TbError | undefined =
      settingsProblem() ??
      formatProblem(kind, s.format) ??
      eventsProblem ??
      (notifications ? undefined : source.problem);
    let current: { subs: Subscriber[]; sink: NodeSink } | undefined;
    /**
     * With values from the message: the resolved query now subscribed, as JSON (the same one again changes nothing).
     */
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
      if (notifications) {
        // the user's unread notifications, whichever event told the number
        const n =
          ev.event === 'count' ? ev.count : ev.event === 'inbox' || ev.event === 'notification' ? ev.unreadCount : 0;
        return status(RED, 'green', 'dot', 'unread', { count: n });
      }
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

    function start(query: AnyQuery | undefined): void {
      if (!conn) throw noConnectionError();
      const hub = conn.live(); // throws the connection's config error, if any
      stop();
      let table: { readonly size: number } | undefined;
      let alarms: AlarmDataSubscription | undefined;
      const shape: EventShape | undefined =
        s.format === 'chart'
          ? chartShape(watchesSeveral(query as EntityDataQuery))
          : s.format === 'table'
            ? tableShape((id) => alarms?.has(id) === true)
            : undefined;
      const sink: NodeSink = new NodeSink(
        RED,
        node,
        kind,
        (ev) => statusAfter(table, ev, sink.memo.shown),
        drop,
        {},
        shape,
      );
      const subs: Subscriber[] = [];
      if (notifications) {
        subs.push(new NotificationsSubscription(sink, s.notificationLimit as number, format));
      } else if (kind === 'entityData') {
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
        alarms = live;
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
    } else if ((notifications || (source.type === 'json' && !source.bound)) && conn) {
      try {
        start(notifications ? undefined : (source.resolve({}) as AnyQuery));
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
        if (notifications) {
          // a message subscribes again: a new subscription, whose first message is the list again
          start(undefined);
          return;
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
        // A running subscription shows its status again on its next event.
        if (current) current.sink.memo.shown = undefined;
        node.status(err === problem ? { ...errorStatus(RED, err), shape: 'dot' } : errorStatus(RED, err));
        throw err;
      }
    });

    onClose(node, conn, stop);
  }
  RED.nodes.registerType('tb-subscribe', TbSubscribe);
}
