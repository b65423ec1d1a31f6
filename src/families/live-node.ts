/**
 * Node-side helpers of the live nodes: a LiveSink that turns subscription events into messages, connection
 * states into status, and server errors into errors a Catch node receives.
 */
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import type { TbError } from '../errors';
import type { LiveState, StateInfo } from '../live/hub';
import type { LiveEvent, LiveSink } from '../live/subscriptions';
import { errorStatus, status } from '../node-red/status';
import {
  alarmRow,
  chartValue,
  oldestFirst,
  rowPoints,
  seriesName,
  singleSeries,
  type AlarmRow,
  type ChartPoint,
} from '../protocol/dashboard';
import type { FlatEntity } from '../protocol/format';
import { entityNameOf, rowEntity } from '../protocol/targets';
import type { AlarmData } from '../protocol/types';

/**
 * Turns one live event into the message the node sends (a new message each time). The `_msgid` is in each literal:
 * added afterwards, it would need a second block of properties for every message. A message about one entity or
 * alarm carries in msg.entity the entity it concerns (an alarm's: its originator), for a next node that acts on
 * entities; msg.topic keeps the id of the entity or alarm, as before.
 */
export function eventMessage(ev: LiveEvent, topic: string, _msgid: string): NodeMessage {
  switch (ev.event) {
    case 'snapshot':
      return { _msgid, topic, event: 'snapshot', payload: ev.items, page: ev.page };
    case 'update':
      return {
        _msgid,
        topic: ev.id,
        event: 'update',
        payload: ev.item,
        changed: ev.changed,
        entity: rowEntity(ev.item),
      };
    case 'count':
      return { _msgid, topic, event: 'count', payload: ev.count };
    case 'inbox':
      // the user's unread notifications at the start: the first message, as every kind's
      return { _msgid, topic, event: 'snapshot', payload: ev.items, unreadCount: ev.unreadCount };
    case 'notification':
      return { _msgid, topic: ev.id, event: 'notification', payload: ev.item, unreadCount: ev.unreadCount };
    case 'history':
      return { _msgid, topic, event: 'history', payload: ev.items };
    case 'alarmStatus':
      return {
        _msgid,
        topic: ev.originator.id,
        payload: ev.active,
        originator: ev.originator,
        entity: { entityType: ev.originator.entityType, id: ev.originator.id },
      };
    default:
      return { _msgid, topic: ev.id, event: ev.event, payload: ev.item, entity: rowEntity(ev.item) };
  }
}

/** The two hex digits of each byte. */
const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, i) => (i < 16 ? '0' : '') + i.toString(16));

/** The first ten hex digits of every `_msgid` a live node makes, drawn again each time the counter wraps. */
let msgIdPrefix = '';
/** The last six hex digits: a counter, so that no two ids under one prefix are the same. */
let msgIdCount = 0x1000000;
/** The prefix and the counter's first four hex digits, made once per 256 ids. */
let msgIdHead = '';

/**
 * A `_msgid` for a message a live node creates: 16 hex digits like the runtime's own (RED.util.generateId), unique
 * within the process: ten random ones, drawn once per 16,777,216 messages, then a counter. The runtime only makes
 * one for a message without it, from eight random numbers, and on a busy live flow that is a measurable part of
 * the cost of each update (the ids are only ever compared, never guessed at).
 */
function newMsgId(): string {
  if (msgIdCount === 0x1000000) {
    msgIdCount = 0;
    msgIdPrefix = Math.floor(Math.random() * 0x10000000000)
      .toString(16)
      .padStart(10, '0');
  }
  const c = msgIdCount++;
  const low = c & 255;
  if (low === 0) msgIdHead = msgIdPrefix + HEX_BYTE[c >>> 16] + HEX_BYTE[(c >>> 8) & 255];
  return msgIdHead + HEX_BYTE[low];
}

/**
 * Another shape of an event's messages (a chart's points, a table's rows): the messages to send for it, none, one or
 * several, each made with `id()` as its `_msgid`.
 */
