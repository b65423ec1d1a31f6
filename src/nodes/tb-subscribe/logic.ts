/** tb-subscribe's pure logic: the events it sends and its key lists. No I/O, no Node-RED. */
import { TbConfigError } from '../../errors';
import { CHOOSABLE_EVENTS, FORMAT_KIND, type SubscribeFormat, type SubscribeKind } from './settings';

const KIND_LABEL: Record<string, string> = {
  entityData: 'entity data',
  alarmData: 'alarm data',
  notifications: 'notifications',
  entityCount: 'entity count',
  alarmCount: 'alarm count',
};

/**
 * Reads the `events` setting: a comma-separated list of event names (an array of names is accepted too). Returns the
 * events NOT to send (by their live event names), or undefined to send every event (missing or empty setting, every
 * name listed, or a count subscription, which only ever sends its count). A name that is not an event of this kind
 * throws a TbConfigError naming the field and the allowed names.
 */
export function droppedEvents(kind: string, value: unknown): ReadonlySet<string> | undefined {
  const allowed =
    kind === 'entityData' || kind === 'alarmData' || kind === 'notifications' ? CHOOSABLE_EVENTS[kind] : undefined;
  if (!allowed || value === undefined || value === null) return undefined;
  const help = () => `choose from ${allowed.join(', ')} (empty = all; counts, time series and history are always sent)`;
  let names: string[];
  if (typeof value === 'string') names = value.split(',');
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) names = value as string[];
  else throw new TbConfigError(`events must be a comma-separated list of ${KIND_LABEL[kind]} events: ${help()}`);
  names = names.map((n) => n.trim()).filter((n) => n.length > 0);
  if (names.length === 0) return undefined;
  const unknown = names.filter((n) => !allowed.includes(n));
  if (unknown.length) {
    const what = unknown.map((n) => JSON.stringify(n)).join(', ');
    throw new TbConfigError(
      `events: ${what} ${unknown.length > 1 ? 'are not events' : 'is not an event'} of ${KIND_LABEL[kind]}; ${help()}`,
    );
  }
  // The notifications' first list is the live event 'inbox', sent as msg.event "snapshot".
  const drop = new Set(
    allowed.filter((n) => !names.includes(n)).map((n) => (kind === 'notifications' && n === 'snapshot' ? 'inbox' : n)),
  );
  return drop.size ? drop : undefined;
}

/** The keys of a comma-separated list (blank items left out). */
export function keyList(v: unknown): string[] {
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A dashboard format (chart, table) is for one kind only: the problem of choosing it for another, else undefined. */
export function formatProblem(kind: SubscribeKind, format: SubscribeFormat): TbConfigError | undefined {
  const forKind = FORMAT_KIND[format];
  if (forKind === undefined || forKind === kind) return undefined;
  return new TbConfigError(
    `format ${format} is for ${KIND_LABEL[forKind]} (Watch: ${forKind}), not ${KIND_LABEL[kind] ?? kind}: choose ` +
      'flat or raw, or watch what it is for',
  );
}

/**
 * Does an entity query watch several entities (so that a chart's series name the entity)? Not when its filter names
 * one entity: a single entity, or a list of one id.
 */
export function watchesSeveral(query: { entityFilter?: unknown }): boolean {
  const f = query.entityFilter as { type?: unknown; entityList?: unknown } | undefined;
  if (f == null) return true;
  if (f.type === 'singleEntity') return false;
  return !(f.type === 'entityList' && Array.isArray(f.entityList) && f.entityList.length === 1);
}
