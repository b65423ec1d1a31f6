/**
 * Subscription kinds: each builds its WebSocket command, keeps the state it needs, and turns the server's
 * messages into events. After a reconnect the first answer is compared with what was known, so only real
 * changes come out (an alarm raised while the connection was down is reported once; nothing unchanged is
 * re-emitted).
 */
import { TbError } from '../errors';
import {
  applyFlatChanges,
  copyFlat,
  FlatEntity,
  flattenAlarm,
  flattenEntity,
  formatAlarms,
  PageInfo,
  pageInfo,
  parseValue,
  ResultFormat,
} from '../protocol/format';
import { flattenNotification, type Notification } from '../protocol/notifications';
import type {
  AlarmCountQuery,
  AlarmData,
  AlarmDataQuery,
  EntityCountQuery,
  EntityData,
  EntityDataQuery,
  EntityId,
  EntityKey,
  LatestValues,
  PageData,
  TsValue,
} from '../protocol/types';
import type { LiveState, StateInfo, Subscriber, WsCommand, WsMessage } from './hub';

export type LiveEvent =
  | { event: 'snapshot'; items: unknown[]; page: PageInfo }
  | { event: 'inbox'; items: unknown[]; unreadCount: number }
  | { event: 'notification'; id: string; item: unknown; unreadCount: number }
  | { event: 'update'; id: string; item: unknown; changed: string[] }
  | { event: 'added' | 'removed'; id: string; item: unknown }
  | { event: 'timeseries'; id: string; item: unknown }
  | { event: 'history'; items: unknown[] }
  | { event: 'count'; count: number }
  | { event: 'created' | 'acknowledged' | 'cleared' | 'updated'; id: string; item: unknown }
  | { event: 'alarmStatus'; active: boolean; originator: EntityId };

/** Where a subscription sends what it learns (the node maps it to messages and status). */
export interface LiveSink {
  event(ev: LiveEvent): void;
  state(state: LiveState, info?: StateInfo): void;
  error(err: TbError, fatal: boolean): void;
}

abstract class Base implements Subscriber {
  abstract readonly unsubscribeType: string;
  constructor(protected readonly sink: LiveSink) {}
  abstract command(): WsCommand;
  abstract onMessage(msg: WsMessage): void;
  onError(err: TbError, fatal: boolean): void {
    this.sink.error(err, fatal);
  }
  onState(state: LiveState, info?: StateInfo): void {
    this.sink.state(state, info);
  }
}

// ---- entity data --------------------------------------------------------------------------------------

export interface SeriesOptions {
  keys: string[];
  /** Live window in ms (tsCmd.timeWindow). */
  windowMs: number;
  limit: number;
}

export interface HistoryOptions {
  keys: string[];
  /** Range ending now, in ms. */
  rangeMs: number;
  /** Aggregation interval in ms (0 = raw values). */
  intervalMs: number;
  limit: number;
  agg: 'NONE' | 'AVG' | 'MIN' | 'MAX' | 'SUM' | 'COUNT';
}

interface EntityState {
  raw: EntityData;
  /**
   * raw format: what was last emitted for it (copy on write). flat: its flat row, which only this subscription
   * holds (updated in place); every event sends a copy of it ({@link copyFlat}).
   */
  item: unknown;
}

const idOf = (e: { entityId: EntityId }): string => e.entityId.id;

/** Live entity table: query + latestCmd (+ optional tsCmd) in one ENTITY_DATA command. */
export class EntityDataSubscription extends Base {
  readonly unsubscribeType = 'ENTITY_DATA_UNSUBSCRIBE';
  private readonly known = new Map<string, EntityState>();
  /** Scratch for the names an update changed (flat format; see onUpdate). */
  private readonly changedNames: string[] = [];
  /** Scratch beside it: the time-series value of each changed name that changed there (see applyFlatChanges). */
  private readonly changedSeries: (TsValue | undefined)[] = [];
  private snapshotSent = false;
  private premature: EntityData[] = [];

  constructor(
    sink: LiveSink,
    private readonly query: EntityDataQuery,
    private readonly format: ResultFormat,
    private readonly series?: SeriesOptions,
    private readonly now: () => number = Date.now,
  ) {
    super(sink);
  }

  /** How many entities are watched now (the current page); 0 before the snapshot. */
  get size(): number {
    return this.known.size;
  }

