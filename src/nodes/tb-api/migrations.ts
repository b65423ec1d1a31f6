/** tb-api's migrations: none yet (version 1 is the first). */
import type { Migration } from '../../settings/migrate';

export const MIGRATIONS: readonly Migration[] = [];
