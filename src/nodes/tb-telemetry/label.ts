/** tb-telemetry's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { TB_TELEMETRY } from './settings';

const OPERATIONS: readonly string[] = TB_TELEMETRY.settings.operation.values;

/** "save telemetry", "telemetry history"…, or "telemetry" when the message sets the action. */
export function label(s: SavedSettings, t: Translate): string {
  return t(`tb-telemetry.defaultLabel.${OPERATIONS.indexOf(s.operation as string) !== -1 ? s.operation : 'msg'}`);
}