  command(): WsCommand {
    const latestValues: EntityKey[] = this.query.latestValues ?? [];
    const cmd: WsCommand = {
      type: 'ENTITY_DATA',
      query: { ...this.query, latestValues },
      latestCmd: { keys: latestValues },
    };
    if (this.series && this.series.keys.length) {
      cmd.tsCmd = {
        keys: this.series.keys,
        startTs: this.now() - this.series.windowMs,
        timeWindow: this.series.windowMs,
        interval: 1000,
        limit: this.series.limit,
        agg: 'NONE',
      };
    }
    return cmd;
  }

  onMessage(msg: WsMessage): void {
    const data = msg.data as PageData<EntityData> | null | undefined;
    if (data && Array.isArray(data.data)) this.onData(data);
    const update = msg.update as EntityData[] | null | undefined;
    if (Array.isArray(update)) {
      for (const ed of update) {
        if (!ed || !ed.entityId) continue;
        if (!this.snapshotSent) {
          if (this.premature.length < 10000) this.premature.push(ed);
          continue;
        }
        this.onUpdate(ed);
      }
    }
  }

  /** The state kept for an entity (its flat row in flat format: never sent as such). */
  private present(raw: EntityData): unknown {
    return this.format === 'raw' ? raw : flattenEntity(raw);
  }

  /**
   * What an event carries of an entity's state: the raw item itself, or a copy of the flat row (the receiver may keep
   * or change it; the row itself goes on changing).
   */
  private sent(item: unknown): unknown {
    return this.format === 'raw' ? item : copyFlat(item as FlatEntity);
  }

  private onData(page: PageData<EntityData>): void {
    if (!this.snapshotSent) {
      this.snapshotSent = true;
      const items = page.data.map((ed) => {
        const item = this.present(ed);
        this.known.set(idOf(ed), { raw: ed, item });
        return this.sent(item);
      });
      this.sink.event({ event: 'snapshot', items, page: pageInfo(page, this.query.pageLink) });
      this.emitSeries(page.data);
      const early = this.premature;
      this.premature = [];
      for (const ed of early) this.onUpdate(ed);
      return;
    }
    // A later page (dynamic re-query, or the first answer after a reconnect): report the difference.
    const seen = new Set<string>();
    for (const ed of page.data) {
      const id = idOf(ed);
      seen.add(id);
      const prev = this.known.get(id);
      if (!prev) {
        const item = this.present(ed);
        this.known.set(id, { raw: ed, item });
        this.sink.event({ event: 'added', id, item: this.sent(item) });
        continue;
      }
      const changed = changedKeys(prev.raw.latest ?? {}, ed.latest ?? {}, true);
      if (changed.length) {
        const item = this.present(ed);
        this.known.set(id, { raw: ed, item });
        this.sink.event({ event: 'update', id, item: this.sent(item), changed });
      } else {
        prev.raw = ed;
      }
    }
    for (const [id, state] of this.known) {
      if (!seen.has(id)) {
        this.known.delete(id);
        this.sink.event({ event: 'removed', id, item: this.sent(state.item) });
      }
    }
    this.emitSeries(page.data);
  }

  private onUpdate(ed: EntityData): void {
    const id = idOf(ed);
    const state = this.known.get(id);
    if (!state) return; // not on our page
    if (ed.latest) {
      if (this.format === 'raw') {
        const changed: string[] = [];
        // The raw state is what gets sent: copy on write, never change an object already sent.
        const merged = mergeLatest(state.raw.latest ?? {}, ed.latest, changed);
        if (changed.length) {
          const raw: EntityData = { ...state.raw, latest: merged };
          state.raw = raw;
          state.item = raw;
          this.sink.event({ event: 'update', id, item: raw, changed });
        }
      } else {
        // flat: neither the raw state nor the flat row is ever sent (copies of the row are), so both are updated
        // in place, and only the changed keys of the row are recomputed (the whole entity costs far more).
        // The changed names are gathered in one array kept for this, then copied at their exact length: an array
        // grown by push holds room for 17 names, and every message in flight keeps its own.
        const latest = state.raw.latest ?? (state.raw.latest = {});
        const n = mergeLatestInPlace(latest, ed.latest, this.changedNames, this.changedSeries);
        if (n !== 0) {
          const changed = this.changedNames.slice(0, n);
          const row = state.item as FlatEntity;
          applyFlatChanges(row, latest, changed, this.changedSeries);
          this.sink.event({ event: 'update', id, item: copyFlat(row), changed });
        }
      }
    }
    if (ed.timeseries) this.emitSeries([ed]);
  }

