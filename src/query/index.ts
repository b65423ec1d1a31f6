/**
 * The query module: protocol types, validation into wire-ready copies, and result formatting.
 * Pure: no I/O, no Node-RED.
 */
export * from './types';
export {
  DEFAULT_PAGE_SIZE,
  prepareAlarmCountQuery,
  prepareAlarmStatusOptions,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  prepareEntityId,
  prepareKeysOptions,
  type AlarmStatusOptions,
  type KeysOptions,
  type PrepareOptions,
} from './validate';
export {
  RESULT_FORMATS,
  flattenAlarm,
  flattenEntity,
  formatAlarms,
  formatEntities,
  fromKeysV1,
  fromKeysV2,
  pageInfo,
  parseValue,
  type FlatAlarm,
  type FlatEntity,
  type KeysResult,
  type NormalizedKeys,
  type PageInfo,
  type ResultFormat,
} from './format';
