/** tb-attributes' label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { TB_ATTRIBUTES } from './settings';

const OPERATIONS: readonly string[] = TB_ATTRIBUTES.settings.operation.values;

/** "save attributes", "read attributes"…, or "attributes" when the message sets the action. */
export function label(s: SavedSettings, t: Translate): string {
  return t(`tb-attributes.defaultLabel.${OPERATIONS.indexOf(s.operation as string) !== -1 ? s.operation : 'msg'}`);
}
