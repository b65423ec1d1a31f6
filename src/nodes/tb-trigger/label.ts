/**
 * tb-trigger in words, from its settings: the label without a name ("temperature > 25 for 10 min"), which the canvas
 * shows and the runtime names an unnamed node by, and the dialog's sentence ("when temperature > 25 has held for
 * 10 min on any of 20 thermostats"), whose last part, which entities, the dialog says (it asks the server).
 */
import { ALARM_SEVERITIES } from '../../protocol/types';
import { comparedValueText, durationWords, savedDuration } from '../../settings/condition-words';
import type { SavedSettings, Translate } from '../../settings/declare';
import { TB_TRIGGER, TRIGGER_ALARM_STATES, TRIGGER_CONDITIONS, TRIGGER_WATCH } from './settings';

/** A setting of the node, as saved or as its dialog holds it now. */
export type Get = (prop: string) => unknown;

const T = 'tb-trigger';
const DEFAULTS = TB_TRIGGER.settings;
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim();
const oneOf = <V extends string>(values: readonly V[], v: unknown, def: V): V =>
  (values as readonly unknown[]).indexOf(str(v)) !== -1 ? (str(v) as V) : def;

// What the runtime reads when a setting is empty or unknown: its default.
export const watchOf = (get: Get) => oneOf(TRIGGER_WATCH, get('watch'), DEFAULTS.watch.default);
export const conditionOf = (get: Get) => oneOf(TRIGGER_CONDITIONS, get('condition'), DEFAULTS.condition.default);
export const alarmStateOf = (get: Get) => oneOf(TRIGGER_ALARM_STATES, get('alarmState'), DEFAULTS.alarmState.default);

/** A row of `conditions` as the dialog and a flow may hold it (any field may be missing). */
export interface RowLike {
  keyType?: unknown;
  key?: unknown;
  operator?: unknown;
  value?: unknown;
  valueType?: unknown;
}

/** The rows of `conditions` (none when the setting is not a list). */
export function rowsOf(v: unknown): RowLike[] {
  return Array.isArray(v) ? v.filter((r): r is RowLike => !!r && typeof r === 'object') : [];
}

