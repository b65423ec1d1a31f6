/** tb-relation's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_RELATION } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 reads every missing setting as its default is now.
  everySettingSaved(TB_RELATION),
];
