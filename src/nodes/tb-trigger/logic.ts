/**
 * tb-trigger, the pure part around its states: its settings checked at deploy, the live queries that watch the
 * entities, and what its messages say. The states themselves and their one scheduler are machine.ts. No I/O, no
 * Node-RED.
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
import type { Change, Timing } from './machine';
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
