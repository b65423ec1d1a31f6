/**
 * ENTITY_DATA (TbEntityDataSubCtx): the page, latestCmd / tsCmd live subscriptions, historyCmd and the agg
 * commands, dynamic page links.
 *
 * The page is fetched with the REST engine (SQL value formatting) and kept as the cache live updates are compared
 * with (older or identical updates are dropped); live values use the Java formatting.
 */
import type { KeyScope } from '../../dataset';
import type { EntityDataQuery } from '../../query/parse';
import type {
  AttributeScope,
  EntityData,
  EntityId,
  EntityKey,
  EntityKeyType,
  KvEntry,
  PageData,
  TsValue,
} from '../../types';
import { javaValueString } from '../../values';
import { every, RestartSession, type SubHost, type Sub } from '../context';
import {
  entityDataError,
  entityDataPage,
  entityDataUpdate,
  entityDataUpdateHead,
  entityDataUpdateTail,
  tsValueEntry,
} from '../messages';
import type { AggCmd, EntityDataCmd, TsFetchCmd } from '../parse';
import type { KvListener } from '../router';
import { readAggregate, readSeries } from '../series';

export const NPE_LATEST_VALUES =
  'Cannot invoke "java.util.List.contains(Object)" because the return value of ' +
  '"org.thingsboard.server.common.data.query.EntityDataQuery.getLatestValues()" is null';

const SCOPE_KEY_TYPE: Record<AttributeScope, EntityKeyType> = {
  SERVER_SCOPE: 'SERVER_ATTRIBUTE',
  SHARED_SCOPE: 'SHARED_ATTRIBUTE',
  CLIENT_SCOPE: 'CLIENT_ATTRIBUTE',
};
const LIVE_TYPES: ReadonlySet<EntityKeyType> = new Set<EntityKeyType>([
  'TIME_SERIES',
  'ATTRIBUTE',
  'SERVER_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
]);
const DELETED: TsValue = { ts: 0, value: '' };

function sameKey(a: EntityKey, b: EntityKey): boolean {
  return a.type === b.type && a.key === b.key;
}

/**
 * One entity of the page with live subscriptions. What a TIME_SERIES write reads (the page's TIME_SERIES values, the
 * message's prefix) hangs off the binding itself: at 1,000 devices each object on the way (the page entry, its
 * `latest`, a table of prefixes) costs a cache miss on every write.
 */
class Binding implements KvListener {
  /** cached JSON prefixes of the other key types */
  private prefixes: Partial<Record<EntityKeyType, string>> = {};
  private readonly tsLatestPrefix: string;
  private tsPrefix = '';
  /** `ed.latest.TIME_SERIES` */
  private tsGroup: Record<string, TsValue> | undefined;
  private ed_: EntityData;
  latest = false;
  series = false;

  constructor(
    readonly sub: EntityDataSub,
    readonly entityId: EntityId,
    ed: EntityData,
  ) {
    this.ed_ = ed;
    this.tsGroup = ed.latest.TIME_SERIES;
    this.tsLatestPrefix = this.makeLatestPrefix('TIME_SERIES');
  }

  /** the page entry: the cache updates are compared with */
  get ed(): EntityData {
    return this.ed_;
  }
  set ed(ed: EntityData) {
    this.ed_ = ed;
    this.tsGroup = ed.latest.TIME_SERIES;
  }

  /** The page's values of one key type (what updates are compared with), if the page has that type. */
  group(type: EntityKeyType): Record<string, TsValue> | undefined {
    return type === 'TIME_SERIES' ? this.tsGroup : this.ed_.latest[type];
  }

  latestPrefix(type: EntityKeyType): string {
    if (type === 'TIME_SERIES') return this.tsLatestPrefix;
    let p = this.prefixes[type];
    if (p === undefined) {
      p = this.makeLatestPrefix(type);
      this.prefixes[type] = p;
    }
    return p;
  }

