/** tb-subscribe's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { SUBSCRIBE_KINDS, TB_SUBSCRIBE, type SubscribeKind } from './settings';

/** The kind watched, as saved (its default when it is none of them). */
export function savedKind(s: SavedSettings): SubscribeKind {
  return (SUBSCRIBE_KINDS as readonly unknown[]).indexOf(s.kind) !== -1
    ? (s.kind as SubscribeKind)
    : TB_SUBSCRIBE.settings.kind.default;
}

/** "live entities", "live alarms", "live entity count", "live alarm count". */
export function label(s: SavedSettings, t: Translate): string {
  return t(`tb-subscribe.defaultLabel.${savedKind(s)}`);
}
