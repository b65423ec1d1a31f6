/** tb-subscribe's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_SUBSCRIBE } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing query as an empty one (a problem for a JSON query, msg.payload for a msg one), where
  // today's default is the dialog's starting query; every other missing setting read as its default does.
  everySettingSaved(TB_SUBSCRIBE, { query: '' }),
];
