/**
 * tb-rpc's pure logic: the method (fixed, or msg.method / msg.topic), the params (from msg.payload, fixed JSON or
 * none), the options of a send (refused before sending: no method, a wait the server would cut, a bad
 * expiration…) and of a cancel. No I/O, no Node-RED.
 */
import { TbInputError } from '../../errors';
import { durationText } from '../../protocol/duration';
import {
  DEFAULT_EXPIRATION,
  MAX_LIGHTWEIGHT_TIMEOUT,
  MAX_RPC_RETRIES,
  RPC_MODES,
  RPC_WAIT_FOR,
  type RpcBody,
  type RpcRequest,
} from '../../protocol/rpc';
import { got, isObject } from '../../protocol/validate';
import type { Sourced } from '../../settings/options';
import { boolOption, durationOption, enumOption, intOption, OptionReader } from '../../settings/options';
import { PARAMS_FROM, TB_RPC } from './settings';

/** What a setting reads when neither the node nor the message sets it: the node's default. */
const DEFAULTS = TB_RPC.settings;
/** The wait of a command when neither the node nor the message sets one. */
export const DEFAULT_TIMEOUT_MS = durationOption(
  { value: DEFAULTS.timeout.default, field: 'timeout' },
  undefined,
) as number;

/** The method name: a non-empty string. */
export function prepareMethod(s: Sourced): string {
  const v = s.value;
  if (typeof v !== 'string' || v.trim() === '') {
    fail(
      s.field,
      `${s.field} must be the RPC method's name, a non-empty string such as ` +
        `"setGpio" ${v === '' ? '(it is empty)' : got(v)}`,
    );
  }
  return v.trim();
}

/** Where tb-rpc looks for the method by default, for messages. */
export const AUTO_METHOD_TEXT = 'msg.method, else msg.topic';

/** The method of a message read "automatically": `msg.method`, else `msg.topic`. */
export function methodFromMessage(msg: { method?: unknown; topic?: unknown }): Sourced {
  if (msg.method !== undefined && msg.method !== null && msg.method !== '')
    return { value: msg.method, field: 'msg.method' };
  if (msg.topic !== undefined && msg.topic !== null && msg.topic !== '')
    return { value: msg.topic, field: 'msg.topic' };
  // The fix first, short: the debug sidebar shows a text's first 80 characters on its line.
  return fail('msg.method', 'Set the method in the node, or send its name in msg.method (e.g. "setGpio")');
}

/**
 * The params of a command that takes none. The server would take a body without params (it passes `null` on), but
 * a device's RPC handler that reads a field of its params then fails on null: an empty object is what such a
 * handler copes with, and says "no params" as plainly.
 */
export const NO_PARAMS: Readonly<Record<string, never>> = Object.freeze({});

/** The Params setting as checked at deploy: from msg.payload, or a value fixed in the node (`json`, `none`). */
export type ParamsSetting = { from: 'payload' } | { from: 'json' | 'none'; value: unknown };

/**
 * The node's Params setting (`paramsFrom`, and `params`, JSON text, for `json`): an old flow without it reads
 * msg.payload. Throws (a TbInputError naming `params` or `paramsFrom`) on a setting the node cannot use.
 */
export function prepareParamsSetting(paramsFrom: unknown, params: unknown): ParamsSetting {
  const from =
    paramsFrom === undefined || paramsFrom === null || paramsFrom === '' ? DEFAULTS.paramsFrom.default : paramsFrom;
  if (from === 'payload') return { from };
  if (from === 'none') return { from, value: NO_PARAMS };
  if (from !== 'json')
    return fail('paramsFrom', `paramsFrom must be one of ${PARAMS_FROM.join(', ')} ${got(paramsFrom)}`);
  if (typeof params !== 'string') {
    // A flow written by hand may hold the value itself rather than its text.
    if (params === undefined || params === null)
      return fail(
        'params',
        'params is empty: type the fixed params as JSON, e.g. {"pin": 7, "value": 1}, or choose "no params"',
      );
    jsonValue(params, 'params');
    return { from, value: params };
  }
  if (params.trim() === '')
    return fail(
      'params',
      'params is empty: type the fixed params as JSON, e.g. {"pin": 7, "value": 1}, or choose "no params"',
    );
  try {
    return { from, value: JSON.parse(params) as unknown };
  } catch (err) {
    return fail('params', `params is not valid JSON (e.g. {"pin": 7, "value": 1}): ${(err as Error).message}`);
  }
}

/**
 * The params of one message and their name for errors: msg.payload, or a copy of the node's fixed value (a copy,
 * because the output shows it in msg.rpc.params, where a later node may change it).
 */
