/**
 * tb-wait-until's label without a name, from its settings: the condition, "until temperature ≥ 21" (the dialog's
 * sentence starts with it). The canvas shows it, and the runtime's log and errors.
 */
import { comparedValueText } from '../../settings/condition-words';
import type { SavedSettings, Translate } from '../../settings/declare';
import { ALARM_STATES, TB_WAIT_UNTIL } from './settings';

/** A setting of the node, as saved or as its dialog holds it now. */
export type Get = (prop: string) => unknown;

const DEFAULTS = TB_WAIT_UNTIL.settings;
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim();
// What the runtime reads when a setting is empty: its default.
export const waitFor = (get: Get): string => str(get('waitFor')) || DEFAULTS.waitFor.default;
export const operator = (get: Get): string => str(get('operator')) || DEFAULTS.operator.default;
export const valueType = (get: Get): string => str(get('valueType')) || DEFAULTS.valueType.default;

/** The value to compare with, as the sentence shows it (a text in quotes, a source by its path). */
function valueText(get: Get, t: Translate): string {
  return comparedValueText(get('value'), valueType(get), t('tb-wait-until.sentence.noValue'));
}

/** "until temperature ≥ 21", "until the alarm of the message is acknowledged" (no time). */
export function condition(get: Get, t: Translate): string {
  if (waitFor(get) === 'alarm') {
    const stateName = str(get('alarmState'));
    const state = t(
      `tb-wait-until.state.${(ALARM_STATES as readonly string[]).indexOf(stateName) !== -1 ? stateName : 'acknowledged'}`,
    );
    const type = str(get('alarmType'));
    return type
      ? t('tb-wait-until.sentence.alarmType', { type, state })
      : t('tb-wait-until.sentence.alarmMsg', { state });
  }
  const k = str(get('key')) || t('tb-wait-until.sentence.noKey');
  const op = operator(get);
  if (op === 'changes') return t('tb-wait-until.sentence.changes', { key: k });
  if (op === 'jsonata')
    return t('tb-wait-until.sentence.jsonata', {
      expression: str(get('value')) || t('tb-wait-until.sentence.noValue'),
    });
  return t('tb-wait-until.sentence.value', {
    key: k,
    op: t(`tb-wait-until.symbol.${op}`),
    value: valueText(get, t),
  });
}

export function label(s: SavedSettings, t: Translate): string {
  return condition((prop) => s[prop], t);
}
