/** tb-rpc's migrations: settings saved by an older version, brought up to this one. */
import { numberToDuration } from '../../protocol/duration';
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_RPC } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing mode, timeout or waitFor as a setting left empty: msg.mode, msg.timeout, msg.waitFor,
  // else twoway, 10 s, final (the dialog's defaults, which a message cannot change).
  everySettingSaved(TB_RPC, { mode: '', timeout: '', waitFor: '' }),
  {
    to: 3,
    why: 'the timeout and the expiration are saved with their unit (10000 ms becomes "10s"), as the dialog shows them',
    up(settings) {
      settings.timeout = numberToDuration(settings.timeout, 'ms');
      settings.expiration = numberToDuration(settings.expiration, 'ms');
    },
  },
];
