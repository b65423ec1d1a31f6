/** tb-connection's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_CONNECTION } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // A connection saved before it had retries (0.1.0) read settings.js's tbConnectionRetryCount, else 3: an empty
  // retries says so today. The limits that came with it (wsMessageLimit, retryBudget, maxResponseMB) were fixed or
  // absent in 0.1.0; since 0.2.0 a connection without them reads their defaults, which the migration keeps.
  everySettingSaved(TB_CONNECTION, { retries: '' }),
  {
    to: 3,
    why: 'the timeouts and the waiting between retries are durations (they were seconds: 30 is "30s", 300 "5m")',
    up(settings) {
      for (const name of ['timeout', 'retryBudget', 'reportTimeout'])
        settings[name] = numberToDuration(settings[name], 's');
    },
  },
];
