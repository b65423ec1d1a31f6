/** tb-alarm-query's dialog: find alarms, or count them. */
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { pagedResults, queryPart, resultOutput } from '../../editor/dialog/query-part';
import type { QueryMode } from '../../query-model/schema';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ALARM_QUERY } from './settings';

const E = forType('tb-alarm-query');

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ALARM_QUERY.settings.operation.default);
}
/** The kind of query the operation takes. */
function modeOf(node: EditorNode): QueryMode {
  return op(node) === 'count' ? 'alarmCount' : 'alarmData';
}

const query = queryPart(E, { mode: modeOf, operation: op });
const results = pagedResults(E);
const output = resultOutput(E);

export default dialog(E, {
  declaration: TB_ALARM_QUERY,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the choices, check boxes and the count are checked by their kind).
  validators: {
    query: query.query,
    output: output.validator,
  },
  unnamed: label,
  outputLabels: output.labelled(results.outputLabels('count')),
  oneditprepare() {
    const node = this;
    query.prepare(node);
    output.prepare();
    E.input('operation').on('change', () => query.modeChanged());
    E.showRows(() => {
      const find = op(node) === 'find';
      return { ...results.rows(node, find), '.tb-row-count': !find };
    }, ['operation', 'allPages']);
  },
  oneditsave: query.close,
  oneditcancel: query.close,
  oneditresize: query.resize,
});
