/**
 * A query through a change of the node's operation (or subscription kind), e.g. an alarm query from Count to Find
 * and back: what both kinds of query have (entity filter, key filters, the alarm filter) stays; what only the old
 * kind has (a find's page and columns) is left behind, and taken back when the node switches back; what only the
 * new kind has and the query lacks comes from the new kind's default query (a find's entity filter, page and
 * columns). So the query stays one that the new kind takes, and the builder always has a control for each part.
 */
import { ALARM_FILTER_FIELDS, defaultQuery, MODE_SCHEMA, type QueryMode } from '../../query-model/schema';
import { isObj } from '../../query-model/schema/spec';

/** A query as the builder holds it (model.ts's Query; not imported, so that this file stays free of the page). */
type Query = Record<string, unknown>;

const ALARM_FIELDS = ALARM_FILTER_FIELDS.map((f) => f.name);

/** The top-level keys of the parts the builder shows for a kind of query. */
function partKeys(mode: QueryMode): string[] {
  const spec = MODE_SCHEMA[mode];
  const keys: string[] = [];
  for (const part of spec.parts) {
    if (part === 'entityFilter') keys.push('entityFilter');
    else if (part === 'keyFilters') keys.push('keyFilters', 'keyFiltersOperation');
    else if (part === 'fields') keys.push(...spec.fieldLists);
    else if (part === 'page') keys.push('pageLink');
    else if (part === 'alarm' && spec.alarmFilterAt === '') keys.push(...ALARM_FIELDS);
  }
  return keys;
}

/** Moves the alarm filter fields between the page link (alarm data) and the top level (alarm counts). */
function moveAlarmFields(q: Query, to: 'pageLink' | ''): void {
  const pl = isObj(q.pageLink) ? q.pageLink : undefined;
  for (const f of ALARM_FIELDS) {
    if (to === '' && pl && pl[f] !== undefined && q[f] === undefined) {
      q[f] = pl[f];
      delete pl[f];
    } else if (to === 'pageLink' && q[f] !== undefined) {
      if (!isObj(q.pageLink)) q.pageLink = {};
      const target = q.pageLink as Record<string, unknown>;
      if (target[f] === undefined) target[f] = q[f];
      delete q[f];
    }
  }
}

function hasPage(mode: QueryMode): boolean {
  return MODE_SCHEMA[mode].parts.includes('page');
}

/**
 * Entity data and alarm data both page, but their pages differ: an alarm page holds the alarm filter and sorts by
 * alarm fields, which an entity page refuses. Each kind keeps its own page: the old one is left behind (under
 * `pageLink@<kind>`), the new kind's comes back, else its default with the page size the user had.
 */
function swapPage(q: Query, from: QueryMode, to: QueryMode, leftBehind: Query): void {
  const old = isObj(q.pageLink) ? q.pageLink : undefined;
  if (old) leftBehind[`pageLink@${from}`] = old;
  const back = leftBehind[`pageLink@${to}`];
  delete leftBehind[`pageLink@${to}`];
  if (isObj(back)) {
    q.pageLink = back;
    return;
  }
  const fresh = defaultQuery(to).pageLink;
  q.pageLink = isObj(fresh) ? { ...fresh, ...(old?.pageSize !== undefined ? { pageSize: old.pageSize } : {}) } : fresh;
}

/**
 * The parts a switch filled from the new kind's defaults (because the query had none), as they were filled, per
 * dialog (keyed by its `leftBehind`): switching back to a kind that goes without them takes them away again if
 * they are still untouched, so Count → Find → Count gives the count it started from (a count of every alarm, not
 * of the devices' alarms that Find's default filter names).
 */
const filledByDefault = new WeakMap<Query, Map<string, string>>();

/**
 * Changes `q` (in place) from a query of kind `from` into one of kind `to`. `leftBehind` holds the parts an earlier
 * switch took away (this dialog only): they come back before any default does.
 */
export function switchMode(q: Query, from: QueryMode, to: QueryMode, leftBehind: Query): void {
  if (from !== to && hasPage(from) && hasPage(to)) swapPage(q, from, to, leftBehind);
  const fromAt = MODE_SCHEMA[from].alarmFilterAt;
  const toAt = MODE_SCHEMA[to].alarmFilterAt;
  if (fromAt !== null && toAt !== null && fromAt !== toAt) moveAlarmFields(q, toAt);
  const keep = partKeys(to);
  const had = partKeys(from);
  for (const key of had) {
    if (keep.includes(key) || q[key] === undefined) continue;
    leftBehind[key] = q[key];
    delete q[key];
  }
  const defaults = defaultQuery(to);
  const filled = filledByDefault.get(leftBehind) ?? new Map<string, string>();
  filledByDefault.set(leftBehind, filled);
  for (const [key, was] of filled) {
    if (keep.includes(key) && defaults[key] === undefined && q[key] !== undefined && JSON.stringify(q[key]) === was)
      delete q[key];
  }
  filled.clear();
  for (const key of keep) {
    const fromDefault = leftBehind[key] === undefined;
    const back = fromDefault ? defaults[key] : leftBehind[key];
    delete leftBehind[key];
    if (back === undefined) continue;
    if (q[key] === undefined) {
      q[key] = back;
      if (fromDefault && had.includes(key)) filled.set(key, JSON.stringify(back));
    } else if (key === 'pageLink' && !had.includes(key) && isObj(q.pageLink) && isObj(back)) {
      // The alarm filter just moved into a page link of its own: the page itself comes back under it.
      q.pageLink = { ...back, ...q.pageLink };
    }
  }
}
