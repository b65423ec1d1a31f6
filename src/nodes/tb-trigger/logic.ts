/**
 * tb-trigger, the pure part: its settings checked at deploy, the live queries that watch the entities, the state of
 * each entity (false, holding for its hold, true, stopping for its hold-off) with one scheduler for the deadlines of
 * all of them, and what its messages say. No I/O, no Node-RED: the clock and the one timer are given.
 *
 * An entity's state moves so (`holdFor`, `holdOffFor`, `repeatEvery` are the node's settings):
 *
 *     false ──condition holds──▶ holding ──held for holdFor──▶ TRUE (output 1) ──every repeatEvery──▶ reminder
 *       ▲                          │                              │
 *       │◀──stops before holdFor───┘                        stops holding
 *       │                                                         ▼
 *       └──────────────FALSE (output 2)◀──stopped for holdOffFor── stopping ──holds again──▶ true (nothing sent)
 *
 * With a hold of 0 an entity goes from false to true at once, with a hold-off of 0 from true to false at once. An
 * entity with nothing held has no deadline; the deadlines of those that have are kept in one min-heap, and one timer
 * waits for the earliest. A silence is a condition that starts holding by itself, `silentFor` after the last update:
 * its deadline is checked lazily (an update only moves it later, so the heap is not touched at each update).
 */
import { TbConfigError } from '../../errors';
import { durationText, spanText } from '../../protocol/duration';
import { flattenAlarm, type FlatAlarm } from '../../protocol/format';
import {
  ALARM_SEVERITIES,
  type AlarmData,
  type AlarmDataQuery,
  type AlarmSeverity,
  type EntityData,
  type EntityDataQuery,
  type EntityFilter,
  type EntityId,
  type EntityKey,
} from '../../protocol/types';
import { describe } from '../../protocol/validate';
import { shortValue } from '../../settings/condition-words';
import {
  CONDITION_KEY_TYPES,
  latestValue,
  OPERATOR_TEXT,
  STATE_OPERATORS,
  type AlarmMatch,
  type ConditionKeyType,
  type JoinMode,
  type StateOperator,
} from '../../settings/conditions';
import type { ReadSettings } from '../../settings/read';
import { VALUE_TYPES, type ValueType } from '../../settings/value-rows';
import {
  TB_TRIGGER,
  type TriggerAlarmState,
  type TriggerCondition,
  type TriggerSettings,
  type TriggerWatch,
} from './settings';

// ---- the settings, checked --------------------------------------------------------------------------------------

/** One condition row, checked: its key, its operator and the value compared with, as the dialog saved it. */
export interface CheckedRow {
  readonly keyType: ConditionKeyType;
  readonly key: string;
  readonly operator: StateOperator;
  readonly value: string;
  readonly valueType: ValueType;
  /** How error messages name the row: `conditions row 1 (temperature)`. */
  readonly field: string;
}

/** The node's deadlines, in ms. */
export interface Timing {
  /** How long the condition must hold before "became true" (0: at once). */
  readonly holdMs: number;
  /** How long it must stop holding before "became false" (0: at once). */
  readonly holdOffMs: number;
  /** A reminder on output 1 every so often while it stays true (0: none). */
  readonly repeatMs: number;
  /** The reminders at most (Infinity: no limit). */
  readonly repeatMax: number;
  /** A silence condition: holds once no update came for this long (0: not a silence condition). */
  readonly silenceMs: number;
}

/** What the node watches and how, from its settings. */
export interface TriggerPlan {
  readonly watch: TriggerWatch;
  readonly condition: TriggerCondition;
  readonly rows: readonly CheckedRow[];
  readonly join: JoinMode;
  /** Alarm conditions: which alarms count. */
  readonly alarm: AlarmMatch & { readonly type: string; readonly severityList: AlarmSeverity[] | undefined };
  /** Silence conditions: the time series whose updates count. */
  readonly silenceKeys: readonly string[];
  readonly timing: Timing;
  readonly maxEntities: number;
  readonly sendInitial: boolean;
}

/** The longest timer Node.js runs in one go (a later deadline re-arms it). */
export const MAX_TIMER_MS = 2147483647;

/** A list setting (`temperature, humidity`, or an array): its items, trimmed, each once. */
export function listItems(v: unknown): string[] {
  const items = Array.isArray(v) ? v.map((x) => String(x)) : typeof v === 'string' ? v.split(',') : [];
  return [...new Set(items.map((s) => s.trim()).filter((s) => s !== ''))];
}

