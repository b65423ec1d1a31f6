/**
 * Server-side RPC to a device (protocol §13.1.8-1.9), the pure part of tb-rpc: the options (refused before
 * sending: no method, a wait the server would cut, a bad expiration…), the request body, what an answer status
 * means (no reply, a reply that is not JSON), the states of a persistent RPC and when following one stops, and
 * the texts of the RPC errors. No I/O, no Node-RED.
 */
import { TbInputError } from '../errors';
import type { Sourced } from './alarm-actions';
import { boolOption, durationOption, enumOption, intOption, OptionReader } from '../settings/options';
import { describe, got, isObject } from './validate';

export const RPC_MODES = ['oneway', 'twoway'] as const;
export type RpcMode = (typeof RPC_MODES)[number];

export const WAIT_FOR = ['accepted', 'final'] as const;
export type WaitFor = (typeof WAIT_FOR)[number];

/** The server's default wait, and its floor (`min_timeout`): anything lower is raised to it. */
export const DEFAULT_RPC_TIMEOUT = 10000;
export const MIN_RPC_TIMEOUT = 5000;
/** The server cuts every HTTP wait at about 30 s (`spring.mvc.async.request-timeout`): a longer wait needs persistent. */
export const MAX_LIGHTWEIGHT_TIMEOUT = 29000;
/** Default expiration of a persistent RPC: one day (the server's own 10 s would expire a command queued for an offline device at once). */
export const DEFAULT_EXPIRATION = 86400000;
/** The server caps the retries of a persistent RPC at 5 (`actors.rpc.max_retries`). */
export const MAX_RPC_RETRIES = 5;

export const RPC_STATUSES = [
  'QUEUED',
  'SENT',
  'DELIVERED',
  'SUCCESSFUL',
  'TIMEOUT',
  'EXPIRED',
  'FAILED',
  'DELETED',
] as const;
export type RpcStatus = (typeof RPC_STATUSES)[number];

/** The body of `POST /api/rpc/{oneway|twoway}/{deviceId}`. */
export interface RpcBody {
  method: string;
  params?: unknown;
  timeout: number;
  persistent?: boolean;
  expirationTime?: number;
  retries?: number;
  additionalInfo?: unknown;
}