/** The items of a comma-separated setting (keys, severities). */
export function itemsOf(v: unknown): string[] {
  return str(v)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A duration setting in words ("10 min"), or the text as typed when it is not a duration ('' when empty). */
function timeWords(v: unknown, t: Translate): { ms: number | undefined; text: string } {
  const ms = savedDuration(v);
  return { ms, text: ms === undefined ? str(v) : durationWords(ms, t, T) };
}

/** Is there a time to say: more than 0, or a text that is not a duration (said as typed, and flagged apart)? */
const some = (d: { ms: number | undefined; text: string }): boolean => (d.ms === undefined ? d.text !== '' : d.ms > 0);

/** A duration setting as the runtime reads it: its default when it is left empty. */
const orDefault = (get: Get, prop: 'holdFor' | 'silentFor'): unknown => str(get(prop)) || DEFAULTS[prop].default;

/** One row: "temperature > 25". */
export function rowWords(r: RowLike, t: Translate): string {
  const op = str(r.operator) || 'eq';
  return t(`${T}.words.condition`, {
    key: str(r.key) || t(`${T}.words.noKey`),
    op: t(`${T}.symbol.${op}`),
    value: comparedValueText(r.value, str(r.valueType) || 'str', t(`${T}.words.noValue`)),
  });
}

/** The rows joined: "temperature > 25 and humidity ≥ 60" (any: "or"). */
export function conditionsWords(get: Get, t: Translate): string {
  const rows = rowsOf(get('conditions'));
  if (!rows.length) return t(`${T}.words.noCondition`);
  const join = ` ${t(`${T}.words.${str(get('join')) === 'any' ? 'or' : 'and'}`)} `;
  return rows.map((r) => rowWords(r, t)).join(join);
}

/** The severities named, in words ("critical or major"), or '' for any. */
function severityWords(get: Get, t: Translate): string {
  const names = itemsOf(get('severities')).filter((s) => (ALARM_SEVERITIES as readonly string[]).indexOf(s) !== -1);
  return names.map((s) => t(`${T}.severity.${s}`)).join(` ${t(`${T}.words.or`)} `);
}

/** What alarm: "critical High Temperature" (severities, then the type), '' for any alarm. */
function alarmWhat(get: Get, t: Translate): string {
  return [severityWords(get, t), str(get('alarmType'))].filter((s) => s !== '').join(' ');
}

/** The label without a name: "temperature > 25 for 10 min", "critical alarm active and unacknowledged for 15 min". */
export function label(s: SavedSettings, t: Translate): string {
  const get: Get = (prop) => s[prop];
  const hold = timeWords(orDefault(get, 'holdFor'), t);
  const held = (what: string) => (some(hold) ? t(`${T}.words.held`, { what, time: hold.text }) : what);
  switch (conditionOf(get)) {
    case 'alarm': {
      // "critical High Temperature unacknowledged", "alarm active" (short: the canvas shows it).
      const type = str(get('alarmType'));
      const what = [severityWords(get, t), type || t(`${T}.words.alarm`)].filter((x) => x !== '').join(' ');
      return held(`${what} ${t(`${T}.words.${alarmStateOf(get)}`)}`);
    }
    case 'silence': {
      const keys = itemsOf(get('silenceKeys')).join(', ') || t(`${T}.words.noKey`);
      return t(`${T}.words.silence`, { keys, time: timeWords(orDefault(get, 'silentFor'), t).text });
    }
    default:
      return held(conditionsWords(get, t));
  }
}

/**
 * The dialog's sentence, but for the entities (`where`: "on any of 20 thermostats", said by the dialog):
 * "when temperature > 25 has held for 10 min <where>; false again once it has not held for 1 min; again every
 * 30 min while it holds, at most 3 times".
 */
export function sentence(get: Get, t: Translate, where: string): string {
  const hold = timeWords(orDefault(get, 'holdFor'), t);
  let first: string;
  switch (conditionOf(get)) {
    case 'alarm': {
      const what = alarmWhat(get, t);
      const alarm = !what
        ? t(`${T}.sentence.anAlarm`)
        : t(`${T}.sentence.${/^[aeiou]/i.test(what) ? 'alarmAn' : 'alarmA'}`, { what });
      const state = t(`${T}.state.${alarmStateOf(get)}`);
      first = some(hold)
        ? t(`${T}.sentence.alarmHeld`, { alarm, state, hold: hold.text })
        : t(`${T}.sentence.alarmAtOnce`, { alarm, state });
      break;
    }
    case 'silence': {
      const keys = itemsOf(get('silenceKeys')).join(` ${t(`${T}.words.or`)} `) || t(`${T}.words.noKey`);
      first = t(`${T}.sentence.silence`, { keys, time: timeWords(orDefault(get, 'silentFor'), t).text });
      if (some(hold)) first += `, ${t(`${T}.sentence.thenHeld`, { hold: hold.text })}`;
      break;
    }
    default: {
      const cond = conditionsWords(get, t);
      first = some(hold) ? t(`${T}.sentence.held`, { cond, hold: hold.text }) : t(`${T}.sentence.atOnce`, { cond });
    }
  }
  const parts = [where ? `${first} ${where}` : first];
  const off = timeWords(get('holdOffFor'), t);
  if (some(off)) parts.push(t(`${T}.sentence.falseAfter`, { time: off.text }));
  const every = timeWords(get('repeatEvery'), t);
  if (some(every)) {
    const n = Number(str(get('repeatMax')));
    parts.push(
      Number.isInteger(n) && n >= 1
        ? t(`${T}.sentence.repeatMax`, { time: every.text, n })
        : t(`${T}.sentence.repeat`, { time: every.text }),
    );
  }
  return parts.join('; ');
}