const KEY_WORDS: Readonly<Record<ConditionKeyType, string>> = {
  TIME_SERIES: 'time series',
  SERVER_ATTRIBUTE: 'server attribute',
  SHARED_ATTRIBUTE: 'shared attribute',
  CLIENT_ATTRIBUTE: 'client attribute',
  ENTITY_FIELD: 'entity field',
};

/** Checks the rows of a value condition. Throws a TbConfigError naming the row. */
export function checkRows(rows: unknown): CheckedRow[] {
  if (!Array.isArray(rows) || rows.length === 0)
    throw new TbConfigError(
      'conditions: add a condition (a key such as temperature, an operator and a value), or choose another kind of ' +
        `condition (got ${Array.isArray(rows) ? 'no row' : describe(rows)})`,
    );
  const out: CheckedRow[] = [];
  rows.forEach((row: unknown, i) => {
    const r = (row !== null && typeof row === 'object' ? row : {}) as Record<string, unknown>;
    const n = i + 1;
    const keyType = r.keyType === undefined || r.keyType === '' ? 'TIME_SERIES' : r.keyType;
    if (!(CONDITION_KEY_TYPES as readonly unknown[]).includes(keyType))
      throw new TbConfigError(
        `conditions row ${n}: the key type must be one of ${CONDITION_KEY_TYPES.join(', ')} (got ${describe(keyType)})`,
      );
    const kt = keyType as ConditionKeyType;
    const key = typeof r.key === 'string' ? r.key.trim() : '';
    if (key === '')
      throw new TbConfigError(
        `conditions row ${n} has no key: name the ${KEY_WORDS[kt]} it reads (e.g. ${kt === 'ENTITY_FIELD' ? 'name' : 'temperature'})`,
      );
    const field = `conditions row ${n} (${key})`;
    const operator = r.operator === undefined || r.operator === '' ? 'eq' : r.operator;
    if (operator === 'changes' || operator === 'jsonata')
      throw new TbConfigError(
        `${field}: choose a comparison (=, ≠, <, ≤, >, ≥, is one of, is none of); "${operator}" is no state that can ` +
          'hold for a while (tb-wait-until and tb-subscribe see changes)',
      );
    if (!(STATE_OPERATORS as readonly unknown[]).includes(operator))
      throw new TbConfigError(
        `${field}: the operator must be one of ${STATE_OPERATORS.join(', ')} (got ${describe(operator)})`,
      );
    const valueType = r.valueType === undefined || r.valueType === '' ? 'str' : r.valueType;
    if (!(VALUE_TYPES as readonly unknown[]).includes(valueType))
      throw new TbConfigError(
        `${field}: the value's type must be one of ${VALUE_TYPES.join(', ')} (got ${describe(valueType)})`,
      );
    const value = r.value === undefined || r.value === null ? '' : String(r.value);
    out.push({
      keyType: kt,
      key,
      operator: operator as StateOperator,
      value,
      valueType: valueType as ValueType,
      field,
    });
  });
  return out;
}

/**
 * The node's settings as read (after its migrations) and its own rules: a value condition has its rows, a silence
 * its keys, an alarm condition known severities; an entity watched is fixed, one read from the message is not.
 * Returns the plan and the first problem (then the plan is not to be used).
 */
