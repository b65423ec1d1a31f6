/** tb-subscribe's settings, declared once: the dialog, the runtime and the reference page read them. */
import { RESULT_FORMATS } from '../../protocol/format';
import { AGGREGATIONS } from '../../protocol/types';
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery, type QueryMode } from '../../query-model/schema';
import { choice, connection, declareNode, duration, flag, formatted, text, whole } from '../../settings/declare';
import { querySettings } from '../../settings/query';

/** The kinds that watch what a query selects: entities and their latest values, their number, alarms, their number. */
export const QUERY_KINDS = [
  'entityData',
  'entityCount',
  'alarmData',
  'alarmCount',
] as const satisfies readonly QueryMode[];
export type QueryKind = (typeof QUERY_KINDS)[number];

/**
 * How found items come out: `flat`, `raw`, `chart` (entity data: points for a chart, the first page as one list, then
 * one message per changed value) or `table` (alarm data: the whole table of alarm rows in every message).
 */
export const SUBSCRIBE_FORMATS = [...RESULT_FORMATS, 'chart', 'table'] as const;
export type SubscribeFormat = (typeof SUBSCRIBE_FORMATS)[number];

/** The kind each dashboard format is for. */
export const FORMAT_KIND: Readonly<Partial<Record<SubscribeFormat, QueryKind>>> = {
  chart: 'entityData',
  table: 'alarmData',
};

/** What a node watches: a query's kinds, or the current user's notifications (no query). */
export const SUBSCRIBE_KINDS = [...QUERY_KINDS, 'notifications'] as const;
export type SubscribeKind = (typeof SUBSCRIBE_KINDS)[number];

/**
 * The events a node may choose to send, per kind of subscription. Counts, time series and history are not in these
 * lists: they are always sent (each has its own setting that turns it on).
 */
export const CHOOSABLE_EVENTS: Readonly<Record<'entityData' | 'alarmData' | 'notifications', readonly string[]>> = {
  entityData: ['snapshot', 'update', 'added', 'removed'],
  alarmData: ['snapshot', 'created', 'acknowledged', 'cleared', 'updated', 'removed'],
  notifications: ['snapshot', 'notification', 'count'],
};

/**
 * The units version 2 saved the series window and the history range in, beside a number. The settings stay declared,
 * empty since version 3, because the editor keeps only the declared properties of a node it loads: a flow of version
 * 2 keeps its units until its migration has read them.
 */
export const SPAN_UNITS = ['', 'minutes', 'hours', 'days'] as const;

export const TB_SUBSCRIBE = declareNode({
  type: 'tb-subscribe',
  inputs: 1,
  outputs: 1,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    kind: choice(SUBSCRIBE_KINDS, 'entityData'),
    // The query a new node starts with: the builder's neutral query of entity data.
    ...querySettings(compactQuery(defaultQuery('entityData'))),
    format: choice(SUBSCRIBE_FORMATS, 'flat'),
    events: formatted('list', ''),
    tsKeys: formatted('list', ''),
    // Durations (index.ts reports a problem only while the series, or the history, are on).
    tsWindow: duration('1h', { min: 0, above: true }),
    tsWindowUnit: choice(SPAN_UNITS, ''),
    tsLimit: whole(100, { min: 1 }),
    history: flag(false),
    historyKeys: formatted('list', ''),
    historyRange: duration('24h', { min: 0, above: true }),
    historyRangeUnit: choice(SPAN_UNITS, ''),
    // Empty: every stored value (no interval).
    historyInterval: duration('', { min: 0, optional: true }),
    historyLimit: whole(1000, { min: 1 }),
    historyAgg: choice(AGGREGATIONS, 'NONE'),
    // The notifications kind: how many of the latest unread notifications the server lists (and resends).
    notificationLimit: whole(10, { min: 1, max: 100 }),
  },
});

export type SubscribeSettings = import('../../settings/declare').Values<typeof TB_SUBSCRIBE.settings>;
