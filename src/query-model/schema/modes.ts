/**
 * The query modes: which builder parts each shows (entity filter, key filters, key lists, page, alarm filter), the
 * page and alarm filter fields, and the neutral new query of each mode.
 */

import { ALARM_SEARCH_STATUSES, ALARM_SEVERITIES, type EntityKeyType } from '../../protocol/types';
import { DEFAULT_PAGE_SIZE } from '../../protocol/validate';
import { KEY_TYPES_FOR } from './keys';
import { QUERY_MODES, type FieldSpec, type QueryMode } from './spec';

/** The alarm filter fields: in pageLink for alarm data queries, at the top level for alarm counts. */
export const ALARM_FILTER_FIELDS: readonly FieldSpec[] = [
  {
    name: 'statusList',
    kind: 'enumList',
    options: ALARM_SEARCH_STATUSES,
    label: 'Status',
    help:
      'ACTIVE/CLEARED and ACK/UNACK are two conditions that must both hold (ACTIVE + UNACK = active and ' +
      'unacknowledged); empty or ANY = any status.',
  },
  {
    name: 'severityList',
    kind: 'enumList',
    options: ALARM_SEVERITIES,
    label: 'Severities',
    help: 'Empty = any severity.',
  },
  { name: 'typeList', kind: 'strings', label: 'Alarm types', help: 'Exact alarm type names; empty = any type.' },
  {
    name: 'timeWindow',
    kind: 'duration',
    label: 'Created in the last',
    help: 'In milliseconds; 0 = no window. A live subscription only sees new alarms with a window.',
  },
  {
    name: 'startTs',
    kind: 'timestamp',
    label: 'Created from',
    help:
      'With a time window, the window starts here instead of ending now (counts ignore this and end ' +
      'the window now).',
  },
  { name: 'endTs', kind: 'timestamp', label: 'Created until', help: 'Ignored when a time window is set.' },
  {
    name: 'searchPropagatedAlarms',
    kind: 'bool',
    label: 'Include propagated alarms',
    help: 'Also alarms propagated to the entities from elsewhere; an alarm can then appear once per entity.',
  },
  { name: 'assigneeId', kind: 'user', label: 'Assigned to', help: 'Only alarms assigned to this user.' },
];

function pageFields(alarm: boolean): FieldSpec[] {
  const fields: FieldSpec[] = [
    { name: 'pageSize', kind: 'int', min: 1, default: DEFAULT_PAGE_SIZE, label: 'Page size' },
    { name: 'page', kind: 'int', default: 0, label: 'Page', help: '0 = the first page.' },
    {
      name: 'sortOrder',
      kind: 'sortOrder',
      keyTypes: alarm ? KEY_TYPES_FOR.alarmSort : KEY_TYPES_FOR.entitySort,
      label: 'Sort by',
      help: alarm
        ? 'An alarm field sorts the alarms (severity alphabetically); any other key sorts the entities, and the ' +
          'alarms follow their order.'
        : 'Entity fields sort as text; attribute and time-series values sort as numbers, then text.',
    },
    {
      name: 'textSearch',
      kind: 'text',
      label: 'Text search',
      help: alarm
        ? 'Case-insensitive "contains" in any of the alarm fields listed.'
        : 'Case-insensitive "contains" over the chosen entity fields and latest values run together; ignored when ' +
          'none are chosen.',
    },
  ];
  if (!alarm) {
    fields.push({
      name: 'dynamic',
      kind: 'bool',
      label: 'Dynamic',
      help: 'Live subscriptions: re-check which entities match (the server polls about every 60 s).',
    });
  }
  return fields;
}

export type BuilderPart = 'entityFilter' | 'keyFilters' | 'fields' | 'page' | 'alarm';
export type FieldList = 'entityFields' | 'latestValues' | 'alarmFields';

export interface ModeSpec {
  mode: QueryMode;
  /** Short English label. */
  label: string;
  /** The builder parts to show, in order. */
  parts: readonly BuilderPart[];
  /** True for alarm counts: without an entity filter every alarm of the tenant (or customer) counts. */
  entityFilterOptional: boolean;
  /** The key lists of the 'fields' part, in order (empty when there is no such part). */
  fieldLists: readonly FieldList[];
  /** Where the alarm filter fields live: 'pageLink', '' (the query's top level), or null (no alarm part). */
  alarmFilterAt: 'pageLink' | '' | null;
  /** The alarm filter fields (empty when there is no alarm part). */
  alarmFilterFields: readonly FieldSpec[];
  /** The fields of pageLink (empty when there is no page part). */
  pageFields: readonly FieldSpec[];
  /** Key types a sort key may have (empty when there is no page part). */
  sortKeyTypes: readonly EntityKeyType[];
}

