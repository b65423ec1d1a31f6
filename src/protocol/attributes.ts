/**
 * Attributes of an entity (protocol §13.1.2, 1.3, 1.7), the pure part of tb-attributes: operations, scopes and
 * what each allows, the checks of a save (refused before sending: not an object, empty, a null value, a blank
 * key, CLIENT_SCOPE), and the flat forms of a read. No I/O, no Node-RED.
 */
import { TbError, TbInputError } from '../errors';
import { ATTRIBUTE_SCOPES, type AttributeScope } from './types';
import { checkValues } from './telemetry';
import { enumOption, keysOption, OptionReader, requiredKeys, unsetMsg, type Bag } from '../settings/options';
import { describe, isObject } from './validate';

export const ATTRIBUTE_OPERATIONS = ['save', 'read', 'delete'] as const;
export type AttributeOperation = (typeof ATTRIBUTE_OPERATIONS)[number];

/** The node's scope choices: the three scopes, `any` (read only: all three, each in its own place). */
export const SCOPE_CHOICES = [...ATTRIBUTE_SCOPES, 'any'] as const;
export type ScopeChoice = (typeof SCOPE_CHOICES)[number];

/** Scopes a save may write: the server refuses CLIENT_SCOPE (400 "Invalid scope"), the device owns it. */
export const WRITABLE_SCOPES: readonly AttributeScope[] = ['SERVER_SCOPE', 'SHARED_SCOPE'];

export type AttributeRequest =
  | { operation: 'save'; scope: AttributeScope; values: Record<string, unknown> }
  | { operation: 'read'; scope: ScopeChoice; keys: string[] }
  | { operation: 'delete'; scope: AttributeScope; keys: string[] };

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** The scope of a message: the node's, or `msg.scope` when the node says "msg"; checked against the operation. */
export function prepareScope(node: unknown, msg: Bag, operation: AttributeOperation): ScopeChoice {
  const configured = node === undefined || node === null || node === '' ? 'SERVER_SCOPE' : node;
  let s: ScopeChoice;
  let field = 'scope';
  if (configured === 'msg') {
    field = 'msg.scope';
    if (unsetMsg(msg.scope))
      fail(
        field,
        `msg.scope must be one of ${SCOPE_CHOICES.join(', ')} (missing; the node takes the scope from the message)`,
      );
    s = enumOption({ value: msg.scope, field }, SCOPE_CHOICES, 'SERVER_SCOPE');
  } else {
    s = enumOption({ value: configured, field }, SCOPE_CHOICES, 'SERVER_SCOPE');
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
 * The request of one message (options from the message first, then the node). With `fromRows` the values of a save
 * are the dialog's rows for this message (src/query/value-rows), not msg.payload.
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

/** An attribute as the server answers it. */
export interface AttributeKv {
  key: string;
  value: unknown;
  lastUpdateTs: number;
}

/** Checks the answer of a read: a list of `{key, value, lastUpdateTs}`. */
export function checkAttributeList(answer: unknown): AttributeKv[] {
  if (!Array.isArray(answer))
    throw new TbError(
      'TB_BAD_RESPONSE',
      `ThingsBoard answered an attribute read with ${describe(answer)}, not a list of attributes`,
    );
  return answer.filter((a): a is AttributeKv => isObject(a) && typeof a.key === 'string');
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
