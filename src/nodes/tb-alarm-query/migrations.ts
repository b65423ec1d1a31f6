/** tb-alarm-query's migrations: settings saved by an older version, brought up to date when a flow loads. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_ALARM_QUERY } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing query as an empty one (no query: every message refused, the node's status red), not
  // as the query a new node's dialog starts with; every other setting it lacked read as its default does today.
  everySettingSaved(TB_ALARM_QUERY, { query: '' }),
];
