/**
 * The analytics simulator's view registry: saved "views" (Trendz table visualisations) that compute a real
 * table from the dataset (telemetry history, relations, alarms) for a time range and filters.
 */
import { createHash } from 'node:crypto';
import { BASE_TIME, HOUR, type Dataset, type SimEntity } from '../dataset';
import type { Authority } from '../types';

export const DAY = 24 * HOUR;

/** Energy per building per day; also the view of the demo examples (`examples/*report*.json`). */
export const VIEW_ENERGY_PER_BUILDING_PER_DAY = '5b1f6c2e-0d3a-4f7e-9a21-7c4e8b2d9f10';
/** The id the shipped example flows use (= VIEW_ENERGY_PER_BUILDING_PER_DAY). */
export const DEMO_VIEW_ID = VIEW_ENERGY_PER_BUILDING_PER_DAY;
export const VIEW_ENERGY_PER_BUILDING_PER_HOUR = '06c33904-6810-4f5b-a3a1-fe821275a555';
export const VIEW_DEVICE_TEMPERATURE = '578cf918-2607-451a-a6af-b0403dbdd24c';
export const VIEW_TOP_ALARMED_DEVICES = 'a6aa2554-c100-4be5-acff-bdf6887dc751';

export const VIEW_IDS = {
  ENERGY_PER_BUILDING_PER_DAY: VIEW_ENERGY_PER_BUILDING_PER_DAY,
  ENERGY_PER_BUILDING_PER_HOUR: VIEW_ENERGY_PER_BUILDING_PER_HOUR,
  DEVICE_TEMPERATURE: VIEW_DEVICE_TEMPERATURE,
  TOP_ALARMED_DEVICES: VIEW_TOP_ALARMED_DEVICES,
} as const;