  private emitSeries(items: EntityData[]): void {
    if (!this.series) return;
    for (const ed of items) {
      const ts = ed.timeseries;
      if (!ts) continue;
      let any = false;
      for (const k in ts) {
        if (ts[k] && ts[k].length) {
          any = true;
          break;
        }
      }
      if (!any) continue;
      const item =
        this.format === 'raw'
          ? { entityId: ed.entityId, timeseries: ts }
          : { id: ed.entityId.id, entityType: ed.entityId.entityType, series: seriesValues(ts) };
      this.sink.event({ event: 'timeseries', id: ed.entityId.id, item });
    }
  }
}

/** A one-off history fetch (ENTITY_DATA with historyCmd): one 'history' event, then it is done. */
export class EntityHistoryFetch extends Base {
  readonly unsubscribeType = 'ENTITY_DATA_UNSUBSCRIBE';
  done = false;

  constructor(
    sink: LiveSink,
    private readonly query: EntityDataQuery,
    private readonly format: ResultFormat,
    private readonly history: HistoryOptions,
    private readonly onDone: () => void,
    private readonly now: () => number = Date.now,
  ) {
    super(sink);
  }

  command(): WsCommand {
    const end = this.now();
    return {
      type: 'ENTITY_DATA',
      query: { ...this.query, latestValues: this.query.latestValues ?? [] },
      historyCmd: {
        keys: this.history.keys,
        startTs: end - this.history.rangeMs,
        endTs: end,
        interval: this.history.intervalMs > 0 ? this.history.intervalMs : 1000,
        limit: this.history.limit,
        agg: this.history.intervalMs > 0 ? this.history.agg : 'NONE',
      },
    };
  }

  onMessage(msg: WsMessage): void {
    if (this.done) return;
    const data = msg.data as PageData<EntityData> | null | undefined;
    const update = msg.update as EntityData[] | null | undefined;
    const list = data && Array.isArray(data.data) ? data.data : Array.isArray(update) ? update : undefined;
    if (!list) return;
    this.done = true;
    const items =
      this.format === 'raw'
        ? list.map((ed) => ({ entityId: ed.entityId, timeseries: ed.timeseries ?? {} }))
        : list.map((ed) => ({
            id: ed.entityId.id,
            entityType: ed.entityId.entityType,
            series: seriesValues(ed.timeseries ?? {}),
          }));
    this.sink.event({ event: 'history', items });
    this.onDone();
  }
}

function seriesValues(ts: Record<string, TsValue[]>): Record<string, Array<{ ts: number; value: unknown }>> {
  const out: Record<string, Array<{ ts: number; value: unknown }>> = {};
  for (const k in ts) {
    const list = ts[k] ?? [];
    const vals = new Array<{ ts: number; value: unknown }>(list.length);
    for (let i = 0; i < list.length; i++) vals[i] = { ts: list[i].ts, value: parseValue(list[i]) };
    out[k] = vals;
  }
  return out;
}

/** Same value? REST/initial pages print a double 23.0 as "23", live updates as "23.0": both are 23. */
function sameValue(a: TsValue, b: TsValue): boolean {
  if (a.value === b.value) return true;
  const pa = parseValue(a);
  return typeof pa === 'number' && pa === parseValue(b);
}

/** Does an update's value replace the one known? Not when it is the same, or older (except a deletion, ts 0). */
function supersedes(tv: TsValue, prev: TsValue): boolean {
  if (tv.ts === prev.ts && sameValue(tv, prev)) return false;
  return tv.ts === 0 || tv.ts >= prev.ts;
}

/**
 * Merges an update's latest values into a copy of `base` (copy-on-write: objects already emitted are never
 * changed). Names of keys whose value or timestamp changed are pushed to `changed`. Older values are ignored,
 * except a deletion ({ts:0, value:""}).
 */
function mergeLatest(base: LatestValues, upd: LatestValues, changed: string[]): LatestValues {
  let out: LatestValues | undefined;
  for (const type in upd) {
    const keys = upd[type as keyof LatestValues];
    if (!keys) continue;
    const prevGroup = base[type as keyof LatestValues];
    let group: Record<string, TsValue> | undefined;
    for (const key in keys) {
      const tv = keys[key];
      const prev = prevGroup ? prevGroup[key] : undefined;
      if (prev && !supersedes(tv, prev)) continue;
      if (!group) group = { ...(prevGroup ?? {}) };
      group[key] = tv;
      changed.push(key);
    }
    if (group) {
      if (!out) out = { ...base };
      out[type as keyof LatestValues] = group;
    }
  }
  return out ?? base;
}

