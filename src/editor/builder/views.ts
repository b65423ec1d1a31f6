/**
 * Which view (builder or JSON) a query dialog opens in, per node: the view a person chose for that node (kept in
 * the browser's localStorage under the node's id, so it survives a reload but never reaches the flow), else the
 * builder when it can show the whole query and JSON when it cannot (a text that is no JSON object, or fields the
 * builder has no control for). One node's choice never carries over to another.
 */
export type View = 'builder' | 'json';

/** `{<node id>: 'builder' | 'json'}`, the most recent choice last. */
export const VIEWS_KEY = 'tb-query-builder-views';
/** Choices kept; the oldest go first (ids of deleted nodes are never cleaned up otherwise). */
const MAX_KEPT = 200;

function read(): Record<string, View> {
  try {
    const v: unknown = JSON.parse(window.localStorage.getItem(VIEWS_KEY) ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, View>) : {};
  } catch {
    return {};
  }
}

/** The view chosen for node `id`, if any. */
export function chosenView(id: string | undefined): View | undefined {
  if (!id) return undefined;
  const v = read()[id];
  return v === 'json' || v === 'builder' ? v : undefined;
}

/** Remembers the view chosen for node `id`. */
export function rememberView(id: string | undefined, view: View): void {
  if (!id) return;
  const all = read();
  delete all[id];
  all[id] = view;
  const ids = Object.keys(all);
  for (const old of ids.slice(0, Math.max(0, ids.length - MAX_KEPT))) delete all[old];
  try {
    window.localStorage.setItem(VIEWS_KEY, JSON.stringify(all));
  } catch {
    /* private mode or full storage: the choice lasts as long as the dialog */
  }
}
