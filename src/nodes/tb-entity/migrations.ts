/** tb-entity's migrations: settings saved by an older version, brought up to this one (none yet). */
import type { Migration } from '../../settings/migrate';

export const MIGRATIONS: readonly Migration[] = [];
