/**
 * The dialog's validation is the runtime's: the same prepare functions of the protocol core's validation
 * (bundled into the editor, through the query model's check), so a wrong filter type, operation or enum is flagged
 * before deploy in the runtime's words.
 */
import { parseJsonText, shortJsonMessage } from '../../query-model/json-text';
import type { QueryMode } from '../../query-model/schema';
import { checkBound } from './bound';
import { t } from './dom';

export interface QueryError {
  /** The runtime's field path, e.g. `query.keyFilters[0].predicate.operation`. */
  field: string;
  /** The same as a builder path: `keyFilters.0.predicate.operation`. */
  path: string;
  message: string;
}

export { builderPath } from './bound';

/** Where the query goes: `live` for tb-subscribe, REST otherwise (the runtime's own option). */
export interface ValidateOptions {
  live?: boolean;
}

/**
 * The runtime's verdict on a query object: undefined when it is accepted. A value bound to the message is checked
 * at run time (bound.ts): only the rest of the query is judged here.
 */
export function validateQuery(mode: QueryMode, query: unknown, options: ValidateOptions = {}): QueryError | undefined {
  const r = checkBound(mode, query, { live: options.live === true }).verdict;
  return r.ok ? undefined : { field: r.field, path: r.path, message: r.message };
}

/** Where a JSON text breaks ("Unexpected token … (line 3, column 7)"), or undefined when it parses. */
export function jsonProblem(text: string): string | undefined {
  const p = parseJsonText(String(text));
  return p.ok ? undefined : `${shortJsonMessage(p.message)} ${t('lineColumn', { line: p.line, column: p.column })}`;
}

/**
 * For a node's `validate`: true, or the message (a JSON error with its line and column). `options.live` for
 * tb-subscribe (without it the query is checked as a REST query, which is the stricter of the two).
 */
export function validateText(mode: QueryMode, text: string, options: ValidateOptions = {}): true | string {
  const parsed = parseJsonText(text);
  if (!parsed.ok)
    return (
      `${t('jsonError', { error: shortJsonMessage(parsed.message) })} ` +
      `${t('lineColumn', { line: parsed.line, column: parsed.column })}`
    );
  const e = validateQuery(mode, parsed.value, options);
  return e ? e.message : true;
}
