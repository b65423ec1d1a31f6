/**
 * One line in plain English of what a query asks for, phrased after the server's semantics:
 * name filters are case-insensitive prefixes unless % is used, empty lists mean "any", the alarm status list is two
 * ANDed conditions, a time window wins over startTs/endTs, an alarm count without an entity filter counts every
 * alarm of the tenant (or customer), and so on. A query that can obviously match nothing says so.
 *
 * `summarize` never throws: partial or invalid input gives a best-effort text starting with "incomplete query".
 * Pure: no DOM, no Node-RED, no I/O.
 */

import { parseTemplate, type BindingRef } from '../protocol/bindings';
import { durationParts } from '../protocol/duration';
import type { EntityFilterType } from '../protocol/types';
import {
  ENTITY_FILTER_SCHEMA,
  entityTypeName,
  FILTER_RESULT_TYPES,
  isQueryMode,
  OPERATION_LABELS,
  type QueryMode,
} from './schema';

export interface SummaryOptions {
  /** A display name for an entity id (e.g. from the entity pickers' cache); the id is shortened otherwise. */
  nameOf?: (id: { entityType: string; id: string }) => string | undefined;
  /**
   * `true`: the query runs as a live subscription (adds the hints that only matter there); `false`: it is sent to
   * a REST endpoint (dynamic values read as the REST endpoints do); absent: either.
   */
  live?: boolean;
}

type Obj = Record<string, unknown>;

/** Lists longer than this show the first items and "and N more". */
const LIST_MAX = 3;
/** Key filters beyond this are counted, not shown. */
const KEY_FILTERS_MAX = 3;
/** A quoted value is cut to this length. */
const VALUE_MAX = 32;
/** Hard cap on the whole line. */
const LINE_MAX = 220;

/** Alarm fields with a column that alarm text search looks in; `status` has none. */
const ALARM_SEARCH_COLUMNS = new Set([
  'createdTime',
  'ackTs',
  'ackTime',
  'clearTs',
  'clearTime',
  'assignTime',
  'details',
  'endTs',
  'endTime',
  'startTs',
  'startTime',
  'acknowledged',
  'cleared',
  'type',
  'severity',
  'originatorId',
  'originatorType',
  'assigneeId',
  'originator',
  'originatorLabel',
  'assigneeFirstName',
  'assigneeLastName',
  'assigneeEmail',
  'originatorDisplayName',
  'assignee',
]);

const ALIAS_PHRASES: Readonly<Record<string, string>> = {
  CURRENT_USER: 'the current user',
  CURRENT_TENANT: 'the current tenant',
  CURRENT_CUSTOMER: 'the current customer',
  CURRENT_USER_OWNER: "the current user's owner",
};

const SOURCE_PHRASES: Readonly<Record<string, string>> = {
  CURRENT_TENANT: "the tenant's",
  CURRENT_CUSTOMER: "the customer's",
  CURRENT_USER: "the user's",
  CURRENT_DEVICE: "the device's",
};

/** The select's labels, with "is" / "is not" reading better in a sentence. */
const STRING_PHRASES: Readonly<Record<string, string>> = {
  ...OPERATION_LABELS.STRING,
  EQUAL: 'is',
  NOT_EQUAL: 'is not',
};

