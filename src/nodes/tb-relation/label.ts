/** tb-relation's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { TB_RELATION } from './settings';

const OPERATIONS: readonly string[] = TB_RELATION.settings.operation.values;

/** "create relation", "find related"…, or "relation" when the message sets the action. */
export function label(s: SavedSettings, t: Translate): string {
  return t(`tb-relation.defaultLabel.${OPERATIONS.indexOf(s.operation as string) !== -1 ? s.operation : 'msg'}`);
}
