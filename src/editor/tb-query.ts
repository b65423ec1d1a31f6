/**
 * `window.TbQuery` (the exports of the editor bundle, see index.ts): the runtime's own pure query code (the protocol
 * core and the query model), so the validators the dialog runs are the very code the nodes run, and the editor flags
 * a query with the runtime's wording.
 */

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
} from '../protocol/types';
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
} from '../protocol/validate';
export {
  compactQuery,
  formatQuery,
  locatePath,
  offsetAt,
  parseJsonText,
  positionAt,
  shortJsonMessage,
} from '../query-model/json-text';
export {
  deletePath,
  getPath,
  hasPath,
  heldPaths,
  isCovered,
  pathString,
  setPath,
  toSegments,
} from '../query-model/paths';
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
} from '../query-model/schema';
export { entitiesLabel, selectsAnyStatus, summarize } from '../query-model/summary';

export { check, errorInfo, prepare, type CheckResult, type ErrorInfo } from '../query-model/check';
