/** tb-subscribe's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';
import { SUBSCRIBE_KINDS, TB_SUBSCRIBE, type SubscribeKind } from './settings';

/** A kind, or the default one for an empty or unknown kind. */
export function knownKind(kind: unknown): SubscribeKind {
  return (SUBSCRIBE_KINDS as readonly unknown[]).indexOf(kind) !== -1
    ? (kind as SubscribeKind)
    : TB_SUBSCRIBE.settings.kind.default;
}

/** The kind watched, as saved. */
export function savedKind(s: SavedSettings): SubscribeKind {
  return knownKind(s.kind);
}

/** "live entities", "live alarms", "live entity count", "live alarm count". */
export function label(s: SavedSettings, t: Translate): string {
  return t(`tb-subscribe.defaultLabel.${savedKind(s)}`);
}
