/** tb-entity-count's dialog: how many entities match a query. */
import { dialog } from '../../editor/dialog/dialog';
import { forType } from '../../editor/dialog/for-type';
import { queryPart, resultOutput } from '../../editor/dialog/query-part';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY_COUNT } from './settings';

const E = forType('tb-entity-count');

const query = queryPart(E, { mode: () => 'entityCount', operation: () => 'count' });
const output = resultOutput(E);

export default dialog(E, {
  declaration: TB_ENTITY_COUNT,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say.
  validators: {
    query: query.query,
    output: output.validator,
  },
  unnamed: label,
  outputLabels: output.labelled(() => E.t('tb-entity-count.outputLabel')),
  oneditprepare() {
    query.prepare(this);
    output.prepare();
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
