/**
 * tb-wait-until's dialog: the entity to watch (the device actions' target part), what to wait for (a value of one
 * of its keys compared with a value, or an alarm state), the timeout, and the condition read back as a sentence
 * ("until temperature ≥ 21 within 30 min").
 */
import { keysInput } from '../../editor/builder/actions';
import { alarmTypeInput } from '../../editor/builder/dialogs';
import { keyKind, oneKey, oneKeyNamed, valueProblem } from '../../editor/dialog/condition';
import { messageSettings, watchedEntityTarget } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { blank } from '../../editor/dialog/predicates';
import { durationWords } from '../../settings/condition-words';
import { fromMessage } from '../../settings/declare';
import { durationOption } from '../../settings/options';
import { VALUE_TYPES } from '../../settings/value-rows';
import { condition as waitCondition, label, operator, valueType, waitFor, type Get } from './label';
import { MIGRATIONS } from './migrations';
import { TB_WAIT_UNTIL } from './settings';

const E = forType('tb-wait-until');
const t = E.t;

/** The node's settings as the dialog holds them now (else as saved). */
const live =
  (node: EditorNode): Get =>
  (prop) =>
    E.value(node, prop);

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim();

/** Is the value to compare with in use (a value wait with a comparison other than "changes")? */
function comparing(this: EditorNode): boolean {
  const get = live(this);
  return waitFor(get) === 'value' && operator(get) !== 'changes';
}

// Any entity with attributes and time series, checked by the runtime's own rules; texts from this catalog.
const target = watchedEntityTarget(E);

/** The value to compare with: present, a number for <, ≤, >, ≥, a list for "is one of". */
const value: Validator = E.when(comparing, function (v, opt) {
  if (v === undefined) return true;
  const get = live(this);
  const problem = valueProblem(operator(get), valueType(get), v);
  if (problem !== 'typed') return problem ? t(`tb-wait-until.errors.${problem}`) : true;
  const r = RED.validators.typedInput('valueType').call(this, v, opt);
  return r === true ? true : r || t('tb-wait-until.errors.value');
});

/** The one key a value wait watches (its type's name for it: a time series, an attribute, an entity field). */
const key: Validator = E.when(
  function () {
    return waitFor(live(this)) === 'value';
  },
  function (v, opt) {
    if (v === undefined) return true;
    return oneKeyNamed(v) ? true : t('tb-wait-until.errors.key');
  },
);

/** The timeout in ms (0: no limit), or undefined when it comes from the message (or is not a duration). */
function timeoutMs(v: unknown): number | undefined {
  if (blank(v)) return undefined;
  try {
    return durationOption({ value: typeof v === 'number' ? v : str(v), field: 'timeout' }, undefined, 0);
  } catch {
    return undefined;
  }
}

/** A duration such as 90s, 10m, 2h (the runtime's rule), 0 for no limit, or empty for msg.timeout. */
const timeout: Validator = function (v, opt) {
  if (v === undefined || blank(v)) return true;
  return timeoutMs(v) === undefined ? t('tb-wait-until.errors.timeout') : true;
};

// ---------------------------------------------------------------------------------------------------------------
// The condition as a sentence
// ---------------------------------------------------------------------------------------------------------------

/** A duration as a person says it, in the largest unit that divides it (the runtime's rule), translated. */
const durationText = (ms: number): string => durationWords(ms, t, 'tb-wait-until');

/** The entities of a fixed list (how many), or 0 when the entity is one or comes from the message. */
function fixedCount(get: Get): number {
  if (str(get('targetType')) !== 'json') return 0;
  try {
    const v: unknown = JSON.parse(str(get('target')));
    return Array.isArray(v) && v.length > 1 ? v.length : 0;
  } catch {
    return 0;
  }
}

/** "until temperature ≥ 21", "until the alarm of the message is acknowledged" (no time). */
const condition = (get: Get): string => waitCondition(get, t);

/** The whole condition: "until temperature ≥ 21 on all 3 entities within 30 min". */
function sentence(get: Get): string {
  const parts = [condition(get)];
  const n = fixedCount(get);
  if (n) parts.push(t(`tb-wait-until.sentence.${str(get('listMode')) === 'any' ? 'any' : 'all'}`, { n }));
  const raw = get('timeout');
  const ms = timeoutMs(raw);
  if (blank(raw)) parts.push(t('tb-wait-until.sentence.timeoutFromMsg'));
  else if (ms === 0) parts.push(t('tb-wait-until.sentence.noLimit'));
  else if (ms !== undefined) parts.push(t('tb-wait-until.sentence.within', { time: durationText(ms) }));
  else parts.push(t('tb-wait-until.sentence.within', { time: str(raw) }));
  return parts.join(' ');
}

const OUTPUTS = ['met', 'timedOut'];

export default dialog(E, {
  declaration: TB_WAIT_UNTIL,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (choices, the check box and the count are checked by their kind).
  validators: { target: target.target, key, value, timeout },
  unnamed: label,
  outputLabels(i) {
    return t(`tb-wait-until.outputLabel.${OUTPUTS[i] ?? 'met'}`);
  },
  oneditprepare() {
    const node = this;
    // A setting left empty reads the message (the timeout: msg.timeout, else 30 s).
    messageSettings(E, node, fromMessage(TB_WAIT_UNTIL));
    // A fixed entity is picked by name; the key as a chip, suggested from its own keys of the chosen type.
    target.prepare();
    const sel = (prop: string) => `#${E.prefix}${prop}`;
    const connection = () => E.input('connection').val() as string | undefined;
    // One key: a chip added beside another replaces it.
    oneKey(E.input('key'));
    keysInput({
      input: sel('key'),
      connection,
      source: target.fixed,
      kind: () => keyKind(E.input('keyType').val()),
      watch: [sel('target'), sel('targetEntityType'), sel('keyType'), sel('connection')],
    });
    E.typedInput('value', VALUE_TYPES);
    alarmTypeInput(sel('alarmType'), connection);
    E.input('operator').on('change', () => {
      // A JSONata condition is an expression over { value, ts, entity }.
      if (E.input('operator').val() === 'jsonata' && E.input('value').typedInput('type') !== 'jsonata')
        E.input('value').typedInput('type', 'jsonata');
    });

    const get = live(node);
    const sentenceBox = $('[data-tb-sentence]');
    E.showRows(() => {
      const forValue = waitFor(get) === 'value';
      const ms = timeoutMs(get('timeout'));
      sentenceBox.text(sentence(get));
      return {
        '.tb-row-value': forValue,
        '.tb-row-compare': forValue && operator(get) !== 'changes',
        '.tb-row-alarm': !forValue,
        '.tb-row-id-type': target.source() !== 'json',
        '.tb-tip-no-limit': ms === 0,
      };
    }, [
      'waitFor',
      'keyType',
      'key',
      'operator',
      'value',
      'valueType',
      'alarmState',
      'alarmType',
      'listMode',
      'timeout',
      'target',
      'targetType',
    ]);
    // Which entity is watched, as configured: picked by name, the message, JSON, msg., JSONata.
    target.describe($('[data-tb-target-tip]'), 'tb-wait-until.entityIs.');
  },
  oneditsave() {
    E.trim(['key', 'alarmType', 'timeout', 'maxWaits']);
  },
});
