/** tb-entity-query's dialog: find entities with their keys' values, or discover the keys they have. */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { pagedResults, queryPart, resultOutput } from '../../editor/dialog/query-part';
import { ATTRIBUTE_SCOPES } from '../../protocol/types';
import { entitiesLabel } from '../../query-model/summary';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY_QUERY } from './settings';

const E = forType('tb-entity-query');
const t = E.t;

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ENTITY_QUERY.settings.operation.default);
}

/** The query a new node starts with. */
const DEFAULT_QUERY = TB_ENTITY_QUERY.settings.query.default;

/** Are two queries (objects, or their JSON text) the same? */
function sameQuery(a: unknown, b: unknown): boolean {
  try {
    const parse = (q: unknown): unknown => (typeof q === 'string' ? JSON.parse(q) : q);
    return JSON.stringify(parse(a)) === JSON.stringify(parse(b));
  } catch {
    return false;
  }
}

const query = queryPart(E, { mode: () => 'entityData', operation: op });
const results = pagedResults(E);
const output = resultOutput(E);

export default dialog(E, {
  declaration: TB_ENTITY_QUERY,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the choices, check boxes and the count are checked by their kind).
  validators: {
    query: query.query,
    output: output.validator,
    keysAttributes: E.all(E.bool('tb-entity-query.label.keysAttributes'), function (v, opt) {
      // Discovering keys needs at least one of the two kinds.
      const ts = E.value(this, 'keysTimeseries');
      if (op(this) === 'keys' && (v === false || v === 'false') && (ts === false || ts === 'false'))
        return t('tb-entity-query.errors.keysNone');
      return true;
    }),
    keysScopes: E.listOf(ATTRIBUTE_SCOPES, 'tb-entity-query.errors.keysScopes'),
  },
  label() {
    if (this.name) return String(this.name);
    const keys = this.operation === 'keys';
    // Named after the entities its query finds, as the other nodes are after their settings, once its query is set: a
    // new node's query, a query from the message (or one not told in words) keeps the node's name.
    const set = (this.queryType ?? 'json') === 'json' && !sameQuery(this.query, DEFAULT_QUERY);
    const what = set ? entitiesLabel(this.query) : undefined;
    if (what) return keys ? t('tb-entity-query.defaultLabel.keysOf', { what }) : what;
    return keys ? t('tb-entity-query.defaultLabel.keys') : t('tb-entity-query.defaultLabel.find');
  },
  outputLabels: output.labelled(results.outputLabels('keys')),
  oneditprepare() {
    const node = this;
    query.prepare(node);
    output.prepare();
    E.multiSelect(
      'keysScopes',
      'scopes',
      ATTRIBUTE_SCOPES.map((s) => ({ value: s, label: t(`tb-entity-query.scope.${s}`) })),
    );
    E.showRows(() => {
      const find = op(node) === 'find';
      return {
        ...results.rows(node, find),
        '.tb-row-keys': !find,
        '.tb-row-scopes': !find && E.value(node, 'keysAttributes'),
      };
    }, ['operation', 'allPages', 'keysAttributes']);
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
