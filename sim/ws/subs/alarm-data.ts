/**
 * ALARM_DATA (TbAlarmDataSubCtx): the alarm page, then per alarm event on a subscribed entity an `update`
 * (alarm on the page still matching) or a full `data` re-fetch (no longer matching, deleted, or a new matching
 * alarm while on page 0), re-fetches capped per refresh interval; latest values of the entities merged into the
 * alarms of that entity.
 */
import type { KeyScope, SimAlarm } from '../../dataset';
import { alarmStatus as statusOf } from '../../dataset';
import type { AlarmDataQuery } from '../../query/parse';
import type {
  AlarmData,
  AlarmSearchStatus,
  AlarmStatus,
  AttributeScope,
  EntityKeyType,
  KvEntry,
  PageData,
  TsValue,
} from '../../types';
import { javaValueString } from '../../values';
import { every, type SubHost, type Sub } from '../context';
import { alarmDataPage, alarmDataUpdate } from '../messages';
import type { AlarmDataCmd } from '../parse';
import type { AlarmAction, AlarmListener, KvListener } from '../router';
import { matchEntities } from './match';

const STATUSES: Record<AlarmSearchStatus, readonly AlarmStatus[]> = {
  ANY: ['ACTIVE_UNACK', 'ACTIVE_ACK', 'CLEARED_UNACK', 'CLEARED_ACK'],
  ACTIVE: ['ACTIVE_UNACK', 'ACTIVE_ACK'],
  CLEARED: ['CLEARED_UNACK', 'CLEARED_ACK'],
  ACK: ['ACTIVE_ACK', 'CLEARED_ACK'],
  UNACK: ['ACTIVE_UNACK', 'CLEARED_UNACK'],
};
const SCOPE_KEY_TYPE: Record<AttributeScope, EntityKeyType> = {
  SERVER_SCOPE: 'SERVER_ATTRIBUTE',
  SHARED_SCOPE: 'SHARED_ATTRIBUTE',
  CLIENT_SCOPE: 'CLIENT_ATTRIBUTE',
};
const EMPTY_PAGE: PageData<AlarmData> = { data: [], totalPages: 0, totalElements: 0, hasNext: false };

class EntityWatch implements KvListener, AlarmListener {
  constructor(
    readonly sub: AlarmDataSub,
    readonly entityId: string,
  ) {}
  onAlarm(action: AlarmAction, alarm: SimAlarm): void {
    this.sub.onAlarm(action, alarm);
  }
  onTelemetry(entries: Record<string, KvEntry>): void {
    this.sub.onLatest(this.entityId, 'TIME_SERIES', entries);
  }
  onAttributes(scope: AttributeScope, entries: Record<string, KvEntry>): void {
    this.sub.onLatest(this.entityId, SCOPE_KEY_TYPE[scope], entries);
    this.sub.onLatest(this.entityId, 'ATTRIBUTE', entries);
  }
  onKeysDeleted(scope: KeyScope, keys: string[]): void {
    const entries: Record<string, TsValue> = {};
    for (const k of keys) entries[k] = { ts: 0, value: '' };
    if (scope === 'TIME_SERIES') {
      this.sub.onLatestValues(this.entityId, 'TIME_SERIES', entries);
    } else {
      this.sub.onLatestValues(this.entityId, SCOPE_KEY_TYPE[scope], entries);
      this.sub.onLatestValues(this.entityId, 'ATTRIBUTE', entries);
    }
  }
}

export class AlarmDataSub implements Sub {
  readonly kind = 'ALARM_DATA' as const;
  private query: AlarmDataQuery | null = null;
  private totalEntities = 0;
  private alarms = new Map<string, AlarmData>();
  private watches: EntityWatch[] = [];
  private latestByType = new Map<EntityKeyType, Set<string>>();
  private invocations = 0;
  private pendingFetch = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** full re-fetches sent (statistics for tests) */
  refetches = 0;

  constructor(
    private readonly host: SubHost,
    readonly cmdId: number,
  ) {}

  private get allowed(): number {
    return this.host.ctx.opts.maxEntitiesPerAlarmSubscription;
  }

  /** A new or repeated ALARM_DATA for this cmdId: (re)resolves, re-sends `data`, re-subscribes. */
  handle(cmd: AlarmDataCmd): void {
    const q = cmd.query as AlarmDataQuery;
    this.query = q;
    const ctx = this.host.ctx;
    // the REST engine validates and raises the same errors (page size, missing alarmFields NPE, …)
    const page = ctx.alarmQuery.find(this.host.caller, q, ctx.now(), 'ws');
    const { rows, total } = matchEntities(ctx, this.host.caller, q, q.pageLink?.sortOrder ?? null, this.allowed);
    this.cancelTasks();
    this.clearWatches();
    this.invocations = 0;
    this.pendingFetch = false;
    if (rows.length === 0) {
      this.alarms = new Map();
      this.totalEntities = 0;
      this.host.send(alarmDataPage(this.cmdId, EMPTY_PAGE, 0, 0), this.cmdId);
      return;
    }
    this.totalEntities = total;
    this.setPage(page);
    this.host.send(alarmDataPage(this.cmdId, page, this.allowed, this.totalEntities), this.cmdId);
    this.latestByType = new Map();
    for (const k of q.latestValues) {
      if (k.type === 'ENTITY_FIELD' || k.type === 'ALARM_FIELD') continue;
      let s = this.latestByType.get(k.type);
      if (!s) {
        s = new Set();
        this.latestByType.set(k.type, s);
      }
      s.add(k.key);
    }
    for (const r of rows) {
      const w = new EntityWatch(this, r.e.id);
      this.watches.push(w);
      ctx.router.addAlarm(r.e.id, w);
      if (this.latestByType.size > 0) ctx.router.addKv(r.e.id, w);
    }
    if ((q.pageLink?.timeWindow ?? 0) > 0) this.timer = every(ctx.opts.dynamicRefreshMs, () => this.onTimer());
  }

