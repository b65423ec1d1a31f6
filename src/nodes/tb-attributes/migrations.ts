/** tb-attributes' migrations of older saved settings (see src/settings/migrate.ts). */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_ATTRIBUTES } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read every missing setting as its default is now.
  everySettingSaved(TB_ATTRIBUTES),
];
