/**
 * Server-side RPC over REST: send (lightweight one-way / two-way, or persistent), read a
 * persistent RPC, follow it to its final state, cancel (delete) it. Every request goes through
 * the Requester (auth, the retry after 401 "token expired", the 429 policy, our error classes).
 *
 * **An RPC is never sent twice.** The send goes out with `delivery: 'atMostOnce'`: on a connection of its own
 * (no kept-alive socket the server may have closed), retried only when the server certainly did not take it (a
 * 429 answer, or a connection refused before the request went out); a connection lost after it went out, or no
 * answer in time, is `TB_RPC_UNCERTAIN` (the device may or may not have run it), never a retry.
 * Nothing in here knows about Node-RED.
 */
import { TbApiError, TbError, TbNetworkError } from '../errors';
import {
  badReplyText,
  classifyRpcAnswer,
  DEFAULT_FOLLOW,
  finalState,
  followDelay,
  isPersistentRpc,
  noReplyText,
  uncertainText,
  type FollowTiming,
  type PersistentRpc,
  type RpcMode,
  type RpcRequest,
} from '../protocol/rpc';
import type { EntityId } from '../protocol/types';
import { explained, statusOf } from './explain';
import type { CallOptions, Requester } from './requester';

/** What the send answered. */
export type RpcSent =
  /** A lightweight two-way RPC: the device's reply (parsed JSON; null for an empty reply). */
  | { kind: 'reply'; reply: unknown }
  /** A lightweight one-way RPC: handed to the device's transport. */
  | { kind: 'sent' }
  /** A persistent RPC: stored, with its id. */
  | { kind: 'queued'; rpcId: string };

/** How much longer than the RPC's own wait the HTTP request may take (the server answers about 1 s after it). */
const HTTP_MARGIN_MS = 10000;

const enc = encodeURIComponent;

/** A handle to end a follower's current wait early (e.g. right after the node cancelled that RPC). */
export interface Poke {
  now?: () => void;
}

/** A wait that ends early when poked, and stops (rejecting) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined, poke: Poke | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(stopped());
      return;
    }
    const finish = (ok: boolean) => {
      clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
      if (poke) poke.now = undefined;
      if (ok) resolve();
      else reject(stopped());
    };
    const onAbort = () => finish(false);
    const t = setTimeout(() => finish(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (poke) poke.now = () => finish(true);
  });
}

function stopped(): TbError {
  return new TbError('TB_CLOSED', 'Following the RPC stopped: the node was stopped (redeploy or shutdown)');
}

export interface FollowOptions extends CallOptions {
  timing?: FollowTiming;
  /** Aborted when the node stops: no poll after that. */
  signal?: AbortSignal;
  /** Each state read (QUEUED, SENT, DELIVERED…), for the node's status. */
  onState?: (status: string) => void;
  /** Every poll goes through it (a bulk's bound on requests in flight). */
  gate?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Set while waiting: calling `poke.now()` polls at once. */
  poke?: Poke;
}

/** The end of a followed RPC: the RPC as last read; `expiredLocally` when it was still open after its expiration. */
export interface Followed {
  rpc: PersistentRpc;
  outcome: 'done' | 'failed' | 'expired' | 'deleted';
  expiredLocally?: boolean;
}

export class RpcClient {
  constructor(
    private readonly requester: Requester,
    /** The connection's own request timeout (ms), the floor of an RPC's HTTP wait. */
    private readonly requestTimeoutMs: number,
  ) {}

  /** `POST /api/rpc/{oneway|twoway}/{deviceId}`, at most once (see the module comment). */
  async send(device: EntityId, req: RpcRequest, opts?: CallOptions): Promise<RpcSent> {
    const who = `${device.entityType} ${device.id}`;
    const path = `/api/rpc/${req.mode}/${enc(device.id)}`;
    const timeoutMs = req.persistent
      ? this.requestTimeoutMs
      : Math.max(this.requestTimeoutMs, req.timeout + HTTP_MARGIN_MS);
    let body: unknown;
    try {
      body = await this.requester.request('POST', path, req.body, { ...opts, delivery: 'atMostOnce', timeoutMs });
    } catch (err) {
      throw aboutRpc(err, who, req.method, req.timeout);
    }
    if (req.persistent) {
      const id = body && typeof body === 'object' ? (body as { rpcId?: unknown }).rpcId : undefined;
      if (typeof id !== 'string')
        throw new TbError(
          'TB_BAD_RESPONSE',
          `ThingsBoard answered the persistent RPC "${req.method}" to ${who} without an rpcId`,
        );
      return { kind: 'queued', rpcId: id };
    }
    return req.mode === 'oneway' ? { kind: 'sent' } : { kind: 'reply', reply: body === undefined ? null : body };
  }