/**
 * {@link mergeLatest} into `base` itself, for state that is never sent (the raw state behind flat rows): no copies
 * on the path of every update. A value already known is overwritten in its own object (its ts and value copied
 * over), so the state keeps the objects it has instead of holding on to every frame's. The names of the keys that
 * changed are written to `changed` from index 0 on, and beside each in `series` its value in the state when it
 * changed in TIME_SERIES (else undefined); returns how many.
 */
function mergeLatestInPlace(
  base: LatestValues,
  upd: LatestValues,
  changed: string[],
  series: (TsValue | undefined)[],
): number {
  let n = 0;
  for (const type in upd) {
    const keys = upd[type as keyof LatestValues];
    if (!keys) continue;
    let group = base[type as keyof LatestValues];
    const isSeries = type === 'TIME_SERIES';
    for (const key in keys) {
      const tv = keys[key];
      const prev = group ? group[key] : undefined;
      let now = tv;
      if (prev) {
        if (!supersedes(tv, prev)) continue;
        prev.ts = tv.ts;
        prev.value = tv.value;
        now = prev;
      } else {
        if (!group) group = base[type as keyof LatestValues] = {};
        group[key] = tv;
      }
      series[n] = isSeries ? now : undefined;
      changed[n++] = key;
    }
  }
  return n;
}

/** Keys whose value differs between two `latest` maps (entity fields by value only: their ts is query time). */
function changedKeys(a: LatestValues, b: LatestValues, compareTs: boolean): string[] {
  const out: string[] = [];
  for (const type in b) {
    const bg = b[type as keyof LatestValues];
    if (!bg) continue;
    const ag = a[type as keyof LatestValues];
    const byValueOnly = type === 'ENTITY_FIELD' || !compareTs;
    for (const key in bg) {
      const bv = bg[key];
      const av = ag ? ag[key] : undefined;
      if (!av) {
        out.push(key);
        continue;
      }
      if (!sameValue(av, bv) || (!byValueOnly && av.ts !== bv.ts)) out.push(key);
    }
  }
  return out;
}

// ---- alarm data ---------------------------------------------------------------------------------------

/** Looks up an alarm that left the page (was it cleared, acknowledged, deleted?). null = it no longer exists. */
export type AlarmLookup = (id: string) => Promise<AlarmData | null>;

const ALARM_FIELDS_COMPARED = [
  'severity',
  'status',
  'details',
  'endTs',
  'assigneeId',
  'type',
  'propagate',
  'originatorName',
  'originatorLabel',
] as const;

/** Which event a change of one alarm is, or undefined when nothing a user cares about changed. */
export function classifyAlarm(prev: AlarmData, now: AlarmData): 'cleared' | 'acknowledged' | 'updated' | undefined {
  if (!prev.cleared && now.cleared) return 'cleared';
  if (!prev.acknowledged && now.acknowledged) return 'acknowledged';
  for (const f of ALARM_FIELDS_COMPARED) {
    const a = prev[f as keyof AlarmData];
    const b = now[f as keyof AlarmData];
    if (a === b) continue;
    if (a && b && typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b)) continue;
    return 'updated';
  }
  return undefined;
}

/** Live alarm table (ALARM_DATA): snapshot, then created / acknowledged / cleared / updated / removed. */
export class AlarmDataSubscription extends Base {
  readonly unsubscribeType = 'ALARM_DATA_UNSUBSCRIBE';
  private readonly known = new Map<string, { raw: AlarmData; item: unknown }>();
  private snapshotSent = false;
  private premature: AlarmData[] = [];

  constructor(
    sink: LiveSink,
    private readonly query: AlarmDataQuery,
    private readonly format: ResultFormat,
    private readonly lookup: AlarmLookup,
    private readonly now: () => number = Date.now,
  ) {
    super(sink);
  }

  /** How many alarms are on the page now; 0 before the snapshot. */
  get size(): number {
    return this.known.size;
  }

  /** Is this alarm on the page now (as its last event left it)? */
  has(id: string): boolean {
    return this.known.has(id);
  }