export function prepareTriggerPlan(read: ReadSettings<typeof TB_TRIGGER.settings>): {
  plan: TriggerPlan;
  problem: TbConfigError | undefined;
} {
  const v: TriggerSettings = read.values;
  let problem: TbConfigError | undefined = read.problems[0];
  const fail = (err: unknown) => {
    problem ??= err instanceof TbConfigError ? err : new TbConfigError(String(err));
  };
  let rows: CheckedRow[] = [];
  if (v.condition === 'value') {
    try {
      rows = checkRows(v.conditions);
    } catch (err) {
      fail(err);
    }
  }
  const silenceKeys = listItems(v.silenceKeys);
  if (v.condition === 'silence' && silenceKeys.length === 0)
    fail(new TbConfigError('silenceKeys: name the time series whose updates count, such as temperature'));
  const severities = listItems(v.severities).map((s) => s.toUpperCase());
  const unknown = severities.filter((s) => !(ALARM_SEVERITIES as readonly string[]).includes(s));
  if (v.condition === 'alarm' && unknown.length)
    fail(
      new TbConfigError(
        `severities: ${unknown.map((s) => JSON.stringify(s)).join(', ')} is no severity; use ${ALARM_SEVERITIES.join(', ')}`,
      ),
    );
  if (v.watch === 'entity' && (v.targetType !== 'json' || v.target.trim() === ''))
    fail(
      new TbConfigError(
        'target: pick the entity to watch (or choose Watch: the entities messages name, to read them from a message)',
      ),
    );
  if (v.watch === 'message' && v.targetType === 'json')
    fail(
      new TbConfigError(
        'targetType: the entities messages name are read from the message; for a fixed entity, choose Watch: an entity picked by name',
      ),
    );
  const state: TriggerAlarmState = v.alarmState;
  const type = v.alarmType.trim();
  const known = severities.filter((s) => !unknown.includes(s)) as AlarmSeverity[];
  const plan: TriggerPlan = {
    watch: v.watch,
    condition: v.condition,
    rows,
    join: v.join,
    alarm: {
      type,
      types: type ? new Set([type]) : undefined,
      severityList: known.length ? known : undefined,
      severities: known.length ? new Set<string>(known) : undefined,
      state,
    },
    silenceKeys,
    timing: {
      holdMs: v.holdFor ?? 0,
      holdOffMs: v.holdOffFor ?? 0,
      repeatMs: v.repeatEvery ?? 0,
      repeatMax: v.repeatEvery ? (v.repeatMax ?? Infinity) : 0,
      silenceMs: v.condition === 'silence' ? (v.silentFor ?? 0) : 0,
    },
    maxEntities: v.maxEntities ?? (TB_TRIGGER.settings.maxEntities.default as number),
    sendInitial: v.sendInitial,
  };
  return { plan, problem };
}

// ---- the live queries -------------------------------------------------------------------------------------------

const NAME: EntityKey = { type: 'ENTITY_FIELD', key: 'name' };

/** The keys a value or silence condition reads: as latest values, and entity fields (with the name, always). */
export function watchedKeys(plan: TriggerPlan): { entityFields: EntityKey[]; latestValues: EntityKey[] } {
  const entityFields: EntityKey[] = [NAME];
  const latestValues: EntityKey[] = [];
  const add = (list: EntityKey[], k: EntityKey) => {
    if (!list.some((x) => x.type === k.type && x.key === k.key)) list.push(k);
  };
  if (plan.condition === 'value')
    for (const r of plan.rows)
      add(r.keyType === 'ENTITY_FIELD' ? entityFields : latestValues, { type: r.keyType, key: r.key });
  if (plan.condition === 'silence') for (const key of plan.silenceKeys) add(latestValues, { type: 'TIME_SERIES', key });
  return { entityFields, latestValues };
}

/**
 * The entity filter of fixed entities: one, or a list of one type. (Entities of several types take one filter each:
 * see `byType`.)
 */
export function entitiesFilter(entities: readonly EntityId[]): EntityFilter {
  if (entities.length === 1) return { type: 'singleEntity', singleEntity: { ...entities[0] } } as EntityFilter;
  return {
    type: 'entityList',
    entityType: entities[0].entityType,
    entityList: entities.map((e) => e.id),
  } as EntityFilter;
}

/** Entities grouped by their type, in their order. */
export function byType(entities: readonly EntityId[]): EntityId[][] {
  const groups = new Map<string, EntityId[]>();
  for (const e of entities) {
    const g = groups.get(e.entityType);
    if (g) g.push(e);
    else groups.set(e.entityType, [e]);
  }
  return [...groups.values()];
}

/**
 * The live query of a value or silence condition: the user's query (its filter, key filters, page) or the filter of
 * fixed entities, asking for the name and the keys the condition reads. A condition on an entity field asks for a
 * dynamic page: an entity field only changes at the server's re-query of one.
 */
export function valueQuery(plan: TriggerPlan, base: EntityDataQuery | EntityFilter, pageSize: number): EntityDataQuery {
  const { entityFields, latestValues } = watchedKeys(plan);
  const fieldCondition = plan.rows.some((r) => r.keyType === 'ENTITY_FIELD');
  if ('entityFilter' in base) {
    const fields = [...(base.entityFields ?? [])];
    for (const k of entityFields) if (!fields.some((x) => x.type === k.type && x.key === k.key)) fields.push(k);
    const latest = [...(base.latestValues ?? [])];
    for (const k of latestValues) if (!latest.some((x) => x.type === k.type && x.key === k.key)) latest.push(k);
    return {
      ...base,
      entityFields: fields,
      latestValues: latest,
      pageLink: { ...base.pageLink, ...(fieldCondition ? { dynamic: true } : {}) },
    };
  }
  return {
    entityFilter: base,
    entityFields,
    latestValues,
    pageLink: { page: 0, pageSize, ...(fieldCondition ? { dynamic: true } : {}) },
  };
}

