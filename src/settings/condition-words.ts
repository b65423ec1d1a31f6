/**
 * A condition on an entity's value in words, as the dialogs read it back and the canvas labels it (tb-wait-until,
 * tb-trigger): the value compared with as it is set ("21", "\"idle\"", "msg.target"), and a duration as a person
 * says it ("10 min"). The words come from the node's catalog: `<type>.unit.<unit>` for the units of a duration.
 * Pure: no Node-RED, no DOM; the runtime names an unnamed node by the same words.
 */
import { durationParts, parseDuration } from '../protocol/duration';
import { isNumericText } from './conditions';
import type { Translate } from './declare';

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim();

/**
 * The value a condition compares with, as a sentence shows it: numeric text as the number it stands for (the
 * runtime's rule), other text in quotes, a message, context or environment source by its path, anything else as it
 * is typed; `noValue` when there is none.
 */
export function comparedValueText(value: unknown, valueType: string, noValue: string): string {
  const v = str(value);
  if (v === '') return noValue;
  switch (valueType) {
    case 'str':
      return isNumericText(v) ? v : JSON.stringify(v);
    case 'msg':
    case 'flow':
    case 'global':
    case 'env':
      return `${valueType}.${v}`;
    default:
      return v;
  }
}

/** A duration in the largest unit that divides it, in the node's words: "30 s", "10 min", "2 h". */
export function durationWords(ms: number, t: Translate, type: string): string {
  const { n, unit } = durationParts(ms);
  return t(`${type}.unit.${unit}`, { n });
}

/** The ms of a duration setting as saved ("10m", "0", 600000), or undefined when it is empty or not a duration. */
export function savedDuration(v: unknown): number | undefined {
  if (typeof v === 'number') return parseDuration(v);
  const s = str(v);
  return s === '' ? undefined : parseDuration(s);
}

/**
 * An entity's value as a message's topic says it: text, numbers and booleans as they are, anything else as JSON, at
 * most 40 characters.
 */
export function shortValue(v: unknown): string {
  let s: string;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
