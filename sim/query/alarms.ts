/** Alarm Data Query and Alarm Count Query semantics (`DAO/sql/query/DefaultAlarmQueryRepository.java`). */
import { alarmStatus, type Dataset, type SimAlarm } from '../dataset';
import { general, notFound } from '../errors';
import type { AlarmData, Caller, EntityKey, PageData } from '../types';
import { pageOf, validateCountQuery, validatePageLink, type EntityQueryEngine, type Row } from './entities';
import type { AlarmCountQuery, AlarmDataQuery, AlarmFilterFields, EntityFilter, SortOrder } from './parse';
import { compileIlike, resolveDynamic, type DynamicResolution } from './predicates';

const COLLATOR = new Intl.Collator('en-US');

type ColValue = string | number | boolean | null;
type Col = (a: SimAlarm, ds: Dataset) => ColValue;

const originatorName: Col = (a, ds) => ds.get(a.originator.id)?.name ?? 'Deleted';
const assigneeField =
  (f: 'firstName' | 'lastName' | 'email'): Col =>
  (a, ds) => {
    if (!a.assigneeId) return null;
    const u = ds.get(a.assigneeId);
    return u ? (u.fields[f] ?? (f === 'email' ? u.name : null)) : null;
  };
const originatorLabel: Col = (a, ds) => {
  const o = ds.get(a.originator.id);
  if (!o) return 'Deleted';
  return o.label && o.label !== '' ? o.label : o.name;
};

/** alarmFieldColumnMap: ALARM_FIELD keys usable in textSearch and sorting. */
const COLUMNS: Record<string, Col> = {
  createdTime: (a) => a.createdTime,
  ackTs: (a) => a.ackTs,
  ackTime: (a) => a.ackTs,
  clearTs: (a) => a.clearTs,
  clearTime: (a) => a.clearTs,
  assignTime: (a) => a.assignTs,
  assignTs: (a) => a.assignTs,
  details: (a) => (a.details === null ? null : JSON.stringify(a.details)),
  endTs: (a) => a.endTs,
  endTime: (a) => a.endTs,
  startTs: (a) => a.startTs,
  startTime: (a) => a.startTs,
  acknowledged: (a) => a.acknowledged,
  cleared: (a) => a.cleared,
  type: (a) => a.type,
  severity: (a) => a.severity,
  originatorId: (a) => a.originator.id,
  originatorType: (a) => a.originator.entityType,
  assigneeId: (a) => a.assigneeId,
  originator: originatorName,
  originatorLabel,
  originatorDisplayName: originatorLabel,
  assigneeFirstName: assigneeField('firstName'),
  assigneeLastName: assigneeField('lastName'),
  assigneeEmail: assigneeField('email'),
};
/** Sorting additionally knows the computed status and `assignee` (by e-mail). */
const SORT_COLUMNS: Record<string, Col> = {
  ...COLUMNS,
  status: (a) => alarmStatus(a),
  assignee: assigneeField('email'),
};

function textColumns(alarmFields: EntityKey[]): Col[] {
  const cols: Col[] = [];
  for (const k of alarmFields) {
    if (k.key === 'assignee') {
      cols.push(COLUMNS.assigneeId, COLUMNS.assigneeFirstName, COLUMNS.assigneeLastName, COLUMNS.assigneeEmail);
    } else if (COLUMNS[k.key]) {
      cols.push(COLUMNS[k.key]);
    }
  }
  return cols;
}

interface Window {
  from: number;
  to: number;
}

function findWindow(f: AlarmFilterFields, now: number): Window {
  if (f.timeWindow > 0) {
    return f.startTs > 0 ? { from: f.startTs, to: f.startTs + f.timeWindow } : { from: now - f.timeWindow, to: now };
  }
  return { from: f.startTs > 0 ? f.startTs : -Infinity, to: f.endTs > 0 ? f.endTs : Infinity };
}

