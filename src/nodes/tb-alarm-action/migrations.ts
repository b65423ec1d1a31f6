/** tb-alarm-action's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_ALARM_ACTION } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 (0.2.0, which brought the node) saved every setting there is, and read each missing one as its default
  // does: acknowledge, every value from the message, DEVICE, flat, no propagation, not strict.
  everySettingSaved(TB_ALARM_ACTION),
];
