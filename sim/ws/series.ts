/**
 * Time-series reads for tsCmd / historyCmd / agg commands: window [startTs, endTs), raw values newest
 * first and at most `limit` per key, or aggregated into buckets of `interval` ms (ts = bucket middle, with
 * `count`). Values are printed the Java way (`KvEntry.getValueAsString`).
 */
import type { Dataset, SimEntity } from '../dataset';
import type { KvEntry, TsValue } from '../types';
import { javaDouble, javaValueString } from '../values';
import type { Aggregation, IntervalType } from './parse';

const DAY = 86_400_000;
const YEAR = 365 * DAY;

export interface SeriesQuery {
  key: string;
  startTs: number;
  endTs: number;
  limit: number;
  agg: Aggregation | null;
  interval: number;
  intervalType: IntervalType | null;
}

/** Points of a key in [startTs, endTs), ascending. */
function points(ds: Dataset, e: SimEntity, key: string, startTs: number, endTs: number): KvEntry[] {
  if (endTs <= startTs) return [];
  return ds.history(e.id, key, startTs, endTs - 1);
}

function intervalMs(q: SeriesQuery): number {
  switch (q.intervalType) {
    case 'WEEK':
    case 'WEEK_ISO':
      return 7 * DAY;
    case 'MONTH':
      return 30 * DAY;
    case 'QUARTER':
      return 91 * DAY;
    default:
      return q.interval;
  }
}

/** Aggregates entries into one value (numeric values only, except COUNT); undefined when nothing to aggregate. */
export function aggregate(entries: KvEntry[], agg: Aggregation): { value: string; count: number } | undefined {
  if (entries.length === 0) return undefined;
  if (agg === 'COUNT') return { value: String(entries.length), count: entries.length };
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let allLong = true;
  for (const e of entries) {
    if (e.type !== 'LONG' && e.type !== 'DOUBLE') continue;
    if (e.type === 'DOUBLE') allLong = false;
    n++;
    sum += e.value;
    if (e.value < min) min = e.value;
    if (e.value > max) max = e.value;
  }
  if (n === 0) return undefined;
  const fmt = (v: number, long: boolean): string => (long && Number.isInteger(v) ? String(v) : javaDouble(v));
  switch (agg) {
    case 'MIN':
      return { value: fmt(min, allLong), count: n };
    case 'MAX':
      return { value: fmt(max, allLong), count: n };
    case 'SUM':
      return { value: fmt(sum, allLong), count: n };
    case 'AVG':
    default:
      return { value: javaDouble(sum / n), count: n };
  }
}

/** One key's series for one entity. */
export function readSeries(ds: Dataset, e: SimEntity, q: SeriesQuery, fetchLatestPreviousPoint: boolean): TsValue[] {
  const agg = q.agg && q.agg !== 'NONE' ? q.agg : null;
  let out: TsValue[];
  if (!agg) {
    const pts = points(ds, e, q.key, q.startTs, q.endTs);
    const limit = q.limit > 0 ? q.limit : 100;
    const from = Math.max(0, pts.length - limit);
    out = [];
    for (let i = pts.length - 1; i >= from; i--) out.push({ ts: pts[i].ts, value: javaValueString(pts[i]) });
  } else {
    const step = intervalMs(q) > 0 ? intervalMs(q) : Math.max(1, q.endTs - q.startTs);
    const pts = points(ds, e, q.key, q.startTs, q.endTs);
    out = [];
    let i = 0;
    for (let s = q.startTs; s < q.endTs; s += step) {
      const end = Math.min(s + step, q.endTs);
      const bucket: KvEntry[] = [];
      while (i < pts.length && pts[i].ts < end) {
        if (pts[i].ts >= s) bucket.push(pts[i]);
        i++;
      }
      const r = aggregate(bucket, agg);
      if (r) out.push({ ts: s + Math.floor((end - s) / 2), value: r.value, count: r.count });
    }
  }
  if (fetchLatestPreviousPoint) {
    const prev = points(ds, e, q.key, q.startTs - YEAR, q.startTs);
    if (prev.length > 0) {
      const p = prev[prev.length - 1];
      out.push({ ts: p.ts, value: javaValueString(p) });
      out.sort((a, b) => b.ts - a.ts);
    }
  }
  return out;
}

/** aggHistoryCmd / aggTsCmd: one aggregated value over [startTs, endTs) (ts = the newest point's ts). */
export function readAggregate(
  ds: Dataset,
  e: SimEntity,
  key: string,
  agg: Aggregation | null,
  startTs: number,
  endTs: number,
): TsValue | null {
  const pts = points(ds, e, key, startTs, endTs);
  if (pts.length === 0) return null;
  const last = pts[pts.length - 1];
  if (!agg || agg === 'NONE') return { ts: last.ts, value: javaValueString(last) };
  const r = aggregate(pts, agg);
  return r ? { ts: last.ts, value: r.value, count: r.count } : null;
}