export type EventShape = (ev: LiveEvent, topic: string, id: () => string) => NodeMessage | NodeMessage[] | undefined;

/**
 * Entity data for a chart (a subscription in flat format): the first page as ONE message, every latest value of every
 * entity as a point `{ series, key, ts, value }`, oldest first, with `action: "replace"`; then one message per changed
 * value, `msg.topic` its series and `msg.payload` the point (`{ series, key, ts, value }`), with `action: "append"`.
 * The series is the key, or "<entity name> · <key>" when `several` entities are watched (named by their `name`
 * column, else by id). An entity added to the page sends its values as one list to append, one removed sends
 * nothing (its line stays); the time series of the window come as a list to append, a one-off history as a list
 * that replaces.
 */
export function chartShape(several: boolean): EventShape {
  /** The name of each entity seen, for the series of the events that carry only its id (time series, history). */
  const names = new Map<string, string>();
  const nameOf = (row: unknown, id: string): string | undefined => {
    if (!several) return undefined;
    const name = entityNameOf(row) ?? names.get(id) ?? id;
    names.set(id, name);
    return name;
  };
  const list = (
    id: string,
    topic: string,
    event: string,
    points: ChartPoint[],
    action: 'replace' | 'append',
  ): NodeMessage => ({
    _msgid: id,
    topic: singleSeries(points) ?? topic,
    event,
    payload: oldestFirst(points),
    action,
  });
  const seriesPoints = (items: unknown[]): ChartPoint[] => {
    const points: ChartPoint[] = [];
    for (const item of items) {
      const it = item as { id: string; series?: Record<string, Array<{ ts: number; value: unknown }>> };
      const name = several ? (names.get(it.id) ?? it.id) : undefined;
      for (const key in it.series ?? {}) {
        const series = seriesName(key, name);
        for (const p of (it.series as Record<string, Array<{ ts: number; value: unknown }>>)[key])
          points.push({ series, key, ts: p.ts, value: chartValue(p.value) });
      }
    }
    return points;
  };
  return (ev, topic, id) => {
    switch (ev.event) {
      case 'snapshot': {
        const points: ChartPoint[] = [];
        for (const item of ev.items) {
          const row = item as FlatEntity;
          for (const p of rowPoints(row, nameOf(row, row.id))) points.push(p);
        }
        const m = list(id(), topic, 'snapshot', points, 'replace');
        m.page = ev.page;
        return m;
      }
      case 'update': {
        // One message per changed value (not an entity field, not a deleted value: those have no time).
        const row = ev.item as FlatEntity;
        const ts = row.ts;
        const name = nameOf(row, ev.id);
        const entity = { entityType: row.entityType, id: row.id };
        let out: NodeMessage | NodeMessage[] | undefined;
        for (let i = 0; i < ev.changed.length; i++) {
          const key = ev.changed[i];
          const t = ts[key];
          if (t === undefined || t === 0) continue;
          const series = seriesName(key, name);
          const m: NodeMessage = {
            _msgid: id(),
            topic: series,
            event: 'update',
            payload: { series, key, ts: t, value: chartValue(row[key]) },
            action: 'append',
            entity,
          };
          out = out === undefined ? m : Array.isArray(out) ? (out.push(m), out) : [out, m];
        }
        return out;
      }
      case 'added': {
        const row = ev.item as FlatEntity;
        const m = list(id(), topic, 'added', rowPoints(row, nameOf(row, ev.id)), 'append');
        m.entity = { entityType: row.entityType, id: row.id };
        return m;
      }
      case 'timeseries':
        return list(id(), topic, 'timeseries', seriesPoints([ev.item]), 'append');
      case 'history':
        return list(id(), topic, 'history', seriesPoints(ev.items), 'replace');
      default:
        // removed: the line stays as drawn; a count is not of this kind
        return undefined;
    }
  };
}