/** The saved range of the built-in views: the 24 h before BASE_TIME, [BASE_TIME - 24 h, BASE_TIME). */
export const DEFAULT_RANGE: Readonly<TimeRange> = Object.freeze({ startTs: BASE_TIME - DAY, endTs: BASE_TIME });

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** The deterministic id `addView` gives a view without one (md5 of its name). */
export function viewIdFor(name: string): string {
  const h = createHash('md5').update(`trendz-sim-view:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface TimeRange {
  /** inclusive, ms */
  startTs: number;
  /** exclusive, ms */
  endTs: number;
}

/** A cell of the table: dimensions are strings, measures and timestamps numbers. */
export type Cell = string | number | null;
export type Row = Record<string, Cell>;

/** Who asked (from the analytics token). */
export interface AnalyticsCaller {
  userId: string;
  email: string;
  authority: Authority;
  tenantId: string;
  customerId: string | null;
}

export interface ViewContext {
  readonly data: Dataset;
  /** the effective range: the request's, else the view's saved one */
  readonly range: TimeRange;
  /** effective filters (saved ones overridden per name by the request's); empty arrays are dropped */
  readonly filters: Readonly<Record<string, readonly string[]>>;
  readonly caller: AnalyticsCaller;
  /** tenant admins see the tenant's entities, customer users their customer's */
  visible(e: SimEntity): boolean;
  /** true when `value` is allowed by the filter `name` (no such effective filter = allowed) */
  allows(name: string, value: string | null | undefined): boolean;
}

/** A view defined by a compute function (the general form). */
export interface ViewSpec {
  /** UUID; default `viewIdFor(name)` */
  id?: string;
  name: string;
  /** column labels, in order */
  columns: string[];
  /** filter names the view accepts in a request (others: 400) */
  filters?: string[];
  /** the view's saved filter selections (a request's filter of the same name replaces one) */
  defaultFilters?: Record<string, string[]>;
  /** the view's saved date range (default: DEFAULT_RANGE) */
  defaultRange?: TimeRange;
  /** extra computation time of this view's reports (added to the service's reportDelayMs) */
  delayMs?: number;
  compute(ctx: ViewContext): Row[];
}

export type Aggregation = 'sum' | 'avg' | 'min' | 'max' | 'count';

/** A view over telemetry history: entities x (time bucket, dimensions) -> aggregated measures. */
export interface TelemetryViewSpec {
  id?: string;
  name: string;
  /** candidate entities (default: the non-bench devices) */
  entities?: (data: Dataset) => Iterable<SimEntity>;
  /** group by time bucket (UTC); the bucket start (ms) goes to `timeColumn` */
  groupBy?: 'hour' | 'day' | null;
  /** label of the time column (default "Date") */
  timeColumn?: string;
  /** string columns; an entity whose value is null is left out */
  dimensions: Array<{ label: string; value: (e: SimEntity, data: Dataset) => string | null }>;
  /** numeric columns: an aggregation of the key's numeric (LONG/DOUBLE) points in range */
  measures: Array<{ label: string; key: string; agg: Aggregation; decimals?: number }>;
  /** filter name -> the entity's value for it */
  filters?: Record<string, (e: SimEntity, data: Dataset) => string | null>;
  defaultFilters?: Record<string, string[]>;
  defaultRange?: TimeRange;
  delayMs?: number;
  /** default: time, then dimensions, ascending */
  sort?: { column: string; desc?: boolean };
  /** keep the first N rows after sorting */
  limit?: number;
}

/** A registered view. */
export interface View extends ViewSpec {
  id: string;
  filters: string[];
  defaultFilters: Record<string, string[]>;
  defaultRange: TimeRange;
}

// ---------------------------------------------------------------------------------------------------------------
// helpers

function cmp(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function round(v: number, decimals: number | undefined): number {
  if (decimals === undefined) return v;
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}

/**
 * The nearest ancestor asset of type `assetType`, walking relations of `relationType` upwards (to -> from)
 * breadth-first, up to `maxLevels`.
 */
export function ancestorAsset(
  data: Dataset,
  e: SimEntity,
  assetType: string,
  relationType = 'Contains',
  maxLevels = 10,
): SimEntity | undefined {
  const seen = new Set<string>([e.id]);
  let frontier = [e.id];
  for (let level = 0; level < maxLevels && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const r of data.relationsTo(id)) {
        if (r.type !== relationType || seen.has(r.from.id)) continue;
        seen.add(r.from.id);
        const p = data.get(r.from.id);
        if (!p) continue;
        if (p.entityType === 'ASSET' && p.type === assetType) return p;
        next.push(p.id);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** The entity's owner name: its customer's title, or the tenant's. */
export function ownerName(data: Dataset, e: SimEntity): string {
  return data.owner(e).name;
}

function stringAttr(data: Dataset, e: SimEntity, key: string): string | null {
  const v = data.getAnyAttribute(e, key);
  return v === undefined ? null : String(v.value);
}

/** Turns a TelemetryViewSpec into a ViewSpec. */
export function telemetryView(spec: TelemetryViewSpec): ViewSpec {
  const timeColumn = spec.groupBy ? (spec.timeColumn ?? 'Date') : null;
  const columns = [
    ...(timeColumn ? [timeColumn] : []),
    ...spec.dimensions.map((d) => d.label),
    ...spec.measures.map((m) => m.label),
  ];
  const bucketMs = spec.groupBy === 'hour' ? HOUR : spec.groupBy === 'day' ? DAY : 0;
  const filterFns = spec.filters ?? {};
  return {
    id: spec.id,
    name: spec.name,
    columns,
    filters: Object.keys(filterFns),
    defaultFilters: spec.defaultFilters,
    defaultRange: spec.defaultRange,
    delayMs: spec.delayMs,
    compute(ctx: ViewContext): Row[] {
      const { data, range } = ctx;
      interface Group {
        time: number | null;
        dims: (string | null)[];
        acc: { sum: number; count: number; min: number; max: number }[];
      }
      const groups = new Map<string, Group>();
      const entities = spec.entities ? spec.entities(data) : data.list('DEVICE');
      for (const e of entities) {
        if (!ctx.visible(e)) continue;
        let pass = true;
        for (const [name, fn] of Object.entries(filterFns)) {
          if (!ctx.allows(name, fn(e, data))) {
            pass = false;
            break;
          }
        }
        if (!pass) continue;
        const dims = spec.dimensions.map((d) => d.value(e, data));
        if (dims.some((d) => d === null)) continue;
        spec.measures.forEach((m, mi) => {
          for (const p of data.history(e, m.key, range.startTs, range.endTs - 1)) {
            if (p.type !== 'LONG' && p.type !== 'DOUBLE') continue;
            const time = bucketMs ? Math.floor(p.ts / bucketMs) * bucketMs : null;
            const k = JSON.stringify([time, dims]);
            let g = groups.get(k);
            if (!g) {
              g = { time, dims, acc: spec.measures.map(() => ({ sum: 0, count: 0, min: Infinity, max: -Infinity })) };
              groups.set(k, g);
            }
            const a = g.acc[mi];
            a.sum += p.value;
            a.count++;
            if (p.value < a.min) a.min = p.value;
            if (p.value > a.max) a.max = p.value;
          }
        });
      }
      const rows: Row[] = [];
      for (const g of groups.values()) {
        const row: Row = {};
        if (timeColumn) row[timeColumn] = g.time;
        spec.dimensions.forEach((d, i) => (row[d.label] = g.dims[i]));
        spec.measures.forEach((m, i) => {
          const a = g.acc[i];
          if (a.count === 0) {
            row[m.label] = m.agg === 'count' ? 0 : null;
            return;
          }
          const v =
            m.agg === 'sum'
              ? a.sum
              : m.agg === 'avg'
                ? a.sum / a.count
                : m.agg === 'min'
                  ? a.min
                  : m.agg === 'max'
                    ? a.max
                    : a.count;
          row[m.label] = round(v, m.decimals);
        });
        rows.push(row);
      }
      const order = spec.sort ? [spec.sort.column] : columns.slice(0, (timeColumn ? 1 : 0) + spec.dimensions.length);
      const sign = spec.sort?.desc ? -1 : 1;
      rows.sort((x, y) => {
        for (const c of order) {
          const r = cmp(x[c], y[c]);
          if (r !== 0) return sign * r;
        }
        for (const c of columns) {
          const r = cmp(x[c], y[c]);
          if (r !== 0) return r;
        }
        return 0;
      });
      return spec.limit !== undefined ? rows.slice(0, spec.limit) : rows;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// built-in views

function buildingOf(e: SimEntity, data: Dataset): string | null {
  return ancestorAsset(data, e, 'building')?.name ?? null;
}

function meters(data: Dataset): SimEntity[] {
  return data.list('DEVICE').filter((d) => d.type === 'meter');
}

function energyView(id: string, name: string, groupBy: 'hour' | 'day'): ViewSpec {
  return telemetryView({
    id,
    name,
    entities: meters,
    groupBy,
    timeColumn: 'Date',
    dimensions: [{ label: 'Building', value: buildingOf }],
    measures: [{ label: 'energy', key: 'energy', agg: 'sum', decimals: 3 }],
    filters: {
      Building: buildingOf,
      Owner: (e, data) => {
        const b = ancestorAsset(data, e, 'building');
        return b ? ownerName(data, b) : null;
      },
      Device: (e) => e.name,
    },
  });
}

const deviceTemperature: ViewSpec = telemetryView({
  id: VIEW_DEVICE_TEMPERATURE,
  name: 'DEVICE_TEMPERATURE',
  // every non-bench device with temperature points in range (in the seed: the thermostats)
  entities: (data) => data.list('DEVICE'),
  dimensions: [
    { label: 'Device', value: (e) => e.name },
    { label: 'Type', value: (e) => e.type ?? '' },
  ],
  measures: [
    { label: 'avg temperature', key: 'temperature', agg: 'avg', decimals: 2 },
    { label: 'max temperature', key: 'temperature', agg: 'max', decimals: 2 },
  ],
  filters: {
    Device: (e) => e.name,
    Type: (e) => e.type,
    Building: buildingOf,
    Model: (e, data) => stringAttr(data, e, 'model'),
    Owner: (e, data) => ownerName(data, e),
  },
});

const topAlarmedDevices: ViewSpec = {
  id: VIEW_TOP_ALARMED_DEVICES,
  name: 'TOP_ALARMED_DEVICES',
  columns: ['Device', 'alarms'],
  filters: ['Device', 'Type', 'Severity', 'Alarm type', 'Building'],
  compute(ctx) {
    const { data, range } = ctx;
    const counts = new Map<string, number>();
    for (const a of data.alarmIterable()) {
      if (a.createdTime < range.startTs || a.createdTime >= range.endTs) continue;
      if (a.originator.entityType !== 'DEVICE') continue;
      const d = data.get(a.originator.id);
      if (!d || !ctx.visible(d)) continue;
      if (!ctx.allows('Device', d.name) || !ctx.allows('Type', d.type) || !ctx.allows('Severity', a.severity)) continue;
      if (!ctx.allows('Alarm type', a.type) || !ctx.allows('Building', buildingOf(d, data))) continue;
      counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
    }
    return [...counts.entries()]
      .sort((x, y) => y[1] - x[1] || cmp(x[0], y[0]))
      .slice(0, 10)
      .map(([Device, alarms]) => ({ Device, alarms }));
  },
};

/** The views every new service starts with. */
export function builtinViews(): ViewSpec[] {
  return [
    energyView(VIEW_ENERGY_PER_BUILDING_PER_DAY, 'ENERGY_PER_BUILDING_PER_DAY', 'day'),
    energyView(VIEW_ENERGY_PER_BUILDING_PER_HOUR, 'ENERGY_PER_BUILDING_PER_HOUR', 'hour'),
    deviceTemperature,
    topAlarmedDevices,
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// registry

export class ViewRegistry {
  private readonly views = new Map<string, View>();

  constructor(initial: ViewSpec[] = builtinViews()) {
    for (const v of initial) this.add(v);
  }

  /** Registers (or replaces) a view; a TelemetryViewSpec is converted first. Returns the id. */
  add(spec: ViewSpec | TelemetryViewSpec): string {
    const s: ViewSpec = 'compute' in spec ? spec : telemetryView(spec);
    const id = (s.id ?? viewIdFor(s.name)).toLowerCase();
    if (!isUuid(id)) throw new Error(`view id must be a UUID, got ${id}`);
    if (!Array.isArray(s.columns) || s.columns.length === 0) throw new Error('a view needs at least one column');
    const range = s.defaultRange ?? DEFAULT_RANGE;
    if (!(range.startTs < range.endTs)) throw new Error('defaultRange: startTs must be before endTs');
    const filters = [...(s.filters ?? [])];
    for (const f of Object.keys(s.defaultFilters ?? {})) {
      if (!filters.includes(f)) throw new Error(`defaultFilters: ${f} is not one of the view's filters`);
    }
    this.views.set(id, {
      ...s,
      id,
      filters,
      defaultFilters: { ...(s.defaultFilters ?? {}) },
      defaultRange: { ...range },
    });
    return id;
  }

  remove(id: string): boolean {
    return this.views.delete(id.toLowerCase());
  }

  get(id: string): View | undefined {
    return this.views.get(id.toLowerCase());
  }

  list(): View[] {
    return [...this.views.values()];
  }
}