  stop(): void {
    this.stopped = true;
    this.cancelTasks();
    this.clearWatches();
  }

  private cancelTasks(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private clearWatches(): void {
    const router = this.host.ctx.router;
    for (const w of this.watches) {
      router.removeAlarm(w.entityId, w);
      router.removeKv(w.entityId, w);
    }
    this.watches = [];
  }

  private setPage(page: PageData<AlarmData>): void {
    this.alarms = new Map();
    for (const a of page.data) this.alarms.set(a.id.id, a);
  }

  /** The live re-match of TbAlarmDataSubCtx#filter (statusList is an OR here). */
  private matches(a: SimAlarm): boolean {
    const pl = this.query?.pageLink;
    if (!pl) return false;
    // createdTime >= now - timeWindow; on the server "now" is always later than a new alarm's createdTime, so with
    // timeWindow 0 nothing passes (a frozen simulator clock would let createdTime == now through)
    if (pl.timeWindow <= 0 || a.createdTime < this.host.ctx.now() - pl.timeWindow) return false;
    if (pl.typeList.length > 0 && !pl.typeList.includes(a.type)) return false;
    if (pl.severityList.length > 0 && !pl.severityList.includes(a.severity)) return false;
    if (pl.statusList.length > 0) {
      const st = statusOf(a);
      if (!pl.statusList.some((s) => STATUSES[s].includes(st))) return false;
    }
    return true;
  }

  onAlarm(action: AlarmAction, alarm: SimAlarm): void {
    if (this.stopped || this.host.closed) return;
    const current = this.alarms.get(alarm.id);
    if (action === 'deleted') {
      if (current) this.fetchAlarms();
      return;
    }
    const matches = this.matches(alarm);
    if (current) {
      if (matches) {
        const updated: AlarmData = {
          ...this.host.ctx.data.alarmInfo(alarm),
          entityId: current.entityId,
          latest: current.latest,
        };
        this.alarms.set(alarm.id, updated);
        this.host.send(alarmDataUpdate(this.cmdId, [updated], this.allowed, this.totalEntities), this.cmdId);
      } else {
        this.fetchAlarms();
      }
    } else if (matches && (this.query?.pageLink?.page ?? 0) === 0) {
      this.fetchAlarms();
    }
  }

  private fetchAlarms(): void {
    if (++this.invocations <= this.host.ctx.opts.maxAlarmQueriesPerRefresh) this.doFetch();
    else this.pendingFetch = true;
  }

  private doFetch(): void {
    if (!this.query) return;
    const ctx = this.host.ctx;
    let page: PageData<AlarmData>;
    try {
      page = ctx.alarmQuery.find(this.host.caller, this.query, ctx.now(), 'ws');
    } catch {
      return;
    }
    this.setPage(page);
    this.refetches++;
    this.host.send(alarmDataPage(this.cmdId, page, this.allowed, this.totalEntities), this.cmdId);
  }

  /** Runs only with timeWindow > 0: resets the re-fetch counter, re-fetches skipped or expired alarms. */
  private onTimer(): void {
    if (this.stopped || this.host.closed || !this.query?.pageLink) return;
    this.invocations = 0;
    const expired = this.host.ctx.now() - this.query.pageLink.timeWindow;
    let stale = this.pendingFetch;
    if (!stale) for (const a of this.alarms.values()) if (a.createdTime < expired) stale = true;
    this.pendingFetch = false;
    if (stale) this.doFetch();
    this.host.ctx.emit('refresh', { kind: this.kind, cmdId: this.cmdId, changed: stale });
  }

  onLatest(entityId: string, type: EntityKeyType, entries: Record<string, KvEntry>): void {
    const keys = this.latestByType.get(type);
    if (!keys) return;
    let values: Record<string, TsValue> | null = null;
    for (const k in entries) {
      if (!keys.has(k)) continue;
      if (!values) values = {};
      values[k] = { ts: entries[k].ts, value: javaValueString(entries[k]) };
    }
    if (values) this.onLatestValues(entityId, type, values);
  }

  /** TbAlarmDataSubCtx#sendLatestWsMsg: merged into every alarm of that entity on the page, no stale check. */
  onLatestValues(entityId: string, type: EntityKeyType, values: Record<string, TsValue>): void {
    if (this.stopped || this.host.closed) return;
    const keys = this.latestByType.get(type);
    if (!keys) return;
    const filtered: Record<string, TsValue> = {};
    let any = false;
    for (const k in values) {
      if (keys.has(k)) {
        filtered[k] = values[k];
        any = true;
      }
    }
    if (!any) return;
    const update: AlarmData[] = [];
    for (const a of this.alarms.values()) {
      if (a.entityId.id !== entityId) continue;
      const group = a.latest[type] ?? (a.latest[type] = {});
      Object.assign(group, filtered);
      update.push(a);
    }
    if (update.length > 0)
      this.host.send(alarmDataUpdate(this.cmdId, update, this.allowed, this.totalEntities), this.cmdId);
  }
}
