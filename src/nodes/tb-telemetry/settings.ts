/** tb-telemetry's settings, declared once: the dialog, the runtime and the reference page read them. */
import { RESULT_FORMATS } from '../../protocol/format';
import { INTERVAL_TYPES, ORDERS } from '../../protocol/telemetry';
import { AGGREGATIONS } from '../../protocol/types';
import {
  choice,
  connection,
  declareNode,
  duration,
  flag,
  formatted,
  text,
  whole,
  type Values,
} from '../../settings/declare';
import { concurrencySetting } from '../../settings/options';
import { targetEntityTypeSetting, targetSettings } from '../../settings/target';
import { valueRowsSettings } from '../../settings/value-rows';

export const TELEMETRY_OPERATIONS = ['save', 'latest', 'history', 'delete'] as const;
export type TelemetryOperation = (typeof TELEMETRY_OPERATIONS)[number];

/**
 * The output of a read: `flat` (one row per time; latest: `{ key: value }`), `raw` (as the server sends it) or
 * `chart` (points `{ series, key, ts, value }`, oldest first, for a chart).
 */
export const TELEMETRY_FORMATS = [...RESULT_FORMATS, 'chart'] as const;
export type TelemetryFormat = (typeof TELEMETRY_FORMATS)[number];

export const TB_TELEMETRY = declareNode({
  type: 'tb-telemetry',
  inputs: 1,
  outputs: 1,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    // One of the operations, or msg: msg.operation.
    operation: choice([...TELEMETRY_OPERATIONS, 'msg'], 'save'),
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(),
    // The options of an operation: left empty, each reads the message property of its name.
    keys: formatted('list', '', { fromMessage: 'msg.keys' }),
    last: duration('', { min: 1, optional: true }, { fromMessage: 'msg.last' }),
    from: text('', { fromMessage: 'msg.from' }),
    to: text('', { fromMessage: 'msg.to' }),
    agg: choice(AGGREGATIONS, 'NONE', { fromMessage: 'msg.agg' }),
    interval: duration('', { min: 1, optional: true }, { fromMessage: 'msg.interval' }),
    // Empty: no calendar interval (a fixed interval), unless the message gives one.
    intervalType: choice(['', ...INTERVAL_TYPES], '', { fromMessage: 'msg.intervalType' }),
    timeZone: text('', { fromMessage: 'msg.timeZone' }),
    limit: whole('', { min: 1, optional: true }, { fromMessage: 'msg.limit' }),
    order: choice(ORDERS, 'ASC', { fromMessage: 'msg.order' }),
    // The points of a history read without a limit, at most.
    maxItems: whole(100000, { min: 1 }, { fromMessage: 'msg.maxItems' }),
    // A duration saved with its unit (version 2 saved seconds).
    ttl: duration('', { min: 0, optional: true }, { fromMessage: 'msg.ttl' }),
    ...valueRowsSettings(),
    all: flag(false),
    deleteLatest: flag(true),
    rewriteLatest: flag(false),
    format: choice(TELEMETRY_FORMATS, 'flat'),
    concurrency: concurrencySetting(),
  },
});

export type TelemetrySettings = Values<typeof TB_TELEMETRY.settings>;