/**
 * Alarm data for a table (a subscription in raw format): every message holds the whole table, one row per alarm
 * ({@link alarmRow}), with `action: "replace"`: the first page, then the table after each change (a new alarm first,
 * a changed one in its place, one that left the page taken out). `onPage(id)` says whether the subscription still
 * has the alarm on its page after the event.
 */
export function tableShape(onPage: (id: string) => boolean): EventShape {
  let rows = new Map<string, AlarmRow>();
  return (ev, topic, id) => {
    switch (ev.event) {
      case 'snapshot': {
        rows = new Map();
        for (const a of ev.items as AlarmData[]) rows.set(a.id.id, alarmRow(a));
        return {
          _msgid: id(),
          topic,
          event: 'snapshot',
          payload: [...rows.values()],
          action: 'replace',
          page: ev.page,
        };
      }
      case 'created':
      case 'acknowledged':
      case 'cleared':
      case 'updated':
      case 'removed': {
        const a = ev.item as AlarmData;
        if (ev.event === 'removed' || !onPage(ev.id)) rows.delete(ev.id);
        else if (rows.has(ev.id)) rows.set(ev.id, alarmRow(a));
        else rows = new Map([[ev.id, alarmRow(a)], ...rows]);
        return {
          _msgid: id(),
          topic: ev.id,
          event: ev.event,
          payload: [...rows.values()],
          action: 'replace',
          entity: rowEntity(a),
        };
      }
      default:
        return undefined;
    }
  };
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

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly topic: string,
    /**
     * The status to show while subscribed, after each event (e.g. "watching 12 entities"); undefined when the
     * event changes nothing in it. Called for every event, sent or not, so the status always follows the state.
     */
    private readonly subscribedStatus: (ev: LiveEvent | undefined) => NodeStatus | undefined,
    /** Events not to send (the node's `events` setting); undefined sends all. */
    private readonly drop?: ReadonlySet<string>,
    /**
     * The subscribed status last shown, so that an unchanged one is not set again. Sinks that share one
     * node's status (tb-alarm-status: one sink per entity) share this; the node clears it (`shown =
     * undefined`) when it sets another status itself.
     */
    readonly memo: { shown?: NodeStatus } = {},
    /** The messages of an event in another shape (a chart's, a table's); undefined: {@link eventMessage}. */
    private readonly shape?: EventShape,
  ) {}

  /** True when the status shown is not this subscription's subscribed status (a state or an error replaced it). */
  private interrupted = true;

  event(ev: LiveEvent): void {
    if (!this.active) return;
    // Filtered before the message is built: a dropped event costs one set lookup.
    if (this.drop === undefined || !this.drop.has(ev.event)) {
      if (this.shape === undefined) this.node.send(eventMessage(ev, this.topic, newMsgId()));
      else {
        const out = this.shape(ev, this.topic, newMsgId);
        if (Array.isArray(out)) for (let i = 0; i < out.length; i++) this.node.send(out[i]);
        else if (out !== undefined) this.node.send(out);
      }
    }
    const s = this.subscribedStatus(ev);
    const shown = this.memo.shown;
    if (s && (s.text !== shown?.text || s.fill !== shown?.fill)) {
      this.memo.shown = s;
      this.node.status(s);
    }
  }

  state(state: LiveState, info?: StateInfo): void {
    if (!this.active) return;
    if (state === 'subscribed') {
      // Answered again after a reconnect that never showed (a quiet one): the status already says it.
      if (!this.interrupted && this.memo.shown) return;
      this.interrupted = false;
      const s = this.memo.shown ?? this.subscribedStatus(undefined);
      if (s) this.node.status(s);
      return;
    }
    const s = stateStatus(this.RED, state, info);
    if (s) {
      this.interrupted = true;
      this.node.status(s);
    }
  }

  error(err: TbError, fatal: boolean): void {
    if (!this.active) return;
    this.interrupted = true;
    this.node.status(errorStatus(this.RED, err));
    this.memo.shown = undefined;
    const msg: NodeMessage = { topic: this.topic, event: 'error', payload: err.message, fatal };
    this.node.error(err, msg);
  }
}
