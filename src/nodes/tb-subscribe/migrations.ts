/** tb-subscribe's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration, spanToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_SUBSCRIBE } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing query as an empty one (a problem for a JSON query, msg.payload for a msg one), where
  // today's default is the dialog's starting query; every other missing setting read as its default does.
  everySettingSaved(TB_SUBSCRIBE, { query: '' }),
  {
    to: 3,
    why:
      'the series window and the history range are one duration each ("1h"), no longer a number and a unit; the ' +
      'history interval is a duration too (a number of ms before; 0, every stored value, is empty now)',
    up(settings) {
      settings.tsWindow = spanToDuration(settings.tsWindow ?? 1, settings.tsWindowUnit);
      settings.historyRange = spanToDuration(settings.historyRange ?? 24, settings.historyRangeUnit);
      settings.tsWindowUnit = '';
      settings.historyRangeUnit = '';
      const interval = settings.historyInterval;
      settings.historyInterval =
        interval === 0 || interval === '0' || interval === undefined ? '' : numberToDuration(interval, 'ms');
    },
  },
];
