/**
 * tb-rule-engine's pure logic: the message's data (msg.payload, or fixed JSON checked at deploy), and the options of
 * a message (the queue and the wait, refused before sending when the server could not take them). No I/O, no
 * Node-RED.
 */
import { TbInputError } from '../../errors';
import { durationText } from '../../protocol/duration';
import { MAX_RULE_ENGINE_TIMEOUT, type RuleEngineRequest } from '../../protocol/rule-engine';
import { got } from '../../protocol/validate';
import { durationOption, OptionReader } from '../../settings/options';
import { BODY_FROM, TB_RULE_ENGINE } from './settings';

const DEFAULTS = TB_RULE_ENGINE.settings;

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** The Body setting as checked at deploy: msg.payload, or a value fixed in the node. */
export type BodySetting = { from: 'payload' } | { from: 'json'; value: unknown };

const BODY_EXAMPLE = '{"temperature": 21}';

/**
 * The node's Body setting (`bodyFrom`, and `body`, JSON text, for `json`): a flow without it reads msg.payload.
 * Throws (a TbInputError naming `body` or `bodyFrom`) on a setting the node cannot use.
 */
export function prepareBodySetting(bodyFrom: unknown, body: unknown): BodySetting {
  const from = bodyFrom === undefined || bodyFrom === null || bodyFrom === '' ? DEFAULTS.bodyFrom.default : bodyFrom;
  if (from === 'payload') return { from };
  if (from !== 'json') return fail('bodyFrom', `bodyFrom must be one of ${BODY_FROM.join(', ')} ${got(bodyFrom)}`);
  if (typeof body !== 'string') {
    // A flow written by hand may hold the value itself rather than its text.
    if (body === undefined || body === null)
      return fail('body', `body is empty: type the message's data as JSON, e.g. ${BODY_EXAMPLE}`);
    jsonText(body, 'body');
    return { from, value: body };
  }
  if (body.trim() === '') return fail('body', `body is empty: type the message's data as JSON, e.g. ${BODY_EXAMPLE}`);
  try {
    return { from, value: JSON.parse(body) as unknown };
  } catch (err) {
    return fail('body', `body is not valid JSON (e.g. ${BODY_EXAMPLE}): ${(err as Error).message}`);
  }
}

/**
 * The message's data as the JSON text sent, and where it was read: msg.payload (which must be there: the server
 * takes no empty message), or the node's fixed value.
 */
export function bodyOf(setting: BodySetting, payload: unknown): { text: string; field: string; value: unknown } {
  if (setting.from === 'json') return { text: jsonText(setting.value, 'body'), field: 'body', value: setting.value };
  if (payload === undefined)
    fail(
      'msg.payload',
      'Send the data in msg.payload, or set Body to fixed JSON in the node: msg.payload is undefined, and the rule ' +
        'engine takes no empty message',
    );
  return { text: jsonText(payload, 'msg.payload'), field: 'msg.payload', value: payload };
}

/** A value as JSON text, or a TbInputError naming `field` when it has none (a function, a BigInt, a cycle). */
function jsonText(v: unknown, field: string): string {
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')
    fail(field, `${field} cannot be sent as JSON ${got(v)}`);
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch (err) {
    fail(field, `${field} cannot be sent as JSON: ${(err as Error).message}`);
  }
  if (text === undefined) fail(field, `${field} cannot be sent as JSON ${got(v)}`);
  return text;
}

/** A queue's name: the server puts it in the path, so it is one segment of text. */
export function prepareQueue(v: unknown, field: string): string {
  if (typeof v !== 'string' || v.trim() === '' || /[/\\]/.test(v))
    fail(field, `${field} must be a queue's name, such as Main or HighPriority ${got(v)}`);
  return v.trim();
}

/**
 * The request of one message: its data, and the queue and wait from the node first, then the message (left out when
 * neither sets them: the server's own).
 */
export function prepareRuleRequest(body: string, r: OptionReader): RuleEngineRequest {
  const q = r.get('queue');
  const queue = q ? prepareQueue(q.value, q.field) : undefined;
  const t = r.get('timeout');
  const timeout = durationOption(t, undefined, 1);
  if (t && timeout !== undefined && timeout > MAX_RULE_ENGINE_TIMEOUT)
    fail(
      t.field,
      `${t.field} is ${durationText(timeout)}: make it ${durationText(MAX_RULE_ENGINE_TIMEOUT)} or less ` +
        '(ThingsBoard cuts every wait at 30 s and then answers "Request timeout" instead)',
    );
  return { body, queue, timeout };
}

/**
 * The dialog's check of the node's settings (registered by its dialog, run by the device-target part): the runtime's
 * own checks over the settings as the dialog holds them.
 */
export function checkRuleEngineSettings(s: Record<string, unknown>): void {
  prepareRuleRequest('{}', new OptionReader(s, {}));
  prepareBodySetting(s.bodyFrom, s.body);
}