  private makeLatestPrefix(type: EntityKeyType): string {
    return `${entityDataUpdateHead(this.sub.cmdId)}[{"entityId":${JSON.stringify(this.entityId)},"latest":{"${type}":{`;
  }

  seriesPrefix(): string {
    if (this.tsPrefix === '') {
      this.tsPrefix =
        `${entityDataUpdateHead(this.sub.cmdId)}[{"entityId":${JSON.stringify(this.entityId)},` +
        `"latest":null,"timeseries":{`;
    }
    return this.tsPrefix;
  }

  onTelemetry(entries: Record<string, KvEntry>): void {
    this.sub.onTelemetry(this, entries);
  }
  onAttributes(scope: AttributeScope, entries: Record<string, KvEntry>): void {
    this.sub.onAttributes(this, scope, entries);
  }
  onKeysDeleted(scope: KeyScope, keys: string[]): void {
    this.sub.onKeysDeleted(this, scope, keys);
  }
}

export class EntityDataSub implements Sub {
  readonly kind = 'ENTITY_DATA' as const;
  private query: EntityDataQuery | null = null;
  private page: PageData<EntityData> | null = null;
  private initialDataSent = false;
  /** keys of the last latestCmd, grouped by live key type */
  private latestKeys: EntityKey[] | null = null;
  private latestByType = new Map<EntityKeyType, Set<string>>();
  private tsKeys: Set<string> | null = null;
  private readonly bindings = new Map<string, Binding>();
  private refreshTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly latestSuffix: string;
  private readonly seriesSuffix: string;

  constructor(
    private readonly host: SubHost,
    readonly cmdId: number,
  ) {
    const allowed = host.ctx.opts.maxEntitiesPerDataSubscription;
    this.latestSuffix = `}},"timeseries":null,"aggLatest":null}]${entityDataUpdateTail(allowed)}`;
    this.seriesSuffix = `},"aggLatest":null}]${entityDataUpdateTail(allowed)}`;
  }

  private get allowed(): number {
    return this.host.ctx.opts.maxEntitiesPerDataSubscription;
  }

  private send(msg: string): void {
    if (!this.stopped) this.host.send(msg, this.cmdId);
  }

