/** tb-rule-engine's dialog: a message into the rule chains, the answer back (the settings as the runtime reads). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { durationText, parseDuration } from '../../protocol/duration';
import { jsonText } from '../../protocol/validate';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { checkRuleEngineSettings } from './logic';
import { MIGRATIONS } from './migrations';
import { TB_RULE_ENGINE } from './settings';

const E = forType('tb-rule-engine');
settingsCheck('tb-rule-engine', checkRuleEngineSettings);
const t = E.t;

const DEFAULTS = TB_RULE_ENGINE.settings;
/** A fixed body longer than this is cut in the summary line. */
const SUMMARY_JSON_MAX = 60;

/** The runtime's own check of the settings as the dialog holds them, when the problem is this setting's. */
const check = E.runtimeCheck(Object.keys(TB_RULE_ENGINE.settings));
const runtime = placeholderAware(check);
const target = deviceTarget(E, { runtime });

function originator(node: EditorNode): string {
  return String(E.value(node, 'originator') || DEFAULTS.originator.default);
}

function bodyFrom(node: EditorNode): string {
  return String(E.value(node, 'bodyFrom') || DEFAULTS.bodyFrom.default);
}

/** The entity settings count only when the message goes as an entity. */
function asEntity(validator: Validator): Validator {
  return function (v, opt) {
    return originator(this) === 'user' ? true : validator.call(this, v, opt);
  };
}

/** The fixed body as the summary shows it: compact JSON, cut when long. */
function bodyText(text: string): string {
  try {
    return jsonText(JSON.parse(text), SUMMARY_JSON_MAX);
  } catch {
    return t('tb-rule-engine.summary.badJson');
  }
}

/** A timeout as a duration says it ("5 s"), or as typed while it is not one (a placeholder, a typo). */
function timeoutText(text: string): string {
  const ms = parseDuration(text);
  return ms === undefined ? text : durationText(ms);
}

/** The summary line: who sends, what data, which queue and wait. */
function summary(node: EditorNode): string {
  const picked = target.pickedName();
  const from =
    originator(node) === 'user'
      ? t('tb-rule-engine.summary.user')
      : picked
        ? t('tb-rule-engine.summary.picked', { name: picked })
        : t('tb-rule-engine.summary.entity');
  const data =
    bodyFrom(node) === 'json'
      ? t('tb-rule-engine.summary.json', { json: bodyText(String(E.input('body').typedInput('value') ?? '')) })
      : t('tb-rule-engine.summary.payload');
  const queue = String(E.value(node, 'queue') ?? '').trim();
  const timeout = String(E.value(node, 'timeout') ?? '').trim();
  return t('tb-rule-engine.summary.line', {
    from,
    data,
    queue: queue ? t('tb-rule-engine.summary.queue', { queue }) : t('tb-rule-engine.summary.queueDefault'),
    timeout: timeout ? timeoutText(timeout) : t('tb-rule-engine.summary.timeoutDefault'),
  });
}

export default dialog(E, {
  declaration: TB_RULE_ENGINE,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the entity (when it is the originator), the body, queue and wait.
  validators: {
    target: asEntity(target.target),
    // Fixed JSON as it is (no placeholders): the runtime parses it once, at deploy.
    body: check('body'),
    queue: runtime('queue'),
    timeout: runtime('timeout'),
    concurrency: asEntity(target.concurrency),
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    // Settings a message may set: left empty (or holding a {{msg.…}} placeholder), they read it.
    messageSettings(E, node, fromMessage(TB_RULE_ENGINE));
    // A fixed entity is picked by name with the query builder's entity picker.
    target.prepare();
    // A fixed body is JSON: the JSON type gives it the editor's JSON view.
    E.input('body').typedInput({ default: 'json', types: ['json'] });
    E.showRows(() => {
      const entity = originator(node) === 'entity';
      return {
        '.tb-row-entity': entity,
        '.tb-row-id-type': entity && target.source() !== 'json',
        '.tb-row-body': bodyFrom(node) === 'json',
      };
    }, ['originator', 'target', 'bodyFrom']);
    const line = $('[data-tb-summary]');
    const said = E.follow(() => line.text(summary(node)), ['originator', 'bodyFrom', 'body', 'queue', 'timeout']);
    // Which entity, as configured: picked by name, the message, JSON, msg., JSONata; the summary names it too.
    target.describe($('[data-tb-target-tip]'), 'tb-rule-engine.entityIs.', said);
  },
  oneditsave() {
    E.trim(['queue', 'timeout', 'body', 'concurrency']);
  },
});
