/**
 * The request core of one platform connection, the ground floor of the sub-clients (queries, look-ups, alarm
 * actions, device data, RPC): a `Requester` sends an authenticated request and gives the parsed body of a 2xx
 * answer or throws one of our errors (the Session does it: auth header, one retry after "token expired", the 429
 * policy). A sub-client needs nothing else of the client, so client.ts only composes them. Beside it, the checks
 * that every sub-client makes of an answer's shape and of a missing endpoint.
 */
import { TbApiError, TbError } from '../errors';
import type { PageData } from '../protocol/types';
import type { HttpMethod, RequestOptions } from './http';

export interface Requester {
  request(method: HttpMethod, path: string, body: unknown, opts?: RequestOptions): Promise<unknown>;
}

/** What a caller of a sub-client may add to its requests (a node shows "retrying" through it). */
export type CallOptions = Pick<RequestOptions, 'onRetry'>;

/** The server answered `path` with something else than the protocol promises. */
export function badAnswer(path: string, what: string): TbError {
  return new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with ${what}`);
}

/** An answer that passes `ok` (by default: any object), typed as the caller expects it. */
export function checkObject<T>(
  body: unknown,
  path: string,
  what = 'an object',
  ok: (b: unknown) => boolean = (b) => !!b && typeof b === 'object',
): T {
  if (!ok(body)) throw badAnswer(path, `something that is not ${what}`);
  return body as T;
}

/** A paged answer (`{data: [...], totalPages, totalElements, hasNext}`), checked to hold a list. */
export function checkPage<T>(body: unknown, path: string, what = 'a page of data'): PageData<T> {
  return checkObject<PageData<T>>(
    body,
    path,
    what,
    (b) => !!b && typeof b === 'object' && Array.isArray((b as PageData<T>).data),
  );
}

/**
 * 404 from Spring (not ThingsBoard's errorCode 32 "item not found") or 405: the server has no such endpoint (an
 * older version), so the caller falls back to the older way.
 */
export function isMissingEndpoint(err: unknown): boolean {
  if (!(err instanceof TbApiError)) return false;
  return (err.status === 404 && err.errorCode !== 32) || err.status === 405;
}
