/** tb-entity-query's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import { entitiesLabel } from '../../query-model/summary';
import type { SavedSettings, Translate } from '../../settings/declare';
import { TB_ENTITY_QUERY } from './settings';

/** The query a new node starts with. */
const DEFAULT_QUERY = TB_ENTITY_QUERY.settings.query.default;

/** Are two queries (objects, or their JSON text) the same? */
function sameQuery(a: unknown, b: unknown): boolean {
  try {
    const parse = (q: unknown): unknown => (typeof q === 'string' ? JSON.parse(q) : q);
    return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
  } catch {
    return false;
  }
}

/**
 * Named after the entities its query finds, as the other nodes are after their settings, once its query is set: a
 * new node's query, a query from the message (or one not told in words) keeps "entity query" ("entity keys" for the
 * keys operation).
 */
export function label(s: SavedSettings, t: Translate): string {
  const keys = s.operation === 'keys';
  const set = (s.queryType ?? 'json') === 'json' && !sameQuery(s.query, DEFAULT_QUERY);
  const what = set ? entitiesLabel(s.query) : undefined;
  if (what) return keys ? t('tb-entity-query.defaultLabel.keysOf', { what }) : what;
  return keys ? t('tb-entity-query.defaultLabel.keys') : t('tb-entity-query.defaultLabel.find');
}