/**
 * The live query of an alarm condition: the active alarms of the entities (of the user's query, or fixed), of the
 * type and severities asked. Acknowledged ones stay on the page (the acknowledgement arrives as an update); a
 * cleared one leaves it.
 */
export function alarmQuery(plan: TriggerPlan, base: EntityDataQuery | EntityFilter, pageSize: number): AlarmDataQuery {
  const a = plan.alarm;
  const filter = 'entityFilter' in base ? base.entityFilter : base;
  const keyFilters = 'entityFilter' in base ? base.keyFilters : undefined;
  return {
    entityFilter: filter,
    ...(keyFilters && keyFilters.length ? { keyFilters } : {}),
    pageLink: {
      page: 0,
      pageSize,
      statusList: ['ACTIVE'],
      ...(a.type ? { typeList: [a.type] } : {}),
      ...(a.severityList ? { severityList: a.severityList } : {}),
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
    },
    entityFields: [NAME],
    alarmFields: [
      { type: 'ALARM_FIELD', key: 'createdTime' },
      { type: 'ALARM_FIELD', key: 'type' },
      { type: 'ALARM_FIELD', key: 'severity' },
      { type: 'ALARM_FIELD', key: 'status' },
    ],
  };
}

/** The entity's name in a live row, when it came with it. */
export function nameOf(ed: EntityData | undefined): string | undefined {
  const v = ed?.latest?.ENTITY_FIELD?.name?.value;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The time of the newest update of the silence keys in a row (0: none), no later than `now`: a device whose clock
 * runs ahead is not taken as having spoken in the future.
 */
export function lastUpdateOf(ed: EntityData | undefined, keys: readonly string[], now: number): number {
  let last = 0;
  for (const key of keys) {
    const cur = latestValue(ed, 'TIME_SERIES', key);
    if (cur && cur.ts > last) last = cur.ts;
  }
  return Math.min(last, now);
}

// ---- the scheduler ----------------------------------------------------------------------------------------------

/** The clock and the one timer of a node (Date.now and setTimeout in the node; fake ones in tests). */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** What the heap keeps of an entry: its deadline and its place. */
interface Scheduled {
  due: number;
  /** Its index in the heap; -1 when it is not there. */
  slot: number;
}

/** A min-heap of deadlines whose entries know their place: adding, moving and removing one is O(log n). */
export class DeadlineHeap<T extends Scheduled> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Puts `t` in the heap with its deadline `due`, or moves it there. */
  set(t: T, due: number): void {
    if (t.slot < 0) {
      t.due = due;
      t.slot = this.items.length;
      this.items.push(t);
      this.up(t.slot);
      return;
    }
    const before = t.due;
    t.due = due;
    if (due < before) this.up(t.slot);
    else if (due > before) this.down(t.slot);
  }

  remove(t: T): void {
    const i = t.slot;
    if (i < 0) return;
    const last = this.items.pop() as T;
    t.slot = -1;
    if (last === t) return;
    this.items[i] = last;
    last.slot = i;
    this.up(i);
    this.down(last.slot);
  }

  /** Takes out the earliest entry when it is due at `now`. */
  popDue(now: number): T | undefined {
    const top = this.items[0];
    if (!top || top.due > now) return undefined;
    this.remove(top);
    return top;
  }

  clear(): void {
    for (const t of this.items) t.slot = -1;
    this.items.length = 0;
  }

  private up(i: number): void {
    const items = this.items;
    const t = items[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (items[p].due <= t.due) break;
      items[i] = items[p];
      items[i].slot = i;
      i = p;
    }
    items[i] = t;
    t.slot = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const t = items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && items[r].due < items[l].due ? r : l;
      if (items[c].due >= t.due) break;
      items[i] = items[c];
      items[i].slot = i;
      i = c;
    }
    items[i] = t;
    t.slot = i;
  }
}

// ---- the state of the entities ----------------------------------------------------------------------------------

