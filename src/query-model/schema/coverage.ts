/**
 * Builder coverage: the paths of a query that the builder's controls show. Everything else is "held": kept as it is
 * and shown as such.
 */

import type { EntityFilterType } from '../../protocol/types';
import { ENTITY_FILTER_SCHEMA, visibleFields } from './filters';
import { MODE_SCHEMA } from './modes';
import { isObj, type FieldKind, type FieldSpec, type QueryMode } from './spec';

const CONTAINER_KINDS: ReadonlySet<FieldKind> = new Set<FieldKind>([
  'entityTypes',
  'entityIds',
  'entity',
  'customer',
  'profiles',
  'relationFilters',
  'enumList',
  'strings',
  'user',
  'sortOrder',
]);

function fieldPatterns(prefix: string, f: FieldSpec): string[] {
  const p = prefix ? `${prefix}.${f.name}` : f.name;
  if (f.kind === 'sortOrder') return [p, `${p}.key`, `${p}.key.type`, `${p}.key.key`, `${p}.direction`];
  return CONTAINER_KINDS.has(f.kind) ? [`${p}.**`] : [p];
}

/** The fields a predicate's controls cover: operation and value (fixed or dynamic source), or a group's children. */
function predicateCoverage(p: unknown, path: string, out: string[]): void {
  out.push(`${path}.type`, `${path}.operation`);
  if (!isObj(p)) return;
  if (p.type === 'COMPLEX') {
    out.push(`${path}.predicates`);
    if (Array.isArray(p.predicates))
      p.predicates.forEach((c, i) => predicateCoverage(c, `${path}.predicates.${i}`, out));
    return;
  }
  const v = `${path}.value`;
  out.push(
    `${path}.ignoreCase`,
    v,
    `${v}.defaultValue`,
    `${v}.dynamicValue`,
    `${v}.dynamicValue.sourceType`,
    `${v}.dynamicValue.sourceAttribute`,
  );
}

/**
 * The path patterns (for paths.heldPaths) that the builder's controls cover for this query: the parts of the mode,
 * the entity filter fields shown for its current type, and each key filter's predicate tree. Fields outside them
 * are "held": kept, shown as such (e.g. a predicate's userValue, the dashboard-only fields). `live`: a live
 * subscription, whose page also has the "dynamic" control.
 */
export function builderCoverage(mode: QueryMode, query: unknown, options: { live?: boolean } = {}): string[] {
  const spec = MODE_SCHEMA[mode];
  const q = isObj(query) ? query : {};
  const out: string[] = [];
  for (const part of spec.parts) {
    switch (part) {
      case 'entityFilter': {
        out.push('entityFilter.type');
        const ef = q.entityFilter;
        const type = isObj(ef) ? ef.type : undefined;
        if (typeof type === 'string' && type in ENTITY_FILTER_SCHEMA) {
          for (const f of visibleFields(ENTITY_FILTER_SCHEMA[type as EntityFilterType], ef))
            out.push(...fieldPatterns('entityFilter', f));
        }
        break;
      }
      case 'keyFilters':
        out.push('keyFilters', 'keyFiltersOperation');
        if (Array.isArray(q.keyFilters)) {
          q.keyFilters.forEach((kf, i) => {
            out.push(`keyFilters.${i}.key.type`, `keyFilters.${i}.key.key`, `keyFilters.${i}.valueType`);
            predicateCoverage(isObj(kf) ? kf.predicate : undefined, `keyFilters.${i}.predicate`, out);
          });
        }
        break;
      case 'fields':
        for (const list of spec.fieldLists) out.push(list, `${list}.*.type`, `${list}.*.key`);
        break;
      case 'page':
        for (const f of spec.pageFields)
          if (f.name !== 'dynamic' || options.live) out.push(...fieldPatterns('pageLink', f));
        break;
      case 'alarm':
        for (const f of spec.alarmFilterFields) out.push(...fieldPatterns(spec.alarmFilterAt ?? '', f));
        break;
    }
  }
  return out;
}
