/** tb-telemetry's dialog: save, read and delete time series (the settings as src/query/telemetry reads them). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { valueRows } from '../../editor/dialog/value-rows';
import { checkTelemetrySettings } from './logic';

const E = forType('tb-telemetry');
settingsCheck('tb-telemetry', checkTelemetrySettings);
const t = E.t;

const OPERATIONS = ['save', 'latest', 'history', 'delete', 'msg'];
/** The settings the runtime reads (src/query/telemetry, targets), as the dialog holds them now. */
const SETTINGS = [
  'operation',
  'target',
  'targetType',
  'targetEntityType',
  'keys',
  'last',
  'from',
  'to',
  'agg',
  'interval',
  'intervalType',
  'timeZone',
  'limit',
  'order',
  'maxItems',
  'ttl',
  'all',
  'deleteLatest',
  'rewriteLatest',
];

/** The settings a message may set when the dialog leaves them empty, and the property each reads. */
const FROM_MSG: Record<string, string> = {};
for (const n of [
  'keys',
  'last',
  'from',
  'to',
  'agg',
  'interval',
  'intervalType',
  'timeZone',
  'limit',
  'order',
  'maxItems',
  'ttl',
])
  FROM_MSG[n] = `msg.${n}`;

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || 'save');
}

/** Does the operation (or any, with msg) use this setting? */
function uses(node: EditorNode, what: 'keys' | 'range' | 'history' | 'delete' | 'save' | 'format'): boolean {
  const o = op(node);
  if (o === 'msg') return true;
  switch (what) {
    case 'keys':
      return o !== 'save';
    case 'range':
      return o === 'history' || o === 'delete';
    case 'history':
      return o === 'history';
    case 'delete':
      return o === 'delete';
    case 'save':
      return o === 'save';
    default:
      return o === 'latest' || o === 'history';
  }
}

/** A save's values: msg.payload, or rows set here. */
const values = valueRows(E, { saves: (node) => uses(node, 'save') });

/** The runtime's own check of the settings (src/query), when the problem is this setting's. */
const runtime = placeholderAware(E.runtimeCheck(SETTINGS));
const target = deviceTarget(E, { runtime, keys: { kind: () => 'timeseries' } });

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    operation: E.oneOf(OPERATIONS, 'tb-telemetry.errors.operation'),
    target: target.target,
    targetType: target.targetType,
    targetEntityType: target.targetEntityType,
    keys: runtime('keys'),
    last: runtime('last'),
    from: runtime('from'),
    to: runtime('to'),
    agg: runtime('agg'),
    interval: runtime('interval'),
    intervalType: runtime('intervalType'),
    timeZone: runtime('timeZone'),
    limit: runtime('limit'),
    order: runtime('order'),
    maxItems: runtime('maxItems'),
    ttl: runtime('ttl'),
    valuesFrom: values.valuesFrom,
    values: values.values,
    all: E.all(E.bool('tb-telemetry.label.all'), runtime('all')),
    deleteLatest: E.bool('tb-telemetry.label.deleteLatest'),
    rewriteLatest: E.bool('tb-telemetry.label.rewriteLatest'),
    format: E.oneOf(['flat', 'raw'], 'tb-telemetry.errors.format'),
    concurrency: target.concurrency,
    version: E.version(),
  },
  label() {
    return String(
      this.name ||
        t(`tb-telemetry.defaultLabel.${OPERATIONS.indexOf(this.operation as string) !== -1 ? this.operation : 'msg'}`),
    );
  },
  oneditprepare() {
    const node = this;
    E.selectDefaults(node, { operation: 'save', targetEntityType: 'DEVICE', format: 'flat', concurrency: 4 });
    // Settings a message may set: left empty (or "from the message", or a {{msg.…}} placeholder), they read it.
    messageSettings(E, node, FROM_MSG, { agg: 'NONE', order: 'ASC' });
    if (node.maxItems === undefined) E.input('maxItems').val(100000);
    // A fixed entity is picked by name; the keys as chips, suggested from its own time series (else its type's).
    target.prepare();
    values.prepare(node);
    E.showRows(() => {
      const o = op(node);
      const saves = uses(node, 'save');
      const rows = saves && values.fromRows(node);
      return {
        '.tb-row-keys': uses(node, 'keys'),
        '.tb-row-range': uses(node, 'range'),
        '.tb-row-history': uses(node, 'history'),
        '.tb-row-delete': uses(node, 'delete'),
        '.tb-row-save': saves,
        '.tb-row-values': rows,
        '.tb-row-format': uses(node, 'format'),
        '.tb-row-id-type': target.source() !== 'json',
        '.tb-tip-end': o === 'delete' || o === 'history' || o === 'msg',
        '.tb-tip-save': saves,
        '.tb-tip-rows': rows,
      };
    }, ['operation', 'target', 'valuesFrom']);
    // Which entity, as configured: picked by name, the message, JSON, msg., JSONata.
    target.describe($('[data-tb-target-tip]'), 'tb-telemetry.entityIs.');
  },
  oneditsave() {
    E.trim(['keys', 'last', 'from', 'to', 'interval', 'timeZone', 'limit', 'maxItems', 'ttl', 'concurrency']);
  },
});
