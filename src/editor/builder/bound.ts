/**
 * Values from the message in the builder, the pure half (no DOM): the placeholder a control writes, and the
 * dialog's check of a query with bound leaves. A bound leaf is "checked at run time": the runtime's validation
 * runs on the query with each bound leaf filled in by a stand-in value that it accepts, so the dialog still flags
 * every other field; what the validation says about the placeholder itself ("must be a positive integer") is the
 * kind of value that leaf must get from the message.
 */
import {
  findBindings,
  isQueryList,
  parseTemplate,
  resolveBindings,
  type BindingRef,
  type BindingSource,
  type BoundLeaf,
} from '../../protocol/bindings';
import { check } from '../../query-model/check';
import type { QueryMode } from '../../query-model/schema';
import { clone } from '../../query-model/schema/spec';

/** The sources a control offers, in the order of Node-RED's TypedInput. */
export const BINDING_SOURCES: readonly BindingSource[] = ['msg', 'flow', 'global', 'env'];

/** The placeholder of a source and path: `{{msg.payload}}`. */
export function placeholder(source: BindingSource, path: string): string {
  return `{{${source}.${path}}}`;
}

/** The binding of a leaf that is exactly one placeholder, else undefined. */
export function wholeBinding(v: unknown): BindingRef | undefined {
  return typeof v === 'string' ? parseTemplate(v)?.whole : undefined;
}

/** A leaf's path as the builder's `data-tb-field` hooks write it: `keyFilters.0.predicate.value.defaultValue`. */
export function dotted(at: readonly (string | number)[]): string {
  return at.join('.');
}

export type BoundVerdict = { ok: true; value: unknown } | { ok: false; field: string; path: string; message: string };

export interface BoundCheck {
  /** The runtime's verdict on everything but the bound leaves. */
  readonly verdict: BoundVerdict;
  /** The dotted paths of the bound leaves. */
  readonly bound: readonly string[];
  /** For a bound leaf the validation refuses as it stands: what kind of value it must get ("must be …"). */
  readonly needs: ReadonlyMap<string, string>;
}

/** `query.keyFilters[0].key` -> `keyFilters.0.key`. */
export function builderPath(field: string): string {
  return field
    .replace(/^query\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '');
}

/** Values tried in place of a bound leaf until the validation accepts one (a list first where a list goes). */
const STAND_INS: readonly unknown[] = [1, 'a', 'DEVICE', '3f2504e0-4f89-41d3-9a0c-0305e82c3301', true, [], {}, 0];

function setIn(root: unknown, at: readonly (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < at.length - 1; i++) node = node[at[i]] as Record<string | number, unknown>;
  node[at[at.length - 1]] = value;
}

function removeIn(root: unknown, at: readonly (string | number)[]): void {
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < at.length - 1; i++) node = node[at[i]] as Record<string | number, unknown>;
  const last = at[at.length - 1];
  if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
  else delete node[last];
}

/**
 * "query.pageLink.pageSize must be a positive integer (got "{{msg.size}}")" -> "must be a positive integer": the
 * field is where the chip is, and what it got is the placeholder itself.
 */
function ownWords(field: string, message: string): string {
  const own = field && message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  return own.replace(/\s*\(got "\{\{[^"]*\}\}"\)$/, '');
}

/**
 * The dialog's check of a query whose leaves may be bound: an error at or under a bound leaf is no error of the
 * dialog (the message gives that value at run time), but says what the leaf must get; any other error is the
 * dialog's, as without bindings.
 */
export function checkBound(mode: QueryMode, query: unknown, options: { live?: boolean } = {}): BoundCheck {
  const run = (q: unknown): BoundVerdict => {
    const r = check(mode, q, 'query', { live: options.live === true });
    return r.ok
      ? { ok: true, value: r.value }
      : { ok: false, field: r.field || 'query', path: builderPath(r.field), message: r.message };
  };
  const bindings = findBindings(query);
  if (!bindings) return { verdict: run(query), bound: [], needs: new Map() };
  // Only whole placeholders stand for a value of any kind; text with placeholders in it stays text.
  const leaves = bindings.leaves.filter((l): l is BoundLeaf & { whole: BindingRef } => l.whole !== undefined);
  const bound = leaves.map((l) => dotted(l.at));
  const needs = new Map<string, string>();
  const q = clone(query);
  const leafOf = (path: string) => leaves.find((l) => path === dotted(l.at) || path.startsWith(`${dotted(l.at)}.`));
  const done = new Set<string>();
  for (;;) {
    const verdict = run(q);
    if (verdict.ok) return { verdict, bound, needs };
    const leaf = leafOf(verdict.path);
    if (!leaf) return { verdict, bound, needs };
    const at = dotted(leaf.at);
    // A stand-in was already put there and is still refused: the rest cannot be checked before run time.
    if (done.has(at)) return { verdict: { ok: true, value: undefined }, bound, needs };
    done.add(at);
    if (!needs.has(at)) needs.set(at, ownWords(verdict.field, verdict.message));
    const tries = isQueryList(leaf.at) ? [[], ...STAND_INS] : STAND_INS;
    try {
      let accepted = false;
      for (const v of tries) {
        setIn(q, leaf.at, clone(v));
        const r = run(q);
        if (r.ok || leafOf(r.path) !== leaf) {
          accepted = true;
          break;
        }
      }
      if (!accepted) removeIn(q, leaf.at);
    } catch {
      // The leaf's place went with an earlier removal (a list item): nothing more to check before run time.
      return { verdict: { ok: true, value: undefined }, bound, needs };
    }
  }
}