export const MODE_SCHEMA: Readonly<Record<QueryMode, ModeSpec>> = {
  entityData: {
    mode: 'entityData',
    label: 'Entity data',
    parts: ['entityFilter', 'keyFilters', 'fields', 'page'],
    entityFilterOptional: false,
    fieldLists: ['entityFields', 'latestValues'],
    alarmFilterAt: null,
    alarmFilterFields: [],
    pageFields: pageFields(false),
    sortKeyTypes: KEY_TYPES_FOR.entitySort,
  },
  entityCount: {
    mode: 'entityCount',
    label: 'Entity count',
    parts: ['entityFilter', 'keyFilters'],
    entityFilterOptional: false,
    fieldLists: [],
    alarmFilterAt: null,
    alarmFilterFields: [],
    pageFields: [],
    sortKeyTypes: [],
  },
  alarmData: {
    mode: 'alarmData',
    label: 'Alarm data',
    parts: ['alarm', 'entityFilter', 'keyFilters', 'fields', 'page'],
    entityFilterOptional: false,
    fieldLists: ['alarmFields', 'entityFields', 'latestValues'],
    alarmFilterAt: 'pageLink',
    alarmFilterFields: ALARM_FILTER_FIELDS,
    pageFields: pageFields(true),
    sortKeyTypes: KEY_TYPES_FOR.alarmSort,
  },
  alarmCount: {
    mode: 'alarmCount',
    label: 'Alarm count',
    parts: ['alarm', 'entityFilter', 'keyFilters'],
    entityFilterOptional: true,
    fieldLists: [],
    alarmFilterAt: '',
    alarmFilterFields: ALARM_FILTER_FIELDS,
    pageFields: [],
    sortKeyTypes: [],
  },
};

const DEVICES = { type: 'entityType', entityType: 'DEVICE' };
const field = (key: string) => ({ type: 'ENTITY_FIELD', key });
const alarmField = (key: string) => ({ type: 'ALARM_FIELD', key });

/**
 * A new, neutral query for the mode, with no hidden default that changes the answer:
 * - entityData: all devices with their name, type and label, sorted by name ascending, 100 per page;
 * - entityCount: all devices;
 * - alarmData: active alarms of any severity and type, any time, on all devices, newest first, 100 per page
 *   (alarmFields = the ThingsBoard alarm table's columns, which only choose the text search columns);
 * - alarmCount: active alarms of any severity and type, any time, with no entity filter, i.e. every alarm of the
 *   tenant (or of the customer, for a customer user).
 * Each is already in the form the matching prepare* returns (same keys, same order).
 */
export function defaultQuery(mode: QueryMode): Record<string, unknown> {
  switch (mode) {
    case 'entityData':
      return {
        entityFilter: { ...DEVICES },
        keyFilters: [],
        entityFields: [field('name'), field('type'), field('label')],
        latestValues: [],
        pageLink: { page: 0, pageSize: DEFAULT_PAGE_SIZE, sortOrder: { key: field('name'), direction: 'ASC' } },
      };
    case 'entityCount':
      return { entityFilter: { ...DEVICES }, keyFilters: [] };
    case 'alarmData':
      return {
        entityFilter: { ...DEVICES },
        keyFilters: [],
        entityFields: [],
        latestValues: [],
        alarmFields: ['createdTime', 'originator', 'type', 'severity', 'status'].map(alarmField),
        pageLink: {
          page: 0,
          pageSize: DEFAULT_PAGE_SIZE,
          sortOrder: { key: alarmField('createdTime'), direction: 'DESC' },
          statusList: ['ACTIVE'],
        },
      };
    case 'alarmCount':
      return { keyFilters: [], statusList: ['ACTIVE'] };
    default:
      throw new Error(`unknown query mode ${JSON.stringify(mode)}`);
  }
}

/** The mode of the node types' queries. */
export function isQueryMode(v: unknown): v is QueryMode {
  return typeof v === 'string' && (QUERY_MODES as readonly string[]).includes(v);
}
