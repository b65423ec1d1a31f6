/**
 * tb-attributes' pure logic: the operation and the scope (the node's, or the message's when it says so), the
 * request of a message (a save refused before sending: not an object, empty, a null value, a blank key,
 * CLIENT_SCOPE), and the flat forms of a read. No I/O, no Node-RED.
 */
import { TbInputError } from '../../errors';
import { SCOPE_CHOICES, WRITABLE_SCOPES, type AttributeKv, type ScopeChoice } from '../../protocol/attributes';
import { checkValues } from '../../protocol/telemetry';
import { type AttributeScope } from '../../protocol/types';
import {
  blankSetting,
  enumOption,
  keysOption,
  OptionReader,
  requiredKeys,
  SOME_KEY,
  unsetMsg,
  type Bag,
} from '../../settings/options';
import { ATTRIBUTE_OPERATIONS, TB_ATTRIBUTES, type AttributeOperation } from './settings';

/** What the node reads when its operation or scope is left empty: its defaults. */
const DEFAULT_OPERATION = TB_ATTRIBUTES.settings.operation.default as AttributeOperation;
const DEFAULT_SCOPE = TB_ATTRIBUTES.settings.scope.default as ScopeChoice;

export type AttributeRequest =
  | { operation: 'save'; scope: AttributeScope; values: Record<string, unknown> }
  | { operation: 'read'; scope: ScopeChoice; keys: string[] }
  | { operation: 'delete'; scope: AttributeScope; keys: string[] };

/** The scope of a message: the node's, or `msg.scope` when the node says "msg"; checked against the operation. */
export function prepareScope(node: unknown, msg: Bag, operation: AttributeOperation): ScopeChoice {
  const configured = node === undefined || node === null || node === '' ? DEFAULT_SCOPE : node;
  let s: ScopeChoice;
  let field = 'scope';
  if (configured === 'msg') {
    field = 'msg.scope';
    if (unsetMsg(msg.scope))
      fail(
        field,
        `msg.scope must be one of ${SCOPE_CHOICES.join(', ')} (missing; the node takes the scope from the message)`,
      );
    s = enumOption({ value: msg.scope, field }, SCOPE_CHOICES, DEFAULT_SCOPE);
  } else {
    s = enumOption({ value: configured, field }, SCOPE_CHOICES, DEFAULT_SCOPE);
  }
  if (operation === 'save' && !(WRITABLE_SCOPES as readonly string[]).includes(s)) {
    const why =
      s === 'CLIENT_SCOPE'
        ? 'client attributes belong to the device, which reports them itself'
        : 'a save writes one scope';
    fail(field, `${field} is ${s}: ThingsBoard saves attributes only in SERVER_SCOPE or SHARED_SCOPE (${why})`);
  }
  if (operation === 'delete' && s === 'any')
    fail(field, `${field} is any: a delete needs one scope, SERVER_SCOPE, SHARED_SCOPE or CLIENT_SCOPE`);
  return s;
}

/**
 * The request of one message (options from the node first, then the message). With `fromRows` the values of a save
 * are the dialog's rows for this message, not msg.payload.
 */
export function prepareAttributeRequest(
  operation: AttributeOperation,
  scope: ScopeChoice,
  r: OptionReader,
  payload: unknown,
  fromRows = false,
): AttributeRequest {
  switch (operation) {
    case 'save':
      return {
        operation,
        scope: scope as AttributeScope,
        values: fromRows
          ? checkValues(payload, 'values', 'rows of key and value')
          : checkValues(payload, 'msg.payload', 'an object of attributes, e.g. {"targetTemperature": 21.5}'),
      };
    case 'read':
      return { operation, scope, keys: keysOption(r.get('keys')) };
    default:
      return {
        operation,
        scope: scope as AttributeScope,
        keys: requiredKeys(r.get('keys'), 'keys', 'delete removes the keys it is given'),
      };
  }
}

/** The flat form of one scope's attributes: `values = {key: value}`, `ts = {key: lastUpdateTs}`. */
export function flatAttributes(list: readonly AttributeKv[]): {
  values: Record<string, unknown>;
  ts: Record<string, number>;
} {
  const values: Record<string, unknown> = {};
  const ts: Record<string, number> = {};
  for (const a of list) {
    values[a.key] = a.value === undefined ? null : a.value;
    if (typeof a.lastUpdateTs === 'number') ts[a.key] = a.lastUpdateTs;
  }
  return { values, ts };
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/**
 * The dialog's check of the node's settings (registered by its dialog, run by the device-target part): the runtime's
 * own checks over the settings as the dialog holds them, with stand-ins for what a message may still bring.
 */
export function checkAttributeSettings(s: Record<string, unknown>): void {
  const op = blankSetting(s.operation) ? DEFAULT_OPERATION : s.operation;
  const scope = blankSetting(s.scope) ? DEFAULT_SCOPE : s.scope;
  if (op === 'msg' || scope === 'msg' || !(ATTRIBUTE_OPERATIONS as readonly unknown[]).includes(op)) return;
  const o = op as AttributeOperation;
  const sc: ScopeChoice = prepareScope(scope, {}, o);
  const bag: Bag = { ...s };
  if (blankSetting(s.keys)) bag.keys = SOME_KEY;
  prepareAttributeRequest(o, sc, new OptionReader(bag, {}), { value: 1 });
}
