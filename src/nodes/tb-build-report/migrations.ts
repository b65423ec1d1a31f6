/** tb-build-report's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_BUILD_REPORT } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Every setting existed in 0.1.0 and its dialog saved them all; a node written by hand without one read these
  // differently from their defaults: a missing parseNumbers as off (only true or "true" turned it on), and missing
  // filters as none, which an empty filters says for every filters type ('{}' would name a message property "{}").
  everySettingSaved(TB_BUILD_REPORT, { parseNumbers: false, filters: '' }),
];
