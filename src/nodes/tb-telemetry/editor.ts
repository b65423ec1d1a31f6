/** tb-telemetry's dialog: save, read and delete time series (the settings as the runtime reads them). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { valueRows } from '../../editor/dialog/value-rows';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { checkTelemetrySettings } from './logic';
import { MIGRATIONS } from './migrations';
import { TB_TELEMETRY } from './settings';

const E = forType('tb-telemetry');
settingsCheck('tb-telemetry', checkTelemetrySettings);

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_TELEMETRY.settings.operation.default);
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

/** The runtime's own check of the settings as the dialog holds them, when the problem is this setting's. */
const runtime = placeholderAware(E.runtimeCheck(Object.keys(TB_TELEMETRY.settings)));
const target = deviceTarget(E, { runtime, keys: { kind: () => 'timeseries' } });

export default dialog(E, {
  declaration: TB_TELEMETRY,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the options as the runtime checks them, the rows, the entity.
  validators: {
    target: target.target,
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
    values: values.values,
    all: E.all(E.bool('tb-telemetry.label.all'), runtime('all')),
    concurrency: target.concurrency,
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    // Settings a message may set: left empty (or "from the message", or a {{msg.…}} placeholder), they read it.
    messageSettings(E, node, fromMessage(TB_TELEMETRY));
    // A fixed entity is picked by name; the keys as chips, suggested from its own time series (else its type's).
    target.prepare();
    values.prepare(node);
    E.showRows(() => {
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
        '.tb-tip-save': saves && !rows,
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