// ---- the preview's "try with" values ---------------------------------------------------------------------

/** A value typed to try a binding with: a number, text, or JSON (a list, an object, true…). */
export interface TryValue {
  type: 'num' | 'str' | 'json';
  text: string;
}

/** Keys whose value is a number (the page, the levels, the times): their "try with" box starts as a number. */
const NUMBER_KEYS: ReadonlySet<string> = new Set(['pageSize', 'page', 'maxLevel', 'timeWindow', 'startTs', 'endTs']);

/** The kind of "try with" box a leaf suggests: JSON for a whole list, a number where the query wants one. */
function tryTypeOf(leaf: BoundLeaf): TryValue['type'] {
  if (!leaf.whole) return 'str';
  if (isQueryList(leaf.at)) return 'json';
  const last = leaf.at[leaf.at.length - 1];
  return typeof last === 'string' && NUMBER_KEYS.has(last) ? 'num' : 'str';
}

/** The bindings of a query, each once, with the kind of box to try it with. */
export function tryRefs(query: unknown): Array<{ ref: BindingRef; type: TryValue['type'] }> {
  const bindings = findBindings(query);
  if (!bindings) return [];
  return bindings.refs.map((ref) => {
    const leaf = bindings.leaves.find(
      (l) => l.whole?.text === ref.text || l.parts?.some((p) => typeof p !== 'string' && p.text === ref.text),
    );
    return { ref, type: leaf ? tryTypeOf(leaf) : 'str' };
  });
}

export type TryProblem =
  | { kind: 'missing'; ref: string }
  | { kind: 'number'; ref: string }
  | { kind: 'json'; ref: string; message: string }
  | { kind: 'refused'; message: string };

/** A typed value as the message would carry it: never guessed from the text of another type. */
export function tryValue(
  v: TryValue,
): { ok: true; value: unknown } | { ok: false; kind: 'missing' | 'number' | 'json'; message?: string } {
  if (v.text.trim() === '') return { ok: false, kind: 'missing' };
  if (v.type === 'str') return { ok: true, value: v.text };
  if (v.type === 'num') {
    const n = Number(v.text.trim());
    return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, kind: 'number' };
  }
  try {
    return { ok: true, value: JSON.parse(v.text) as unknown };
  } catch (e) {
    return { ok: false, kind: 'json', message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * The query the preview sends: each binding resolved with its "try with" value by the runtime's own
 * resolveBindings (types kept, a single value in a whole list becomes a one-item list). A binding without a
 * value is a problem, never an empty value: nothing is sent.
 */
export function tryQuery(
  query: unknown,
  typed: ReadonlyMap<string, TryValue>,
): { ok: true; query: unknown } | { ok: false; problem: TryProblem } {
  const bindings = findBindings(query);
  if (!bindings) return { ok: true, query };
  const values = new Map<string, unknown>();
  for (const ref of bindings.refs) {
    const v = tryValue(typed.get(ref.text) ?? { type: 'str', text: '' });
    if (!v.ok)
      return {
        ok: false,
        problem:
          v.kind === 'json'
            ? { kind: 'json', ref: ref.text, message: v.message ?? '' }
            : { kind: v.kind, ref: ref.text },
      };
    values.set(ref.text, v.value);
  }
  try {
    return {
      ok: true,
      query: resolveBindings(query, bindings, (ref) => values.get(ref.text), { field: 'query', isList: isQueryList })
        .query,
    };
  } catch (e) {
    return { ok: false, problem: { kind: 'refused', message: e instanceof Error ? e.message : String(e) } };
  }
}

// ---- the JSON view's schema ------------------------------------------------------------------------------

/** A whole placeholder, for the JSON schema (the same form as bindings.ts reads). */
const PLACEHOLDER_SCHEMA = {
  type: 'string',
  pattern: '^\\{\\{\\s*(msg|flow|global|env)\\.[^{}]+\\}\\}$',
  description: 'From the message: {{msg.<path>}}, {{flow.<key>}}, {{global.<key>}} or {{env.<NAME>}}.',
};

const NON_TEXT = new Set(['integer', 'number', 'boolean', 'array']);

/**
 * The JSON view's schema with a placeholder allowed wherever a number, a boolean, a list, one of a few names or
 * an id goes (free text takes one as it is), so the editor does not underline a value from the message. Objects and
 * references are left as they are: their own fields get the same treatment, and their errors stay as precise as before.
 */
export function allowPlaceholders<T>(schema: T): T {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node))
      out[k] = k === 'enum' || k === 'default' || k === 'examples' || k === 'const' ? v : walk(v);
    const types = Array.isArray(out.type) ? (out.type as unknown[]) : [out.type];
    const strict = out.enum !== undefined || out.pattern !== undefined || out.format !== undefined;
    if (
      (types.some((t) => typeof t === 'string' && NON_TEXT.has(t)) && !types.includes('string')) ||
      (types.includes('string') && strict)
    ) {
      const { title, description, ...rest } = out;
      return {
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        anyOf: [rest, PLACEHOLDER_SCHEMA],
      };
    }
    return out;
  };
  return walk(schema) as T;
}
