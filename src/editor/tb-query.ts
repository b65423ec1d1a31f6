/**
 * Entry of the editor's browser bundle: `resources/tb-query.js` (built by scripts/bundle-editor.js with esbuild,
 * IIFE, global name TbQuery), loaded by the node dialogs, which use it as `window.TbQuery`.
 *
 * Everything here is the runtime's own pure query module (src/query): the validators the dialog runs are the very
 * code the nodes run, so the editor flags a query with the runtime's wording. No DOM, no Node-RED, no I/O.
 */

import {
  DEFAULT_PAGE_SIZE,
  UUID_PATTERN,
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareAlarmStatusOptions,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  prepareEntityId,
  prepareKeysOptions,
} from '../query/validate';
import { isQueryMode, type QueryMode } from '../query/schema';

export {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  ALARM_STATUSES,
  ALIAS_ENTITY_TYPES,
  ATTRIBUTE_KEY_TYPES,
  ATTRIBUTE_SCOPES,
  BOOLEAN_OPERATIONS,
  COMPLEX_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_FILTER_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  ENTITY_TYPES,
  FILTER_PREDICATE_TYPES,
  KEY_FILTERS_OPERATIONS,
  NON_ALARM_KEY_TYPES,
  NUMERIC_OPERATIONS,
  QUERYABLE_ENTITY_TYPES,
  RELATION_DIRECTIONS,
  SORT_DIRECTIONS,
  STRING_OPERATIONS,
} from '../query/types';
export {
  ALARM_FIELD_NAMES,
  ALARM_FILTER_FIELDS,
  ENTITY_FIELD_NAMES,
  ENTITY_FILTER_SCHEMA,
  ENTITY_TYPE_NAMES,
  FILTER_RESULT_TYPES,
  KEY_FILTER_HELP,
  KEY_TYPES_FOR,
  KEY_TYPE_LABELS,
  MODE_SCHEMA,
  OPERATION_LABELS,
  PREDICATE_OPERATIONS,
  PREDICATE_VALUE_KINDS,
  QUERY_MODES,
  VALUE_TYPE_PREDICATES,
  builderCoverage,
  defaultQuery,
  dynamicSourceTypes,
  entityFieldNames,
  entityTypeName,
  filterEntityType,
  isQueryMode,
  jsonSchema,
  newEntityFilter,
  newKeyFilter,
  newPredicate,
  visibleFields,
} from '../query/schema';
export { summarize } from '../query/summary';
export { compactQuery, formatQuery, locatePath, offsetAt, parseJsonText, positionAt } from '../query/json-text';
export { deletePath, getPath, hasPath, heldPaths, isCovered, pathString, setPath, toSegments } from '../query/paths';
export {
  DEFAULT_PAGE_SIZE,
  UUID_PATTERN,
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareAlarmStatusOptions,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  prepareEntityId,
  prepareKeysOptions,
};

/** The runtime's validators by query mode: each returns the wire-ready copy or throws a TbInputError. */
export const prepare: Readonly<Record<QueryMode, (input: unknown, field?: string) => object>> = {
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

/** Runs the mode's validator without throwing: the wire-ready copy, or the error's field, message and code. */
export function check(mode: QueryMode, input: unknown, field = 'query'): CheckResult {
  if (!isQueryMode(mode)) return { ok: false, field: '', message: `unknown query mode ${JSON.stringify(mode)}`, code: '' };
  try {
    return { ok: true, value: prepare[mode](input, field) };
  } catch (e) {
    return { ok: false, ...errorInfo(e) };
  }
}
