/** tb-alarm-action's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { ACTIONS } from './settings';

/** "acknowledge alarm", "raise alarm"…, or "alarm action" when the message sets the action. */
export function label(s: SavedSettings, t: Translate): string {
  return t(
    `tb-alarm-action.defaultLabel.${(ACTIONS as readonly unknown[]).indexOf(s.operation) !== -1 ? s.operation : 'msg'}`,
  );
}
