/** tb-rpc's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** "RPC reboot" for a fixed method, else "device RPC". */
export function label(s: SavedSettings, t: Translate): string {
  return s.methodType === 'str' && s.method
    ? t('tb-rpc.defaultLabel.method', { method: s.method })
    : t('tb-rpc.defaultLabel.rpc');
}
