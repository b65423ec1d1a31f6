/**
 * Validation and normalisation of queries into wire-ready copies.
 *
 * Each `prepare*` function checks its input and returns a **new** object holding only fields the server knows,
 * at every level (query, entityFilter, pageLink, sortOrder, keyFilter, predicate, value, EntityKey). That matters on
 * the WebSocket, where an unknown field outside `query`/`entityFilter` makes the server reject the whole message
 * (the v2 WebSocket API). The input is never modified.
 *
 * Every failure throws `TbInputError(fieldPath, message)`; the message names the full path and what is allowed,
 * e.g. `query.pageLink.pageSize must be a positive integer (got 0)`.
 *
 * `options.live` says where the query goes: `false` (the default) a REST endpoint, `true` a WebSocket subscription.
 * The two differ only in what the server does with a CURRENT_DEVICE dynamic value (see below).
 *
 * Defaults and forgiving rules:
 * - a JSON string is parsed first;
 * - data queries without `pageLink` get `{page: 0, pageSize: 100}`; a pageLink without `page`/`pageSize` gets
 *   those same defaults;
 * - `sortOrder.direction` defaults to `"ASC"` (the server would sort DESC for entities and NPE for alarms);
 * - `keyFilters`, `entityFields`, `latestValues` (and `alarmFields` for alarm queries) are always arrays;
 * - a bare scalar predicate value (`value: 20`) becomes `{defaultValue: 20}`;
 * - a NUMERIC value given as text is read as Jackson reads it into a Double (`"20"`, `" 20 "`, `"2e1"`, `"+5"`,
 *   `".5"`, `"5."`) and sent as the number; `""`, blank and `"null"` are no value; other text is refused;
 * - a value may be given by `userValue` alone (the server uses it first); `dynamicValue.resolvedValue` is kept;
 * - a COMPLEX predicate may be empty (`predicates: []`): the server turns it into no condition at all;
 * - a missing `keyFilter.valueType` is taken from the predicate type (STRING / NUMERIC / BOOLEAN; the first simple
 *   predicate of a COMPLEX one; left out when there is none);
 * - the deprecated singular `deviceType` / `assetType` / `edgeType` / `entityViewType` of the type filters becomes
 *   the plural list; the `*SearchQuery` filters have no such field, so there it is dropped (the server ignores it);
 *   a `null` item in a type list is kept (the server runs it as `type in (null)`: no match);
 * - `assigneeId` (and apiUsageState's `customerId`) may be a bare UUID string;
 * - `null` in an optional field counts as absent.
 * Refused although the server parses them, because the server would fail on them or silently ignore them:
 * - a sort key (ENTITY_FIELD or ALARM_FIELD) other than letters, digits, `_` and `-`: 400 "Invalid entity data page
 *   link sort property" (`Validator#validateEntityDataPageLink`), on REST and WebSocket alike;
 * - over REST, a CURRENT_DEVICE dynamic value without a `resolvedValue`. REST find fails on it with a 500 "Not
 *   supported operation for source type" (`DefaultEntityQueryService#resolveDynamicValue`), even when a userValue
 *   is set; REST counts and alarm queries never resolve dynamic values, so there it is accepted only with a
 *   userValue, which they use instead. A live subscription accepts it as the server does: the WebSocket skips
 *   CURRENT_DEVICE (`TbAbstractEntityQuerySubCtx#resolve`) and uses userValue or defaultValue.
 * Enum values are compared exactly (as the server does); when only the case differs the message suggests the value.
 *
 * The parts, a file each: queries.ts (the four prepare*Query functions), entity-filter.ts, key-filters.ts (keys, key
 * filters, predicates and their values), page-link.ts (page, sort order, alarm filter fields), ids.ts, options.ts
 * (key discovery and alarm status options), and primitives.ts (the small checks and the wording of the messages).
 */

export {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  type PrepareOptions,
} from './queries';
export { DEFAULT_PAGE_SIZE, SORT_PROPERTY_PATTERN } from './page-link';
export { impliedValueType, jacksonDouble } from './key-filters';
export { prepareEntityId } from './ids';
export { prepareAlarmStatusOptions, prepareKeysOptions, type AlarmStatusOptions, type KeysOptions } from './options';
export { UUID_PATTERN, describe, got, isJsonData, isObject, jsonText, TIME_TEXT, timeValue } from './primitives';