/**
 * `false`: the condition does not hold; `holding`: it holds, for less than its hold; `true`: it held for its hold
 * (output 1 said so); `stopping`: true, and it stopped holding, for less than its hold-off.
 */
export type Phase = 'false' | 'holding' | 'true' | 'stopping';

/**
 * The entities of one subscription: while it is down (and until the server's fresh answer after a reconnect has been
 * taken in), a deadline that comes is put off (`deferred`), for the fresh answer to decide.
 */
export class Group<D> {
  live = false;
  readonly deferred = new Set<Tracked<D>>();
}

/** One entity watched, with the node's own data beside its state (its row, its alarms). */
export class Tracked<D> implements Scheduled {
  phase: Phase = 'false';
  /** When the condition began to hold (for the current run of holding, true and stopping). */
  heldSince = 0;
  /** When it stopped holding (stopping). */
  stoppedAt = 0;
  /** The state last sent (true: output 1) and since when it is so. */
  sentTrue = false;
  stateSince: number;
  /** The reminders sent since it became true, and when the next is due. */
  repeats = 0;
  nextRepeat = 0;
  /** Silence conditions: the time of the last update (of the row at start, then of each update). */
  lastUpdate = 0;
  due = 0;
  slot = -1;
  removed = false;

  constructor(
    readonly key: string,
    readonly entity: EntityId,
    public group: Group<D>,
    public data: D,
    now: number,
  ) {
    this.stateSince = now;
  }

  /** Does the condition hold, as last seen? */
  get holds(): boolean {
    return this.phase === 'holding' || this.phase === 'true';
  }
}

/** A message to send: an entity became true or false, a reminder, or its state at start. */
export interface Change<D> {
  readonly kind: 'true' | 'false' | 'repeat' | 'initial';
  readonly tracked: Tracked<D>;
  /** The state now (output 1 when true). */
  readonly state: boolean;
  /** When the condition began to hold (true, a reminder), or stopped holding (false); for `initial`, now. */
  readonly since: number;
  /** How long it has held (true, a reminder), or had held before it stopped (false); 0 for `initial`. */
  readonly heldFor: number;
  /** The state sent before, and since when (none for `initial`). */
  readonly previous: { state: boolean; since: number } | null;
  /** The reminder's number (1, 2, …); 0 otherwise. */
  readonly repeat: number;
  /** False because the entity is no longer watched (it left the query's list, or a message unwatched it). */
  readonly removed: boolean;
  readonly at: number;
}

/**
 * The states of every entity of a node and their deadlines: what it is told (an entity added, its condition
 * re-evaluated, an update for a silence, an entity gone, a reset), what its one timer wakes it for, and the changes
 * it reports (`emit`) as they happen.
 */
export class TriggerMachine<D> {
  private readonly heap = new DeadlineHeap<Tracked<D>>();
  private timer: unknown;
  private timerAt = 0;
  private closed = false;
  /** Entities whose state sent is true (output 1). */
  private trues = 0;

  constructor(
    private readonly timing: Timing,
    private readonly clock: Clock,
    private readonly emit: (c: Change<D>) => void,
  ) {}

  /** How many entities are true now (their last message was on output 1). */
  get trueCount(): number {
    return this.trues;
  }

  /** How many deadlines are pending (entities holding, stopping, with a reminder or a silence to check). */
  get pending(): number {
    return this.heap.size;
  }

  /** Is a timer running? (At most one, whatever the number of entities.) */
  get timerArmed(): boolean {
    return this.timer !== undefined;
  }

  /**
   * A new entity, with its condition now (`holds`; for a silence, its `lastUpdate` set before). `initial`: its state
   * is sent at once (output 1 or 2), and one whose condition holds is taken as true without waiting for its hold
   * (when it began to hold is not known).
   */
  add(t: Tracked<D>, holds: boolean, initial = false): void {
    const now = this.clock.now();
    t.stateSince = now;
    const silence = this.timing.silenceMs;
    let since = now;
    if (silence) {
      if (t.lastUpdate === 0) t.lastUpdate = now; // nothing heard yet: silent from now on
      holds = now - t.lastUpdate >= silence;
      since = t.lastUpdate + silence;
    }
    if (initial) {
      this.emit({
        kind: 'initial',
        tracked: t,
        state: holds,
        since: now,
        heldFor: 0,
        previous: null,
        repeat: 0,
        removed: false,
        at: now,
      });
      if (holds) {
        t.heldSince = since;
        this.markTrue(t, now);
      }
    } else if (holds) this.startHolding(t, since, now);
    this.plan(t);
  }