  /** Built anew for every (re)subscription, so a reconnect sends a window reaching back to the epoch again. */
  command(): WsCommand {
    return { type: 'ALARM_DATA', query: withLiveWindow(this.query, this.now()) };
  }

  private present(raw: AlarmData): unknown {
    return this.format === 'raw' ? raw : flattenAlarm(raw);
  }

  onMessage(msg: WsMessage): void {
    const data = msg.data as PageData<AlarmData> | null | undefined;
    if (data && Array.isArray(data.data)) this.onData(data);
    const update = msg.update as AlarmData[] | null | undefined;
    if (Array.isArray(update)) {
      for (const a of update) {
        if (!a || !a.id) continue;
        if (!this.snapshotSent) this.premature.push(a);
        else this.onAlarm(a);
      }
    }
  }

  private onData(page: PageData<AlarmData>): void {
    if (!this.snapshotSent) {
      this.snapshotSent = true;
      const items = this.format === 'raw' ? page.data : formatAlarms(page.data, 'flat');
      page.data.forEach((a, i) => this.known.set(a.id.id, { raw: a, item: items[i] }));
      this.sink.event({ event: 'snapshot', items, page: pageInfo(page, this.query.pageLink) });
      const early = this.premature;
      this.premature = [];
      for (const a of early) this.onAlarm(a);
      return;
    }
    const seen = new Set<string>();
    for (const a of page.data) {
      seen.add(a.id.id);
      this.onAlarm(a);
    }
    for (const [id, state] of this.known) {
      if (seen.has(id)) continue;
      this.known.delete(id);
      void this.vanished(id, state.raw);
    }
  }

  private onAlarm(a: AlarmData): void {
    const id = a.id.id;
    const prev = this.known.get(id);
    if (!prev) {
      const item = this.present(a);
      this.known.set(id, { raw: a, item });
      this.sink.event({ event: 'created', id, item });
      return;
    }
    const kind = classifyAlarm(prev.raw, a);
    if (!kind) {
      prev.raw = a;
      return;
    }
    const item = this.present(a);
    this.known.set(id, { raw: a, item });
    this.sink.event({ event: kind, id, item });
  }

  /** An alarm left the page: find out why (cleared and filtered out, acknowledged, deleted, pushed off). */
  private async vanished(id: string, prev: AlarmData): Promise<void> {
    let now: AlarmData | null;
    try {
      now = await this.lookup(id);
    } catch {
      now = null;
    }
    if (now) {
      // Keep what the page knew about the matched entity (entityId, latest) on the fresh alarm.
      const merged: AlarmData = { ...prev, ...now, entityId: prev.entityId, latest: prev.latest };
      const kind = classifyAlarm(prev, merged);
      if (kind) {
        this.sink.event({ event: kind, id, item: this.present(merged) });
        return;
      }
      this.sink.event({ event: 'removed', id, item: this.present(merged) });
      return;
    }
    this.sink.event({ event: 'removed', id, item: this.present(prev) });
  }
}

