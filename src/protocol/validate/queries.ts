/**
 * The four queries, each checked into a wire-ready copy: entity data and count, alarm data and count, for a REST
 * endpoint or a live subscription.
 */

import type { AlarmCountQuery, AlarmDataPageLink, AlarmDataQuery, EntityCountQuery, EntityDataQuery } from '../types';
import { entityFilter } from './entity-filter';
import { entityKeys, keyFilters, type FilterContext } from './key-filters';
import { alarmFilterFields, pageLink } from './page-link';
import { KEY_FILTERS_OP, fail, obj, oneOf, type Obj } from './primitives';

/** Where the query goes. */
export interface PrepareOptions {
  /** `true`: a WebSocket subscription (tb-subscribe); `false` or absent: a REST endpoint. */
  live?: boolean;
}

/** A plain object, or a JSON string holding one. */
function parseInput(input: unknown, field: string): Obj {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      fail(field, `${field} is not valid JSON: ${(e as Error).message}`);
    }
  }
  return obj(v, field, 'an object (or a JSON string of one)');
}

function countPart(q: Obj, field: string, out: EntityCountQuery | AlarmCountQuery, ctx: FilterContext): void {
  out.keyFilters = keyFilters(q.keyFilters, `${field}.keyFilters`, ctx);
  if (q.keyFiltersOperation != null) {
    out.keyFiltersOperation = oneOf(q.keyFiltersOperation, KEY_FILTERS_OP, `${field}.keyFiltersOperation`);
  }
}

/** Validates an EntityDataQuery (`POST /api/entitiesQuery/find`, WS ENTITY_DATA) and returns a wire-ready copy. */
export function prepareEntityDataQuery(input: unknown, field = 'query', options: PrepareOptions = {}): EntityDataQuery {
  const q = parseInput(input, field);
  const out = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) } as EntityDataQuery;
  countPart(q, field, out, { live: options.live === true, find: true });
  out.entityFields = entityKeys(q.entityFields, `${field}.entityFields`, false);
  out.latestValues = entityKeys(q.latestValues, `${field}.latestValues`, false);
  out.pageLink = pageLink(q.pageLink, `${field}.pageLink`, false);
  return out;
}

/**
 * Validates an EntityCountQuery (`POST /api/entitiesQuery/count`, WS ENTITY_COUNT). An entity data query is
 * accepted too: its pageLink, entityFields and latestValues are dropped (and not validated).
 */
export function prepareEntityCountQuery(
  input: unknown,
  field = 'query',
  options: PrepareOptions = {},
): EntityCountQuery {
  const q = parseInput(input, field);
  const out: EntityCountQuery = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) };
  countPart(q, field, out, { live: options.live === true, find: false });
  return out;
}

/**
 * Validates an AlarmDataQuery (`POST /api/alarmsQuery/find`, WS ALARM_DATA). `alarmFields`, `entityFields`,
 * `latestValues` and `keyFilters` are always arrays (the server NPEs without `alarmFields`).
 */
export function prepareAlarmDataQuery(input: unknown, field = 'query', options: PrepareOptions = {}): AlarmDataQuery {
  const q = parseInput(input, field);
  const out = { entityFilter: entityFilter(q.entityFilter, `${field}.entityFilter`) } as AlarmDataQuery;
  countPart(q, field, out, { live: options.live === true, find: false });
  out.entityFields = entityKeys(q.entityFields, `${field}.entityFields`, false);
  out.latestValues = entityKeys(q.latestValues, `${field}.latestValues`, false);
  out.alarmFields = entityKeys(q.alarmFields, `${field}.alarmFields`, true);
  out.pageLink = pageLink(q.pageLink, `${field}.pageLink`, true) as AlarmDataPageLink;
  return out;
}

/**
 * Validates an AlarmCountQuery (`POST /api/alarmsQuery/count`, WS ALARM_COUNT); `entityFilter` is optional.
 * An alarm *data* query is accepted too: the filter fields of its pageLink (statusList, severityList, typeList,
 * timeWindow, startTs, endTs, searchPropagatedAlarms, assigneeId) are lifted to the flat count fields; a field
 * given at the top level wins over the same field in pageLink. Everything else is dropped.
 */
export function prepareAlarmCountQuery(input: unknown, field = 'query', options: PrepareOptions = {}): AlarmCountQuery {
  const q = parseInput(input, field);
  const out: AlarmCountQuery = {};
  if (q.entityFilter != null) out.entityFilter = entityFilter(q.entityFilter, `${field}.entityFilter`);
  countPart(q, field, out, { live: options.live === true, find: false });
  if (q.pageLink != null) {
    const p = `${field}.pageLink`;
    alarmFilterFields(obj(q.pageLink, p), p, out);
  }
  alarmFilterFields(q, field, out);
  return out;
}
