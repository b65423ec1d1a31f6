/**
 * The pageLink of a data query: page, size, text search, sort order, and for alarm queries the alarm filter fields
 * (which an alarm count holds at its top level).
 */

import type { AlarmDataPageLink, AlarmFilterFields, EntityDataPageLink, EntityDataSortOrder, UserId } from '../types';
import { typedId } from './ids';
import { entityKey } from './key-filters';
import {
  DIRECTION,
  SEVERITY,
  STATUS,
  bool,
  enumArray,
  fail,
  got,
  nonNegInt,
  obj,
  oneOf,
  posInt,
  str,
  stringArray,
  type Obj,
} from './primitives';

/** Page size used when a data query has no pageLink (or no pageSize). */
export const DEFAULT_PAGE_SIZE = 100;
/**
 * What the server accepts as an ENTITY_FIELD or ALARM_FIELD sort key: Unicode letters, ASCII digits, `_` and `-`
 * (`Validator.PROPERTY_PATTERN`, matched whole). As a pattern string for the JSON schema of the editor.
 */
export const SORT_PROPERTY_PATTERN = '^[\\p{L}0-9_-]+$';
const SORT_PROPERTY_RE = new RegExp(SORT_PROPERTY_PATTERN, 'u');

function sortOrder(v: unknown, path: string, alarm: boolean): EntityDataSortOrder {
  const o = obj(v, path, 'an object {key, direction}');
  const key = entityKey(o.key, `${path}.key`, alarm);
  if ((key.type === 'ENTITY_FIELD' || key.type === 'ALARM_FIELD') && !SORT_PROPERTY_RE.test(key.key)) {
    const p = `${path}.key.key`;
    fail(
      p,
      `${p} must be made of letters, digits, "_" and "-" only: the server refuses any other ${key.type} sort key ` +
        `with 400 "Invalid entity data page link sort property" ${got(key.key)}`,
    );
  }
  return {
    key,
    direction: o.direction == null ? 'ASC' : oneOf(o.direction, DIRECTION, `${path}.direction`),
  };
}

/** Copies the alarm filter fields of `o` (validated) into `out`. */
export function alarmFilterFields(o: Obj, path: string, out: AlarmFilterFields): void {
  if (o.startTs != null) out.startTs = nonNegInt(o.startTs, `${path}.startTs`);
  if (o.endTs != null) out.endTs = nonNegInt(o.endTs, `${path}.endTs`);
  if (o.timeWindow != null) out.timeWindow = nonNegInt(o.timeWindow, `${path}.timeWindow`);
  if (o.typeList != null) out.typeList = stringArray(o.typeList, `${path}.typeList`);
  if (o.statusList != null) out.statusList = enumArray(o.statusList, STATUS, `${path}.statusList`);
  if (o.severityList != null) out.severityList = enumArray(o.severityList, SEVERITY, `${path}.severityList`);
  if (o.searchPropagatedAlarms != null) {
    out.searchPropagatedAlarms = bool(o.searchPropagatedAlarms, `${path}.searchPropagatedAlarms`);
  }
  if (o.assigneeId != null) out.assigneeId = typedId(o.assigneeId, `${path}.assigneeId`, 'USER') as UserId;
}

export function pageLink(v: unknown, path: string, alarm: boolean): EntityDataPageLink | AlarmDataPageLink {
  if (v == null) return { page: 0, pageSize: DEFAULT_PAGE_SIZE };
  const o = obj(v, path, 'an object {page, pageSize, textSearch, sortOrder, dynamic}');
  const out: AlarmDataPageLink = {
    page: o.page == null ? 0 : nonNegInt(o.page, `${path}.page`),
    pageSize: o.pageSize == null ? DEFAULT_PAGE_SIZE : posInt(o.pageSize, `${path}.pageSize`),
  };
  if (o.textSearch === null) out.textSearch = null;
  else if (o.textSearch !== undefined) out.textSearch = str(o.textSearch, `${path}.textSearch`);
  if (o.sortOrder != null) out.sortOrder = sortOrder(o.sortOrder, `${path}.sortOrder`, alarm);
  if (o.dynamic != null) out.dynamic = bool(o.dynamic, `${path}.dynamic`);
  if (alarm) alarmFilterFields(o, path, out);
  return out;
}