/**
 * The pageLink sent for a live alarm query (ALARM_DATA). A query with its own timeWindow, startTs or endTs is sent
 * as written. One without any of them ("alarms of any age") gets `timeWindow = now`: a window that reaches back to
 * the epoch, so the snapshot keeps every alarm the query asks for and new alarms still stream. Why, in ThingsBoard's
 * code (HEAD dfe65d5, line numbers identical in v4.3.1.3; the same logic since v3.3):
 *
 * - Live updates need timeWindow > 0. `TbAlarmDataSubCtx#filter` (TbAlarmDataSubCtx.java:256-262) drops every
 *   alarm event with `createdTime < System.currentTimeMillis() - timeWindow`, so with 0 new alarms never appear,
 *   and the refresh task that resets the re-fetch counter (10 per interval) is only scheduled when timeWindow > 0
 *   (DefaultTbEntityDataSubscriptionService.java:431-436). That is why a window must be sent at all.
 * - The snapshot and every re-fetch use the same window: `DefaultAlarmQueryRepository#findAlarmDataByQueryForEntities`
 *   (DefaultAlarmQueryRepository.java:209-242), timeWindow > 0 and startTs 0 gives `startTs = now - timeWindow`,
 *   `endTs = now`, and the lower bound is only applied `if (startTs > 0)`. With timeWindow = our now the lower bound
 *   is the clock difference between server and client: absent when the client's clock is ahead, that difference
 *   after 1970-01-01 when it is behind (only a clock decades behind would miss an alarm). Every real alarm passes
 *   (the old 24 h default lost active alarms raised more than a day ago). The upper bound `created_time <= now` is
 *   taken at each fetch, so new alarms are in the re-fetches.
 * - The live filter (TbAlarmDataSubCtx.java:258) and the periodic pruning `cleanupOldAlarms`
 *   (TbAlarmDataSubCtx.java:242-254, run by the refresh task through `checkAndResetInvocationCounter`, :302-310)
 *   compare createdTime with `now - timeWindow`, which stays near the epoch (it grows by the time since the
 *   command was sent): every alarm passes the filter, and nothing is ever pruned, so the timer causes no extra
 *   re-fetches. `createAlarmSubscriptions` stores `now - timeWindow` in TbAlarmsSubscription.ts, which nothing reads.
 * - No overflow or validation: timeWindow is a Java long (AlarmDataPageLink.java) and only ever subtracted from
 *   currentTimeMillis; `startTs + timeWindow` (DefaultAlarmQueryRepository.java:214) is only computed when startTs
 *   > 0, which this window never sends; `validateEntityDataPageLink` checks paging and sorting, not times.
 * - `command()` builds it each time, so a reconnect sends the window anew (an old one would still work: its lower
 *   bound only moves by the time since it was computed).
 *
 * ALARM_COUNT needs nothing of the kind: TbAlarmCountSubCtx re-counts on every alarm event of its entities and on the
 * refresh task, which is scheduled whatever the window (DefaultTbEntityDataSubscriptionService.java:457-465), and
 * `countAlarmsByQuery` without a window counts alarms of any age (DefaultAlarmQueryRepository.java:362-386).
 */
export function withLiveWindow(query: AlarmDataQuery, now: number = Date.now()): AlarmDataQuery {
  const pl = query.pageLink;
  if ((pl.timeWindow ?? 0) > 0 || (pl.startTs ?? 0) > 0 || (pl.endTs ?? 0) > 0) return query;
  return { ...query, pageLink: { ...pl, timeWindow: Math.max(1, Math.floor(now)) } };
}

// ---- counts and alarm status --------------------------------------------------------------------------

/** ENTITY_COUNT / ALARM_COUNT: the number at start and on each change. */
export class CountSubscription extends Base {
  readonly unsubscribeType: string;
  private last: number | undefined;

  constructor(
    sink: LiveSink,
    private readonly kind: 'ENTITY_COUNT' | 'ALARM_COUNT',
    private readonly query: EntityCountQuery | AlarmCountQuery,
  ) {
    super(sink);
    this.unsubscribeType = `${kind}_UNSUBSCRIBE`;
  }

  command(): WsCommand {
    return { type: this.kind, query: this.query };
  }

  onMessage(msg: WsMessage): void {
    const count = msg.count;
    if (typeof count !== 'number' || count === this.last) return;
    this.last = count;
    this.sink.event({ event: 'count', count });
  }
}

/** ALARM_STATUS for one originator: true/false at start and on each change. */
export class AlarmStatusSubscription extends Base {
  readonly unsubscribeType = 'ALARM_STATUS_UNSUBSCRIBE';
  private last: boolean | undefined;

  constructor(
    sink: LiveSink,
    readonly originator: EntityId,
    private readonly typeList: string[],
    private readonly severityList: string[],
  ) {
    super(sink);
  }

  command(): WsCommand {
    // null, not []: an empty list matches nothing on the server.
    return {
      type: 'ALARM_STATUS',
      originatorId: { entityType: this.originator.entityType, id: this.originator.id },
      typeList: this.typeList.length ? this.typeList : null,
      severityList: this.severityList.length ? this.severityList : null,
    };
  }

  onMessage(msg: WsMessage): void {
    const active = msg.active;
    if (typeof active !== 'boolean' || active === this.last) return;
    this.last = active;
    this.sink.event({ event: 'alarmStatus', active, originator: this.originator });
  }
}

// ---- the current user's notifications ---------------------------------------------------------------------

/** How many notification ids a subscription remembers as sent (the newest). */
export const SENT_NOTIFICATIONS_KEPT = 1000;

function notificationId(n: unknown): string | undefined {
  if (!n || typeof n !== 'object') return undefined;
  const id = (n as { id?: { id?: unknown } }).id;
  return id && typeof id.id === 'string' ? id.id : undefined;
}

