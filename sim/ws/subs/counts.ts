/**
 * ENTITY_COUNT (TbEntityCountSubCtx), ALARM_COUNT (TbAlarmCountSubCtx) and ALARM_STATUS (TbAlarmStatusSubCtx).
 */
import type { SimAlarm } from '../../dataset';
import { forbidden } from '../../errors';
import type { Row } from '../../query/entities';
import type { AlarmCountQuery, EntityCountQuery, EntityFilter } from '../../query/parse';
import type { AlarmSeverity, EntityId, EntityType } from '../../types';
import { every, type SubHost, type Sub } from '../context';
import { alarmCountData, alarmStatus, countData } from '../messages';
import type { AlarmCountCmd, AlarmStatusCmd, EntityCountCmd } from '../parse';
import type { AlarmAction, AlarmListener } from '../router';
import { matchEntities } from './match';

export const NPE_ALARM_COUNT_QUERY =
  'Cannot invoke "org.thingsboard.server.common.data.query.AlarmCountQuery.getEntityFilter()" because "this.query" ' +
  'is null';
export const NPE_ALARM_STATUS_ORIGINATOR =
  'Cannot invoke "org.thingsboard.server.common.data.id.EntityId.getId()" because the return value of ' +
  '"org.thingsboard.server.service.ws.telemetry.cmd.v2.AlarmStatusCmd.getOriginatorId()" is null';

/** ENTITY_COUNT: immediate COUNT_DATA, then a recount every refresh interval, sent only when it changed. */
export class EntityCountSub implements Sub {
  readonly kind = 'ENTITY_COUNT' as const;
  private query: EntityCountQuery | null = null;
  private count = -1;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly host: SubHost,
    readonly cmdId: number,
  ) {}

  handle(cmd: EntityCountCmd): void {
    this.query = cmd.query as EntityCountQuery;
    this.count = this.host.ctx.entityQuery.count(this.host.caller, this.query, 'ws');
    this.host.send(countData(this.cmdId, this.count), this.cmdId);
    this.timer = every(this.host.ctx.opts.dynamicRefreshMs, () => this.refresh());
  }

  refresh(): void {
    if (this.stopped || this.host.closed || !this.query) return;
    let n: number;
    try {
      n = this.host.ctx.entityQuery.count(this.host.caller, this.query, 'ws');
    } catch {
      return;
    }
    const changed = n !== this.count;
    if (changed) {
      this.count = n;
      this.host.send(countData(this.cmdId, n), this.cmdId);
    }
    this.host.ctx.emit('refresh', { kind: this.kind, cmdId: this.cmdId, changed });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * ALARM_COUNT: immediate ALARM_COUNT_DATA. With an entityFilter the entity list is resolved once; matching nothing
 * means 0 and nothing more. Otherwise a recount on alarm events of those entities (at most
 * maxAlarmQueriesPerRefresh per interval) and on the refresh timer, sent only on change.
 */
export class AlarmCountSub implements Sub, AlarmListener {
  readonly kind = 'ALARM_COUNT' as const;
  private query: AlarmCountQuery | null = null;
  /** entity ids by type (resolved once); null = no entityFilter (every alarm of the caller) */
  private groups: Map<EntityType, string[]> | null = null;
  private entityIds: string[] = [];
  private count = -1;
  private invocations = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly host: SubHost,
    readonly cmdId: number,
  ) {}

  handle(cmd: AlarmCountCmd): void {
    if (!cmd.query) throw new Error(NPE_ALARM_COUNT_QUERY);
    const q = cmd.query;
    this.query = q;
    const ctx = this.host.ctx;
    if (q.entityFilter) {
      const { rows } = matchEntities(ctx, this.host.caller, q, null, ctx.opts.maxEntitiesPerAlarmSubscription);
      if (rows.length === 0) {
        this.count = 0;
        this.host.send(alarmCountData(this.cmdId, 0), this.cmdId);
        return; // nothing to watch: no further updates
      }
      this.groups = groupByType(rows);
      this.entityIds = rows.map((r) => r.e.id);
      for (const id of this.entityIds) ctx.router.addAlarm(id, this);
    }
    this.count = this.recount();
    this.host.send(alarmCountData(this.cmdId, this.count), this.cmdId);
    this.timer = every(ctx.opts.dynamicRefreshMs, () => {
      this.invocations = 0;
      const changed = this.update();
      this.host.ctx.emit('refresh', { kind: this.kind, cmdId: this.cmdId, changed });
    });
  }

  private recount(): number {
    const { alarmQuery, now } = this.host.ctx;
    const q = this.query as AlarmCountQuery;
    if (!this.groups) return alarmQuery.count(this.host.caller, { ...q, entityFilter: null }, now(), 'ws');
    let n = 0;
    for (const [entityType, ids] of this.groups) {
      const entityFilter: EntityFilter = { type: 'entityList', entityType, entityList: ids };
      n += alarmQuery.count(
        this.host.caller,
        { ...q, entityFilter, keyFilters: [], keyFiltersOperation: 'AND' },
        now(),
        'ws',
      );
    }
    return n;
  }

  /** Recounts; sends and returns true when the count changed. */
  private update(): boolean {
    if (this.stopped || this.host.closed || !this.query) return false;
    let n: number;
    try {
      n = this.recount();
    } catch {
      return false;
    }
    if (n === this.count) return false;
    this.count = n;
    this.host.send(alarmCountData(this.cmdId, n), this.cmdId);
    return true;
  }

  onAlarm(): void {
    if (++this.invocations <= this.host.ctx.opts.maxAlarmQueriesPerRefresh) this.update();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const id of this.entityIds) this.host.ctx.router.removeAlarm(id, this);
    this.entityIds = [];
  }
}