function countWindow(f: AlarmFilterFields, now: number): Window {
  if (f.timeWindow > 0) return { from: now - f.timeWindow, to: now };
  return { from: f.startTs > 0 ? f.startTs : -Infinity, to: f.endTs > 0 ? f.endTs : Infinity };
}

/** The alarm filter (time window on createdTime, type/severity IN, statusList tri-states ANDed, assignee). */
function alarmFilter(f: AlarmFilterFields, w: Window, caller: Caller): (a: SimAlarm) => boolean {
  const types = f.typeList.length > 0 ? new Set(f.typeList) : null;
  const severities = f.severityList.length > 0 ? new Set<string>(f.severityList) : null;
  const st = f.statusList;
  let cleared: boolean | null = null;
  let acked: boolean | null = null;
  if (st.length > 0 && !st.includes('ANY')) {
    const active = st.includes('ACTIVE');
    const cl = st.includes('CLEARED');
    if (active !== cl) cleared = cl;
    const ack = st.includes('ACK');
    const unack = st.includes('UNACK');
    if (ack !== unack) acked = ack;
  }
  const assignee = f.assigneeId?.id ?? null;
  const customer = caller.authority === 'CUSTOMER_USER' ? caller.customerId : null;
  return (a) =>
    a.tenantId === caller.tenantId &&
    (customer === null || a.customerId === customer) &&
    a.createdTime >= w.from &&
    a.createdTime <= w.to &&
    (types === null || types.has(a.type)) &&
    (severities === null || severities.has(a.severity)) &&
    (cleared === null || a.cleared === cleared) &&
    (acked === null || a.acknowledged === acked) &&
    (assignee === null || a.assigneeId === assignee);
}

const CREATED_ASC: SortOrder = { key: { type: 'ENTITY_FIELD', key: 'createdTime' }, direction: 'ASC' };

export class AlarmQueryEngine {
  constructor(
    private readonly ds: Dataset,
    private readonly entities: EntityQueryEngine,
    /** server.ws.max_entities_per_alarm_subscription */
    private readonly maxEntities = 10000,
  ) {}

  /**
   * POST /api/alarmsQuery/find. Over REST dynamic values are not resolved (DefaultEntityQueryService
   * #findAlarmDataByQuery builds the entity query without resolving them); a WebSocket subscription passes 'ws'.
   */
  find(caller: Caller, q: AlarmDataQuery, now: number, dyn: DynamicResolution = 'none'): PageData<AlarmData> {
    const pl = q.pageLink;
    if (!pl) throw notFound();
    const keyFilters = q.keyFilters.map((kf) => ({
      ...kf,
      predicate: resolveDynamic(kf.predicate, this.ds, caller, dyn),
    }));
    validateCountQuery(q);
    validatePageLink(pl);
    const filter = q.entityFilter as EntityFilter;
    const so = pl.sortOrder;
    const alarmSort = so && so.key.type === 'ALARM_FIELD' ? so : null;
    const { rows: allRows, mode } = this.entities.match(caller, {
      filter,
      keyFilters,
      op: q.keyFiltersOperation,
      sort: alarmSort || !so ? CREATED_ASC : so,
      textSearch: null,
      searchKeys: [],
    });
    const rows = allRows.length > this.maxEntities ? allRows.slice(0, this.maxEntities) : allRows;
    if (rows.length === 0) return pageOf([], 0, pl.pageSize, pl.page);
    if (!q.alarmFields) {
      throw general(
        'Cannot invoke "java.util.List.iterator()" because the return value of ' +
          '"org.thingsboard.server.common.data.query.AlarmDataQuery.getAlarmFields()" is null',
      );
    }
    if (alarmSort && alarmSort.direction === null) {
      throw general(
        'Cannot invoke "org.thingsboard.server.common.data.query.EntityDataSortOrder$Direction.ordinal()" because ' +
          'the return value of "org.thingsboard.server.common.data.query.EntityDataSortOrder.getDirection()" is null',
      );
    }
    const accept = alarmFilter(pl, findWindow(pl, now), caller);
    // textSearch only looks at the mapped columns named in alarmFields; none named means no condition
    const cols = pl.textSearch ? textColumns(q.alarmFields) : [];
    const text = pl.textSearch && cols.length > 0 ? compileIlike(`%${pl.textSearch}%`) : null;
    const matches: { a: SimAlarm; r: Row }[] = [];
    for (const r of rows) {
      const linked = this.ds.alarmsLinkedTo(r.e.id);
      if (!linked) continue;
      const own = [...linked]
        .filter((a) => (pl.searchPropagatedAlarms || a.originator.id === r.e.id) && accept(a))
        .sort((x, y) => y.createdTime - x.createdTime || (x.id < y.id ? -1 : 1));
      for (const a of own) {
        if (text) {
          let hit = false;
          for (const c of cols) {
            const v = c(a, this.ds);
            if (v !== null && text(String(v))) {
              hit = true;
              break;
            }
          }
          if (!hit) continue;
        }
        matches.push({ a, r });
      }
    }
    if (alarmSort) this.sortAlarms(matches, alarmSort);
    const start = pl.pageSize * pl.page;
    const slice = start < matches.length ? matches.slice(start, start + pl.pageSize) : [];
    const keys = this.entities.outputKeys(filter, keyFilters, q.entityFields, q.latestValues, null);
    const data = slice.map(({ a, r }): AlarmData => ({
      ...this.ds.alarmInfo(a),
      entityId: { entityType: r.e.entityType, id: r.e.id },
      latest: this.entities.latest(r, mode, keys, now),
    }));
    return pageOf(data, matches.length, pl.pageSize, pl.page);
  }

