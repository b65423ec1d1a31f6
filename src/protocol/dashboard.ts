/**
 * The shapes Node-RED's Dashboard 2 (`@flowfuse/node-red-dashboard`) draws without glue, made from what the server
 * answers. Pure: no I/O, no Node-RED.
 *
 * A chart point ({@link ChartPoint}) is `{ series, key, ts, value }`: a chart set to x = key `ts`, y = key `value`
 * and series = key `series` draws it with its own time. `series` is the key alone for one entity, and
 * "<entity name> · <key>" when the points are of several entities, so each entity's key is its own line. A chart
 * draws points in the order they come: lists are sent oldest first.
 *
 * An alarm row ({@link AlarmRow}) is one flat object per alarm with the columns a person reads, and the alarm's `id`,
 * so that the row a table sends back (a click, a button) is an alarm tb-alarm-action reads as it is.
 */
import { numberFromText } from './format';
import type { TimeseriesAnswer } from './telemetry';
import type { AlarmInfo } from './types';

/** One point of a chart's line. */
export interface ChartPoint {
  /** The line it belongs to: the key, or "<entity name> · <key>" for several entities. */
  series: string;
  key: string;
  /** ms since 1970. */
  ts: number;
  /** A number as a number; text that is not a plain number stays text. */
  value: unknown;
}

/** Between an entity's name and a key, in a series name. */
export const SERIES_SEPARATOR = ' · ';

/** The series of a key: the key alone, or "<entity name> · <key>" when the entity is named (several entities). */
export function seriesName(key: string, entityName?: string): string {
  return entityName === undefined ? key : entityName + SERIES_SEPARATOR + key;
}

/**
 * A value as a chart plots it: a plain decimal text ("23.5", as a server sends a number stored as text) becomes that
 * number; any other value stays as it is (text stays text, booleans and numbers are kept).
 */
export function chartValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const n = numberFromText(v);
  return n === undefined ? v : n;
}

/** Oldest first; points of the same time keep their order (Array.prototype.sort is stable). */
export function oldestFirst(points: ChartPoint[]): ChartPoint[] {
  return points.sort((a, b) => a.ts - b.ts);
}

/**
 * The points of a history answer (`{ key: [{ ts, value }] }`, in either order), oldest first. `entityName` names
 * the entity in each series (several entities); without it the series is the key.
 */
export function historyPoints(series: TimeseriesAnswer, entityName?: string): ChartPoint[] {
  const out: ChartPoint[] = [];
  for (const key of Object.keys(series)) {
    const list = series[key];
    if (!Array.isArray(list)) continue;
    const name = seriesName(key, entityName);
    for (const p of list) {
      if (p == null || typeof p.ts !== 'number') continue;
      out.push({ series: name, key, ts: p.ts, value: chartValue(p.value) });
    }
  }
  return oldestFirst(out);
}

/**
 * The points of a latest answer (`{ key: [{ ts, value }] }`, one point a key), oldest first. A key without a value
 * (the server answers `value: null`, stamped with its own clock) has no point.
 */
export function latestPoints(answer: TimeseriesAnswer, entityName?: string): ChartPoint[] {
  const out: ChartPoint[] = [];
  for (const key of Object.keys(answer)) {
    const list = answer[key];
    const p = Array.isArray(list) && list.length ? list[0] : undefined;
    if (p == null || typeof p.ts !== 'number' || p.value === null || p.value === undefined) continue;
    out.push({ series: seriesName(key, entityName), key, ts: p.ts, value: chartValue(p.value) });
  }
  return oldestFirst(out);
}

/**
 * The points of a flat entity row (tb-subscribe's entity data, flat): one per attribute or time-series value it holds
 * (`row.ts[key]` is its time; 0 = no value stored), of the keys `keys` (all of them when omitted), oldest first.
 */
export function rowPoints(
  row: { ts?: Record<string, number> } & Record<string, unknown>,
  entityName?: string,
  keys?: readonly string[],
): ChartPoint[] {
  const ts = row.ts;
  const out: ChartPoint[] = [];
  if (ts == null) return out;
  for (const key of keys ?? Object.keys(ts)) {
    const t = ts[key];
    if (typeof t !== 'number' || t === 0) continue;
    out.push({ series: seriesName(key, entityName), key, ts: t, value: chartValue(row[key]) });
  }
  return oldestFirst(out);
}

/** The one series of a list of points, or undefined when they are of several series (or none). */
export function singleSeries(points: readonly ChartPoint[]): string | undefined {
  if (points.length === 0) return undefined;
  const s = points[0].series;
  for (let i = 1; i < points.length; i++) if (points[i].series !== s) return undefined;
  return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Alarms as table rows
// ---------------------------------------------------------------------------------------------------------------

/** One alarm as a table row: the columns a person reads, then the alarm's id. */
export interface AlarmRow {
  /** The name of the entity that raised it. */
  originator: string | null;
  type: string;
  severity: string;
  status: string;
  /** ms since 1970. */
  created: number;
  /** ms since 1970, null when not (yet) acknowledged. */
  acknowledged: number | null;
  /** ms since 1970, null when not (yet) cleared. */
  cleared: number | null;
  /** "First Last" of the user it is assigned to, else the user's e-mail; null when unassigned. */
  assignee: string | null;
  /** The alarm's UUID: tb-alarm-action reads a row by it. */
  id: string | null;
}

function time(v: unknown): number | null {
  return typeof v === 'number' && v > 0 ? v : null;
}

function assigneeName(a: AlarmInfo['assignee']): string | null {
  if (a == null) return null;
  const name = [a.firstName, a.lastName].filter((s) => typeof s === 'string' && s.trim() !== '').join(' ');
  if (name !== '') return name;
  return typeof a.email === 'string' && a.email !== '' ? a.email : null;
}

/**
 * One alarm as the server sends it (an alarm query's or a live alarm subscription's) as a table row. It holds no
 * `entityType` (tb-alarm-action would read the row as an entity that is not an alarm) and no nested object.
 */
export function alarmRow(a: AlarmInfo): AlarmRow {
  return {
    originator: a.originatorName ?? null,
    type: a.type,
    severity: a.severity,
    status: a.status,
    created: a.createdTime,
    acknowledged: time(a.ackTs),
    cleared: time(a.clearTs),
    assignee: assigneeName(a.assignee),
    id: a.id == null ? null : a.id.id,
  };
}

/** The rows of a list of alarms, in its order. */
export function alarmRows(items: readonly AlarmInfo[]): AlarmRow[] {
  const out: AlarmRow[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = alarmRow(items[i]);
  return out;
}
