/** tb-entity-count's dialog: how many entities match a query. */
import { dialog } from '../../editor/dialog/dialog';
import { forType } from '../../editor/dialog/for-type';
import { queryPart, resultOutput } from '../../editor/dialog/query-part';

const E = forType('tb-entity-count');

const query = queryPart(E, { mode: () => 'entityCount', operation: () => 'count' });
const output = resultOutput(E);

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    query: query.query,
    queryType: query.queryType,
    output: output.validator,
    version: E.version(),
  },
  label() {
    return String(this.name || E.t('tb-entity-count.defaultLabel'));
  },
  outputLabels: output.labelled(() => E.t('tb-entity-count.outputLabel')),
  oneditprepare() {
    query.prepare(this);
    output.prepare(this);
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
