/** tb-build-report's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration, spanToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_BUILD_REPORT } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Every setting existed in 0.1.0 and its dialog saved them all; a node written by hand without one read these
  // differently from their defaults: a missing parseNumbers as off (only true or "true" turned it on), and missing
  // filters as none, which an empty filters says for every filters type ('{}' would name a message property "{}").
  everySettingSaved(TB_BUILD_REPORT, { parseNumbers: false, filters: '' }),
  {
    to: 3,
    why:
      'the range "the last" is one duration ("24h"), no longer a number and a unit; the maximum wait is a duration ' +
      '(it was seconds: 120 becomes "2m")',
    up(settings) {
      settings.last = spanToDuration(settings.last, settings.lastUnit);
      settings.lastUnit = '';
      settings.maxWait = numberToDuration(settings.maxWait, 's');
    },
  },
];
