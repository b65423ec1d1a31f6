/** tb-rule-engine's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** "rule engine, queue HighPriority" for a fixed queue, else "rule engine". */
export function label(s: SavedSettings, t: Translate): string {
  const queue = typeof s.queue === 'string' ? s.queue.trim() : '';
  return queue && !queue.includes('{{')
    ? t('tb-rule-engine.defaultLabel.queue', { queue })
    : t('tb-rule-engine.defaultLabel.plain');
}
