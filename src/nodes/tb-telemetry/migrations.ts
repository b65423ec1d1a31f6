/** tb-telemetry's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_TELEMETRY } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing agg, order or maxItems as a setting left empty: msg.agg, msg.order, msg.maxItems, else
  // NONE, ASC, 100000 (the dialog's defaults, which a message cannot change).
  everySettingSaved(TB_TELEMETRY, { agg: '', order: '', maxItems: '' }),
  {
    to: 3,
    why: 'durations are saved with their unit: the TTL was seconds (86400 becomes "1d"), Last and Interval ms',
    up(settings) {
      settings.ttl = numberToDuration(settings.ttl, 's');
      settings.last = numberToDuration(settings.last, 'ms');
      settings.interval = numberToDuration(settings.interval, 'ms');
    },
  },
];
