/** tb-entity-count's dialog: how many entities match a query. */
import { dialog } from '../common/dialog';
import { forType } from '../common/for-type';
import { queryPart } from '../common/query-part';

const E = forType('tb-entity-count');

const query = queryPart(E, { mode: () => 'entityCount', operation: () => 'count' });

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    query: query.query,
    queryType: query.queryType,
    version: E.version(),
  },
  label() {
    return String(this.name || E.t('tb-entity-count.defaultLabel'));
  },
  oneditprepare() {
    query.prepare(this);
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