  /** Handles an ENTITY_DATA command for this cmdId (new or repeated). Throws for errors (see the session). */
  handle(cmd: EntityDataCmd): void {
    const hasAnyCmd = !!(cmd.latestCmd || cmd.tsCmd || cmd.historyCmd || cmd.aggHistoryCmd || cmd.aggTsCmd);
    if (hasAnyCmd) this.clearBindings();
    if (cmd.query) {
      const q = cmd.query;
      if (cmd.latestCmd) {
        if (cmd.latestValuesNull) throw new Error(NPE_LATEST_VALUES);
        for (const k of cmd.latestCmd.keys) if (!q.latestValues.some((x) => sameKey(x, k))) q.latestValues.push(k);
      }
      this.query = q;
      this.fetchData();
      this.cancelRefresh();
      if (q.pageLink?.dynamic) this.refreshTimer = every(this.host.ctx.opts.dynamicRefreshMs, () => this.refresh());
    }
    if (cmd.aggHistoryCmd) this.handleAgg(cmd.aggHistoryCmd);
    if (cmd.aggTsCmd) this.handleAgg(cmd.aggTsCmd);
    if (cmd.historyCmd) this.handleSeries(cmd.historyCmd, false);
    if (cmd.latestCmd || cmd.tsCmd) {
      if (cmd.latestCmd) this.handleLatest(cmd.latestCmd.keys);
      if (cmd.tsCmd) this.handleSeries(cmd.tsCmd, true);
    } else {
      this.checkAndSendInitialData();
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancelRefresh();
    this.clearBindings();
  }

  // -------------------------------------------------------------------------------------------------------------

  private fetchData(): void {
    const { entityQuery, now } = this.host.ctx;
    const page = entityQuery.find(this.host.caller, this.query as EntityDataQuery, now(), 'ws');
    this.page = page;
    this.initialDataSent = false;
    if (this.bindings.size > 0) {
      // a new query without sub-commands keeps the subscriptions; they compare with the new page where possible
      const index = new Map(page.data.map((d) => [d.entityId.id, d] as const));
      for (const [id, b] of this.bindings) b.ed = index.get(id) ?? b.ed;
    }
  }

  private requirePage(): PageData<EntityData> {
    // the server dereferences a null page and closes the session with 1012
    if (!this.page) throw new RestartSession();
    return this.page;
  }

  private checkAndSendInitialData(): void {
    const page = this.requirePage();
    if (!this.initialDataSent) {
      this.send(entityDataPage(this.cmdId, page, this.allowed));
      this.initialDataSent = true;
    }
  }

  private cancelRefresh(): void {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = null;
  }

  private clearBindings(): void {
    const router = this.host.ctx.router;
    for (const [id, b] of this.bindings) router.removeKv(id, b);
    this.bindings.clear();
    this.tsKeys = null;
    this.latestKeys = null;
    this.latestByType = new Map();
  }

  private binding(ed: EntityData): Binding {
    let b = this.bindings.get(ed.entityId.id);
    if (!b) {
      b = new Binding(this, ed.entityId, ed);
      this.bindings.set(ed.entityId.id, b);
      this.host.ctx.router.addKv(ed.entityId.id, b);
    }
    return b;
  }

  // --- latestCmd ---------------------------------------------------------------------------------------------------

  private handleLatest(keys: EntityKey[]): void {
    const page = this.requirePage();
    this.latestKeys = keys;
    this.latestByType = new Map();
    for (const k of keys) {
      if (!LIVE_TYPES.has(k.type)) continue; // ENTITY_FIELD values are never pushed
      let s = this.latestByType.get(k.type);
      if (!s) {
        s = new Set();
        this.latestByType.set(k.type, s);
      }
      s.add(k.key);
    }
    const fresh: Binding[] = [];
    if (this.latestByType.size > 0) {
      for (const ed of page.data) {
        const b = this.binding(ed);
        b.latest = true;
        fresh.push(b);
      }
    }
    this.checkAndSendInitialData();
    this.checkMissedUpdates(fresh);
  }

  /** SQL ts store: a new subscription pushes the stored values newer than the ones in the cached page. */
  private checkMissedUpdates(list: Binding[]): void {
    const ds = this.host.ctx.data;
    for (const b of list) {
      const e = ds.get(b.entityId.id);
      if (!e) continue;
      for (const [type, keys] of this.latestByType) {
        const cached = b.group(type);
        let missed: Record<string, KvEntry> | null = null;
        for (const key of keys) {
          let v: KvEntry | undefined;
          switch (type) {
            case 'TIME_SERIES':
              v = ds.getLatest(e, key);
              break;
            case 'ATTRIBUTE':
              v = ds.getAnyAttribute(e, key);
              break;
            case 'SERVER_ATTRIBUTE':
              v = ds.getAttribute(e, 'SERVER_SCOPE', key);
              break;
            case 'SHARED_ATTRIBUTE':
              v = ds.getAttribute(e, 'SHARED_SCOPE', key);
              break;
            case 'CLIENT_ATTRIBUTE':
              v = ds.getAttribute(e, 'CLIENT_SCOPE', key);
              break;
            default:
              v = undefined;
          }
          if (v && v.ts > (cached?.[key]?.ts ?? 0)) {
            if (!missed) missed = {};
            missed[key] = v;
          }
        }
        if (missed) this.pushLatest(b, type, keys, missed);
      }
    }
  }

  /** TbEntityDataSubCtx#sendLatestWsMsg: one entity, one key type, only the changed keys. */
  private pushLatest(b: Binding, type: EntityKeyType, keys: Set<string>, entries: Record<string, KvEntry>): void {
    const cache = b.group(type);
    let body = '';
    for (const k in entries) {
      if (!keys.has(k)) continue;
      const e = entries[k];
      const value = javaValueString(e);
      if (cache) {
        const cur = cache[k];
        if (cur === undefined) cache[k] = { ts: e.ts, value };
        else if (e.ts < cur.ts || (e.ts === cur.ts && value === cur.value)) continue;
        else {
          // in place: the page's values are this subscription's own (made by its query, sent as text)
          cur.ts = e.ts;
          cur.value = value;
        }
      }
      body += body === '' ? tsValueEntry(k, e.ts, value) : `,${tsValueEntry(k, e.ts, value)}`;
    }
    if (body !== '') this.send(b.latestPrefix(type) + body + this.latestSuffix);
  }

  private pushDeleted(b: Binding, type: EntityKeyType, keys: Set<string>, deleted: string[]): void {
    const cache = b.group(type);
    let body = '';
    for (const k of deleted) {
      if (!keys.has(k)) continue;
      if (cache) cache[k] = { ...DELETED };
      body += (body === '' ? '' : ',') + tsValueEntry(k, 0, '');
    }
    if (body !== '') this.send(b.latestPrefix(type) + body + this.latestSuffix);
  }

  onTelemetry(b: Binding, entries: Record<string, KvEntry>): void {
    if (b.latest) {
      const keys = this.latestByType.get('TIME_SERIES');
      if (keys) this.pushLatest(b, 'TIME_SERIES', keys, entries);
    }
    if (b.series && this.tsKeys) {
      const keys = this.tsKeys;
      let body = '';
      for (const k in entries) {
        if (!keys.has(k)) continue;
        const e = entries[k];
        const item = `${JSON.stringify(k)}:[{"ts":${e.ts},"value":${JSON.stringify(javaValueString(e))}}]`;
        body += body === '' ? item : `,${item}`;
      }
      if (body !== '') this.send(b.seriesPrefix() + body + this.seriesSuffix);
    }
  }

  onAttributes(b: Binding, scope: AttributeScope, entries: Record<string, KvEntry>): void {
    if (!b.latest) return;
    const specific = SCOPE_KEY_TYPE[scope];
    const keys = this.latestByType.get(specific);
    if (keys) this.pushLatest(b, specific, keys, entries);
    const any = this.latestByType.get('ATTRIBUTE');
    if (any) this.pushLatest(b, 'ATTRIBUTE', any, entries);
  }

  onKeysDeleted(b: Binding, scope: KeyScope, deleted: string[]): void {
    if (!b.latest) return;
    if (scope === 'TIME_SERIES') {
      const keys = this.latestByType.get('TIME_SERIES');
      if (keys) this.pushDeleted(b, 'TIME_SERIES', keys, deleted);
      return;
    }
    const specific = SCOPE_KEY_TYPE[scope];
    const keys = this.latestByType.get(specific);
    if (keys) this.pushDeleted(b, specific, keys, deleted);
    const any = this.latestByType.get('ATTRIBUTE');
    if (any) this.pushDeleted(b, 'ATTRIBUTE', any, deleted);
  }

  // --- tsCmd / historyCmd ----------------------------------------------------------------------------------------

  private handleSeries(cmd: TsFetchCmd, subscribe: boolean): void {
    const page = this.requirePage();
    const { data: ds } = this.host.ctx;
    for (const ed of page.data) {
      const ts: Record<string, TsValue[]> = {};
      if (this.host.ctx.takeHistoryFailure()) {
        this.send(entityDataError(this.cmdId, 1, 'Failed to fetch historical data!'));
      } else {
        const e = ds.get(ed.entityId.id);
        for (const key of cmd.keys) {
          if (ts[key]) continue;
          ts[key] = e
            ? readSeries(
                ds,
                e,
                {
                  key,
                  startTs: cmd.startTs,
                  endTs: cmd.endTs,
                  limit: cmd.limit,
                  agg: cmd.agg,
                  interval: cmd.interval,
                  intervalType: cmd.intervalType,
                },
                cmd.fetchLatestPreviousPoint,
              )
            : [];
        }
      }
      for (const key of cmd.keys) if (!ts[key]) ts[key] = [];
      ed.timeseries = ts;
    }
    this.sendPageOrUpdate(page);
    if (subscribe) {
      this.tsKeys = new Set(cmd.keys);
      for (const ed of page.data) this.binding(ed).series = true;
    }
    for (const ed of page.data) ed.timeseries = {};
  }

  private handleAgg(cmd: AggCmd): void {
    const page = this.requirePage();
    const { data: ds } = this.host.ctx;
    for (const ed of page.data) {
      const e = ds.get(ed.entityId.id);
      const agg: Record<string, { current: TsValue | null; previous: TsValue | null }> = {};
      for (const k of cmd.keys) {
        const id = String(k.id);
        const cur = agg[id] ?? { current: null, previous: null };
        if (e && !k.previousValueOnly) cur.current = readAggregate(ds, e, k.key, k.agg, cmd.startTs, cmd.endTs);
        if (e && k.previousStartTs !== null && k.previousEndTs !== null && k.previousEndTs >= k.previousStartTs) {
          cur.previous = readAggregate(ds, e, k.key, k.agg, k.previousStartTs, k.previousEndTs);
        }
        if (cur.current === null && cur.previous === null) {
          cur.current = { ts: 0, value: '' };
          cur.previous = { ts: 0, value: '' };
        }
        agg[id] = cur;
      }
      ed.aggLatest = agg;
    }
    this.sendPageOrUpdate(page);
    for (const ed of page.data) ed.aggLatest = {};
  }

  private sendPageOrUpdate(page: PageData<EntityData>): void {
    if (!this.initialDataSent) {
      this.send(entityDataPage(this.cmdId, page, this.allowed));
      this.initialDataSent = true;
    } else {
      this.send(entityDataUpdate(this.cmdId, page.data, this.allowed));
    }
  }

  // --- dynamic page links ------------------------------------------------------------------------------------------

  /** TbAbstractDataSubCtx#update: re-run the query; act only when the set of entity ids changed. */
  refresh(): void {
    if (this.stopped || this.host.closed || !this.query) return;
    let fresh: PageData<EntityData>;
    try {
      fresh = this.host.ctx.entityQuery.find(this.host.caller, this.query, this.host.ctx.now(), 'ws');
    } catch {
      return; // the server logs "Failed to refresh query"
    }
    const old = this.page;
    const oldIds = new Set(old ? old.data.map((d) => d.entityId.id) : []);
    const newIds = new Set(fresh.data.map((d) => d.entityId.id));
    if (oldIds.size === newIds.size && [...newIds].every((id) => oldIds.has(id))) {
      this.host.ctx.emit('refresh', { kind: this.kind, cmdId: this.cmdId, changed: false });
      return;
    }
    this.page = fresh;
    const index = new Map(fresh.data.map((d) => [d.entityId.id, d] as const));
    const router = this.host.ctx.router;
    for (const [id, b] of [...this.bindings]) {
      const ed = index.get(id);
      if (!ed) {
        router.removeKv(id, b);
        this.bindings.delete(id);
      } else {
        b.ed = ed;
      }
    }
    const added: Binding[] = [];
    // new entities get latest subscriptions only when no tsCmd is active (the widget re-subscribes series itself)
    if (!this.tsKeys && this.latestKeys && this.latestByType.size > 0) {
      for (const ed of fresh.data) {
        if (oldIds.has(ed.entityId.id)) continue;
        const b = this.binding(ed);
        b.latest = true;
        added.push(b);
      }
    }
    this.send(entityDataPage(this.cmdId, fresh, this.allowed));
    this.checkMissedUpdates(added);
    this.host.ctx.emit('refresh', { kind: this.kind, cmdId: this.cmdId, changed: true });
  }

  /** statistics for tests */
  get boundEntities(): number {
    return this.bindings.size;
  }
}