  /** The condition, re-evaluated after an update of the entity (value and alarm conditions). */
  set(t: Tracked<D>, holds: boolean): void {
    if (t.removed || holds === t.holds) return;
    const now = this.clock.now();
    if (holds) this.startHolding(t, now, now);
    else this.stopHolding(t, now);
    this.plan(t);
  }

  /**
   * An update of a silence condition's keys, at `ts` (no later than now): the entity is not silent. An entity that
   * was not holding keeps its deadline (the next wake-up finds the later one), so an update costs no heap work.
   */
  touched(t: Tracked<D>, ts: number): void {
    if (t.removed) return;
    const now = this.clock.now();
    const at = Math.min(ts, now);
    if (at <= t.lastUpdate) return;
    t.lastUpdate = at;
    if (t.holds) {
      this.stopHolding(t, now);
      this.plan(t);
    } else if (t.slot < 0 && t.group.live) this.plan(t);
  }

  /**
   * The entity is no longer watched: its deadlines go, and one that was true is said to be false (`removed`, unless
   * `tell` is false: the node is closing), so that what its true message started can end.
   */
  remove(t: Tracked<D>, tell = true): void {
    if (t.removed) return;
    t.removed = true;
    const now = this.clock.now();
    this.heap.remove(t);
    t.group.deferred.delete(t);
    if (t.sentTrue) {
      if (tell) this.sendFalse(t, now, true);
      else {
        t.sentTrue = false;
        this.trues--;
      }
    }
    this.arm();
  }

  /**
   * Starts the entity over, as at deploy (nothing is sent for the state it leaves): false, then holding again from
   * now when its condition holds (`holds`; for a silence, from its last update).
   */
  reset(t: Tracked<D>, holds: boolean): void {
    if (t.removed) return;
    const now = this.clock.now();
    if (t.sentTrue) this.trues--;
    t.sentTrue = false;
    t.phase = 'false';
    t.repeats = 0;
    t.stateSince = now;
    this.heap.remove(t);
    t.group.deferred.delete(t);
    if (this.timing.silenceMs) {
      if (now - t.lastUpdate >= this.timing.silenceMs) this.startHolding(t, now, now);
    } else if (holds) this.startHolding(t, now, now);
    this.plan(t);
  }

  /**
   * The group's data is current again (the fresh answer after a reconnect was taken in): the deadlines put off while
   * it was down are decided now, on what the answer said.
   */
  resume(g: Group<D>): void {
    g.live = true;
    const due = [...g.deferred];
    g.deferred.clear();
    for (const t of due) if (!t.removed) this.wake(t);
  }

  /** The group's data is no longer current (its socket went down). */
  suspend(g: Group<D>): void {
    g.live = false;
  }

  /** Stops the timer; nothing is sent any more. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.heap.clear();
  }

  // ---- transitions --------------------------------------------------------------------------------------------

  /** The condition began to hold at `since` (for a silence, `silentFor` after the last update). */
  private startHolding(t: Tracked<D>, since: number, now: number): void {
    if (t.phase === 'stopping') {
      // Back before its hold-off was over: still true, as if it had not stopped (nothing is sent).
      t.phase = 'true';
      return;
    }
    if (t.phase !== 'false') return;
    t.heldSince = since;
    t.phase = 'holding';
    if (now >= since + this.timing.holdMs) this.becomeTrue(t, now);
  }

  private stopHolding(t: Tracked<D>, now: number): void {
    if (t.phase === 'holding') {
      t.phase = 'false'; // stopped before its hold was over: nothing was sent, nothing is
      return;
    }
    if (t.phase !== 'true') return;
    t.stoppedAt = now;
    t.phase = 'stopping';
    if (this.timing.holdOffMs === 0) this.sendFalse(t, now, false);
  }

  /** True (said by the caller: the message of the hold over, or the initial one at start). */
  private markTrue(t: Tracked<D>, now: number): void {
    t.phase = 'true';
    t.sentTrue = true;
    this.trues++;
    t.stateSince = now;
    t.repeats = 0;
    t.nextRepeat = now + this.timing.repeatMs;
  }

