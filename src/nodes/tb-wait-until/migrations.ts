/** tb-wait-until's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_WAIT_UNTIL } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing timeout as "msg.timeout, else 30 s", which an empty timeout says today.
  everySettingSaved(TB_WAIT_UNTIL, { timeout: '' }),
  {
    to: 3,
    why: 'a timeout saved as a number of ms is saved with its unit (60000 becomes "1m"), as the dialog shows it',
    up(settings) {
      settings.timeout = numberToDuration(settings.timeout, 'ms');
    },
  },
];