  /** `GET /api/rpc/persistent/{rpcId}`. */
  async get(rpcId: string, opts?: CallOptions): Promise<PersistentRpc> {
    const path = `/api/rpc/persistent/${enc(rpcId)}`;
    let body: unknown;
    try {
      body = await this.requester.request('GET', path, undefined, { ...opts, delivery: 'idempotent' });
    } catch (err) {
      if (statusOf(err) === 404)
        throw explained(
          err,
          `The persistent RPC ${rpcId} was not found: it was deleted (cancelled), purged, or never existed`,
        );
      if (statusOf(err) === 403)
        throw explained(err, `ThingsBoard did not allow this connection's user to read the persistent RPC ${rpcId}`);
      throw err;
    }
    if (!isPersistentRpc(body))
      throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with something that is not an RPC`);
    return body;
  }

  /** `DELETE /api/rpc/persistent/{rpcId}` (tenant administrators only). */
  async cancel(rpcId: string, opts?: CallOptions): Promise<void> {
    try {
      await this.requester.request('DELETE', `/api/rpc/persistent/${enc(rpcId)}`, undefined, opts);
    } catch (err) {
      if (statusOf(err) === 404)
        throw explained(
          err,
          `The persistent RPC ${rpcId} was not found: it was deleted already, purged, or never existed`,
        );
      if (statusOf(err) === 403)
        throw explained(
          err,
          `ThingsBoard did not allow this connection's user to cancel the persistent RPC ${rpcId} (only a tenant ` +
            'administrator may delete an RPC)',
        );
      throw err;
    }
  }

  /**
   * Follows a persistent RPC until its final state: polls 1 s, 2 s, 4 s, 8 s, then every 10 s, never past its
   * expiration (plus a grace for the server to mark it EXPIRED; still open then counts as expired). A poll that
   * fails on the way (network, 5xx, 429) is tried again at the next step; a 404 means the RPC was deleted. Stops
   * (rejecting with TB_CLOSED) as soon as `signal` aborts: nothing polls after the node stopped.
   */
  async follow(
    rpcId: string,
    mode: RpcMode,
    expirationTime: number | undefined,
    opts: FollowOptions = {},
  ): Promise<Followed> {
    const timing = opts.timing ?? DEFAULT_FOLLOW;
    let last: PersistentRpc | undefined;
    let expiration = expirationTime;
    for (let n = 0; ; n++) {
      const d = followDelay(n, Date.now(), expiration, timing);
      if (d === undefined) {
        const rpc = last ?? { id: { entityType: 'RPC', id: rpcId }, status: 'QUEUED' };
        return { rpc, outcome: 'expired', expiredLocally: true };
      }
      await sleep(d, opts.signal, opts.poke);
      if (opts.signal?.aborted) throw stopped();
      let rpc: PersistentRpc;
      try {
        const poll = () => this.get(rpcId, { onRetry: opts.onRetry });
        rpc = await (opts.gate ? opts.gate(poll) : poll());
      } catch (err) {
        if (statusOf(err) === 404)
          return { rpc: last ?? { id: { entityType: 'RPC', id: rpcId }, status: 'DELETED' }, outcome: 'deleted' };
        if (transient(err)) continue;
        throw err;
      }
      if (opts.signal?.aborted) throw stopped();
      last = rpc;
      if (typeof rpc.expirationTime === 'number' && rpc.expirationTime > 0) expiration = rpc.expirationTime;
      opts.onState?.(rpc.status);
      const f = finalState(rpc.status, mode);
      if (f) return { rpc, outcome: f };
    }
  }
}

/** A poll failure worth trying again later. */
function transient(err: unknown): boolean {
  if (err instanceof TbNetworkError) return err.code !== 'TB_CLOSED';
  if (err instanceof TbApiError) return err.status >= 500 || err.code === 'TB_RATE_LIMITED';
  return false;
}

/** The error of a failed send, in words: no reply, not JSON, not found, not permitted, or maybe run. */
function aboutRpc(err: unknown, who: string, method: string, timeout: number): unknown {
  if (err instanceof TbApiError && err.constructor === TbApiError) {
    const kind = classifyRpcAnswer(err.status, err.serverMessage);
    if (kind === 'noReply') return explained(err, noReplyText(who, method, timeout, err.status), 'TB_RPC_NO_REPLY');
    if (kind === 'badReply') return explained(err, badReplyText(who, method), 'TB_RPC_BAD_REPLY');
    const status = statusOf(err);
    if (status === 404) return explained(err, `${who} was not found: the RPC "${method}" was not sent`);
    if (status === 403)
      return explained(
        err,
        `ThingsBoard did not allow this connection's user to send the RPC "${method}" to ${who} (a customer user may ` +
          "only command its own customer's devices)",
      );
    return err;
  }
  if (err instanceof TbNetworkError && err.code !== 'TB_CLOSED' && err.maybeProcessed) {
    return new TbNetworkError('TB_RPC_UNCERTAIN', uncertainText(who, method, err.message), true);
  }
  return err;
}
