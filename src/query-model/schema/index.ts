/**
 * The schema table of the editor's query builder: which fields each entity filter type has and how each is edited,
 * which builder parts each query mode shows, the key-filter tables, name suggestions, neutral new queries, and the
 * JSON schema of the JSON view, generated from the same tables so that the forms and the JSON view never disagree.
 *
 * The tables follow what the runtime validator (validate/) reads; their tests hold the two
 * together. Pure: no DOM, no Node-RED, no I/O.
 *
 * The parts, a file each: spec.ts (query modes, field kinds, the shape of a field and of a filter type), filters.ts
 * (the entity filter table), names.ts (entity type and field names for suggestions), keys.ts (key and key filter
 * tables), modes.ts (page and alarm filter fields, the parts of each mode, default queries), coverage.ts (what the
 * builder shows; the rest is held), json-fields.ts and json-schema.ts (the JSON schema of the JSON view).
 */

export { builderCoverage } from './coverage';
export { ENTITY_FILTER_SCHEMA, FILTER_RESULT_TYPES, filterEntityType, newEntityFilter, visibleFields } from './filters';
export { jsonSchema } from './json-schema';
export {
  KEY_FILTER_HELP,
  KEY_TYPES_FOR,
  KEY_TYPE_LABELS,
  OPERATION_LABELS,
  PREDICATE_OPERATIONS,
  PREDICATE_VALUE_KINDS,
  VALUE_TYPE_PREDICATES,
  dynamicSourceTypes,
  newKeyFilter,
  newPredicate,
  type SimplePredicateType,
} from './keys';
export {
  ALARM_FILTER_FIELDS,
  MODE_SCHEMA,
  defaultQuery,
  isQueryMode,
  type BuilderPart,
  type FieldList,
  type ModeSpec,
} from './modes';
export { ALARM_FIELD_NAMES, ENTITY_FIELD_NAMES, ENTITY_TYPE_NAMES, entityFieldNames, entityTypeName } from './names';
export { QUERY_MODES, type FieldKind, type FieldSpec, type FilterTypeSpec, type QueryMode } from './spec';
