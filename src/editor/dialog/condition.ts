/**
 * The parts of a condition on an entity's value that the dialogs of the nodes watching values share (tb-wait-until,
 * tb-trigger):
 *
 * - the key as one chip, suggested from the server: the keys of the key type chosen (`keyKind`), one key only
 *   (`oneKey`: a chip added beside another replaces it);
 * - the value compared with, checked as the runtime reads it (`valueProblem`): present, a number for <, ≤, >, ≥ (or
 *   a text that reads as one), a list for "is one of" and "is none of"; a `{{…}}` placeholder is checked when the
 *   message comes, and a value of another source by Node-RED's own check of its type (`typedValueOk`).
 *
 * The messages are each node's: `<type>.errors.key`, `value`, `valueNumber`, `valueList`.
 */
import { parseTemplate } from '../../protocol/bindings';
import { isNumericText, ORDER_OPERATORS } from '../../settings/conditions';
import { blank } from './predicates';

/** The keys suggested for each key type (the kinds of the key chips); entity fields have no look-up. */
const KEY_KINDS: Readonly<Record<string, string>> = {
  TIME_SERIES: 'timeseries',
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  CLIENT_ATTRIBUTE: 'CLIENT_SCOPE',
};

/** The kind of keys a key box of this key type suggests. */
export function keyKind(keyType: unknown): string {
  return KEY_KINDS[String(keyType)] ?? 'ENTITY_FIELD';
}

/** One key named: not blank, no comma (a condition reads one key). */
export function oneKeyNamed(v: unknown): boolean {
  return !blank(v) && String(v).indexOf(',') === -1;
}

/** A list for "is one of": a JSON array (not empty), a number or a text; not an object. */
function jsonList(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.length > 0 : v !== null && typeof v !== 'object';
  } catch {
    return false;
  }
}

/**
 * What is wrong with the value a condition compares with (`operator`, the value's TypedInput type and text):
 * `value` (none), `valueNumber` (<, ≤, >, ≥ compare numbers), `valueList` ("is one of" takes a list); `typed` when
 * the rest is Node-RED's check of the type (a number, JSON, a msg. path, JSONata…); undefined when it is fine.
 */
export function valueProblem(
  operator: string,
  type: string,
  v: unknown,
): 'value' | 'valueNumber' | 'valueList' | 'typed' | undefined {
  if (blank(v)) return 'value';
  const text = String(v);
  if (type === 'str' && parseTemplate(text)) return undefined;
  if (
    (ORDER_OPERATORS as readonly string[]).indexOf(operator) !== -1 &&
    (type === 'bool' || type === 'json' || (type === 'str' && !isNumericText(text)))
  )
    return 'valueNumber';
  if ((operator === 'in' || operator === 'nin') && type === 'json' && !jsonList(text)) return 'valueList';
  if (type === 'str') return undefined;
  return 'typed';
}

/** A context key (flow, global) may name its store first: `#:(file)::key`. */
const STORE_PREFIX = /^#:\([^)]*\)::/;

/**
 * Node-RED's check of a TypedInput's value for its type, for a value that has no input of its own in the dialog (a
 * row of a list): a number, true or false, JSON, a message or context path, an environment variable, JSONata.
 */
export function typedValueOk(type: string, v: unknown): boolean {
  const text = String(v ?? '');
  switch (type) {
    case 'num':
      return text.trim() !== '' && isFinite(Number(text));
    case 'bool':
      return text === 'true' || text === 'false';
    case 'json':
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    case 'msg':
      return RED.utils.validatePropertyExpression(text);
    case 'flow':
    case 'global':
      return RED.utils.validatePropertyExpression(text.replace(STORE_PREFIX, ''));
    case 'env':
      return !blank(text);
    case 'jsonata': {
      // The editor page has JSONata (Node-RED's expression editor); elsewhere the runtime checks it at deploy.
      const parse = (globalThis as { jsonata?: (expr: string) => unknown }).jsonata;
      if (typeof parse !== 'function') return !blank(text);
      try {
        parse(text);
        return true;
      } catch {
        return false;
      }
    }
    default:
      return true;
  }
}

/** A key box of chips that holds one key: a chip added beside another replaces it. */
export function oneKey(input: JQuery): void {
  input.on('change', () => {
    const keys = String(input.val() ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    if (keys.length > 1) input.val(keys[keys.length - 1]);
  });
}