/** What the summary found out while it was written. */
class Notes {
  incomplete = false;
  readonly hints: string[] = [];
  constructor(
    readonly options: SummaryOptions,
    readonly mode: QueryMode,
  ) {}
  /** Marks the query incomplete and returns the placeholder "?". */
  missing(): string {
    this.incomplete = true;
    return '?';
  }
  hint(h: string): void {
    if (!this.hints.includes(h)) this.hints.push(h);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small text helpers
// ---------------------------------------------------------------------------------------------------------------

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

function cut(s: string, max = VALUE_MAX): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A binding as the summary names it: `‹msg.payload›`. */
function shownRef(ref: BindingRef): string {
  return `‹${ref.text}›`;
}

/** Is this text (an item of strings(), a result of bound()) a value from the message? */
function isShownRef(s: string): boolean {
  return s.startsWith('‹');
}

/** A value from the message (a leaf that is one placeholder): `‹msg.payload›`, else undefined. */
function bound(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const whole = parseTemplate(v)?.whole;
  return whole ? shownRef(whole) : undefined;
}

/** Text with its placeholders shown as `‹msg.site›` (never the braces). */
function shownText(s: string): string {
  const t = parseTemplate(s);
  if (!t) return s;
  if (t.whole) return shownRef(t.whole);
  return (t.parts ?? []).map((p) => (typeof p === 'string' ? p : shownRef(p))).join('');
}

/** A quoted value; a value from the message is named, not quoted. */
function quote(s: string): string {
  return bound(s) ?? `'${cut(shownText(s))}'`;
}

/** "a", "a or b", "a, b or c", "a, b, c and 2 more". */
function list(items: readonly string[], last = 'or'): string {
  if (items.length === 0) return '';
  if (items.length > LIST_MAX) return `${items.slice(0, LIST_MAX).join(', ')} and ${items.length - LIST_MAX} more`;
  if (items.length === 1) return items[0];
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

/** The strings of a list, placeholders shown; a whole list from the message is one item, `‹msg.list›`. */
function strings(v: unknown): string[] {
  const whole = bound(v);
  if (whole) return [whole];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map(shownText) : [];
}

function posInt(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/** A positive integer, or the name of the binding that gives it: the number, `‹msg.size›`, or 0. */
function posIntOr(v: unknown): number | string {
  return bound(v) ?? posInt(v);
}

/** "2026-01-01 00:00 UTC" (seconds only when not 0). */
function date(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  const iso = d.toISOString();
  const secs = iso.slice(17, 19);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${secs === '00' ? '' : `:${secs}`} UTC`;
}

const UNIT_WORDS = { d: 'day', h: 'hour', min: 'minute', s: 'second' } as const;

/** "24 hours", "7 days", "90 minutes", "1500 ms" (a day reads "24 hours"); with `bare`, a single unit reads "hour". */
function duration(ms: number, bare = false): string {
  let { n, unit } = durationParts(ms);
  if (unit === 'd' && n === 1) [n, unit] = [24, 'h'];
  if (unit === 'ms') return `${ms} ms`;
  const word = UNIT_WORDS[unit];
  return n === 1 ? (bare ? word : `1 ${word}`) : `${n} ${word}s`;
}

// ---------------------------------------------------------------------------------------------------------------
// Entities
// ---------------------------------------------------------------------------------------------------------------

function shortId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}

/** "Campus North", "device 784f394c…", "the current user". */
function entityRef(v: unknown, notes: Notes): string {
  const whole = bound(v);
  if (whole) return whole;
  if (!isObj(v) || !nonEmpty(v.entityType)) return notes.missing();
  const type = shownText(v.entityType);
  if (ALIAS_PHRASES[type]) return ALIAS_PHRASES[type];
  if (!nonEmpty(v.id)) return `${entityTypeName(type, 1)} ${notes.missing()}`;
  const id = bound(v.id);
  if (id) return `${entityTypeName(type, 1)} ${id}`;
  const name = notes.options.nameOf?.({ entityType: type, id: v.id });
  return nonEmpty(name) ? name : `${entityTypeName(type, 1)} ${shortId(v.id)}`;
}

/** Several ids of one type: "Campus North or Campus South", or "any of 3 assets". */
function entityRefs(type: string, ids: string[], notes: Notes): string {
  const names = ids.map((id) => (isShownRef(id) ? id : notes.options.nameOf?.({ entityType: type, id })));
  if (names.every(nonEmpty)) return list(names as string[]);
  return ids.length === 1
    ? `${entityTypeName(type, 1)} ${shortId(ids[0])}`
    : `any of ${ids.length} ${entityTypeName(type, 2)}`;
}

/** The word for an entity type's name column: email for users, title for customers, tenants, dashboards. */
function nameWord(type: string | undefined): string {
  if (type === 'USER') return 'with email';
  if (type === 'CUSTOMER' || type === 'TENANT' || type === 'DASHBOARD') return 'with title';
  return 'named';
}

/**
 * A name filter: ILIKE, so case-insensitive; `x` means the prefix `x%`, and a filter that starts or ends
 * with % is the pattern itself. Undefined when it sets no condition.
 */
function nameCondition(filter: unknown, word: string): string | undefined {
  const whole = bound(filter);
  if (whole) return `${word} ${whole}`;
  if (!nonEmpty(filter)) return undefined;
  const pattern = filter.startsWith('%') || filter.endsWith('%') ? filter : `${filter}%`;
  const lead = pattern.startsWith('%');
  const trail = pattern.endsWith('%') && pattern.length > 1;
  const core = pattern.slice(lead ? 1 : 0, trail ? -1 : undefined);
  if (core === '' || /^%*$/.test(core)) return undefined;
  if (/[%_]/.test(core)) return `${word} like ${quote(pattern)}`;
  if (lead && trail) return `${word} containing ${quote(core)}`;
  if (lead) return `${word} ending with ${quote(core)}`;
  if (trail) return `${word} starting with ${quote(core)}`;
  return `${word} ${quote(core)}`;
}

/**
 * The deviceTypes / assetTypes … list; a type filter falls back to the deprecated singular name as the runtime does
 * (`singular`), a search query has no such field. `none`: the list holds only nulls, which match no type.
 */
function typeNames(f: Obj, plural: string, singular: boolean): { names: string[]; none: boolean } {
  const whole = bound(f[plural]);
  if (whole) return { names: [whole], none: false };
  const list = Array.isArray(f[plural]) ? (f[plural] as unknown[]) : [];
  const names = strings(list);
  if (names.length > 0) return { names, none: false };
  if (list.length > 0 && list.every((x) => x === null)) return { names, none: true };
  const single = f[plural.slice(0, -1)];
  return { names: singular && nonEmpty(single) ? [single] : [], none: false };
}

const PROFILE_LISTS: Readonly<Partial<Record<EntityFilterType, string>>> = {
  assetType: 'assetTypes',
  deviceType: 'deviceTypes',
  edgeType: 'edgeTypes',
  entityViewType: 'entityViewTypes',
  assetSearchQuery: 'assetTypes',
  deviceSearchQuery: 'deviceTypes',
  entityViewSearchQuery: 'entityViewTypes',
  edgeSearchQuery: 'edgeTypes',
};

/** Devices and assets have profiles; entity views and edges have types. */
function profileWord(type: string): string {
  return type === 'DEVICE' || type === 'ASSET' ? 'profile' : 'type';
}

/** "(Contains, up to 2 levels, last level only)" or "". */
function relationDetails(f: Obj, relationTypes: string | undefined): string {
  const parts: string[] = [];
  if (relationTypes) parts.push(relationTypes);
  const level = typeof f.maxLevel === 'number' ? f.maxLevel : 0;
  const boundLevel = bound(f.maxLevel);
  if (boundLevel) parts.push(`up to ${boundLevel} levels`);
  else if (level === 1) parts.push('1 level');
  else if (level >= 2 && level <= 50) parts.push(`up to ${level} levels`);
  else parts.push('any depth');
  if (f.fetchLastLevelOnly === true) parts.push('last level only');
  return ` (${parts.join(', ')})`;
}

/** "<targets> that <root> relates to" (FROM) or "<targets> that relate to <root>" (TO). */
function related(targets: string, root: string, direction: unknown, notes: Notes): string {
  if (direction === 'TO') return `${targets} that relate to ${root}`;
  if (direction !== 'FROM') notes.missing();
  return `${targets} that ${root} relates to`;
}

function relationsQuery(f: Obj, notes: Notes): string {
  let root: string;
  if (f.multiRoot === true) {
    const type = nonEmpty(f.multiRootEntitiesType) ? shownText(f.multiRootEntitiesType) : undefined;
    const ids = strings(f.multiRootEntityIds);
    if (type === undefined) root = `any of ${notes.missing()}`;
    else if (ids.length === 0) {
      notes.hint('no root entities: no match possible');
      root = `no ${entityTypeName(type, 1)}`;
    } else root = entityRefs(type, ids, notes);
  } else {
    root = entityRef(f.rootEntity, notes);
  }
  const filters = Array.isArray(f.filters) ? f.filters.filter(isObj) : [];
  let targets = 'entities';
  let relationTypes: string | undefined;
  if (filters.length > 0) {
    const types = new Set<string>();
    let anyType = false;
    for (const r of filters) {
      const ts = strings(r.entityTypes);
      if (ts.length === 0) anyType = true;
      ts.forEach((t) => types.add(t));
    }
    if (!anyType) targets = list([...types].map((t) => entityTypeName(t, 2)));
    if (filters.every((r) => nonEmpty(r.relationType))) {
      relationTypes = list(
        filters.map((r) => (r.negate === true ? `not ${r.relationType}` : (r.relationType as string))),
      );
    }
  }
  if (f.negate === true && filters.length > 0) {
    const except = `${targets}${relationTypes ? ` by ${relationTypes}` : ''}`;
    return `${related('entities', root, f.direction, notes)}${relationDetails(f, undefined)} except ${except}`;
  }
  return `${related(targets, root, f.direction, notes)}${relationDetails(f, relationTypes)}`;
}

/** The entities an entity filter selects, e.g. "devices of profile thermostat named starting with 'T'". */
function entities(filter: unknown, notes: Notes): string {
  if (!isObj(filter)) return `${notes.missing()} (no entity filter)`;
  const type = filter.type;
  if (typeof type !== 'string' || !(type in ENTITY_FILTER_SCHEMA)) {
    notes.missing();
    return typeof type === 'string'
      ? `entities of the unknown filter type ${quote(type)}`
      : 'entities of a filter without a type';
  }
  const f = filter;
  const entityType = nonEmpty(f.entityType) ? shownText(f.entityType) : undefined;
  switch (type as EntityFilterType) {
    case 'entityType':
      return entityType ? `all ${entityTypeName(entityType)}` : `all entities of type ${notes.missing()}`;
    case 'entityName': {
      const noun = entityType ? entityTypeName(entityType) : `entities of type ${notes.missing()}`;
      if (typeof f.entityNameFilter !== 'string') notes.missing();
      const cond = nameCondition(f.entityNameFilter, nameWord(entityType));
      return cond ? `${noun} ${cond}` : `all ${noun}`;
    }
    case 'entityList': {
      const noun = entityType ? entityTypeName(entityType) : `entities of type ${notes.missing()}`;
      const whole = bound(f.entityList);
      if (whole) return `${noun} ${whole}`;
      const ids = strings(f.entityList);
      if (!Array.isArray(f.entityList)) return `${noun} from a list ${notes.missing()}`;
      if (ids.length === 0) {
        notes.hint('no match possible');
        return `${noun} from an empty list`;
      }
      if (!entityType) return `${ids.length} chosen ${noun}`;
      const names = ids.map((id) => (isShownRef(id) ? id : notes.options.nameOf?.({ entityType, id })));
      if (names.every(nonEmpty)) return `${entityTypeName(entityType, ids.length)} ${list(names as string[])}`;
      return `${ids.length} chosen ${entityTypeName(entityType, ids.length)}`;
    }
    case 'singleEntity': {
      const e = f.singleEntity;
      if (isObj(e) && nonEmpty(e.entityType) && !ALIAS_PHRASES[e.entityType] && nonEmpty(e.id)) {
        const name = notes.options.nameOf?.({ entityType: e.entityType, id: e.id });
        if (nonEmpty(name)) return `${entityTypeName(e.entityType, 1)} ${name}`;
      }
      return entityRef(e, notes);
    }
    case 'apiUsageState':
      return f.customerId != null
        ? 'the API usage state ' +
            `of ${entityRef(typeof f.customerId === 'string' ? { entityType: 'CUSTOMER', id: f.customerId } : { entityType: 'CUSTOMER', ...(f.customerId as Obj) }, notes)}`
        : 'the API usage state of the tenant';
    case 'relationsQuery':
      return relationsQuery(f, notes);
    default: {
      // The type filters and the *SearchQuery filters.
      const resultType = FILTER_RESULT_TYPES[type as EntityFilterType]!;
      const plural = PROFILE_LISTS[type as EntityFilterType]!;
      const search = type.endsWith('SearchQuery');
      const { names, none } = typeNames(f, plural, !search);
      const noun = entityTypeName(resultType);
      if (none) notes.hint('a null type matches nothing: no match possible');
      if (search) {
        const singular = plural.slice(0, -1);
        if (f[singular] != null && f[singular] !== '') notes.hint(`${singular} is ignored here: use ${plural}`);
        const what =
          names.length > 0
            ? `${noun} of ${profileWord(resultType)} ${list(names)}`
            : none
              ? `${noun} of no ${profileWord(resultType)}`
              : noun;
        const rel = nonEmpty(f.relationType) ? f.relationType : undefined;
        return `${related(what, entityRef(f.rootEntity, notes), f.direction, notes)}${relationDetails(f, rel)}`;
      }
      const what =
        `${noun} ` +
        `of ${
          none
            ? `no ${profileWord(resultType)}`
            : `${profileWord(resultType)} ${names.length > 0 ? list(names) : notes.missing()}`
        }`;
      const cond = nameCondition(f[`${plural.slice(0, -5)}NameFilter`], 'named');
      return cond ? `${what} ${cond}` : what;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Key filters
// ---------------------------------------------------------------------------------------------------------------

/**
 * The server's IN list split (`StringUtils.splitByCommaWithoutQuotes`): trim, split on commas, strip quotes when every
 * item has the same ones.
 */
function splitIn(v: string): string[] {
  const items = v.trim().split(/\s*,\s*/);
  for (const q of ["'", '"']) {
    if (items.every((s) => s.length >= 2 && s.startsWith(q) && s.endsWith(q))) return items.map((s) => s.slice(1, -1));
  }
  return items;
}

interface ValueText {
  text: string;
  /** The plain (non-dynamic) value, when that is what applies. */
  plain?: unknown;
}

/**
 * The value a predicate compares with (`FilterPredicateValue#getValue`): userValue, else the dynamic attribute, else
 * defaultValue; a resolvedValue sent with the dynamic value stands in for the attribute as each path does:
 * REST find uses it as is, a live subscription until the attribute is read. REST counts and alarm queries read no
 * dynamic value at all, and no path reads CURRENT_DEVICE.
 */
function predicateValue(v: unknown, showValue: (x: unknown) => string, notes: Notes): ValueText {
  // A value from the message is named by its binding.
  const show = (x: unknown) => bound(x) ?? showValue(typeof x === 'string' ? shownText(x) : x);
  if (!isObj(v)) {
    if (v === undefined || v === null) return { text: notes.missing() };
    return { text: show(v), plain: v };
  }
  if (v.userValue != null) return { text: show(v.userValue), plain: v.userValue };
  const dyn = v.dynamicValue;
  if (isObj(dyn) && nonEmpty(dyn.sourceType)) {
    const resolved = dyn.resolvedValue != null ? dyn.resolvedValue : undefined;
    const fallback = resolved ?? (v.defaultValue != null ? v.defaultValue : undefined);
    const live = notes.options.live;
    const plain = (value: unknown): ValueText =>
      value === undefined ? { text: notes.missing() } : { text: show(value), plain: value };
    if (dyn.sourceType === 'CURRENT_DEVICE') {
      notes.hint('the device attribute is never read here');
      return plain(fallback);
    }
    if (live === false && notes.mode !== 'entityData') {
      notes.hint('REST counts and alarm queries do not read dynamic values');
      return plain(fallback);
    }
    if (live === false && resolved !== undefined)
      return { text: `${show(resolved)} (given resolvedValue)`, plain: resolved };
    const src = SOURCE_PHRASES[dyn.sourceType] ?? `the ${dyn.sourceType}`;
    const attr = nonEmpty(dyn.sourceAttribute) ? dyn.sourceAttribute : notes.missing();
    const otherwise = fallback !== undefined ? ` (else ${show(fallback)})` : '';
    return { text: `${src} ${attr}${otherwise}` };
  }
  if (v.defaultValue == null) return { text: notes.missing() };
  return { text: show(v.defaultValue), plain: v.defaultValue };
}

function predicateText(key: string, p: unknown, dateTime: boolean, depth: number, notes: Notes): string {
  if (!isObj(p) || depth > 16) return `${key} ${notes.missing()}`;
  switch (p.type) {
    case 'STRING': {
      const op = typeof p.operation === 'string' ? STRING_PHRASES[p.operation] : undefined;
      const value = predicateValue(p.value, (x) => quote(String(x)), notes);
      const anyCase = p.ignoreCase === true ? ' (any case)' : '';
      if (value.plain === '') return `${key} (no condition: empty value)`;
      if (op === undefined) return `${key} ${notes.missing()} ${value.text}`;
      if (
        (p.operation === 'IN' || p.operation === 'NOT_IN') &&
        typeof value.plain === 'string' &&
        !bound(value.plain)
      ) {
        const raw = p.ignoreCase === true ? value.plain.toLowerCase() : value.plain;
        return `${key} ${op} ${list(splitIn(raw).map(quote), p.operation === 'IN' ? 'or' : 'and')}${anyCase}`;
      }
      return `${key} ${op} ${value.text}${anyCase}`;
    }
    case 'NUMERIC': {
      const op = typeof p.operation === 'string' ? OPERATION_LABELS.NUMERIC[p.operation] : undefined;
      const value = predicateValue(p.value, (x) => (dateTime && typeof x === 'number' ? date(x) : String(x)), notes);
      return `${key} ${op ?? notes.missing()} ${value.text}`;
    }
    case 'BOOLEAN': {
      const op = p.operation === 'EQUAL' ? 'is' : p.operation === 'NOT_EQUAL' ? 'is not' : notes.missing();
      return `${key} ${op} ${predicateValue(p.value, String, notes).text}`;
    }
    case 'COMPLEX': {
      const join = p.operation === 'OR' ? ' or ' : p.operation === 'AND' ? ' and ' : ` ${notes.missing()} `;
      if (!Array.isArray(p.predicates)) return `${key} (group ${notes.missing()})`;
      const children = p.predicates;
      // The server builds no condition from an empty group: it matches every entity.
      if (children.length === 0) return `${key} (no condition: empty group)`;
      const shown = children.slice(0, LIST_MAX).map((c) => predicateText(key, c, dateTime, depth + 1, notes));
      const more = children.length > LIST_MAX ? `${join}${children.length - LIST_MAX} more` : '';
      return `(${shown.join(join)}${more})`;
    }
    default:
      return `${key} ${notes.missing()}`;
  }
}

function keyFilterText(kf: unknown, notes: Notes): string {
  if (!isObj(kf)) return notes.missing();
  const key = isObj(kf.key) && nonEmpty(kf.key.key) ? kf.key.key : notes.missing();
  const text = predicateText(key, kf.predicate, kf.valueType === 'DATE_TIME', 0, notes);
  return text;
}

/** " where a > 1 and b is 'x'" or "". */
function keyFiltersText(q: Obj, notes: Notes): string {
  const kfs = Array.isArray(q.keyFilters) ? q.keyFilters : [];
  if (kfs.length === 0) return '';
  const join = q.keyFiltersOperation === 'OR' ? ' or ' : ' and ';
  const shown = kfs.slice(0, KEY_FILTERS_MAX).map((kf) => {
    const t = keyFilterText(kf, notes);
    // A lone COMPLEX filter needs no parentheses.
    return kfs.length === 1 && t.startsWith('(') && t.endsWith(')') ? t.slice(1, -1) : t;
  });
  const more = kfs.length > KEY_FILTERS_MAX ? `${join}${kfs.length - KEY_FILTERS_MAX} more conditions` : '';
  return ` where ${shown.join(join)}${more}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Page, sort, text search
// ---------------------------------------------------------------------------------------------------------------

function sortText(pageLink: Obj, alarm: boolean, notes: Notes): string | undefined {
  const so = pageLink.sortOrder;
  if (!isObj(so)) return undefined;
  const key = isObj(so.key) ? so.key : {};
  const name = nonEmpty(key.key) ? shownText(key.key) : notes.missing();
  const desc = so.direction === 'DESC';
  if (name === 'createdTime' && (!alarm || key.type === 'ALARM_FIELD' || key.type === 'ENTITY_FIELD')) {
    const whose = alarm && key.type !== 'ALARM_FIELD' ? 'entities ' : '';
    return `${whose}${desc ? 'newest' : 'oldest'} first`;
  }
  const dir = desc ? ' descending' : '';
  if (alarm && key.type !== 'ALARM_FIELD') return `sorted by entity ${name}${dir}`;
  if (alarm && name === 'severity') return `sorted by severity${dir} (alphabetically)`;
  return `sorted by ${name}${dir}`;
}

function pageText(pageLink: Obj): string {
  const size = posIntOr(pageLink.pageSize) || 100;
  const page = posIntOr(pageLink.page);
  if (typeof page === 'string') return `page ${page} (counted from 0; ${size} per page)`;
  return page === 0 ? `first ${size}` : `page ${page + 1} (${size} per page)`;
}

function textSearchText(q: Obj, pageLink: Obj, alarm: boolean): string | undefined {
  const ts = pageLink.textSearch;
  if (!nonEmpty(ts)) return undefined;
  const keys = (v: unknown) => (Array.isArray(v) ? v.filter(isObj) : []);
  const searchable = alarm
    ? keys(q.alarmFields).some((k) => typeof k.key === 'string' && ALARM_SEARCH_COLUMNS.has(k.key))
    : keys(q.entityFields).length + keys(q.latestValues).length > 0;
  if (!searchable) return `text search ${quote(ts)} ignored (no ${alarm ? 'alarm ' : ''}fields to search)`;
  return `with ${quote(ts)} in the listed fields`;
}

// ---------------------------------------------------------------------------------------------------------------
// Alarms
// ---------------------------------------------------------------------------------------------------------------

/**
 * Does a status list select alarms of any status, as the summary reads it: none or ANY, or values that cancel out
 * (active and cleared, acknowledged and unacknowledged, or neither of a pair). The builder's "any" box follows it.
 */
export function selectsAnyStatus(v: unknown): boolean {
  return statusText(v) === undefined;
}

/** The alarm status list: two independent conditions, ANDed; ANY or an empty list means none. */
function statusText(v: unknown): string | undefined {
  const s = strings(v);
  if (s.length === 0 || s.includes('ANY')) return undefined;
  const parts: string[] = [];
  const active = s.includes('ACTIVE');
  const cleared = s.includes('CLEARED');
  if (active !== cleared) parts.push(active ? 'active' : 'cleared');
  const ack = s.includes('ACK');
  const unack = s.includes('UNACK');
  if (ack !== unack) parts.push(ack ? 'acknowledged' : 'unacknowledged');
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * "active alarms of any severity", "alarms of type X, CRITICAL or MAJOR, active," (the list form ends with a comma).
 */
function alarmText(f: Obj, notes: Notes): string {
  const status = statusText(f.statusList);
  const sevs = strings(f.severityList);
  const sev = sevs.length > 0 ? list(sevs) : undefined;
  const types = strings(f.typeList);
  let assignee: string | undefined;
  if (f.assigneeId != null) {
    const a = f.assigneeId;
    assignee = `assigned to ${entityRef(typeof a === 'string' ? { entityType: 'USER', id: a } : { entityType: 'USER', ...(isObj(a) ? a : {}) }, notes)}`;
  }
  // Statuses from the message: named as they come (the ANDed reading needs the values).
  const statuses = strings(f.statusList);
  const fromMessage = statuses.some(isShownRef);
  if (types.length > 0 || fromMessage) {
    const statusPart = fromMessage ? `status ${list(statuses)}` : (status ?? 'any status');
    const parts =
      types.length > 0
        ? [`alarms of type ${list(types)}`, sev ?? 'any severity', statusPart]
        : [`alarms of ${statusPart}`, sev ?? 'any severity'];
    if (assignee) parts.push(assignee);
    return `${parts.join(', ')},`;
  }
  let head: string;
  if (status && sev) head = `${status} ${sev} alarms`;
  else if (status) head = `${status} alarms of any severity`;
  else if (sev) head = `${sev} alarms of any status`;
  else head = 'alarms of any status and severity';
  return assignee ? `${head} ${assignee}` : head;
}

/** The alarm time: a window > 0 wins (find: from startTs when given, else ending now; count: always ending now). */
function timeText(f: Obj, count: boolean, notes: Notes): string {
  const boundWindow = bound(f.timeWindow);
  if (boundWindow) return `last ${boundWindow} ms`;
  const [boundStart, boundEnd] = [bound(f.startTs), bound(f.endTs)];
  if (boundStart || boundEnd) {
    const from = boundStart ?? (posInt(f.startTs) > 0 ? date(posInt(f.startTs)) : undefined);
    const to = boundEnd ?? (posInt(f.endTs) > 0 ? date(posInt(f.endTs)) : undefined);
    return from && to ? `from ${from} to ${to}` : from ? `since ${from}` : `until ${to}`;
  }
  const window = posInt(f.timeWindow);
  const start = posInt(f.startTs);
  const end = posInt(f.endTs);
  if (window > 0) {
    if (start > 0 && !count) return `from ${date(start)} for ${duration(window)}`;
    if (start > 0) notes.hint('startTs ignored by counts');
    return `last ${duration(window, true)}`;
  }
  if (start > 0 && end > 0) {
    if (start > end) notes.hint('start after end: no match possible');
    return `from ${date(start)} to ${date(end)}`;
  }
  if (start > 0) return `since ${date(start)}`;
  if (end > 0) return `until ${date(end)}`;
  return 'any time';
}

// ---------------------------------------------------------------------------------------------------------------
// Modes
// ---------------------------------------------------------------------------------------------------------------

function entityDataText(q: Obj, notes: Notes): string {
  const pageLink = isObj(q.pageLink) ? q.pageLink : {};
  const parts = [entities(q.entityFilter, notes) + keyFiltersText(q, notes)];
  const sort = sortText(pageLink, false, notes);
  if (sort) parts.push(sort);
  parts.push(pageText(pageLink));
  const ts = textSearchText(q, pageLink, false);
  if (ts) parts.push(ts);
  return parts.join(', ');
}

function entityCountText(q: Obj, notes: Notes): string {
  return `count of ${entities(q.entityFilter, notes)}${keyFiltersText(q, notes)}`;
}

function alarmDataText(q: Obj, notes: Notes): string {
  const pageLink = isObj(q.pageLink) ? q.pageLink : {};
  const alarms = alarmText(pageLink, notes);
  const propagated = pageLink.searchPropagatedAlarms === true ? ' (incl. propagated alarms)' : '';
  const parts = [`${alarms} on ${entities(q.entityFilter, notes)}${keyFiltersText(q, notes)}${propagated}`];
  parts.push(timeText(pageLink, false, notes));
  const sort = sortText(pageLink, true, notes);
  if (sort) parts.push(sort);
  parts.push(pageText(pageLink));
  const ts = textSearchText(q, pageLink, true);
  if (ts) parts.push(ts);
  if (notes.options.live) liveAlarmHint(pageLink, notes);
  return parts.join(', ');
}

/**
 * What a live subscription (ALARM_DATA) does with the query's times (TbAlarmDataSubCtx: the live filter and the
 * refresh timer use only timeWindow). No window at all is fine: tb-subscribe sends one reaching back to the epoch
 * (withLiveWindow), so "any time" holds and new alarms stream. startTs/endTs without a
 * window are sent as written: timeWindow 0 passes no alarm event. A fixed range (startTs + timeWindow)
 * re-fetches that range only, so alarms raised after its end never show.
 */
function liveAlarmHint(pageLink: Obj, notes: Notes): void {
  const window = posInt(pageLink.timeWindow);
  const fixed = posInt(pageLink.startTs) > 0 || posInt(pageLink.endTs) > 0;
  if (!(window > 0) && fixed) notes.hint('live: with startTs/endTs but no timeWindow, new alarms never appear');
  else if (window > 0 && posInt(pageLink.startTs) > 0) notes.hint('live: no new alarms once that range has ended');
}

function alarmCountText(q: Obj, notes: Notes): string {
  // A data query's pageLink filter fields count when the top level does not set them (as prepareAlarmCountQuery).
  const f: Obj = { ...(isObj(q.pageLink) ? q.pageLink : {}) };
  for (const k of Object.keys(q)) if (q[k] != null) f[k] = q[k];
  const alarms = alarmText(f, notes);
  let on: string;
  if (q.entityFilter == null) {
    on = 'any entity (whole tenant or customer)';
    if (Array.isArray(q.keyFilters) && q.keyFilters.length > 0)
      notes.hint('key filters ignored without an entity filter');
  } else {
    on = entities(q.entityFilter, notes) + keyFiltersText(q, notes);
    if (f.searchPropagatedAlarms === true) notes.hint('an alarm may count more than once');
  }
  const propagated = f.searchPropagatedAlarms === true ? ' (incl. propagated alarms)' : '';
  return `count of ${alarms} on ${on}${propagated}, ${timeText(f, true, notes)}`;
}

/**
 * One line in plain English of what a query of this mode asks for, e.g. "devices of profile thermostat where
 * temperature > 25, sorted by name, first 100". Never throws: invalid or partial input gives a best-effort text that
 * starts with "incomplete query".
 */
export function summarize(mode: QueryMode, query: unknown, options: SummaryOptions = {}): string {
  try {
    let q = query;
    if (typeof q === 'string') {
      if (q.trim() === '') return 'incomplete query: empty';
      try {
        q = JSON.parse(q);
      } catch {
        return 'incomplete query: not valid JSON';
      }
    }
    if (!isObj(q)) return 'incomplete query: not a query object';
    if (!isQueryMode(mode)) return 'incomplete query: unknown query mode';
    const notes = new Notes(isObj(options) ? options : {}, mode);
    if (q.entityFilter == null && mode !== 'alarmCount') return 'incomplete query: no entity filter';
    let text: string;
    switch (mode) {
      case 'entityData':
        text = entityDataText(q, notes);
        break;
      case 'entityCount':
        text = entityCountText(q, notes);
        break;
      case 'alarmData':
        text = alarmDataText(q, notes);
        break;
      default:
        text = alarmCountText(q, notes);
    }
    if (notes.hints.length > 0) text += ` (${notes.hints.join('; ')})`;
    if (notes.incomplete) text = `incomplete query: ${text}`;
    return cut(text, LINE_MAX);
  } catch {
    return 'incomplete query';
  }
}

/** How long a node's label made from its query may be. */
const LABEL_MAX = 40;

/**
 * The entities a query selects, short enough for a node's label ("devices of profile thermostat", "all assets"):
 * the entity filter only, without conditions. Undefined when the query (an object, or its JSON text) is not one
 * whose entities can be told, or names them by placeholders.
 */
export function entitiesLabel(query: unknown): string | undefined {
  try {
    const q: unknown = typeof query === 'string' ? JSON.parse(query) : query;
    if (!isObj(q) || !isObj(q.entityFilter)) return undefined;
    const notes = new Notes({}, 'entityData');
    const text = entities(q.entityFilter, notes);
    return notes.incomplete || text.includes('‹') ? undefined : cut(text, LABEL_MAX);
  } catch {
    return undefined;
  }
}
