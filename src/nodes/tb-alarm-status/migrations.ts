/** tb-alarm-status's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_ALARM_STATUS } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read every missing setting as its default does: an entity type of DEVICE, no entity (the messages
  // give them), any alarm type and any severity.
  everySettingSaved(TB_ALARM_STATUS),
];
