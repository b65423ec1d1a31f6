/**
 * Reading a node's saved settings by its declaration (settings.ts): a missing setting reads as its default, a
 * choice must be one of its values, a check box true or false, a whole number within its range. What is wrong is
 * a problem naming the setting and what it allows; the value read is then the default, and the node reports the
 * problem at deploy (and refuses every message) rather than guessing. A setting a message may give when it is left
 * empty is read as saved: the node checks it for each message.
 */
import { TbConfigError } from '../errors';
import { DURATION_TEXT, durationText, parseDuration } from '../protocol/duration';
import { describe } from '../protocol/validate';
import type { NodeDeclaration, Setting, Values } from './declare';

/** What a node read from its saved settings. */
export interface ReadSettings<S extends Record<string, Setting>> {
  values: Values<S>;
  /** One per setting that holds what it does not allow. */
  problems: TbConfigError[];
  /**
   * The same problems by the name of their setting, for a node that reports a setting's problem only where it uses
   * the setting (such as a setting of an operation it is not set to).
   */
  problemOf: Partial<Record<keyof S & string, TbConfigError>>;
}

/** Is a saved value missing (a flow written by hand, or an older version)? */
function missing(v: unknown): boolean {
  return v === undefined || v === null;
}

function oneOf(name: string, values: readonly string[], v: unknown): TbConfigError {
  const hint = typeof v === 'string' ? values.find((a) => a.toLowerCase() === v.trim().toLowerCase()) : undefined;
  return new TbConfigError(
    `${name} must be one of ${values.join(', ')} (got ${describe(v)}${hint ? `; did you mean "${hint}"?` : ''})`,
  );
}

/** A whole number saved as a number or as digits ('' and missing are the caller's). */
function wholeNumber(v: unknown): number {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : NaN;
  return typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
}

/** Reads one setting: its value, or a problem (the value is then its default). */
function readOne(name: string, s: Setting, v: unknown): { value: unknown; problem?: TbConfigError } {
  // A setting a message may give is the node's to read for each message and to check then (see `fromMessage`).
  if (s.fromMessage !== undefined) return { value: missing(v) ? s.default : v };
  switch (s.kind) {
    case 'choice':
      if (missing(v) || v === '') return { value: s.default };
      if (typeof v === 'string' && s.values.includes(v)) return { value: v };
      return { value: s.default, problem: oneOf(name, s.values, v) };
    case 'flag':
      if (missing(v) || v === '') return { value: s.default };
      if (v === true || v === 'true') return { value: true };
      if (v === false || v === 'false') return { value: false };
      return { value: s.default, problem: new TbConfigError(`${name} must be true or false (got ${describe(v)})`) };
    case 'whole': {
      // A missing one is its default; '' is "not set" when the setting is optional (or has no default).
      if (missing(v)) v = s.default;
      if (typeof v === 'string' && v.trim() === '') {
        return { value: s.optional || s.default === '' ? undefined : s.default };
      }
      const n = wholeNumber(v);
      if (Number.isSafeInteger(n) && n >= s.min && (s.max === undefined || n <= s.max)) return { value: n };
      const range = s.max === undefined ? `of at least ${s.min}` : `from ${s.min} to ${s.max}`;
      return {
        value: s.default === '' ? undefined : s.default,
        problem: new TbConfigError(`${name} must be a whole number ${range} (got ${describe(v)})`),
      };
    }
    case 'number': {
      if (missing(v) || (typeof v === 'string' && v.trim() === '')) return { value: s.default };
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
      if (Number.isFinite(n) && (s.above ? n > s.min : n >= s.min)) return { value: n };
      const range = s.above ? `greater than ${s.min}` : `of at least ${s.min}`;
      return {
        value: s.default,
        problem: new TbConfigError(`${name} must be a number ${range} (got ${describe(v)})`),
      };
    }
    case 'rows':
      if (missing(v)) return { value: [...s.default] };
      if (Array.isArray(v)) return { value: v };
      return { value: [...s.default], problem: new TbConfigError(`${name} must be a list (got ${describe(v)})`) };
    case 'version': {
      const n = wholeNumber(v);
      return { value: Number.isSafeInteger(n) && n >= 1 ? n : 1 };
    }
    case 'duration': {
      // A missing one is its default; '' is "not set" when the setting is optional.
      if (missing(v)) v = s.default;
      if (typeof v === 'string' && v.trim() === '') {
        if (s.optional || s.default === '') return { value: undefined };
        v = s.default;
      }
      const ms = parseDuration(v);
      if (ms !== undefined && (s.above ? ms > s.min : ms >= s.min)) return { value: ms };
      const range =
        s.min === 0 && !s.above ? '' : `, ${s.above ? 'more than' : 'at least'} ${s.min ? durationText(s.min) : '0'}`;
      return {
        value: s.default === '' ? undefined : parseDuration(s.default),
        problem: new TbConfigError(`${name} must be ${DURATION_TEXT}${range} (got ${describe(v)})`),
      };
    }
    case 'json':
    case 'list':
    case 'query':
      return { value: missing(v) ? s.default : v };
    default:
      // text and config references: what the editor saved, as text.
      return { value: missing(v) ? s.default : typeof v === 'string' ? v : String(v) };
  }
}

/** Reads every declared setting of a node from what it saved (after its migrations). */
export function readSettings<D extends NodeDeclaration>(
  decl: D,
  saved: Readonly<Record<string, unknown>>,
): ReadSettings<D['settings']> {
  const values: Record<string, unknown> = {};
  const problems: TbConfigError[] = [];
  const problemOf: Record<string, TbConfigError> = {};
  for (const [name, s] of Object.entries(decl.settings) as Array<[string, Setting]>) {
    const r = readOne(name, s, saved[name]);
    values[name] = r.value;
    if (r.problem) {
      problems.push(r.problem);
      problemOf[name] = r.problem;
    }
  }
  return {
    values: values as Values<D['settings']>,
    problems,
    problemOf: problemOf as ReadSettings<D['settings']>['problemOf'],
  };
}

/** The default of every declared setting, as a new node's dialog starts. */
export function defaultSettings(decl: NodeDeclaration): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(decl.settings))
    out[name] = Array.isArray(s.default) ? [...s.default] : s.default;
  return out;
}
