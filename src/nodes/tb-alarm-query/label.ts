/** tb-alarm-query's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** "alarm query", or "count alarms" for the count operation. */
export function label(s: SavedSettings, t: Translate): string {
  return s.operation === 'count' ? t('tb-alarm-query.defaultLabel.count') : t('tb-alarm-query.defaultLabel.find');
}
