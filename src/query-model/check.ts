/**
 * The runtime's query validators by query mode, and a non-throwing form of them: what the editor runs to flag a
 * query with the runtime's own wording (bundled into resources/tb-editor.js), and what the admin endpoints and
 * tests can use too. Pure.
 */
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  type PrepareOptions,
} from '../protocol/validate';
import type { QueryMode } from './schema';
import { isQueryMode } from './schema';

/**
 * The runtime's validators by query mode: each returns the wire-ready copy or throws a TbInputError. `options.live`:
 * the query goes to a live subscription (tb-subscribe) rather than a REST endpoint.
 */
export const prepare: Readonly<
  Record<QueryMode, (input: unknown, field?: string, options?: PrepareOptions) => object>
> = {
  entityData: prepareEntityDataQuery,
  entityCount: prepareEntityCountQuery,
  alarmData: prepareAlarmDataQuery,
  alarmCount: prepareAlarmCountQuery,
};

export interface ErrorInfo {
  /** The offending field's path for a TbInputError (e.g. "query.pageLink.pageSize"), else "". */
  field: string;
  message: string;
  /** The TbError code (e.g. "TB_INVALID_INPUT"), else "". */
  code: string;
}

/**
 * The parts of a thrown error the dialog shows. Read by shape (message, field, code), so that an error from another
 * realm (an iframe, a test's vm context) reads the same as one of this bundle's TbInputError.
 */
export function errorInfo(err: unknown): ErrorInfo {
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') {
    const e = err as { message: string; field?: unknown; code?: unknown };
    return {
      field: typeof e.field === 'string' ? e.field : '',
      message: e.message,
      code: typeof e.code === 'string' ? e.code : '',
    };
  }
  return { field: '', message: String(err), code: '' };
}

export type CheckResult = { ok: true; value: object } | ({ ok: false } & ErrorInfo);

/**
 * Runs the mode's validator without throwing: the wire-ready copy, or the error's field, message and code.
 * `options.live`: validate for a live subscription (tb-subscribe) instead of a REST endpoint.
 */
export function check(mode: QueryMode, input: unknown, field = 'query', options: PrepareOptions = {}): CheckResult {
  if (!isQueryMode(mode))
    return { ok: false, field: '', message: `unknown query mode ${JSON.stringify(mode)}`, code: '' };
  try {
    return { ok: true, value: prepare[mode](input, field, options) };
  } catch (e) {
    return { ok: false, ...errorInfo(e) };
  }
}