  /** POST /api/alarmsQuery/count (dynamic values as in `find`). */
  count(caller: Caller, q: AlarmCountQuery, now: number, dyn: DynamicResolution = 'none'): number {
    const accept = alarmFilter(q, countWindow(q, now), caller);
    if (!q.entityFilter) {
      let n = 0;
      for (const a of this.ds.alarmIterable()) if (accept(a)) n++;
      return n;
    }
    const keyFilters = q.keyFilters.map((kf) => ({
      ...kf,
      predicate: resolveDynamic(kf.predicate, this.ds, caller, dyn),
    }));
    validateCountQuery(q);
    const { rows: allRows } = this.entities.match(caller, {
      filter: q.entityFilter,
      keyFilters,
      op: q.keyFiltersOperation,
      sort: CREATED_ASC,
      textSearch: null,
      searchKeys: [],
    });
    const rows = allRows.length > this.maxEntities ? allRows.slice(0, this.maxEntities) : allRows;
    let n = 0;
    for (const r of rows) {
      const linked = this.ds.alarmsLinkedTo(r.e.id);
      if (!linked) continue;
      for (const a of linked) {
        if ((q.searchPropagatedAlarms || a.originator.id === r.e.id) && accept(a)) n++;
      }
    }
    return n;
  }

  private sortAlarms(matches: { a: SimAlarm; r: Row }[], so: SortOrder): void {
    const col = SORT_COLUMNS[so.key.key];
    if (!col) return; // unknown column: database order
    const desc = so.direction === 'DESC';
    const sign = desc ? -1 : 1;
    const keyed = matches.map((m) => ({ m, v: col(m.a, this.ds) }));
    keyed.sort((x, y) => {
      const a = x.v;
      const b = y.v;
      if (a === b) return 0;
      if (a === null) return desc ? -1 : 1;
      if (b === null) return desc ? 1 : -1;
      if (typeof a === 'number' && typeof b === 'number') return sign * (a - b);
      if (typeof a === 'boolean' && typeof b === 'boolean') return sign * (a ? 1 : -1);
      return sign * COLLATOR.compare(String(a), String(b));
    });
    for (let i = 0; i < keyed.length; i++) matches[i] = keyed[i].m;
  }
}
