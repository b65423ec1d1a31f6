/** tb-telemetry's migrations: settings saved by an older version, brought up to this one. */
import { everySettingSaved, type Migration } from '../../settings/migrate';
import { TB_TELEMETRY } from './settings';

export const MIGRATIONS: readonly Migration[] = [
  // Version 1 read a missing agg, order or maxItems as a setting left empty: msg.agg, msg.order, msg.maxItems, else
  // NONE, ASC, 100000 (the dialog's defaults, which a message cannot change).
  everySettingSaved(TB_TELEMETRY, { agg: '', order: '', maxItems: '' }),
];
