/** Entity resolution for the alarm subscriptions, with the same engine (and cache keys) as the REST alarm query. */
import { validateCountQuery, type MatchResult, type Row } from '../../query/entities';
import type { EntityCountQuery, EntityFilter, SortOrder } from '../../query/parse';
import { resolveDynamic } from '../../query/predicates';
import type { Caller } from '../../types';
import type { WsContext } from '../context';

export const CREATED_ASC: SortOrder = { key: { type: 'ENTITY_FIELD', key: 'createdTime' }, direction: 'ASC' };

/** The entities an alarm query looks at (first `cap` of them) and how many matched in total. */
export function matchEntities(
  ctx: WsContext,
  caller: Caller,
  q: EntityCountQuery,
  sort: SortOrder | null,
  cap: number,
): { rows: Row[]; total: number; mode: MatchResult['mode'] } {
  const keyFilters = q.keyFilters.map((kf) => ({
    ...kf,
    predicate: resolveDynamic(kf.predicate, ctx.data, caller, 'ws'),
  }));
  validateCountQuery(q);
  const alarmSort = sort && sort.key.type === 'ALARM_FIELD' ? sort : null;
  const { rows, mode } = ctx.entityQuery.match(caller, {
    filter: q.entityFilter as EntityFilter,
    keyFilters,
    op: q.keyFiltersOperation,
    sort: alarmSort || !sort ? CREATED_ASC : sort,
    textSearch: null,
    searchKeys: [],
  });
  return { rows: rows.length > cap ? rows.slice(0, cap) : rows, total: rows.length, mode };
}