  /** The hold is over: true, on output 1. */
  private becomeTrue(t: Tracked<D>, now: number): void {
    const previous = { state: false, since: t.stateSince };
    this.markTrue(t, now);
    this.emit({
      kind: 'true',
      tracked: t,
      state: true,
      since: t.heldSince,
      heldFor: now - t.heldSince,
      previous,
      repeat: 0,
      removed: false,
      at: now,
    });
  }

  private sendFalse(t: Tracked<D>, now: number, removed: boolean): void {
    const previous = { state: true, since: t.stateSince };
    const stopped = removed && t.phase !== 'stopping' ? now : t.stoppedAt;
    t.phase = 'false';
    t.sentTrue = false;
    this.trues--;
    t.stateSince = now;
    t.repeats = 0;
    this.emit({
      kind: 'false',
      tracked: t,
      state: false,
      since: stopped,
      heldFor: Math.max(0, stopped - t.heldSince),
      previous,
      repeat: 0,
      removed,
      at: now,
    });
  }

  // ---- deadlines ----------------------------------------------------------------------------------------------

  /** The entity's next deadline from its state, if any. */
  private nextDue(t: Tracked<D>): number | undefined {
    const { holdMs, holdOffMs, repeatMs, repeatMax, silenceMs } = this.timing;
    switch (t.phase) {
      case 'holding':
        return t.heldSince + holdMs;
      case 'true':
        return repeatMs && t.repeats < repeatMax ? t.nextRepeat : undefined;
      case 'stopping':
        return silenceMs ? Math.min(t.stoppedAt + holdOffMs, t.lastUpdate + silenceMs) : t.stoppedAt + holdOffMs;
      default:
        return silenceMs ? t.lastUpdate + silenceMs : undefined;
    }
  }

  /** Puts the entity's next deadline in the heap (or takes it out), and the timer on the earliest. */
  private plan(t: Tracked<D>): void {
    if (this.closed || t.removed) return;
    const due = this.nextDue(t);
    if (due === undefined) this.heap.remove(t);
    else this.heap.set(t, due);
    this.arm();
  }

  /** A deadline of the entity came (or one put off while its data was not current): what is due now happens. */
  private wake(t: Tracked<D>): void {
    const now = this.clock.now();
    const { holdMs, holdOffMs, repeatMs, repeatMax, silenceMs } = this.timing;
    if (silenceMs && (t.phase === 'false' || t.phase === 'stopping') && now >= t.lastUpdate + silenceMs)
      this.startHolding(t, t.lastUpdate + silenceMs, now);
    if (t.phase === 'holding' && now >= t.heldSince + holdMs) this.becomeTrue(t, now);
    else if (t.phase === 'stopping' && now >= t.stoppedAt + holdOffMs) this.sendFalse(t, now, false);
    else if (t.phase === 'true' && repeatMs && t.repeats < repeatMax && now >= t.nextRepeat) {
      t.repeats++;
      t.nextRepeat = now + repeatMs;
      this.emit({
        kind: 'repeat',
        tracked: t,
        state: true,
        since: t.heldSince,
        heldFor: now - t.heldSince,
        previous: { state: true, since: t.stateSince },
        repeat: t.repeats,
        removed: false,
        at: now,
      });
    }
    this.plan(t);
  }

  /** The one timer, on the earliest deadline. */
  private arm(): void {
    if (this.closed) return;
    const top = this.heap.peek();
    if (!top) {
      if (this.timer !== undefined) this.clock.clearTimer(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer !== undefined && this.timerAt === top.due) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timerAt = top.due;
    const wait = Math.max(0, Math.min(top.due - this.clock.now(), MAX_TIMER_MS));
    this.timer = this.clock.setTimer(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.closed) return;
    const now = this.clock.now();
    // Each entity due is taken out before it is woken: its wake puts its next deadline back, later than now.
    const due: Tracked<D>[] = [];
    for (let t = this.heap.popDue(now); t; t = this.heap.popDue(now)) due.push(t);
    for (const t of due) {
      if (t.removed) continue;
      if (!t.group.live) t.group.deferred.add(t);
      else this.wake(t);
    }
    this.arm();
  }
}

// ---- what the messages say ------------------------------------------------------------------------------------------

/** The values of the keys a condition reads, by key (null for a key without a value). */
export function valuesOf(
  keys: ReadonlyArray<{ keyType: ConditionKeyType; key: string }>,
  ed: EntityData | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { keyType, key } of keys) {
    if (key in out) continue;
    const cur = latestValue(ed, keyType, key);
    out[key] = cur ? cur.value : null;
  }
  return out;
}

