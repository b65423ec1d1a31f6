/** tb-attributes' dialog: save, read and delete attributes (the settings as the runtime reads them). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { valueRows } from '../../editor/dialog/value-rows';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { checkAttributeSettings } from './logic';
import { MIGRATIONS } from './migrations';
import { SCOPE_SETTINGS, TB_ATTRIBUTES } from './settings';

const E = forType('tb-attributes');
settingsCheck('tb-attributes', checkAttributeSettings);
const t = E.t;

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ATTRIBUTES.settings.operation.default);
}

/** The runtime's own check of the settings as the dialog holds them, when the problem is this setting's. */
const runtime = placeholderAware(E.runtimeCheck(Object.keys(TB_ATTRIBUTES.settings)));
const target = deviceTarget(E, {
  runtime,
  // The keys of the chosen scope (any scope for `any` or msg.scope).
  keys: {
    kind: () => {
      const s = E.input('scope').val();
      return s === 'SERVER_SCOPE' || s === 'SHARED_SCOPE' || s === 'CLIENT_SCOPE' ? s : 'attributes';
    },
    watch: ['scope'],
  },
});

/** A save's values: msg.payload, or rows set here. */
const values = valueRows(E, { saves: (node) => op(node) === 'save' || op(node) === 'msg' });

/** The scope: one of the list, and one the action allows (the runtime's words: save writes SERVER or SHARED). */
const scope: Validator = function (v, opt) {
  if (v === undefined) return true;
  if ((SCOPE_SETTINGS as readonly unknown[]).indexOf(v) === -1) return t('tb-attributes.errors.scope');
  return runtime('scope').call(this, v, opt);
};

export default dialog(E, {
  declaration: TB_ATTRIBUTES,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the scope the operation allows, the keys, the rows, the entity.
  validators: {
    scope,
    target: target.target,
    keys: runtime('keys'),
    values: values.values,
    concurrency: target.concurrency,
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    target.prepare();
    // Keys left empty (or a {{msg.…}} placeholder) read msg.keys.
    messageSettings(E, node, fromMessage(TB_ATTRIBUTES));
    values.prepare(node);
    E.showRows(() => {
      const o = op(node);
      const s = E.input('scope').val();
      const saves = o === 'save' || o === 'msg';
      const rows = saves && values.fromRows(node);
      return {
        '.tb-row-keys': o !== 'save',
        '.tb-row-values-from': saves,
        '.tb-row-values': rows,
        '.tb-row-format': o === 'read' || o === 'msg',
        '.tb-row-id-type': target.source() !== 'json',
        '.tb-tip-save': saves && !rows,
        '.tb-tip-rows': rows,
        // SHARED_SCOPE is pushed to devices only: on another entity it is stored, and nothing is told.
        '.tb-tip-shared': saves && s === 'SHARED_SCOPE' && target.entityType() !== 'DEVICE',
      };
    }, ['operation', 'scope', 'target', 'targetEntityType', 'valuesFrom']);
    // Which entity, as configured: picked by name, the message, JSON, msg., JSONata.
    target.describe($('[data-tb-target-tip]'), 'tb-attributes.entityIs.');
  },
  oneditsave() {
    E.trim(['keys', 'concurrency']);
  },
});
