/** tb-notify's migrations: settings saved by an older version, brought up to this one. */
import type { Migration } from '../../settings/migrate';

// Version 1 is the first: nothing to bring up yet.
export const MIGRATIONS: readonly Migration[] = [];
