/**
 * WebSocket authentication: the JWT of `authCmd.token` / `?token=`, or (4.4+) `authCmd.apiKey`,
 * checked with the REST AuthService but reported with the WS handler's exception messages.
 */
import type { AuthService } from '../auth';
import { ApiError } from '../errors';
import { parseJwt } from '../jwt';
import type { Caller } from '../types';

export const WS_MSG_EXPIRED = 'JWT Token expired';
export const WS_MSG_INVALID = 'Invalid JWT token: ';
export const WS_MSG_EMPTY = 'Token is invalid';
export const WS_MSG_API_KEY_NOT_FOUND = 'User not found for the provided API key';
export const WS_MSG_API_KEY_INACTIVE = 'API key auth is not active';
export const WS_MSG_API_KEY_EXPIRED = 'API key is expired';

export class WsAuthError extends Error {}

export interface WsAuthDeps {
  auth: AuthService;
  secret: Buffer;
  now(): number;
}

/** Validates a JWT for a WebSocket session; throws WsAuthError with the server's message. */
export function wsAuthJwt(d: WsAuthDeps, token: string): Caller {
  const t = token.trim();
  if (t === '') throw new WsAuthError(WS_MSG_EMPTY);
  const r = parseJwt(t, d.secret);
  if (r.kind !== 'ok') throw new WsAuthError(WS_MSG_INVALID);
  const exp = r.claims.exp;
  if (typeof exp !== 'number' || exp * 1000 <= d.now()) throw new WsAuthError(WS_MSG_EXPIRED);
  let p;
  try {
    p = d.auth.authenticate(`Bearer ${t}`, undefined);
  } catch (e) {
    // signature and expiry are fine here, so code 11 means "expired by a hook" or a logged-out session
    if (e instanceof ApiError && e.errorCode === 11) throw new WsAuthError(WS_MSG_EXPIRED);
    throw new WsAuthError(WS_MSG_INVALID);
  }
  if (p.authority === null) throw new WsAuthError(WS_MSG_INVALID);
  return { authority: p.authority, userId: p.userId, tenantId: p.tenantId, customerId: p.customerId };
}

/** Validates an API key (authCmd.apiKey, 4.4+). */
export function wsAuthApiKey(d: WsAuthDeps, key: string): Caller {
  let p;
  try {
    p = d.auth.authenticate(undefined, `ApiKey ${key.trim()}`);
  } catch (e) {
    const m = e instanceof Error ? e.message : '';
    if (m === 'API key is expired') throw new WsAuthError(WS_MSG_API_KEY_EXPIRED);
    if (m === 'User account is not active') throw new WsAuthError(WS_MSG_API_KEY_INACTIVE);
    throw new WsAuthError(WS_MSG_API_KEY_NOT_FOUND);
  }
  if (p.authority === null) throw new WsAuthError(WS_MSG_API_KEY_NOT_FOUND);
  return { authority: p.authority, userId: p.userId, tenantId: p.tenantId, customerId: p.customerId };
}