function groupByType(rows: Row[]): Map<EntityType, string[]> {
  const m = new Map<EntityType, string[]>();
  for (const r of rows) {
    const t = r.e.entityType;
    const l = m.get(t);
    if (l) l.push(r.e.id);
    else m.set(t, [r.e.id]);
  }
  return m;
}

/**
 * ALARM_STATUS: `active` = the originator has a not-cleared alarm with type in typeList and severity in
 * severityList (null = any; an empty list matches nothing). Sent at once, then only on transitions.
 */
export class AlarmStatusSub implements Sub, AlarmListener {
  readonly kind = 'ALARM_STATUS' as const;
  private originator: EntityId | null = null;
  private types: Set<string> | null = null;
  private severities: Set<AlarmSeverity> | null = null;
  private active = false;
  private stopped = false;

  constructor(
    private readonly host: SubHost,
    readonly cmdId: number,
  ) {}

  handle(cmd: AlarmStatusCmd): void {
    if (!cmd.originatorId) throw new Error(NPE_ALARM_STATUS_ORIGINATOR);
    const ctx = this.host.ctx;
    const e = ctx.data.get(cmd.originatorId.id);
    if (e && !ctx.entityQuery.visible(this.host.caller, e)) throw forbidden();
    this.originator = cmd.originatorId;
    this.types = cmd.typeList === null ? null : new Set(cmd.typeList);
    this.severities = cmd.severityList === null ? null : new Set(cmd.severityList);
    this.active = this.compute();
    this.host.send(alarmStatus(this.cmdId, this.active), this.cmdId);
    ctx.router.addAlarm(cmd.originatorId.id, this);
  }

  private matches(a: SimAlarm): boolean {
    return (
      a.originator.id === this.originator?.id &&
      !a.cleared &&
      (this.types === null || this.types.has(a.type)) &&
      (this.severities === null || this.severities.has(a.severity))
    );
  }

  private compute(): boolean {
    const linked = this.originator ? this.host.ctx.data.alarmsLinkedTo(this.originator.id) : undefined;
    if (!linked) return false;
    for (const a of linked) if (this.matches(a)) return true;
    return false;
  }

  onAlarm(_action: AlarmAction, alarm: SimAlarm): void {
    if (this.stopped || this.host.closed || alarm.originator.id !== this.originator?.id) return;
    const now = this.compute();
    if (now !== this.active) {
      this.active = now;
      this.host.send(alarmStatus(this.cmdId, now), this.cmdId);
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.originator) this.host.ctx.router.removeAlarm(this.originator.id, this);
  }
}
