/**
 * Server-side RPC to a device on the wire (`POST /api/rpc/{oneway|twoway}/{deviceId}`, `GET` and `DELETE
 * /api/rpc/persistent/{rpcId}`): the modes and limits, the request body, what an answer status means (no reply, a
 * reply that is not JSON), the states of a persistent RPC and when following one stops, and the texts of the RPC
 * errors. No I/O, no Node-RED.
 */

import { durationText } from './duration';
import { describe, isObject } from './validate';

export const RPC_MODES = ['oneway', 'twoway'] as const;

export type RpcMode = (typeof RPC_MODES)[number];

export const RPC_WAIT_FOR = ['accepted', 'final'] as const;

export type RpcWaitFor = (typeof RPC_WAIT_FOR)[number];

/** The server's default wait, and its floor (`min_timeout`): anything lower is raised to it. */
export const DEFAULT_RPC_TIMEOUT = 10000;

export const MIN_RPC_TIMEOUT = 5000;

/**
 * The server cuts every HTTP wait at about 30 s (`spring.mvc.async.request-timeout`): a longer wait needs persistent.
 */
export const MAX_LIGHTWEIGHT_TIMEOUT = 29000;

/**
 * Default expiration of a persistent RPC: one day (the server's own 10 s would expire a command queued for an offline
 * device at once).
 */
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
  waitFor: RpcWaitFor;
  /** The wait of a lightweight RPC (ms, as sent). */
  timeout: number;
  body: RpcBody;
}

// ---------------------------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------------------------

/**
 * What an error answer of the send means (`RpcV2Controller`, `RpcV1Controller`): `noReply` for 504 (v2), 408 / 409
 * (v1), and the server's 500 "Request timeout" (its 30 s cap); `badReply` for 406 (the device's reply is not JSON).
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
    'Check that the device is online, subscribed to RPC, and that its rule chain has an "rpc call request" node: ' +
    `${device} did not ${status === 409 ? 'take' : 'answer'} the RPC "${method}" within ` +
    `${durationText(Math.max(timeout, MIN_RPC_TIMEOUT))} (HTTP ${status})`
  );
}

export function badReplyText(device: string, method: string): string {
  return (
    `Device ${device} replied to the RPC "${method}" with something that is not JSON (HTTP 406): a two-way reply ` +
    'must be valid JSON, e.g. "ok" in quotes or {"result": "ok"}'
  );
}

export function uncertainText(device: string, method: string, cause: string): string {
  return (
    `The connection was lost after the RPC "${method}" to device ${device} went out: the device may or may not have ` +
    `run it, so it was not sent again (${cause})`
  );
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