/**
 * NOTIFICATIONS: the latest `limit` unread web notifications of the connection's user and their total, live. The
 * server answers a full list on subscribe and after a read (`notifications`), one new notification at a time
 * (`update`), or the count alone, each with a `sequenceNumber` counted per subscription (one not above the last
 * is stale and ignored, as ThingsBoard's own UI does).
 *
 * Events: `inbox` once, the unread notifications at start and their total; `notification` for each new one; `count`
 * when the unread total changes otherwise (a notification read, deleted). A notification is sent once: after a
 * reconnect the new subscription's full list is compared with the ids already sent, and only the ones that arrived
 * meanwhile come out. A notification older than the start, which the first list left out (beyond `limit`), is not
 * new when a later list shows it.
 */
export class NotificationsSubscription extends Base {
  readonly unsubscribeType = 'NOTIFICATIONS_UNSUBSCRIBE';
  private started = false;
  private lastSequence = 0;
  private unread: number | undefined;
  /** Ids sent (or in the first list), oldest first; the set beside it for look-ups. */
  private readonly sentOrder: string[] = [];
  private readonly sent = new Set<string>();
  /** Notifications created at or before this were unread at the start but not listed (beyond `limit`). */
  private cutoff = -Infinity;
  /** The unread total the last event carried. */
  private lastTold: number | undefined;

  constructor(
    sink: LiveSink,
    /** How many of the latest unread notifications the server lists (at least 1). */
    private readonly limit: number,
    private readonly format: ResultFormat,
  ) {
    super(sink);
  }

  /** The unread total last known; undefined before the first answer. */
  get unreadCount(): number | undefined {
    return this.unread;
  }

  command(): WsCommand {
    return { type: 'NOTIFICATIONS', limit: Math.max(1, Math.floor(this.limit)) };
  }

  /** A new subscription counts its sequence from 1 again. */
  onResubscribe(): void {
    this.lastSequence = 0;
  }

  private present(n: Notification): unknown {
    return this.format === 'raw' ? n : flattenNotification(n);
  }

  private remember(id: string): void {
    if (this.sent.has(id)) return;
    this.sent.add(id);
    this.sentOrder.push(id);
    if (this.sentOrder.length > SENT_NOTIFICATIONS_KEPT) this.sent.delete(this.sentOrder.shift() as string);
  }

  onMessage(msg: WsMessage): void {
    const seq = msg.sequenceNumber;
    if (typeof seq === 'number') {
      if (seq <= this.lastSequence) return;
      this.lastSequence = seq;
    }
    const total = typeof msg.totalUnreadCount === 'number' ? msg.totalUnreadCount : this.unread;
    const list = Array.isArray(msg.notifications) ? (msg.notifications as Notification[]) : undefined;
    const update = msg.update && typeof msg.update === 'object' ? (msg.update as Notification) : undefined;
    if (!this.started) {
      if (!list) return; // the first answer is the full list
      this.started = true;
      this.unread = total ?? list.length;
      for (const n of list) {
        const id = notificationId(n);
        if (id) this.remember(id);
      }
      // The server listed `limit` of more: the older unread ones are not new when a later list shows them.
      if (this.unread > list.length && list.length > 0)
        this.cutoff = Math.min(...list.map((n) => (typeof n.createdTime === 'number' ? n.createdTime : Infinity)));
      this.lastTold = this.unread;
      this.sink.event({ event: 'inbox', items: list.map((n) => this.present(n)), unreadCount: this.unread });
      return;
    }
    let told = false;
    const fresh = (n: Notification): boolean => {
      const id = notificationId(n);
      if (!id || this.sent.has(id)) return false;
      return typeof n.createdTime !== 'number' || n.createdTime > this.cutoff;
    };
    const news = list ? list.filter(fresh).reverse() : update && fresh(update) ? [update] : [];
    if (total !== undefined) this.unread = total;
    for (const n of news) {
      this.remember(notificationId(n) as string);
      this.sink.event({
        event: 'notification',
        id: notificationId(n) as string,
        item: this.present(n),
        unreadCount: this.unread ?? 0,
      });
      told = true;
    }
    // A count that changed without a new notification (one read, or deleted): the count alone.
    if (!told && total !== undefined && total !== this.lastTold) this.sink.event({ event: 'count', count: total });
    this.lastTold = this.unread;
  }
}
