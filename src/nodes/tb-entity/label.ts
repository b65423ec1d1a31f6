/** tb-entity's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** "entity: create or update device" for a fixed operation, else "entity". */
export function label(s: SavedSettings, t: Translate): string {
  const op = typeof s.operation === 'string' && s.operation !== '' ? s.operation : 'upsert';
  const type = typeof s.entityType === 'string' && s.entityType !== '' ? s.entityType : 'DEVICE';
  if (op === 'msg') return t('tb-entity.defaultLabel.plain');
  return t('tb-entity.defaultLabel.op', {
    operation: t(`tb-entity.operation.${op}`),
    type: t(`tb-entity.entityType.${type}`),
  });
}
