/** tb-rpc's dialog: a command to a device (the settings as src/query/rpc reads them). */
import { deviceTarget, messageSettings, placeholderAware } from '../common/device-target';
import { dialog } from '../common/dialog';
import { forType, type EditorNode } from '../common/for-type';
import { isOn } from '../common/predicates';

const E = forType('tb-rpc');
const t = E.t;

const METHOD_SOURCES = ['auto', 'str', 'msg', 'jsonata'];
/** The settings the runtime reads (src/query/rpc, targets), as the dialog holds them now. */
const SETTINGS = ['target', 'targetType', 'method', 'methodType', 'mode', 'timeout', 'persistent', 'expiration', 'retries', 'additionalInfo', 'waitFor'];

function persistent(node: EditorNode): boolean {
  return isOn(E.value(node, 'persistent'));
}

/** The runtime's own check of the settings (src/query), when the problem is this setting's. */
const runtime = placeholderAware(E.runtimeCheck(SETTINGS));
const target = deviceTarget(E, { runtime });

export default dialog(E, {
  validators: {
    name: E.any,
    connection: E.connection(),
    target: target.target,
    targetType: target.targetType,
    method: E.sourced('method', METHOD_SOURCES, runtime),
    methodType: E.oneOf(METHOD_SOURCES, 'tb-rpc.errors.methodType'),
    mode: runtime('mode'),
    timeout: runtime('timeout'),
    persistent: E.all(E.bool('tb-rpc.label.persistent'), runtime('persistent')),
    expiration: runtime('expiration'),
    retries: runtime('retries'),
    additionalInfo: runtime('additionalInfo'),
    waitFor: runtime('waitFor'),
    concurrency: target.concurrency,
    version: E.version(),
  },
  label() {
    if (this.name) return String(this.name);
    return this.methodType === 'str' && this.method ? t('tb-rpc.defaultLabel.method', { method: this.method }) : t('tb-rpc.defaultLabel.rpc');
  },
  oneditprepare() {
    const node = this;
    E.selectDefaults(node, { concurrency: 4 });
    if (node.timeout === undefined) E.input('timeout').val(10000);
    // Settings a message may set: left empty (or "from the message", or a {{msg.…}} placeholder), they read it.
    messageSettings(
      E,
      node,
      { mode: 'msg.mode', timeout: 'msg.timeout', expiration: 'msg.expiration', retries: 'msg.retries', additionalInfo: 'msg.additionalInfo', waitFor: 'msg.waitFor' },
      { mode: 'twoway', waitFor: 'final' },
    );
    // A fixed device is picked by name with the query builder's entity picker (devices only).
    target.prepare();
    E.sourcedInput('method', METHOD_SOURCES);
    // Additional info is JSON: the JSON type gives it the editor's JSON view.
    E.input('additionalInfo').typedInput({ default: 'json', types: ['json'] });
    E.showRows(() => {
      const on = persistent(node);
      return {
        '.tb-row-persistent': on,
        '.tb-tip-lightweight': !on,
        '.tb-tip-persistent': on,
      };
    }, ['persistent']);
  },
  oneditsave() {
    E.trim(['timeout', 'expiration', 'retries', 'additionalInfo', 'concurrency']);
  },
});
