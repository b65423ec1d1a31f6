/** tb-rpc's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_RPC } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing mode, timeout or waitFor as a setting left empty: msg.mode, msg.timeout, msg.waitFor,
  // else twoway, 10 s, final (the dialog's defaults, which a message cannot change).
  everySettingSaved(TB_RPC, { mode: '', timeout: '', waitFor: '' }),
];