export interface RpcRequest {
  method: string;
  mode: RpcMode;
  persistent: boolean;
  waitFor: WaitFor;
  /** The wait of a lightweight RPC (ms, as sent). */
  timeout: number;
  body: RpcBody;
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** The method name: a non-empty string. */
export function prepareMethod(s: Sourced): string {
  const v = s.value;
  if (typeof v !== 'string' || v.trim() === '') {
    fail(
      s.field,
      `${s.field} must be the RPC method's name, a non-empty string such as "setGpio" ${v === '' ? '(it is empty)' : got(v)}`,
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
  return fail(
    'msg.method',
    `msg.method is missing (and msg.topic is empty): set the RPC method's name in msg.method (e.g. "setGpio"), or in the node`,
  );
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

/** Where a command's params come from (the node's Params setting, `paramsFrom`). */
export const PARAMS_FROM = ['payload', 'json', 'none'] as const;
export type ParamsFrom = (typeof PARAMS_FROM)[number];

/**
 * The params of a command that takes none. The server would take a body without params (it passes `null` on, §13
 * 1.8), but a device's RPC handler that reads a field of its params then fails on null: an empty object is what
 * such a handler copes with, and says "no params" as plainly.
 */
export const NO_PARAMS: Readonly<Record<string, never>> = Object.freeze({});

/** The Params setting as checked at deploy: from msg.payload, or a value fixed in the node (`json`, `none`). */
export type ParamsSetting = { from: 'payload' } | { from: 'json' | 'none'; value: unknown };

/**
 * The node's Params setting (`paramsFrom`, and `params`, JSON text, for `json`): an old flow without it reads
 * msg.payload. Throws (a TbInputError naming `params` or `paramsFrom`) on a setting the node cannot use.
 */
export function prepareParamsSetting(paramsFrom: unknown, params: unknown): ParamsSetting {
  const from = paramsFrom === undefined || paramsFrom === null || paramsFrom === '' ? 'payload' : paramsFrom;
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

/** How far from now a number may be to look like an inject's timestamp (its default payload): a day. */
const TIMESTAMP_WINDOW_MS = 86400000;

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
  const mode = enumOption(r.get('mode'), RPC_MODES, 'twoway');
  const persistent = boolOption(r.get('persistent'), false);
  const timeoutS = r.get('timeout');
  const timeout = durationOption(timeoutS, DEFAULT_RPC_TIMEOUT) as number;
  if (!persistent && timeout > MAX_LIGHTWEIGHT_TIMEOUT) {
    const field = timeoutS ? timeoutS.field : 'timeout';
    fail(
      field,
      `${field} is ${timeout} ms: ThingsBoard cuts every wait at about 30 s, so a lightweight RPC may wait at most ${MAX_LIGHTWEIGHT_TIMEOUT} ms. For a longer wait, make it persistent (the answer then comes by following the RPC)`,
    );
  }
  const body: RpcBody = { method, timeout };
  if (params !== undefined) {
    jsonValue(params, paramsField);
    body.params = params;
  }
  const waitFor = enumOption(r.get('waitFor'), WAIT_FOR, 'final');
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

// ---------------------------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------------------------

/**
 * What an error answer of the send means (protocol §13.1.8): `noReply` for 504 (v2), 408 / 409 (v1), and the
 * server's 500 "Request timeout" (its 30 s cap); `badReply` for 406 (the device's reply is not JSON).
 */
export function classifyRpcAnswer(
  status: number,
  serverMessage: string | undefined,
): 'noReply' | 'badReply' | undefined {
  if (status === 504 || status === 408 || status === 409) return 'noReply';
  if (status === 500 && typeof serverMessage === 'string' && /request timeout/i.test(serverMessage)) return 'noReply';
  if (status === 406) return 'badReply';
  return undefined;
}

export function noReplyText(device: string, method: string, timeout: number, status: number): string {
  return (
    `Device ${device} did not ${status === 409 ? 'take' : 'answer'} the RPC "${method}" within ${Math.max(timeout, MIN_RPC_TIMEOUT)} ms (HTTP ${status}). ` +
    'Usual causes: the device is offline; it is connected but not subscribed to RPC; or its rule chain has no "rpc call request" node'
  );
}

export function badReplyText(device: string, method: string): string {
  return `Device ${device} replied to the RPC "${method}" with something that is not JSON (HTTP 406): a two-way reply must be valid JSON, e.g. "ok" in quotes or {"result": "ok"}`;
}

export function uncertainText(device: string, method: string, cause: string): string {
  return `The connection was lost after the RPC "${method}" to device ${device} went out: the device may or may not have run it, so it was not sent again (${cause})`;
}

// ---------------------------------------------------------------------------------------------------------------
// Persistent RPC
// ---------------------------------------------------------------------------------------------------------------

/** A persistent RPC as `GET /api/rpc/persistent/{id}` answers it (the fields used). */
export interface PersistentRpc {
  id: { entityType?: string; id: string };
  status: RpcStatus | string;
  response?: unknown;
  expirationTime?: number;
}

export function isPersistentRpc(v: unknown): v is PersistentRpc {
  return isObject(v) && isObject(v.id) && typeof v.id.id === 'string' && typeof v.status === 'string';
}

/**
 * Where a persistent RPC stands: `done` (DELIVERED for one-way, SUCCESSFUL for two-way), `failed`, `expired`, or
 * undefined while it moves on (QUEUED, SENT, DELIVERED of a two-way, TIMEOUT: a retry is coming).
 */
export function finalState(status: string, mode: RpcMode): 'done' | 'failed' | 'expired' | 'deleted' | undefined {
  switch (status) {
    case 'SUCCESSFUL':
      return 'done';
    case 'DELIVERED':
      return mode === 'oneway' ? 'done' : undefined;
    case 'FAILED':
      return 'failed';
    case 'EXPIRED':
      return 'expired';
    case 'DELETED':
      return 'deleted';
    default:
      return undefined;
  }
}

export interface FollowTiming {
  /** First wait (ms; default 1 s). */
  initialMs: number;
  /** Longest wait (ms; default 10 s). */
  maxMs: number;
  /** How long after the expiration the server is given to mark the RPC EXPIRED. */
  graceMs: number;
}

export const DEFAULT_FOLLOW: FollowTiming = { initialMs: 1000, maxMs: 10000, graceMs: 2000 };

/**
 * The wait before poll number `n` (0-based) of a persistent RPC: 1 s, 2 s, 4 s, 8 s, then 10 s, never past its
 * expiration (plus a grace for the server to mark it). Undefined: the expiration (and grace) has passed.
 */
export function followDelay(
  n: number,
  now: number,
  expirationTime: number | undefined,
  t: FollowTiming = DEFAULT_FOLLOW,
): number | undefined {
  const d = Math.min(t.maxMs, t.initialMs * Math.pow(2, Math.max(0, n)));
  if (expirationTime === undefined) return d;
  const end = expirationTime + t.graceMs;
  if (now >= end) return undefined;
  return Math.min(d, end - now);
}

/** The reason of a FAILED persistent RPC, from its response (`{"error": "…"}`, or whatever the device sent). */
export function failureReason(response: unknown): string {
  if (isObject(response) && typeof response.error === 'string') return response.error;
  if (response === undefined || response === null) return 'no reason given';
  if (typeof response === 'string') return response;
  try {
    return JSON.stringify(response);
  } catch {
    return describe(response);
  }
}

/** The reply of a SUCCESSFUL persistent two-way RPC: the stored response (a JSON value, as the device sent it). */
export function replyOf(response: unknown): unknown {
  return response === undefined ? null : response;
}
