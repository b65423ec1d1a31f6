/** tb-api's label without a name, from its settings: the canvas shows it, and the runtime's log and errors. */
import type { SavedSettings, Translate } from '../../settings/declare';

/** The longest path a label shows whole. */
const MAX_PATH = 32;

/** "GET /api/audit/logs" for a fixed method and path, else "REST call". */
export function label(s: SavedSettings, t: Translate): string {
  const path = typeof s.path === 'string' ? s.path.trim().split('?')[0] : '';
  const method = typeof s.method === 'string' && s.method ? s.method : '';
  if (!path) return t('tb-api.defaultLabel.call');
  const shown = path.length > MAX_PATH ? `…${path.slice(path.length - MAX_PATH + 1)}` : path;
  return method ? `${method} ${shown}` : shown;
}
