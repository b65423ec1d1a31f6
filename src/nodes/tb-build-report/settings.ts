/** tb-build-report's settings, declared once: the dialog, the runtime and the reference page read them. */
import { choice, connection, declareNode, duration, flag, text, whole } from '../../settings/declare';

/** Where the view's id comes from: typed in (`str`), a message property, a context variable, an environment one. */
export const VIEW_TYPES = ['str', 'msg', 'flow', 'global', 'env'] as const;
/** The time range: the view's own, the last minutes, hours or days, from … to …, or from msg.payload. */
export const RANGES = ['view', 'last', 'fixed', 'msg'] as const;
/** Where the filters come from: typed in as JSON, a message property, a JSONata expression over the message. */
export const FILTER_TYPES = ['json', 'msg', 'jsonata'] as const;
/** What the node sends: rows (objects), the server's table, or CSV text. */
export const REPORT_FORMATS = ['rows', 'table', 'csv'] as const;

export type ReportRange = (typeof RANGES)[number];
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * The units version 2 saved the range "the last …" in, beside a number. The setting stays declared, empty since
 * version 3, because the editor keeps only the declared properties of a node it loads: a flow of version 2 keeps its
 * unit until its migration has read it.
 */
export const LAST_UNITS = ['', 'minutes', 'hours', 'days'] as const;

export const TB_BUILD_REPORT = declareNode({
  type: 'tb-build-report',
  inputs: 1,
  outputs: 1,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    viewConfigId: text(),
    viewConfigIdType: choice(VIEW_TYPES, 'str'),
    range: choice(RANGES, 'view'),
    /** With the range `last`: how far back from now. */
    last: duration('24h', { min: 0, above: true }),
    lastUnit: choice(LAST_UNITS, ''),
    /** With the range `fixed`: ms since 1970 (an ISO date in a flow written by hand). */
    rangeStartTs: text(),
    rangeEndTs: text(),
    filters: text('{}'),
    filtersType: choice(FILTER_TYPES, 'json'),
    format: choice(REPORT_FORMATS, 'rows'),
    split: flag(false),
    parseNumbers: flag(true),
    /** Tries again when Trendz's queue is full. */
    maxRetries: whole(5, { min: 0 }),
    /** The waiting in all between those tries. */
    maxWait: duration('2m', { min: 1000 }),
  },
});

export type BuildReportSettings = import('../../settings/declare').Values<typeof TB_BUILD_REPORT.settings>;