/** The alarm to report among an entity's alarms that count: the newest. */
export function newestAlarm(alarms: Iterable<AlarmData>, match: (a: AlarmData) => boolean): AlarmData | undefined {
  let best: AlarmData | undefined;
  for (const a of alarms) if (match(a) && (!best || a.createdTime > best.createdTime)) best = a;
  return best;
}

/** What an entity's message carries in msg.payload. */
export interface TriggerPayload {
  /** true: output 1 (became true, a reminder, or true at start); false: output 2. */
  state: boolean;
  /** What happened: `true`, `false`, `repeat`, `initial`. */
  event: Change<unknown>['kind'];
  /** The entity's name, when known. */
  name: string | null;
  /** The values of the keys the condition reads (value and silence conditions). */
  values?: Record<string, unknown>;
  /** The first condition's value (value conditions), the first key's (silence). */
  value?: unknown;
  /** Alarm conditions: the newest alarm that counts (the alarm query's simple form), or null. */
  alarm?: FlatAlarm | null;
  /** Silence conditions: the time of the last update heard (ms since 1970), or null. */
  lastUpdate?: number | null;
  /** When the condition began to hold (true, a reminder) or stopped holding (false), ms since 1970. */
  since: number;
  /** How long, in ms, it has held (true, a reminder) or had held before it stopped (false). */
  heldFor: number;
  /** The state before, and since when (null at start). */
  previous: { state: boolean; since: number } | null;
  /** The reminder's number (1, 2, …); 0 otherwise. */
  repeat: number;
  /** Became false because the entity is no longer watched. */
  removed?: boolean;
}

/** What a change says: the values (or alarm, or last update) of the entity come from the node. */
export function payloadOf(
  c: Change<unknown>,
  name: string | undefined,
  reading: Pick<TriggerPayload, 'values' | 'value' | 'alarm' | 'lastUpdate'>,
): TriggerPayload {
  const p: TriggerPayload = {
    state: c.state,
    event: c.kind,
    name: name ?? null,
    ...reading,
    since: c.since,
    heldFor: c.heldFor,
    previous: c.previous,
    repeat: c.repeat,
  };
  if (c.removed) p.removed = true;
  return p;
}

/** The condition in a few words, with the entity's values: "temperature 26.1", "alarm HIGH_TEMP (CRITICAL)". */
export function readingText(condition: TriggerCondition, p: TriggerPayload, silenceMs: number): string {
  if (condition === 'alarm') {
    const a = p.alarm;
    return a ? `alarm ${a.type} (${a.severity})` : 'no alarm';
  }
  if (condition === 'silence' && p.state) return `silent ${durationText(silenceMs)}`;
  const values = p.values ?? {};
  const parts = Object.entries(values)
    .slice(0, 3)
    .map(([k, v]) => `${k} ${v === null ? 'none' : shortValue(v)}`);
  return parts.join(', ') || 'no value';
}

/**
 * What happened, in a few words, for msg.topic (the debug sidebar shows it above msg.payload): "true: temperature
 * 26.1 held 10 min (Freezer 3)", "still true: … for 20 min, reminder 1", "false: temperature 21, held 15 min",
 * "now true: …" at start, "false: no longer watched".
 */
export function topicOf(condition: TriggerCondition, p: TriggerPayload, silenceMs: number): string {
  const what = readingText(condition, p, silenceMs);
  const who = p.name ? ` (${p.name})` : '';
  switch (p.event) {
    case 'initial':
      return `now ${p.state}: ${what}${who}`;
    case 'repeat':
      return `still true: ${what} for ${spanText(p.heldFor)}, reminder ${p.repeat}${who}`;
    case 'true':
      return p.heldFor > 0 ? `true: ${what} held ${spanText(p.heldFor)}${who}` : `true: ${what}${who}`;
    default:
      if (p.removed) return `false: no longer watched${who}`;
      return `false: ${what}, held ${spanText(p.heldFor)}${who}`;
  }
}

/** A value condition's operator in words, for errors: "temperature > 25". */
export function rowText(r: CheckedRow): string {
  return `${r.key} ${OPERATOR_TEXT[r.operator]} ${r.value}`;
}

/** The flat alarm of an entity's newest alarm that counts. */
export function flatAlarm(a: AlarmData | undefined): FlatAlarm | null {
  return a ? flattenAlarm(a) : null;
}
