/** tb-alarm-status' label without a name: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

export function label(_s: SavedSettings, t: Translate): string {
  return t('tb-alarm-status.defaultLabel');
}