export function paramsOf(setting: ParamsSetting, payload: unknown): { value: unknown; field: string } {
  if (setting.from === 'payload') return { value: payload, field: 'msg.payload' };
  return { value: structuredClone(setting.value), field: 'params' };
}

/**
 * Does msg.payload look like a timestamp (a whole number of ms within a day of now), the default payload of an
 * inject node, which would become a command's params unnoticed?
 */
export function looksLikeTimestamp(v: unknown, now: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v - now) <= TIMESTAMP_WINDOW_MS;
}

/**
 * The request of one message: method and params (`msg.payload` or the node's fixed ones, named `paramsField` in
 * errors; left out when undefined) as resolved by the node; mode, timeout, persistent, expiration, retries,
 * additionalInfo and waitFor from the message first, then the node.
 */
export function prepareRpcRequest(
  method: string,
  params: unknown,
  r: OptionReader,
  now: number,
  paramsField = 'msg.payload',
): RpcRequest {
  const mode = enumOption(r.get('mode'), RPC_MODES, DEFAULTS.mode.default);
  const persistent = boolOption(r.get('persistent'), DEFAULTS.persistent.default);
  const timeoutS = r.get('timeout');
  const timeout = durationOption(timeoutS, DEFAULT_TIMEOUT_MS) as number;
  if (!persistent && timeout > MAX_LIGHTWEIGHT_TIMEOUT) {
    const field = timeoutS ? timeoutS.field : 'timeout';
    fail(
      field,
      `${field} is ${durationText(timeout)}: make it ${durationText(MAX_LIGHTWEIGHT_TIMEOUT)} or less, or tick ` +
        'Persistent for a longer wait (ThingsBoard cuts every wait at about 30 s; a persistent RPC is followed ' +
        'until it is done)',
    );
  }
  const body: RpcBody = { method, timeout };
  if (params !== undefined) {
    jsonValue(params, paramsField);
    body.params = params;
  }
  const waitFor = enumOption(r.get('waitFor'), RPC_WAIT_FOR, DEFAULTS.waitFor.default);
  if (persistent) {
    const expiration = durationOption(r.get('expiration'), DEFAULT_EXPIRATION, 1000) as number;
    body.persistent = true;
    body.expirationTime = now + expiration;
    const retries = intOption(r.get('retries'), undefined, 0, MAX_RPC_RETRIES);
    if (retries !== undefined) body.retries = retries;
    const info = r.get('additionalInfo');
    if (info) {
      let v = info.value;
      if (typeof v === 'string' && info.field === 'additionalInfo') {
        // Set in the node as JSON text.
        try {
          v = JSON.parse(v);
        } catch (err) {
          fail(info.field, `additionalInfo must be JSON, e.g. {"by": "node-red"}: ${(err as Error).message}`);
        }
      }
      jsonValue(v, info.field);
      body.additionalInfo = v;
    }
  }
  return { method, mode, persistent, waitFor, timeout, body };
}

/** The id of the persistent RPC to cancel (`msg.action = "cancel"`): `msg.rpc.id`. */
export function prepareCancelId(rpc: unknown): string {
  const id = isObject(rpc) ? rpc.id : undefined;
  const text = isObject(id) ? id.id : id;
  if (
    typeof text !== 'string' ||
    !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(text.trim())
  ) {
    fail(
      'msg.rpc.id',
      `msg.rpc.id must be the id (a UUID) of the persistent RPC to cancel, as tb-rpc put it in msg.rpc ${got(text)}`,
    );
  }
  return text.trim();
}

/** `msg.action`: undefined, or "cancel". */
export function prepareAction(v: unknown): 'send' | 'cancel' {
  if (v === undefined || v === null || v === '' || v === 'send') return 'send';
  if (v === 'cancel') return 'cancel';
  return fail('msg.action', `msg.action must be "cancel" (with msg.rpc.id) or left out to send an RPC ${got(v)}`);
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

function jsonValue(v: unknown, field: string): void {
  try {
    JSON.stringify(v);
  } catch (err) {
    fail(field, `${field} cannot be sent as JSON: ${(err as Error).message}`);
  }
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')
    fail(field, `${field} cannot be sent as JSON ${got(v)}`);
}

/** How far from now a number may be to look like an inject's timestamp (its default payload): a day. */
const TIMESTAMP_WINDOW_MS = 86400000;

/**
 * The dialog's check of the node's settings (registered by its dialog, run by the device-target part): the runtime's
 * own checks over the settings as the dialog holds them, with stand-ins for what a message may still bring.
 */
export function checkRpcSettings(s: Record<string, unknown>, now: number): void {
  if (s.methodType === 'str') prepareMethod({ value: s.method, field: 'method' });
  prepareRpcRequest('method', undefined, new OptionReader(s, {}), now);
  prepareParamsSetting(s.paramsFrom, s.params);
}
