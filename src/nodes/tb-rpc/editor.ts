/** tb-rpc's dialog: a command to a device (the settings as the runtime reads them). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { isOn } from '../../editor/dialog/predicates';
import { jsonText } from '../../protocol/validate';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { checkRpcSettings } from './logic';
import { MIGRATIONS } from './migrations';
import { METHOD_SOURCES, TB_RPC } from './settings';

const E = forType('tb-rpc');
settingsCheck('tb-rpc', checkRpcSettings);
const t = E.t;

const DEFAULTS = TB_RPC.settings;
/** Fixed params longer than this are cut in the summary line. */
const SUMMARY_JSON_MAX = 60;

function persistent(node: EditorNode): boolean {
  return isOn(E.value(node, 'persistent'));
}

/** The runtime's own check of the settings as the dialog holds them, when the problem is this setting's. */
const check = E.runtimeCheck(Object.keys(TB_RPC.settings));
const runtime = placeholderAware(check);
const target = deviceTarget(E, { runtime });

function paramsFrom(node: EditorNode): string {
  return String(E.value(node, 'paramsFrom') || DEFAULTS.paramsFrom.default);
}

/** The fixed params as the summary shows them: compact JSON, cut when long. */
function paramsText(text: string): string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return t('tb-rpc.summary.badJson');
  }
  return jsonText(v, SUMMARY_JSON_MAX);
}

/** The method the node sends, in words: a fixed name, or where it is read. */
function methodText(node: EditorNode): string {
  const src = String(E.value(node, 'methodType') || DEFAULTS.methodType.default);
  const v = String(E.value(node, 'method') ?? '').trim();
  if (src === 'str') return v ? `"${v}"` : t('tb-rpc.summary.noMethod');
  if (src === 'msg') return t('tb-rpc.summary.methodIn', { prop: `msg.${v}` });
  if (src === 'jsonata') return t('tb-rpc.summary.methodJsonata');
  return t('tb-rpc.summary.methodIn', { prop: t('tb-rpc.source.method') });
}

/**
 * What the mode line says: a two-way or a one-way command sent at once (each waits for the device in its own way),
 * or a persistent one; nothing while the message chooses the mode.
 */
function modeHint(node: EditorNode): 'twoway' | 'oneway' | 'persistent' | undefined {
  if (persistent(node)) return 'persistent';
  const mode = String(E.value(node, 'mode') ?? '');
  return mode === 'twoway' || mode === 'oneway' ? mode : undefined;
}

/**
 * The summary line: which method, and where its params come from ("params from msg.payload", "params: {…}", "no
 * params").
 */
function summary(node: EditorNode): string {
  const from = paramsFrom(node);
  const params =
    from === 'json'
      ? t('tb-rpc.summary.json', { json: paramsText(String(E.input('params').typedInput('value') ?? '')) })
      : from === 'none'
        ? t('tb-rpc.summary.none')
        : t('tb-rpc.summary.payload');
  return t('tb-rpc.summary.line', { method: methodText(node), params });
}

export default dialog(E, {
  declaration: TB_RPC,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the options as the runtime checks them, the method, the entity.
  validators: {
    target: target.target,
    method: E.sourced('method', METHOD_SOURCES, runtime),
    // Fixed params are JSON as they are (no placeholders): the runtime parses them once, at deploy.
    params: check('params'),
    mode: runtime('mode'),
    timeout: runtime('timeout'),
    persistent: E.all(E.bool('tb-rpc.label.persistent'), runtime('persistent')),
    expiration: runtime('expiration'),
    retries: runtime('retries'),
    additionalInfo: runtime('additionalInfo'),
    waitFor: runtime('waitFor'),
    concurrency: target.concurrency,
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    // Settings a message may set: left empty (or "from the message", or a {{msg.…}} placeholder), they read it.
    messageSettings(E, node, fromMessage(TB_RPC));
    // A fixed device is picked by name with the query builder's entity picker (devices only).
    target.prepare();
    E.sourcedInput('method', METHOD_SOURCES);
    // Additional info is JSON: the JSON type gives it the editor's JSON view.
    E.input('additionalInfo').typedInput({ default: 'json', types: ['json'] });
    // Fixed params are JSON: the JSON type gives them the editor's JSON view.
    E.input('params').typedInput({ default: 'json', types: ['json'] });
    E.showRows(() => {
      const on = persistent(node);
      return {
        '.tb-row-persistent': on,
        '.tb-row-params': paramsFrom(node) === 'json',
      };
    }, ['persistent', 'paramsFrom']);
    // One line on what the mode does, true of the mode chosen (none while the message chooses it).
    const modeTip = $('[data-tb-tip="mode"]');
    E.follow(() => {
      const how = modeHint(node);
      modeTip
        .attr('data-tb-mode', how ?? '')
        .text(how ? t(`tb-rpc.tip.${how}`) : '')
        .toggle(!!how);
    }, ['mode', 'persistent']);
    const line = $('[data-tb-summary]');
    E.follow(() => line.text(summary(node)), ['paramsFrom', 'params', 'method', 'methodType']);
    // Which device, as configured: picked by name, the message, JSON, msg., JSONata.
    target.describe($('[data-tb-target-tip]'), 'tb-rpc.deviceIs.');
  },
  oneditsave() {
    E.trim(['timeout', 'expiration', 'retries', 'additionalInfo', 'params', 'concurrency']);
  },
});
