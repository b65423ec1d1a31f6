/** tb-entity-query's dialog: find entities with their keys' values, or discover the keys they have. */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { pagedResults, queryPart, resultOutput } from '../../editor/dialog/query-part';

const E = forType('tb-entity-query');
const t = E.t;

const SCOPES = ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'];

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || 'find');
}

const query = queryPart(E, { mode: () => 'entityData', operation: op });
const results = pagedResults(E);
const output = resultOutput(E);

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    operation: E.oneOf(['find', 'keys'], 'tb-entity-query.errors.operation'),
    query: query.query,
    queryType: query.queryType,
    ...results.validators,
    output: output.validator,
    keysTimeseries: E.bool('tb-entity-query.label.keysTimeseries'),
    keysAttributes: E.all(E.bool('tb-entity-query.label.keysAttributes'), function (v, opt) {
      // Discovering keys needs at least one of the two kinds.
      const ts = E.value(this, 'keysTimeseries');
      if (op(this) === 'keys' && (v === false || v === 'false') && (ts === false || ts === 'false'))
        return t('tb-entity-query.errors.keysNone');
      return true;
    }),
    keysScopes: E.listOf(SCOPES, 'tb-entity-query.errors.keysScopes'),
    version: E.version(),
  },
  label() {
    return String(
      this.name ||
        (this.operation === 'keys' ? t('tb-entity-query.defaultLabel.keys') : t('tb-entity-query.defaultLabel.find')),
    );
  },
  outputLabels: output.labelled(results.outputLabels('keys')),
  oneditprepare() {
    const node = this;
    E.selectDefaults(node, { operation: 'find', format: 'flat' });
    query.prepare(node);
    output.prepare(node);
    E.multiSelect(
      'keysScopes',
      'scopes',
      SCOPES.map((s) => ({ value: s, label: t(`tb-entity-query.scope.${s}`) })),
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
