/** tb-entity-query's dialog: find entities with their keys' values, or discover the keys they have. */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { pagedResults, queryPart, resultOutput } from '../../editor/dialog/query-part';
import { ATTRIBUTE_SCOPES } from '../../protocol/types';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY_QUERY } from './settings';

const E = forType('tb-entity-query');
const t = E.t;

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ENTITY_QUERY.settings.operation.default);
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
  unnamed: label,
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
