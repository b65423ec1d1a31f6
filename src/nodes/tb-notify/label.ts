/** tb-notify's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { NOTIFY_ACTIONS } from './settings';

/** "notify", "mark notification read", "mark all notifications read". */
export function label(s: SavedSettings, t: Translate): string {
  const action = (NOTIFY_ACTIONS as readonly unknown[]).indexOf(s.action) !== -1 ? String(s.action) : 'send';
  return t(`tb-notify.defaultLabel.${action}`);
}
