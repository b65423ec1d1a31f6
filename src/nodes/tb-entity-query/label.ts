/** tb-entity-query's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** "entity query", or "entity keys" for the keys operation. */
export function label(s: SavedSettings, t: Translate): string {
  return s.operation === 'keys' ? t('tb-entity-query.defaultLabel.keys') : t('tb-entity-query.defaultLabel.find');
}
